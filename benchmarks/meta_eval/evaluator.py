"""The evaluator: runs rows through the meta-evaluation runner, each configuration once, and correlates the
switches' external scores; it also keeps CLEME2.0's per-system chunk counts for the listing tables.

Everything it computes is memoised per process (sentence scores also in the on-disk score cache), because many rows
and switches share a configuration.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Callable, Sequence

from published import Row, run_name


class Evaluator:
    """Runs rows through the meta-evaluation runner (each configuration once) and switches' external scores."""

    def __init__(self, data_dir: str, cache, progress: bool = False) -> None:
        self.data_dir = data_dir
        self.cache = cache
        self.progress = progress
        self._datasets: dict[tuple, object] = {}
        self._results: dict[tuple, object] = {}
        self._external: dict[tuple, dict[str, float]] = {}
        self._counts: dict[str, dict[str, list[list]]] = {}
        self._disentangled: dict[tuple, dict[str, float]] = {}
        self.metric_scores: dict[str, dict[str, float]] = {}  # run description → system scores, for results.json

    def dataset(self, row: Row):
        from gecscore.meta_eval import load_dataset

        key = (row.dataset, row.references, row.exclude_unchanged)
        if key not in self._datasets:
            self._datasets[key] = load_dataset(row.dataset, self.data_dir, references=row.references,
                                               exclude_unchanged=row.exclude_unchanged)
        return self._datasets[key]

    def result(self, row: Row):
        from gecscore.meta_eval import get_metric, meta_evaluate

        key = (row.dataset, row.references, row.exclude_unchanged, row.metric,
               json.dumps(row.options, sort_keys=True), row.system_set, row.aggregation)
        if key not in self._results:
            started = time.time()
            self._results[key] = meta_evaluate(get_metric(row.metric, **row.options), self.dataset(row),
                                               system_set=row.system_set, aggregation=row.aggregation,
                                               cache=self.cache, progress=self.progress)
            self.metric_scores[run_name(row)] = self._results[key].metric_scores
            print(f"{run_name(row)}: {time.time() - started:.0f}s", file=sys.stderr, flush=True)
        return self._results[key]

    def values(self, row: Row) -> tuple[float | None, float | None] | None:
        """The row's two values under its own protocol (None when the data is not on disk)."""
        if not row.computable:
            return None
        result = self.result(row)
        if row.level == "system":
            corr = result.system[row.human]
            return (corr.pearson, corr.spearman)
        agreement = result.sentence[row.human]
        return (agreement.accuracy, agreement.kendall)

    def human(self, row: Row) -> tuple[dict[str, float], tuple[str, ...]]:
        """Human scores and systems of the row's data set (any reference set: the human side does not depend on it)."""
        data = self.dataset(replace(row, references="official", exclude_unchanged=False)) \
            if not row.computable else self.dataset(row)
        return data.human[row.human], data.system_set(row.system_set)

    def heuo_counts(self, system: str) -> dict[str, list[list]]:
        """Per-sentence, per-reference CLEME chunk counts of one GJG15 system on CoNLL-2014 (PT-M2's references),
        both assumptions; stored beside the score cache (`cleme2-counts/`), so α grids reuse one ERRANT pass."""
        from gecscore.cleme2.metric import ChunkCounts
        from gecscore.meta_eval.cache import score_key
        from gecscore.meta_eval.heuo import FIELDS, reference_counts

        if system not in self._counts:
            data = self.dataset(Row("", "", "cleme2", "gjg15", "official-pt-m2", "all", "default", "", (None, None)))
            key = score_key("cleme2-counts", {"fields": FIELDS}, data.sources, data.hypotheses[system], data.references)
            path = Path(self.cache.directory) / "cleme2-counts" / f"{key}.json"
            with self.cache.computing("cleme2-counts", key):  # processes sharing the cache count each system once
                if path.exists():
                    stored = json.loads(path.read_text(encoding="utf-8"))
                else:
                    started = time.time()
                    counts = reference_counts(data.sources, data.hypotheses[system], data.references)
                    stored = {a: [[[getattr(c, f) for f in FIELDS] for c in refs] for refs in per]
                              for a, per in counts.items()}
                    path.with_suffix(".tmp").write_text(json.dumps(stored), encoding="utf-8")
                    path.with_suffix(".tmp").replace(path)
                    print(f"cleme2 counts {system}: {time.time() - started:.0f}s", file=sys.stderr, flush=True)
            self._counts[system] = {a: [[ChunkCounts(*c) for c in refs] for refs in per] for a, per in stored.items()}
        return self._counts[system]

    def heuo_counts_m2(self, system: str) -> dict[str, list[list]]:
        """`heuo_counts` from CLEME's CoNLL-2014 ERRANT M2 files (`conll14-<SYS>.errant`, `conll14.errant`)."""
        from gecscore.meta_eval.heuo import reference_counts_m2

        key = f"m2:{system}"
        if key not in self._counts:
            folder = Path(self.data_dir) / "CoNLL-2014" / "CLEME" / "demo" / "examples"
            self._counts[key] = reference_counts_m2(folder / f"conll14-{system}.errant", folder / "conll14.errant")
        return self._counts[key]

    def disentangled(self, system: str, assumption: str, level: str, alpha: Sequence[float], edits: str = "ours"
                     ) -> dict[str, float]:
        """CLEME2.0's indicators and chosen counts of one system (`gecscore.meta_eval.heuo.disentangled`) from our
        edits or (`edits="m2"`) CLEME's M2 files, memoised."""
        from gecscore.meta_eval.heuo import disentangled

        key = (system, assumption, level, tuple(alpha), edits)
        if key not in self._disentangled:
            counts = self.heuo_counts(system) if edits == "ours" else self.heuo_counts_m2(system)
            self._disentangled[key] = disentangled(counts[assumption], alpha, level)
        return self._disentangled[key]

    def external(self, name: str, row: Row, scores: Callable[[], dict[str, float]]
                 ) -> tuple[float | None, float | None]:
        """Correlate externally computed system scores (memoised per switch and configuration)."""
        from gecscore.meta_eval.correlate import correlate_systems

        key = (name, row.metric, json.dumps(row.options, sort_keys=True), row.references, row.exclude_unchanged,
               row.dataset, row.system_set, row.aggregation)
        if key not in self._external:
            started = time.time()
            self._external[key] = scores()
            self.metric_scores[f"{name}: {run_name(row)}"] = self._external[key]
            print(f"{name} {run_name(row)}: {time.time() - started:.0f}s", file=sys.stderr, flush=True)
        human, systems = self.human(row)
        corr = correlate_systems(self._external[key], human, systems)
        return (corr.pearson, corr.spearman)

