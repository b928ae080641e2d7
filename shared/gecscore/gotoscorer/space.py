"""What the GoToScorer Space shows of a result: pure functions of the evaluate result (`SPEC.space`)."""

from __future__ import annotations

from typing import Any, Mapping

from gecscore.common.results import markdown_table

CHUNK_COLUMNS = ("source span", "reference", "type", "weight", "outcome")


def sentence_view(source: str, out: Mapping[str, Any]) -> str:
    """F-beta, precision and recall, then every reference chunk: the source span it covers, the reference's text,
    its type, weight and outcome (∅ for an empty span or text)."""
    sentence = out["sentence_scores"][0]
    f_key = next(key for key in sentence if key.startswith("f"))
    scores = markdown_table([f_key, "precision", "recall"],
                            [[float(sentence[k]) for k in (f_key, "precision", "recall")]])
    tokens = source.split(" ")
    chunks = [[" ".join(tokens[start:end]) or "∅", correction or "∅", "" if kind == "DUMMY:DUMMY" else kind,
               float(weight), outcome] for start, end, correction, kind, weight, outcome in sentence["chunks"]]
    return (f"{scores}\n\nScored against reference {sentence['reference']}.\n\n#### Reference chunks\n\n"
            f"{markdown_table(CHUNK_COLUMNS, chunks)}")


def corpus_row(entry: Mapping[str, Any]) -> dict[str, Any]:
    """A sentence's F-beta and its chunk counts."""
    return {"score": entry["score"], **entry["statistics"]}
