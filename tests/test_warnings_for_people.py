"""Warnings for people: one per run, grouped by reason with each system named, attributed to the user's call."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import warnings
from pathlib import Path

from gecscore import registry
from gecscore.common.results import DegenerateOutputWarning

SOURCES = ["He go to school .", "I has a apple .", "She like cats ."]
REFERENCES = [["He goes to school ."], ["I have an apple ."], ["She likes cats ."]]


def _caught(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [w for w in caught if issubclass(w.category, DegenerateOutputWarning)]


def test_one_warning_per_run_names_every_system_by_reason():
    systems = {"A": ["", "I has a apple .", ""], "B": ["He goes to school .", "", "She likes cats ."]}
    caught = _caught(lambda: registry.run_systems("errant", SOURCES, systems, REFERENCES))
    assert len(caught) == 1
    text = str(caught[0].message)
    assert "empty prediction: A 2 [0, 2], B 1 [1]" in text and "0-based" in text


def test_a_one_system_run_does_not_name_it():
    caught = _caught(lambda: registry.run("errant", SOURCES, ["", "I has a apple .", "x"], REFERENCES))
    assert len(caught) == 1 and "empty prediction: 1 [0]" in str(caught[0].message)


def test_warning_points_at_the_callers_line():
    caught = _caught(lambda: registry.run("errant", SOURCES, ["", "I has a apple .", "x"], REFERENCES))
    assert Path(caught[0].filename).resolve() == Path(__file__).resolve()


def test_the_executable_prints_warnings_without_our_file_and_line(tmp_path):
    files = {}
    for name, lines in {"src": SOURCES, "hyp": ["", "I has a apple .", "x"],
                        "ref": [r[0] for r in REFERENCES]}.items():
        files[name] = tmp_path / f"{name}.txt"
        files[name].write_text("\n".join(lines) + "\n", encoding="utf-8")
    code = "import sys; from gecscore.cli import console; sys.exit(console())"
    done = subprocess.run([sys.executable, "-c", code, "score", "errant", "--sources", str(files["src"]),
                           "--predictions", str(files["hyp"]), "--references", str(files["ref"])],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "gecscore: warning: ERRANT: degenerate sentences (0-based indices) — empty prediction: 1 [0]" in done.stderr
    assert ".py:" not in done.stderr
    assert "`--sentences FILE` lists every one" in done.stderr and "pass -o robust=true" in done.stderr


def test_presets_are_named_as_asked_in_signatures_and_warnings():
    for name, title in (("errant", "ERRANT"), ("m2", "M²"), ("senterrant", "SentERRANT")):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = registry.run(name, SOURCES, ["", "I has a apple .", "x"], REFERENCES)
        assert result.signature.startswith(f"{name}|gecscore:")
        assert any(str(w.message).startswith(f"{title}: degenerate") for w in caught)
    assert registry.run("uot_errant", SOURCES, SOURCES, REFERENCES, variant="errant").signature.startswith(
        "uot_errant|")


def test_meta_evaluation_warnings_name_the_system(shared_data):
    from gecscore.meta_eval import get_metric, load_dataset, meta_evaluate

    data = load_dataset("seeda", str(shared_data), references="official")
    first = data.system_set("base")[0]
    emptied = ["" if i < 3 else h for i, h in enumerate(data.hypotheses[first])]
    data = dataclasses.replace(data, hypotheses={**data.hypotheses, first: emptied})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        meta_evaluate(get_metric("errant"), data, system_set="base", aggregation="default", window=None)
    messages = [str(w.message) for w in caught if issubclass(w.category, DegenerateOutputWarning)]
    assert messages and all(m.startswith("seeda system ") for m in messages)
    assert any(m.startswith(f"seeda system {first}: ERRANT: degenerate") for m in messages), messages
    assert all(Path(w.filename).resolve() == Path(__file__).resolve() for w in caught
               if issubclass(w.category, DegenerateOutputWarning))
