"""Result presentation shared by the Spaces: score summaries, the per-sentence table and the JSON download."""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import Any, Mapping, Sequence

import pandas as pd

from gecscore.common.results import markdown_table
from gecscore.spaces.messages import ok_box

_DOWNLOADS: Path | None = None


def number(value: Any) -> Any:
    """A float rounded for display (4 decimals); anything else unchanged."""
    return round(float(value), 4) if isinstance(value, float) else value


def scores_markdown(values: Mapping[str, Any], keys: Sequence[str], labels: Mapping[str, str] | None = None) -> str:
    """A one-row Markdown table of the given scores."""
    labels = labels or {}
    return markdown_table([labels.get(k, k) for k in keys], [[float(values[k]) for k in keys]])


def headline(result: Mapping[str, Any], drop: Sequence[str]) -> dict[str, Any]:
    """The corpus-level part of a result (per-sentence lists and explanations left out)."""
    return {k: v for k, v in result.items() if k not in drop}


def sentence_table(rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """The per-sentence table (one dict per sentence, same keys; floats rounded for display)."""
    return pd.DataFrame([{k: number(v) for k, v in row.items()} for row in rows])


def _downloads() -> Path:
    global _DOWNLOADS
    if _DOWNLOADS is None:
        _DOWNLOADS = Path(tempfile.mkdtemp(prefix="gecscore-space-"))
    return _DOWNLOADS


def json_download(metric: str, payload: Mapping[str, Any]) -> str:
    """Write `payload` to a fresh JSON file named for the metric and return its path."""
    folder = Path(tempfile.mkdtemp(dir=_downloads()))
    path = folder / f"{re.sub(r'[^A-Za-z0-9_-]', '_', metric)}_scores.json"
    path.write_text(json.dumps(payload, indent=2, ensure_ascii=False, default=_plain), encoding="utf-8")
    return str(path)


def _plain(value: Any) -> Any:
    """JSON fallback for numpy scalars and arrays."""
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"cannot write {type(value).__name__} as JSON")


def corpus_outputs(metric: str, sources: Sequence[str], predictions: Sequence[str], result: Mapping[str, Any],
                   per_sentence: Sequence[Mapping[str, Any]], settings: Mapping[str, Any],
                   drop: Sequence[str]) -> tuple[str, dict[str, Any], pd.DataFrame, str]:
    """The Corpus tab's outputs: status line, corpus scores, per-sentence table and the JSON download.

    `per_sentence` holds the scores of each sentence; the table adds its 0-based `index` (as in the results'
    `degenerate_sentences`), its 1-based `line` in the uploaded files, source and hypothesis. The JSON holds the
    settings, the corpus scores, the table rows and the dropped per-sentence details of `result`.
    """
    rows = [{"index": i, "line": i + 1, "source": s, "hypothesis": p, **scores}
            for i, (s, p, scores) in enumerate(zip(sources, predictions, per_sentence))]
    corpus = headline(result, drop)
    details = {k: result[k] for k in drop if k in result}
    path = json_download(metric, {"metric": metric, "settings": dict(settings), "corpus": corpus, "sentences": rows,
                                  "details": details})
    return ok_box(f"Scored {len(rows)} sentences.", result), corpus, sentence_table(rows), path
