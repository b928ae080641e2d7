"""Run the code blocks of README.md and docs/usage.md that are marked with a `<!-- test -->` line.

Blocks run from a scratch directory laid out like the checkout (`metrics/`, `../shared`), each in a fresh
namespace named `__main__`. ```python blocks are executed; each line of a ```bash block must be a `gecscore ...`
command (continuation lines with `\\`) and is run through `gecscore.cli.main`. Where a block uses names it does not
define, the test provides them: `model`, `tokenizer`, `train_dataset`, `eval_dataset` (a tiny random BART and a
toy data set) for Trainer blocks; `evaluate.load("exact_match")` gets a local stand-in (the Hub is offline).
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from conftest import REPO, SHARED
from ecosystem_helpers import write_exact_match

MARK = "<!-- test -->"
DOCUMENTS = (REPO / "README.md", REPO / "docs" / "usage.md")


def marked_blocks(path: Path) -> list[tuple[int, str, str]]:
    """`(line, language, code)` of every fenced block whose opening line follows a `<!-- test -->` line."""
    lines = path.read_text(encoding="utf-8").split("\n") if path.is_file() else []
    blocks = []
    for i, line in enumerate(lines):
        if line.strip() != MARK:
            continue
        start = i + 1
        while start < len(lines) and not lines[start].strip():
            start += 1
        if start == len(lines) or not lines[start].startswith("```"):
            raise ValueError(f"{path.name}:{i + 1}: {MARK} is not followed by a fenced code block")
        end = next((j for j in range(start + 1, len(lines)) if lines[j].startswith("```")), None)
        if end is None:
            raise ValueError(f"{path.name}:{start + 1}: the code block is not closed")
        blocks.append((start + 1, lines[start][3:].strip(), "\n".join(lines[start + 1:end])))
    return blocks


def _params() -> list:
    params = []
    for path in DOCUMENTS:
        for line, language, code in marked_blocks(path):
            marks = []
            if "minilm" in code or '"embedded"' in code:
                marks.append(pytest.mark.real_model)
            if language == "bash":
                marks.append(pytest.mark.slow)
            params.append(pytest.param(language, code, id=f"{path.name}:{line}", marks=marks))
    return params


@pytest.fixture()
def workdir(tmp_path, monkeypatch, shared_data):
    """A scratch checkout: `work/metrics` → the repository's, `shared` → the handouts; cwd = `work`."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "metrics").symlink_to(REPO / "metrics")
    (tmp_path / "shared").symlink_to(SHARED)
    monkeypatch.chdir(work)
    return work


def _stand_in_exact_match(monkeypatch, tmp_path: Path) -> None:
    import evaluate

    directory = write_exact_match(tmp_path)
    load = evaluate.load
    monkeypatch.setattr(evaluate, "load", lambda path, *args, **kwargs: load(
        str(directory) if path == "exact_match" else path, *args, **kwargs))


def _trainer_names(tmp_path: Path) -> dict:
    pytest.importorskip("accelerate", reason="transformers' Trainer needs accelerate")
    from ecosystem_helpers import tiny_seq2seq, toy_dataset

    model, tokenizer = tiny_seq2seq(tmp_path / "tiny-bart")
    data = toy_dataset(tokenizer)
    return {"model": model, "tokenizer": tokenizer, "train_dataset": data, "eval_dataset": data}


def _commands(code: str) -> list[list[str]]:
    commands = [line.strip() for line in code.replace("\\\n", " ").split("\n") if line.strip()]
    for command in commands:
        if not command.startswith("gecscore "):
            raise ValueError(f"only `gecscore ...` commands can run here, got {command!r}")
    return [shlex.split(command)[1:] for command in commands]


@pytest.mark.parametrize(("language", "code"), _params())
def test_marked_block_runs(language, code, workdir, tmp_path, monkeypatch, capsys):
    if language == "bash":
        from gecscore.cli import main

        for argv in _commands(code):
            assert main(argv) == 0, capsys.readouterr().err
        return
    assert language == "python", f"unsupported block language {language!r}"
    namespace: dict = {"__name__": "__main__"}
    if 'evaluate.load("exact_match")' in code:
        _stand_in_exact_match(monkeypatch, tmp_path)
    if "Seq2SeqTrainer" in code:
        namespace.update(_trainer_names(tmp_path))
    exec(compile(code, "<snippet>", "exec"), namespace)
    assert capsys.readouterr().out.strip(), "the block printed nothing"


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda path: path.name)
def test_every_use_has_a_marked_block(path):
    text = "\n".join(code for _, _, code in marked_blocks(path))
    for needle in ("gecscore score", "seq2seq_compute_metrics", "combine(", "num_process", "paired_bootstrap"):
        assert needle in text, f"{path.name} has no executed block with {needle!r}"


def test_marker_must_precede_a_block(tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text(f"{MARK}\ntext\n\n{MARK}\n\n```python\nprint(1)\n```\n")
    with pytest.raises(ValueError, match="doc.md:1"):
        marked_blocks(doc)
    doc.write_text(f"x\n{MARK}\n```python\nprint(1)\n```\n")
    assert marked_blocks(doc) == [(3, "python", "print(1)")]

