"""A metric's statistics: what its `score` turns into every number of a result, gathered sentence by sentence.

A metric runs in two halves. `statistics_systems(...)` does the work (parsing, edits, models, alignments) and
returns one `Statistics` per system: per-sentence fields only, each sentence's entry computed from that sentence
alone, plus the settings they were gathered with and the degenerate-sentence records. `score(stats)` is the one place
the metric's corpus rule, reference choice and P/R/F live: corpus scores, sentence records, chosen references,
per-type tables and the resamplable corpus statistic all come from it. Because nothing in a `Statistics` depends on
the other sentences, the statistics of consecutive shards concatenate (`Statistics.concat`) into those of the
whole corpus, and `take(indices)` gives those of any resample: sharding and bootstrap need no metric's code.

`statistics_systems` receives every system of a run at once (the CLI's and the leaderboard's `--predictions A B C`,
each shard of a sharded run with all its systems), so a quantity computed from all systems' outputs, such as
GoToScorer's difficulty weights, is computed there before any system's statistics; when it is per sentence, shards
still concatenate.

A metric whose statistics, for some data, do depend on the whole corpus says why in `unshardable`; `concat` then
refuses by that reason. Settings that always make them corpus-dependent are declared in the metric's `SPEC`
(`MetricSpec.unshardable`) and refused before any work.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, ClassVar, Mapping, Protocol, Sequence, TypeVar, runtime_checkable

import numpy as np

if TYPE_CHECKING:
    from gecscore.common.results import MetricResult

S = TypeVar("S", bound="Statistics")


class NotShardableError(ValueError):
    """This metric, with these options or this data, cannot be scored in shards with the numbers of one process."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class Statistics:
    """The base of every metric's statistics: its per-sentence fields (`PER_SENTENCE`, tuples of one entry per
    sentence; None when not gathered) plus the settings, the degenerate records and an unshardable reason."""

    #: Names of the fields that hold one entry per sentence.
    PER_SENTENCE: ClassVar[tuple[str, ...]] = ()

    #: The registry options (defaults filled in) these statistics were gathered with.
    settings: Mapping[str, Any]
    #: The version signature of the metric as gathered (model, settings), before the input layer's part.
    signature: str
    #: Degenerate-sentence records (`gecscore.common.results`), indexed within these statistics.
    degenerate: tuple[Mapping[str, Any], ...] = ()
    #: Why these statistics depend on the whole corpus and do not concatenate (None: they do).
    unshardable: str | None = None

    def __len__(self) -> int:
        return len(getattr(self, self.PER_SENTENCE[0]))

    def take(self: S, indices: Sequence[int] | np.ndarray) -> S:
        """The statistics of the sentences at `indices` (repeats allowed), in that order; degenerate records of
        sentences left out are dropped, the others follow their sentence's first position."""
        rows = [int(i) for i in np.asarray(indices).reshape(-1)]
        first: dict[int, int] = {}
        for position, i in enumerate(rows):
            first.setdefault(i, position)
        fields = {name: None if getattr(self, name) is None else tuple(getattr(self, name)[i] for i in rows)
                  for name in self.PER_SENTENCE}
        degenerate = tuple(sorted(({**r, "index": first[r["index"]]} for r in self.degenerate if r["index"] in first),
                                  key=lambda r: r["index"]))
        return dataclasses.replace(self, degenerate=degenerate, **fields)

    @classmethod
    def concat(cls: type[S], parts: Sequence[S]) -> S:
        """The statistics of the parts' sentences in order (the shards of one corpus), gathered with the same
        settings; `NotShardableError` when a part depends on its own sentences as a whole."""
        if not parts:
            raise ValueError("no statistics to concatenate")
        first = parts[0]
        for part in parts:
            if type(part) is not type(first):
                raise TypeError(f"cannot concatenate {type(first).__name__} and {type(part).__name__}")
            if part.settings != first.settings or part.signature != first.signature:
                raise ValueError("the statistics were gathered with different settings: "
                                 f"{first.signature} vs {part.signature}")
            if part.unshardable:
                raise NotShardableError(part.unshardable)
        offsets = np.cumsum([0] + [len(p) for p in parts[:-1]]).tolist()
        fields: dict[str, Any] = {}
        for name in cls.PER_SENTENCE:
            values = [getattr(p, name) for p in parts]
            if any(v is None for v in values) and not all(v is None for v in values):
                raise ValueError(f"`{name}` was gathered in some parts only")
            fields[name] = None if values[0] is None else tuple(x for v in values for x in v)
        degenerate = tuple({**r, "index": r["index"] + offset} for p, offset in zip(parts, offsets)
                           for r in p.degenerate)
        return dataclasses.replace(first, degenerate=degenerate, **fields)


@runtime_checkable
class MetricRunner(Protocol):
    """What a metric's runner module (`MetricSpec.runner`) provides to every generic caller: the registry, the CLI,
    the leaderboard, sharding, the sentence scorer and the Trainer hook call nothing else of a metric. A module
    satisfies it by defining the three functions with compatible signatures; `registry.runner` checks that it
    defines them when it imports one, and `tests/test_runner_types.py` has mypy check every registered runner's
    signatures against this protocol."""

    def check_models(self, options: Mapping[str, Any]) -> None:
        """Raise, naming the option, when a model these options need cannot be loaded (before any work)."""

    def statistics_systems(self, sources: Sequence[str], systems: Mapping[str, Sequence[str]],
                           references: Any = None, *, progress: bool = False,
                           **options: Any) -> Mapping[str, Statistics]:
        """One `Statistics` per system, every system of the run at once. A metric whose SPEC lists options in
        `replaces_sentences` (M2 files instead of sentences) also takes None for the sentences it was not given,
        and declares so."""

    def score(self, stats: Any) -> MetricResult:
        """The metric's corpus rule over one system's statistics: every number of its result."""
