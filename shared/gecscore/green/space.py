"""What the GREEN Space shows of a result: pure functions of the evaluate result (`SPEC.space`)."""

from __future__ import annotations

from typing import Any, Mapping

from gecscore.common.results import markdown_table

ORDER_COLUMNS = ("order", "true", "false", "missed", "precision", "recall")


def sentence_view(source: str, out: Mapping[str, Any]) -> str:
    """The scores, the reference chosen, and the counts, precision and recall of each n-gram order."""
    sentence = out["sentences"][0]
    scores = markdown_table(["GREEN", "precision", "recall"],
                            [[float(out["green"]), float(out["precision"]), float(out["recall"])]])
    orders = markdown_table(["n", *ORDER_COLUMNS[1:]], [[o[k] for k in ORDER_COLUMNS] for o in out["per_order"]])
    return (f"{scores}\n\nScored against reference {sentence['reference']} of {len(sentence['per_reference'])}."
            f"\n\n{orders}")


def corpus_row(entry: Mapping[str, Any]) -> dict[str, Any]:
    """A sentence's GREEN and the reference it was scored against."""
    return {"green": entry["score"], "reference": entry["reference"]}
