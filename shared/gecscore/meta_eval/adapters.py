"""The meta-evaluation's metrics: every registry name (`gecscore.registry`: the four metrics and the presets errant,
senterrant, m2, sentm2, cleme, impara) as a `SentenceMetric`."""

from __future__ import annotations

import hashlib
import json
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Iterator, Sequence

from gecscore import registry
from gecscore.meta_eval.protocol import SystemScores

if TYPE_CHECKING:
    from gecscore.common.m2io import M2Sentence


class RegistryMetric:
    """A registry metric (`gecscore.registry`) as a `SentenceMetric`: the corpus score from the metric as
    configured, the sentence scores from its sentence-level form (PT-M²'s `m2` → `sentm2`, PT-ERRANT's `errant`
    → `senterrant`, CLEME's corpus level → sentence level), so that sentence-level meta-evaluation compares
    sentence scores. Options are checked when the adapter is built; no model loads before something is scored.
    The published datasets are scored whole: `max_tokens` and `max_changed_run` are off unless given (GMEG-Data
    holds a 614-token line)."""

    def __init__(self, name: str, **options: Any) -> None:
        self.name = name
        unlimited = {k: None for k in ("max_tokens", "max_changed_run") if k in registry.allowed_options(name)}
        self._options = registry.check_options(name, {**unlimited, **options})
        self._spec = registry.spec(name)

    def settings(self) -> dict[str, Any]:
        """The metric's settings (defaults overridden by the options): the cache key."""
        return {k: v for k, v in {**self._spec.defaults, **self._options}.items() if k in self._spec.names("setting")}

    def score_system(self, sources: Sequence[str], hypotheses: Sequence[str], references: Sequence[Sequence[str]],
                     *, gold_m2: Sequence[M2Sentence] | None = None, progress: bool = False) -> SystemScores:
        """Run the metric (and its sentence-level form where that differs) through the registry; M² and SentM²
        build each sentence's lattice once, CLEME's forms chunk each sentence once (`sharing_work`)."""
        with sharing_work():
            corpus = self._run(self._options, sources, hypotheses, references, gold_m2, progress)
            sentence_options = {**self._options, **_sentence_level(self._spec.name, self.settings())}
            sentence = corpus if sentence_options == self._options else \
                self._run(sentence_options, sources, hypotheses, references, gold_m2, progress)
        return SystemScores(sentence.sentence_scores(), corpus.score)

    def _run(self, options: dict[str, Any], sources: Sequence[str], hypotheses: Sequence[str],
             references: Sequence[Sequence[str]], gold_m2: Sequence[M2Sentence] | None, progress: bool) -> Any:
        gold_text = None if gold_m2 is None else [block.to_block() for block in gold_m2]
        key = hashlib.sha256(json.dumps([self._spec.name, options, list(sources), list(hypotheses),
                                         [list(r) for r in references], gold_text], ensure_ascii=False,
                                        default=str).encode("utf-8")).hexdigest()
        if key in _RUNS:
            return _RUNS[key]
        refs: Any = references
        gold = None
        if self._spec.reference_free:
            refs = None
        elif self._spec.name == "pt_m2" and options.get("variant", "sentm2") in ("m2", "sentm2") and gold_m2:
            refs, gold = None, list(gold_m2)  # M² variants score against the reference set's own M2
        name, given = _registry_name(self._spec.name, self.name, options)
        result = registry.run(name, sources, hypotheses, refs, gold_m2=gold, progress=progress, **given)
        if len(_RUNS) >= _MEMO_SIZE:
            _RUNS.pop(next(iter(_RUNS)))
        _RUNS[key] = result
        return result


@contextmanager
def sharing_work() -> Iterator[None]:
    """A block in which work that does not depend on a metric's configuration is done once per sentence and kept:
    M²'s lattices (`gecscore.pt_m2.sharing_lattices`) and CLEME's chunk partitions
    (`gecscore.cleme2.sharing_partitions`), with the garbage collector's full passes deferred while they are kept
    (`gecscore.common.sharing.deferring_full_collections`). The meta-evaluation scores the same outputs under many
    configurations; a caller scoring many of them (`benchmarks/meta_eval/run.py`) wraps them all in one block."""
    from gecscore.cleme2 import sharing_partitions
    from gecscore.common.sharing import deferring_full_collections
    from gecscore.pt_m2 import sharing_lattices

    with sharing_lattices(), sharing_partitions(), deferring_full_collections():
        yield


# CLEME and SentCLEME, M² and SentM² share runs in-process: memoise a few.
_RUNS: dict[str, Any] = {}
_MEMO_SIZE = 32


def _registry_name(metric: str, preferred: str, options: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The registry name these options of `metric` stand for (a preset when one fixes them, `preferred` first) and
    the options left to pass: warnings and signatures then name what was asked for (ERRANT, not UOT-ERRANT)."""
    for name in (preferred, *registry.PRESETS):
        preset = registry.PRESETS.get(name)
        if preset and preset.metric == metric and all(options.get(k) == v for k, v in preset.fixed.items()):
            return name, {k: v for k, v in options.items() if k not in preset.fixed}
    return metric, options


def _sentence_level(metric: str, settings: dict[str, Any]) -> dict[str, Any]:
    """The options that turn a metric into its sentence-level form."""
    if metric == "pt_m2":
        return {"variant": {"m2": "sentm2", "errant": "senterrant"}.get(settings["variant"], settings["variant"])}
    if metric == "cleme2":
        return {"level": "sentence"}
    return {}

