"""`make generate`: the files that repeat the registry (evaluate scripts, card option tables, the README's table,
setup.cfg's import contracts, `gecscore.__all__`) are current, and the check fails when one is not."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gecscore import generate, registry

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("path", sorted(str(p.relative_to(REPO)) for p in generate.targets(REPO)))
def test_generated_file_is_current(path):
    assert REPO / path not in generate.outdated_paths(REPO, [REPO / path]), f"{path} is out of date: run `make generate`"


@pytest.fixture
def copy(tmp_path):
    """The generated files of the repository, copied under a temporary root."""
    for path in generate.targets(REPO):
        target = tmp_path / path.relative_to(REPO)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    return tmp_path


def test_check_names_a_hand_edited_script_and_generate_restores_it(copy, capsys):
    script = copy / "metrics" / "gleu" / "gleu.py"
    original = script.read_text(encoding="utf-8")
    script.write_text(original.replace('iterations=500', 'iterations=400'), encoding="utf-8")
    assert generate.main(["--root", str(copy), "--check"]) == 1
    assert "metrics/gleu/gleu.py" in capsys.readouterr().err
    assert generate.main(["--root", str(copy)]) == 0
    assert script.read_text(encoding="utf-8") == original
    assert generate.main(["--root", str(copy), "--check"]) == 0


def test_a_metric_left_out_of_the_import_contracts_is_put_back(copy):
    setup_cfg = copy / "setup.cfg"
    text = setup_cfg.read_text(encoding="utf-8")
    dropped = text.replace("    gecscore.green.*\n", "").replace(" | gecscore.green |", " |")
    assert dropped != text and "gecscore.green" not in dropped.split("[importlinter]")[1]
    setup_cfg.write_text(dropped, encoding="utf-8")
    assert generate.outdated(copy) == [setup_cfg]
    assert generate.import_contracts(dropped) == text


def test_a_metric_left_out_of_the_public_names_is_put_back(copy):
    init = copy / "shared" / "gecscore" / "__init__.py"
    text = init.read_text(encoding="utf-8")
    dropped = text.replace(' "green",', "")
    assert dropped != text
    init.write_text(dropped, encoding="utf-8")
    assert generate.outdated(copy) == [init]
    assert generate.package_all(dropped) == text
    import gecscore

    assert set(registry.METRIC_PACKAGES) <= set(gecscore.__all__)


def test_a_script_is_written_from_its_spec():
    for name, spec in registry.SPECS.items():
        text = generate.script(name)
        compile(text, f"{name}.py", "exec")
        assert f"class {generate.class_name(name)}(GECMetric):" in text and f'NAME = "{name}"' in text
        assert spec.script is not None and spec.script.citation in text.replace("\\\\", "\\")
