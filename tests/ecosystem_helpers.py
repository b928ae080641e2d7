"""Helpers of the ecosystem tests: a tiny random BART with a toy GEC data set, a tiny random causal LM (a GRPO
policy), a stand-in standard metric, and two CPU ranks under torchrun."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO, build_tiny_model

SOURCES = ["he go to school yesterday .", "i has a apple .", "she buyed some apples .", "the cat are here .",
           "they was at school .", "he have a dog ."]
TARGETS = ["he went to school yesterday .", "i have an apple .", "she bought some apples .", "the cat is here .",
           "they were at school .", "he has a dog ."]


def tiny_seq2seq(directory: Path, seed: int = 0) -> tuple[Any, Any]:
    """A 1-layer random `BartForConditionalGeneration` and its tokenizer (generation capped at 12 new tokens).

    The WordPiece decoder keeps the spaces ("school ."), so decoded text stays tokenised, as a GEC model's
    byte-level BPE keeps them.
    """
    import torch
    import transformers
    from tokenizers import decoders

    tokenizer = transformers.AutoTokenizer.from_pretrained(build_tiny_model(directory / "tokenizer", "bert"))
    tokenizer.backend_tokenizer.decoder = decoders.WordPiece(cleanup=False)
    config = transformers.BartConfig(
        vocab_size=len(tokenizer), d_model=32, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
        decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=64,
        pad_token_id=tokenizer.pad_token_id, bos_token_id=tokenizer.cls_token_id,
        eos_token_id=tokenizer.sep_token_id, decoder_start_token_id=tokenizer.cls_token_id, forced_eos_token_id=None,
    )
    torch.manual_seed(seed)
    model = transformers.BartForConditionalGeneration(config)
    model.generation_config.max_length = None
    model.generation_config.max_new_tokens = 12
    return model, tokenizer


def tiny_causal_lm(directory: Path, seed: int = 0) -> Path:
    """A folder with a 2-layer random GPT-2 and a WordPiece tokenizer ([CLS] begins, [SEP] ends): a policy for the
    GRPO tests, in the place of a real one such as Qwen/Qwen2.5-0.5B-Instruct."""
    import torch
    import transformers

    path = build_tiny_model(directory, "bert")  # its tokenizer; the model is replaced by a causal LM
    tokenizer = transformers.AutoTokenizer.from_pretrained(path)
    tokenizer.eos_token, tokenizer.bos_token = "[SEP]", "[CLS]"
    tokenizer.save_pretrained(path)
    torch.manual_seed(seed)
    transformers.GPT2LMHeadModel(transformers.GPT2Config(
        vocab_size=len(tokenizer), n_embd=32, n_layer=2, n_head=2, n_positions=128, bos_token_id=tokenizer.cls_token_id,
        eos_token_id=tokenizer.sep_token_id, pad_token_id=tokenizer.pad_token_id)).save_pretrained(path)
    return path


def toy_dataset(tokenizer: Any) -> Any:
    """`SOURCES` → `TARGETS` tokenised as `input_ids` / `labels`."""
    import datasets

    def encode(batch: dict) -> dict:
        out = tokenizer(batch["source"], truncation=True, max_length=32)
        out["labels"] = tokenizer(text_target=batch["target"], truncation=True, max_length=32)["input_ids"]
        return out

    return datasets.Dataset.from_dict({"source": SOURCES, "target": TARGETS}).map(
        encode, batched=True, remove_columns=["source", "target"])


EXACT_MATCH = textwrap.dedent('''
    import datasets
    import evaluate


    class ExactMatch(evaluate.Metric):
        """A stand-in for the Hub's exact_match: explicit `_compute`, no `sources`, no options."""

        def _info(self):
            return evaluate.MetricInfo(
                description="exact match", citation="", inputs_description="",
                features=datasets.Features({"predictions": datasets.Value("string"),
                                            "references": datasets.Value("string")}))

        def _compute(self, predictions, references):
            return {"exact_match": sum(p == r for p, r in zip(predictions, references)) / len(predictions)}
''')


def write_exact_match(directory: Path) -> Path:
    """`directory/exact_match/exact_match.py`: a local standard-style metric (the Hub is offline in tests)."""
    path = directory / "exact_match"
    path.mkdir()
    (path / "exact_match.py").write_text(EXACT_MATCH)
    return path


def run_torchrun(script: Path, arguments: list[str], cwd: Path, timeout: int = 480) -> str:
    """Run `script` on two CPU ranks (`torchrun --standalone --nproc_per_node=2`, one thread each, tests/ on the
    path) and return its log; the whole process group is killed on a timeout or when the test is interrupted."""
    torchrun = Path(sys.executable).with_name("torchrun")
    if not torchrun.exists():
        pytest.skip("torchrun is not installed beside this Python")
    env = {**os.environ, "OMP_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false",
           "PYTHONPATH": os.pathsep.join([str(REPO / "tests"), os.environ.get("PYTHONPATH", "")])}
    command = [str(torchrun), "--standalone", "--nproc_per_node=2", str(script), *arguments]
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, start_new_session=True)  # its own process group: killed as a whole
    try:
        log, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        log, _ = process.communicate()
        pytest.fail(f"torchrun did not finish in {timeout} s:\n{log[-6000:]}")
    finally:
        if process.poll() is None:  # the test itself was interrupted (pytest-timeout, Ctrl-C)
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert process.returncode == 0, log[-6000:]
    return log
