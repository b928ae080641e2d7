"""Start-up stays light: paths that need no model import no torch, transformers, evaluate, datasets or spaCy, and
the ERRANT path pays only for spaCy (which brings torch through thinc). Checked with `python -X importtime`; the
times themselves are measured in benchmarks, not here."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = {"torch", "transformers", "evaluate", "datasets", "spacy", "ot"}


def imported_modules(*args: str) -> set[str]:
    """Modules a fresh interpreter imports running `args` (as `python -X importtime ARGS`)."""
    done = subprocess.run([sys.executable, "-X", "importtime", *args], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}


def imported(*args: str) -> set[str]:
    """Top-level packages a fresh interpreter imports running `args`."""
    return {name.split(".")[0] for name in imported_modules(*args)}


def test_import_gecscore_loads_nothing_heavy():
    assert not imported("-c", "import gecscore; import gecscore.registry") & HEAVY


def test_cli_help_loads_nothing_heavy():
    assert not imported("-m", "gecscore.cli", "score", "--help") & HEAVY


@pytest.mark.real_model
def test_m2_from_a_gold_m2_loads_nothing_heavy_and_errant_only_spacy(shared_data):
    data = shared_data / "CoNLL-2014" / "PT-M2" / "data"
    files = ["--gold-m2", str(data / "reference.m2"), "--predictions", str(data / "hypothesis")]
    assert not imported("-m", "gecscore.cli", "score", "m2", *files) & HEAVY
    errant = imported("-m", "gecscore.cli", "score", "errant", *files)
    assert "spacy" in errant and not errant & {"transformers", "evaluate", "datasets", "ot"}


@pytest.mark.parametrize("variant", ["cleme2", "cleme"])
def test_unweighted_cleme_from_m2_files_loads_nothing_heavy(shared_data, variant):
    examples = shared_data / "CoNLL-2014" / "CLEME" / "demo" / "examples"
    files = ["--hyp-m2", str(examples / "conll14-AMU.errant"), "--gold-m2", str(examples / "conll14.errant")]
    loaded = imported("-m", "gecscore.cli", "score", "cleme2", "--variant", variant, "--weighting", "none", *files)
    assert not loaded & HEAVY


def test_a_command_registers_only_its_own_subparser():
    # meta-eval's registration imports its data tables; `score` must not pay for them
    assert "gecscore.meta_eval" not in imported_modules("-m", "gecscore.cli", "score", "--help")
    assert "gecscore.meta_eval" in imported_modules("-m", "gecscore.cli", "--help")


def test_gleu_on_tokenised_text_imports_no_scipy(tmp_path):
    """GLEU's interval is the official script's scipy normal interval written out (issue 41: `import scipy.stats`
    was half of a one-system run)."""
    for name, text in {"src": "he go to school .", "hyp": "he goes to school .", "ref": "he went to school ."}.items():
        (tmp_path / f"{name}.txt").write_text(text + "\n")
    loaded = imported("-m", "gecscore.cli", "score", "gleu", "--sources", str(tmp_path / "src.txt"),
                      "--predictions", str(tmp_path / "hyp.txt"), "--references", str(tmp_path / "ref.txt"))
    assert "scipy" not in loaded and not loaded & HEAVY
