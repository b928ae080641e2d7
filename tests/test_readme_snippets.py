"""Run the code of README.md, docs/usage.md, docs/training.md and the metric cards (`metrics/*/README.md`) as a user
would, offline.

Every ```python block runs; no block is skipped (a block that could not run offline is rewritten until it can).
Blocks run from a scratch directory laid out like the checkout (`metrics/`, `../shared`) with the Hub, evaluate and
transformers offline. A README/usage block runs alone in a fresh namespace named `__main__` and must print something;
a card's blocks are its doctests, run in order in one namespace (later examples use the modules loaded earlier).
A ```bash block runs only where a `<!-- test -->` line precedes it; each of its lines must be a `gecscore ...`
command (continuation lines with `\\`) and is run through `gecscore.cli.main`. Where a Trainer block uses names it
does not define (`model`, `tokenizer`, `train_dataset`, `eval_dataset`: "your model and data"), the test provides a
tiny random BART and a toy data set; where a GRPO block does (`policy`: "your model", e.g. Qwen2.5-0.5B-Instruct), a
tiny random causal LM's folder.
"""

from __future__ import annotations

import doctest
import shlex
from pathlib import Path

import pytest

from conftest import REPO, SHARED

MARK = "<!-- test -->"
#: The documents whose uses must each have an executed block; DOCUMENTS also holds the training guide.
USES = (REPO / "README.md", REPO / "docs" / "usage.md")
DOCUMENTS = (*USES, REPO / "docs" / "training.md", REPO / "docs" / "other-languages.md")
CARDS = tuple(sorted((REPO / "metrics").glob("*/README.md")))
OFFLINE = ("HF_HUB_OFFLINE", "HF_EVALUATE_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE")


def code_blocks(path: Path) -> list[tuple[int, str, str, bool]]:
    """`(line, language, code, marked)` of every fenced block; `marked`: a `<!-- test -->` line precedes it."""
    lines = path.read_text(encoding="utf-8").split("\n")
    blocks, i = [], 0
    while i < len(lines):
        if not lines[i].startswith("```"):
            if lines[i].lstrip().startswith("```"):
                raise ValueError(f"{path.name}:{i + 1}: an indented code block would not run; start it at column 0")
            if lines[i].strip() == MARK and not any(line.startswith("```") for line in lines[i + 1:i + 3]):
                raise ValueError(f"{path.name}:{i + 1}: {MARK} is not followed by a fenced code block")
            i += 1
            continue
        end = next((j for j in range(i + 1, len(lines)) if lines[j].startswith("```")), None)
        if end is None:
            raise ValueError(f"{path.name}:{i + 1}: the code block is not closed")
        previous = next((line.strip() for line in reversed(lines[:i]) if line.strip()), "")
        blocks.append((i + 1, lines[i][3:].strip(), "\n".join(lines[i + 1:end]), previous == MARK))
        i = end + 1
    return blocks


def _marks(code: str, language: str) -> list:
    marks = [pytest.mark.real_model] if "minilm" in code or '"embedded"' in code else []
    return marks + [pytest.mark.slow] if language == "bash" else marks


def _params() -> list:
    return [pytest.param(language, code, id=f"{path.name}:{line}", marks=_marks(code, language))
            for path in DOCUMENTS for line, language, code, marked in code_blocks(path)
            if language == "python" or (language == "bash" and marked)]


def card_code(path: Path) -> list[tuple[int, str]]:
    """`(line, code)` of a card's ```python blocks."""
    return [(line, code) for line, language, code, _ in code_blocks(path) if language == "python"]


@pytest.fixture()
def workdir(tmp_path, monkeypatch, shared_data):
    """A scratch checkout: `work/metrics` → the repository's, `shared` → the handouts; cwd = `work`; offline."""
    import evaluate.config
    import huggingface_hub.constants

    assert evaluate.config.HF_EVALUATE_OFFLINE and huggingface_hub.constants.HF_HUB_OFFLINE, "tests must run offline"
    for name in OFFLINE:
        monkeypatch.setenv(name, "1")
    work = tmp_path / "work"
    work.mkdir()
    (work / "metrics").symlink_to(REPO / "metrics")
    (tmp_path / "shared").symlink_to(SHARED)
    monkeypatch.chdir(work)
    return work


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
def test_block_runs(language, code, workdir, tmp_path, capsys):
    if language == "bash":
        from gecscore.cli import main

        for argv in _commands(code):
            assert main(argv) == 0, capsys.readouterr().err
        return
    namespace: dict = {"__name__": "__main__"}
    if "Seq2SeqTrainer" in code:
        namespace.update(_trainer_names(tmp_path))
    if "GRPOTrainer" in code:
        from ecosystem_helpers import tiny_causal_lm

        namespace["policy"] = str(tiny_causal_lm(tmp_path / "policy"))
    exec(compile(code, "<snippet>", "exec"), namespace)
    assert capsys.readouterr().out.strip(), "the block printed nothing"


@pytest.mark.parametrize("card", [pytest.param(card, id=card.parent.name,
                                               marks=_marks("\n".join(code for _, code in card_code(card)), "python"))
                                  for card in CARDS])
def test_card_examples_run(card, workdir):
    blocks = card_code(card)
    assert blocks, f"{card.parent.name}'s card has no ```python example"
    globs: dict = {"__name__": "__main__"}
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for line, code in blocks:
        test = doctest.DocTestParser().get_doctest(code, globs, f"{card.parent.name}:{line}", str(card), line)
        assert test.examples, f"{card.parent.name}/README.md:{line}: a card's block must be doctest examples (>>>)"
        runner.run(test, clear_globs=False)
        globs = test.globs
    assert runner.failures == 0, f"{runner.failures} example(s) of {card.parent.name}'s card failed (output above)"


@pytest.mark.parametrize("path", USES, ids=lambda path: path.name)
def test_every_use_has_an_executed_block(path):
    text = "\n".join(code for _, language, code, marked in code_blocks(path) if language == "python" or marked)
    for needle in ("gecscore score", "seq2seq_compute_metrics", "combine(", "num_process", "paired_bootstrap"):
        assert needle in text, f"{path.name} has no executed block with {needle!r}"


def test_the_training_card_command_reads_the_layout_it_documents(shared_data):
    """The card's `git clone` lines make the `--data-dir` its `train-impara` command reads; the handouts' data folder
    holds the same repositories' files unchanged, so the command's corpora load from it."""
    from gecscore.cli import build_parser
    from gecscore.training import load_corpora

    card = REPO / "metrics" / "impara_ged" / "README.md"
    block = next(code for _, language, code, _ in code_blocks(card) if language == "bash" and "train-impara" in code)
    lines = [line.split("#")[0].strip() for line in block.replace("\\\n", " ").split("\n")]
    clones = [shlex.split(line)[-1] for line in lines if line.startswith("git clone ")]
    command = next(shlex.split(line)[1:] for line in lines if line.startswith("gecscore train-impara "))
    args = build_parser("train-impara").parse_args(command)
    assert sorted(clones) == [f"{args.data_dir}/CWEB", f"{args.data_dir}/JFLEG"]
    train, dev = load_corpora(args.train, shared_data), load_corpora(args.dev, shared_data)
    assert f"over these {len(train):,} sentences" in card.read_text(encoding="utf-8") and dev


def test_blocks_are_found_and_misplaced_ones_refused(tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text(f"{MARK}\ntext\n\n{MARK}\n\n```python\nprint(1)\n```\n")
    with pytest.raises(ValueError, match="doc.md:1"):
        code_blocks(doc)
    doc.write_text(f"x\n{MARK}\n```bash\ngecscore --help\n```\n\n```python\nprint(1)\n```\n")
    assert code_blocks(doc) == [(3, "bash", "gecscore --help", True), (7, "python", "print(1)", False)]
    doc.write_text("* item\n\n  ```python\n  print(1)\n  ```\n")
    with pytest.raises(ValueError, match="doc.md:3: an indented code block"):
        code_blocks(doc)
