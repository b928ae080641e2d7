"""What the GLEU Space shows of a result: pure functions of the evaluate result (`SPEC.space`)."""

from __future__ import annotations

from typing import Any, Mapping

from gecscore.common.results import markdown_table


def sentence_view(source: str, out: Mapping[str, Any]) -> str:
    """SentGLEU of the one sentence beside the corpus GLEU (the mean over draws) and its spread."""
    return markdown_table(["SentGLEU", "corpus GLEU (mean of draws)", "std"],
                          [[float(out["sentences"][0]["score"]), float(out["gleu"]), float(out["std"])]])


def corpus_row(entry: Mapping[str, Any]) -> dict[str, float]:
    """A sentence's SentGLEU and the spread of its per-reference values."""
    return {"sentgleu": entry["score"], "std": entry["std"]}
