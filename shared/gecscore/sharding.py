"""Sharded scoring: under `torch.distributed` each process scores one contiguous shard, the shards are merged.

`run_sharded(name, sources, predictions, references, **options)` is `gecscore.registry.run` for a group of
processes (`torchrun`, `accelerate launch`, a `Trainer` on several GPUs). Without an initialised process group it
*is* `registry.run`. With one, every rank must call it with the same corpus and options (checked); rank `r` of `W`
scores sentences `[r·n/W, (r+1)·n/W)` only (input layer, parsing, encoding: each rank loads the models its shard
needs and encodes only its texts), the ranks exchange their results (`all_gather_object`: per-sentence records,
sufficient statistics, details) and every rank (`all_ranks=True`) or rank 0 (`all_ranks=False`; the others get
None) returns the merged result.

Each rank gathers its shard's statistics (`registry.statistics_systems`: the input layer, then the metric's own
work) and the ranks exchange them (`all_gather_object`); the merge concatenates them in corpus order
(`gecscore.common.statistics.Statistics.concat`, degenerate-sentence records given their global indices) and calls
the metric's `score` on the whole (`registry.score`), the one place of its corpus rule, so the merged result is the
result of one process, with its bootstrap and approximate randomisation statistics. This module names no metric.
Settings whose statistics depend on the whole corpus are refused by the reason their `MetricSpec.unshardable`
gives (`NotShardableError`, before any work), and statistics that turn out to depend on it (CLEME2.0's robust
float-noise weights) by theirs, after scoring. Input that replaces the sentence lists
(`MetricSpec.replaces_sentences`: M2 files) is not sharded. `fallback=True` scores a refused metric whole (on
every rank, or on rank 0 only) instead of raising.

Numbers: the sharded result equals one process's bit for bit wherever a sentence's numbers do not depend on which
other sentences share its encoder batch: always for the metrics without a model, and for model-based ones with
`batch_size=1`. With larger batches an encoder's output moves with its batch's padding by float rounding (~1e-7,
as when `batch_size` changes), so model-based scores agree to about that precision.
"""

from __future__ import annotations

import copy
import hashlib
import pickle
import sys
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from gecscore import registry
from gecscore.common.m2io import read_m2_input
from gecscore.common.results import MetricResult, report
from gecscore.common.statistics import NotShardableError, Statistics

__all__ = ["NotShardableError", "plan", "merge", "run_in_shards", "run_sharded", "run_systems_sharded",
           "shard_bounds", "rank_and_world"]


# ---------------------------------------------------------------------------------------------------
# Processes and shards


def distributed(group: Any = None) -> Any:
    """`torch.distributed` when a process group is initialised (torch imported by then), else None."""
    torch = sys.modules.get("torch")
    if torch is None:
        return None
    dist = getattr(torch, "distributed", None)
    if dist is None or not dist.is_available() or not dist.is_initialized():
        return None
    return dist


def rank_and_world(group: Any = None) -> tuple[int, int]:
    """(rank, world size) in `group` (the default group when None); (0, 1) without torch.distributed."""
    dist = distributed(group)
    if dist is None:
        return 0, 1
    return int(dist.get_rank(group)), int(dist.get_world_size(group))


def shard_bounds(n: int, world_size: int) -> list[tuple[int, int]]:
    """Contiguous, balanced `[start, stop)` of each of `world_size` shards of `n` sentences (sizes differ by ≤ 1)."""
    if world_size < 1:
        raise ValueError(f"`world_size` must be >= 1, got {world_size}")
    return [(k * n // world_size, (k + 1) * n // world_size) for k in range(world_size)]


# ---------------------------------------------------------------------------------------------------
# What can be sharded, and the outputs the merge needs


@dataclass(frozen=True)
class Plan:
    """The checked options of one sharded run."""

    name: str
    options: dict[str, Any]  # as given by the user (registry names)
    resolved: dict[str, Any]  # every setting of the metric, defaults filled in


def plan(name: str, options: Mapping[str, Any]) -> Plan:
    """Check that `name` with `options` shards exactly (`NotShardableError` otherwise, naming the reason)."""
    checked = registry.check_options(name, dict(options))
    spec = registry.spec(name)
    resolved = spec.resolve(checked)
    for key in spec.replaces_sentences:
        if resolved.get(key) is not None:
            raise NotShardableError(f"{name}: M2-file input (`{key}`) is not sharded; pass sentence lists")
    reason = spec.unshardable_reason(resolved)
    if reason:
        raise NotShardableError(f"{name}: {reason}")
    return Plan(name, dict(options), resolved)


def _post_check(stats: Statistics) -> str | None:
    """Why a shard's statistics cannot be concatenated exactly (None: they can)."""
    return stats.unshardable


# ---------------------------------------------------------------------------------------------------
# One shard, and the merge of shards


def score_shard(run: Plan, sources: Sequence[str], systems: Mapping[str, Sequence[str]],
                references: Sequence[Any] | None, gold: list[Any] | None, start: int, stop: int, *,
                progress: bool = False) -> dict[str, Statistics]:
    """Every system's statistics (`registry.statistics_systems`) of sentences `[start, stop)`."""
    return registry.statistics_systems(
        run.name, list(sources[start:stop]), {k: list(v[start:stop]) for k, v in systems.items()},
        None if references is None else list(references[start:stop]),
        gold_m2=None if gold is None else gold[start:stop], progress=progress, **run.options)


def run_in_shards(name: str, sources: Sequence[str], predictions: Sequence[str],
                  references: Sequence[Any] | None = None, *, shards: int = 2, gold_m2: Any = None,
                  progress: bool = False, **options: Any) -> MetricResult:
    """Score `shards` contiguous shards one after another in this process and merge them, as `run_sharded` does
    across processes: a check that a metric shards exactly, with no process group."""
    run = plan(name, options)
    gold = read_m2_input(gold_m2, "gold_m2")
    systems = {"system": list(predictions)}
    pieces = [score_shard(run, list(sources), systems, references, gold, start, stop, progress=progress)["system"]
              for start, stop in shard_bounds(len(sources), shards) if stop > start]
    return merge(run, pieces)


def merge(run: Plan, pieces: Sequence[Statistics]) -> MetricResult:
    """The result of scoring the shards' sentences, concatenated in this order, in one process: the metric's
    `score` of the shards' statistics concatenated (`score_shard`)."""
    if not pieces:
        raise ValueError("no shards to merge")
    return registry.score(run.name, type(pieces[0]).concat(pieces))


# ---------------------------------------------------------------------------------------------------
# Exchange between processes


def _fingerprint(name: str, sources: Any, systems: Mapping[str, Any], references: Any, gold: Any,
                 options: Mapping[str, Any]) -> str:
    """A digest of everything a rank was asked to score (every rank must be asked the same)."""
    digest = hashlib.sha256(repr((name, sorted((k, repr(v)) for k, v in options.items()))).encode())
    for part in (sources, *systems.values(), references, gold):
        digest.update(repr(None if part is None else list(part)).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def _picklable(error: BaseException) -> BaseException:
    try:
        pickle.loads(pickle.dumps(error))
        return error
    except Exception:
        return RuntimeError(f"{type(error).__name__}: {error}")


def run_systems_sharded(name: str, sources: Sequence[str], systems: Mapping[str, Sequence[str]],
                        references: Sequence[Any] | None = None, *, gold_m2: Any = None, all_ranks: bool = True,
                        fallback: bool = False, group: Any = None, progress: bool = False,
                        **options: Any) -> dict[str, MetricResult] | None:
    """`registry.run_systems` with each rank of the process group scoring one shard (see the module docstring).

    Every rank must call it with the same inputs and options. Returns the merged results on every rank
    (`all_ranks=True`) or on rank 0 only (the others get None). A metric that cannot be sharded exactly raises
    `NotShardableError` on every rank, or with `fallback=True` is scored whole (on every rank, or rank 0 only).
    An error on one rank is raised on every rank.
    """
    dist = distributed(group)
    rank, world = rank_and_world(group)
    if dist is None or world == 1:
        return registry.run_systems(name, sources, systems, references, gold_m2=gold_m2, progress=progress,
                                    **options)
    sources = list(sources)
    systems = {k: list(v) for k, v in systems.items()}
    gold = read_m2_input(gold_m2, "gold_m2")
    stamps: list[Any] = [None] * world
    dist.all_gather_object(stamps, _fingerprint(name, sources, systems, references, gold, options), group=group)
    if len(set(stamps)) > 1:
        differ = [r for r, s in enumerate(stamps) if s != stamps[0]]
        raise ValueError(f"sharded scoring needs the same inputs and options on every rank; rank(s) {differ} "
                         "differ from rank 0")

    def whole() -> dict[str, MetricResult] | None:
        if not all_ranks and rank != 0:
            return None
        return registry.run_systems(name, sources, systems, references, gold_m2=gold, progress=progress, **options)

    try:
        run = plan(name, options)
    except NotShardableError:
        if fallback:
            return whole()
        raise
    n = len(sources)
    if n < world:  # a shard would be empty: every rank scores everything (nothing to gain)
        return whole()
    start, stop = shard_bounds(n, world)[rank]
    local: dict[str, Statistics] | None = None
    status: dict[str, Any] = {"error": None, "refused": None}
    payload: bytes | None = None
    failure: BaseException | None = None
    try:
        local = score_shard(run, sources, systems, references, gold, start, stop, progress=progress)
        status["refused"] = next((why for why in (_post_check(stats) for stats in local.values()) if why), None)
        if not status["refused"]:
            payload = pickle.dumps(local, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as error:  # every rank must reach the exchange, or the others wait for ever
        status["error"] = (_picklable(error), f"rank {rank} scored sentences [{start}, {stop})")
        failure = error
    if all_ranks:
        gathered: list[Any] = [None] * world
        dist.all_gather_object(gathered, (status, payload), group=group)
        statuses = [s for s, _ in gathered]
        payloads = [p for _, p in gathered]
    else:
        statuses = [None] * world
        dist.all_gather_object(statuses, status, group=group)
        payloads = None
        if not any(s["error"] or s["refused"] for s in statuses):
            payloads = [None] * world if rank == 0 else None
            dst = 0 if group is None else dist.get_global_rank(group, 0)
            dist.gather_object(payload, payloads, dst=dst, group=group)
    errors = [(r, s["error"]) for r, s in enumerate(statuses) if s["error"]]
    if errors:
        where, (error, context) = errors[0]
        if failure is not None and where == rank:
            failure.add_note(f"sharded scoring: {context}; sentence indices in this message count from {start}")
            raise failure
        error = copy.copy(error)
        error.add_note(f"sharded scoring: raised on rank {where}, which {context.split(' ', 2)[2]}; sentence "
                       "indices in this message count from the shard's start")
        raise error
    refused = next((s["refused"] for s in statuses if s["refused"]), None)
    if refused:
        if fallback:
            return whole()
        raise NotShardableError(refused)
    if payloads is None:
        return None
    assert local is not None
    shards = [pickle.loads(p) for p in payloads]
    results = {}
    for system in local:
        results[system] = merge(run, [p[system] for p in shards])
    if rank == 0:
        report(registry.title(name),
               {system: result.details["degenerate_sentences"] for system, result in results.items()},
               robust=bool(run.resolved.get("robust", False)))
    return results


def run_sharded(name: str, sources: Sequence[str], predictions: Sequence[str],
                references: Sequence[Any] | None = None, **kwargs: Any) -> MetricResult | None:
    """Score one system in shards (see `run_systems_sharded`); without torch.distributed, `registry.run`."""
    results = run_systems_sharded(name, sources, {"system": predictions}, references, **kwargs)
    return None if results is None else results["system"]
