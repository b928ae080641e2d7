"""One meaning per name: a registry name means the same computation in the registry, the CLI, the evaluate config
names and the signature; PT-M2's BERTScore-weighted variants whose bare names are registry names of plain metrics
(`m2`, `sentm2`, `senterrant`, `errant`) are its configs `pt-m2`, ...; a clash is refused, never silently
overridden."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import evaluate
import pytest

from gecscore import registry
from gecscore.cli import main

METRICS = Path(__file__).resolve().parent.parent / "metrics"
SOURCES = ["He go to school yesterday .", "I has a apple ."]
PREDICTIONS = ["He goes to school yesterday .", "I have a apple ."]
REFERENCES = [["He went to school yesterday ."], ["I have an apple ."]]


def _cli(tmp_path, capsys, *args):
    files = []
    for name, lines in (("src", SOURCES), ("hyp", PREDICTIONS), ("ref", [r[0] for r in REFERENCES])):
        path = tmp_path / f"{name}.txt"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        files.append(str(path))
    code = main(["score", *args, "--sources", files[0], "--predictions", files[1], "--references", files[2],
                 "--format", "json"])
    assert code == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("name", ["m2", "sentm2", "senterrant"])
def test_a_preset_name_is_one_computation_everywhere(name, tmp_path, capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        direct = registry.run(name, SOURCES, PREDICTIONS, REFERENCES)
        module = evaluate.load(str(METRICS / "pt_m2"), name).compute(sources=SOURCES, predictions=PREDICTIONS,
                                                                      references=REFERENCES)
    shell = _cli(tmp_path, capsys, name)
    assert direct.score == module["f0.5"] == shell["f0.5"]
    assert direct.signature.startswith(f"{name}|") and module["signature"] == direct.signature
    assert shell["signature"].startswith(f"{name}|")


def test_the_weighted_variant_is_a_prefixed_config(tiny_bert, tmp_path, capsys):
    options = {"model": str(tiny_bert), "layer": 2}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        direct = registry.run("pt_m2", SOURCES, PREDICTIONS, REFERENCES, variant="senterrant", **options)
        module = evaluate.load(str(METRICS / "pt_m2"), "pt-senterrant", **options).compute(
            sources=SOURCES, predictions=PREDICTIONS, references=REFERENCES)
    shell = _cli(tmp_path, capsys, "pt_m2", "-o", "variant=senterrant", "-o", f"model={tiny_bert}", "-o", "layer=2")
    assert direct.score == module["f0.5"] == shell["f0.5"]
    assert "variant:senterrant|scorer:bertscore" in module["signature"] and module["signature"].startswith("pt_m2|")


def test_names_of_other_computations_are_refused_with_the_way_to_them():
    with pytest.raises(ValueError, match="'errant' is the registry's ERRANT.*metrics/uot_errant.*'pt-errant'"):
        evaluate.load(str(METRICS / "pt_m2"), "errant")
    with pytest.raises(ValueError, match="config 'm2' fixes .*'scorer': 'self'.*got {'scorer': 'bertscore'}"):
        evaluate.load(str(METRICS / "pt_m2"), "m2", scorer="bertscore")
    module = evaluate.load(str(METRICS / "pt_m2"), "m2")
    with pytest.raises(ValueError, match="fixes"):
        module.compute(sources=SOURCES, predictions=PREDICTIONS, references=REFERENCES, variant="sentm2")


def test_every_metric_keeps_its_variant_configs():
    assert registry.config_names("uot_errant")["errant"] == {"variant": "errant"}
    assert registry.config_names("cleme2")["cleme"] == {"variant": "cleme"}
    assert set(registry.config_names("pt_m2")) == {"m2", "sentm2", "senterrant", "pt-m2", "pt-sentm2",
                                                   "pt-errant", "pt-senterrant"}
