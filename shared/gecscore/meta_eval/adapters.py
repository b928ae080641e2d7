"""Built-in `SentenceMetric` adapters: the ERRANT and M² baselines and our metrics' Python cores."""

from __future__ import annotations

import functools
import hashlib
import json
from typing import TYPE_CHECKING, Any, Callable, Sequence

from tqdm.auto import tqdm

from gecscore import registry
from gecscore.meta_eval.protocol import SentenceMetric, SystemScores

if TYPE_CHECKING:
    from gecscore.common.m2io import M2Sentence


def _check_options(name: str, options: dict[str, Any], allowed: Sequence[str]) -> None:
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise TypeError(f"metric {name!r} got unknown option(s) {unknown}; known options: {sorted(allowed)}")


def _m2_from_references(sources: Sequence[str], references: Sequence[Sequence[str]],
                        progress: bool = False) -> list[M2Sentence]:
    """Gold M2 built from raw references with ERRANT edits (one annotator per reference, as `errant_parallel`)."""
    from gecscore.common.edits import get_extractor
    from gecscore.common.m2io import edits_to_m2

    pairs = [(s, r) for s, refs in zip(sources, references) for r in refs]
    edits = get_extractor().extract([p[0] for p in pairs], [p[1] for p in pairs], progress=progress)
    out, k = [], 0
    for source, refs in zip(sources, references):
        out.append(edits_to_m2(source, edits[k:k + len(refs)]))
        k += len(refs)
    return out


# M² and SentM² need the same per-sentence counts (CLEME and SentCLEME the same sentence run): memoise a few.
_M2_COUNTS: dict[str, list] = {}
_MEMO_SIZE = 32


def _m2_counts(sources: Sequence[str], hypotheses: Sequence[str], gold: Sequence[M2Sentence],
               max_unchanged_words: int, progress: bool) -> list:
    """Per sentence, M² counts against each annotator of `gold`."""
    from gecscore.pt_m2.lattice import extract_edits, gold_edits
    from gecscore.common.m2io import format_m2

    key = hashlib.sha256(json.dumps(
        [list(sources), list(hypotheses), format_m2(gold), max_unchanged_words], ensure_ascii=False
    ).encode("utf-8")).hexdigest()
    if key in _M2_COUNTS:
        return _M2_COUNTS[key]
    counts = []
    rows = tqdm(zip(sources, hypotheses, gold), total=len(gold), desc="M2", disable=not progress, leave=False)
    for i, (source, hypothesis, block) in enumerate(rows):
        if block.source.split() != source.split():
            raise ValueError(f"gold_m2[{i}] is for another source sentence: {block.source[:60]!r}")
        per_annotator = extract_edits(source.split(), hypothesis.split(), gold_edits(block),
                                      max_unchanged_words=max_unchanged_words)
        counts.append([a.counts() for a in per_annotator])
    if len(_M2_COUNTS) >= _MEMO_SIZE:
        _M2_COUNTS.pop(next(iter(_M2_COUNTS)))
    _M2_COUNTS[key] = counts
    return counts


class M2Baseline:
    """M² (MaxMatch, official scorer 3.2) and SentM² (mean of sentence F_β) over a gold M2.

    The gold is the reference set's own M2 when it has one (CoNLL-2014 Official); otherwise it is built from
    the raw references with ERRANT, one annotator per reference. Sentence scores are each sentence's F_β with
    its best annotator; the corpus score is M²'s greedy corpus F_β (M²) or the sentence mean (SentM²).
    """

    def __init__(self, *, sentence_average: bool = False, beta: float = 0.5, max_unchanged_words: int = 2) -> None:
        if beta <= 0:
            raise ValueError(f"beta must be > 0, got {beta}")
        self.name = "sentm2" if sentence_average else "m2"
        self.sentence_average = sentence_average
        self.beta = float(beta)
        self.max_unchanged_words = int(max_unchanged_words)

    def settings(self) -> dict[str, Any]:
        """Options that change scores."""
        return {"beta": self.beta, "max_unchanged_words": self.max_unchanged_words}

    def score_system(self, sources: Sequence[str], hypotheses: Sequence[str], references: Sequence[Sequence[str]],
                     *, gold_m2: Sequence[M2Sentence] | None = None, progress: bool = False) -> SystemScores:
        """M² counts per sentence and annotator, then corpus and sentence F_β."""
        from gecscore.pt_m2.lattice import corpus_m2, sentence_m2

        gold = list(gold_m2) if gold_m2 is not None else _m2_from_references(sources, references, progress)
        if len(gold) != len(sources):
            raise ValueError(f"gold_m2 has {len(gold)} sentences but there are {len(sources)} sources")
        counts = _m2_counts(sources, hypotheses, gold, self.max_unchanged_words, progress)
        sentence = sentence_m2(counts, self.beta)
        corpus = sentence.f if self.sentence_average else corpus_m2(counts, self.beta).f
        return SystemScores([s.f for s in sentence.sentence_scores], corpus)


def spacy_model_id(name: str | None = None) -> str:
    """`package-version` of the spaCy pipeline `load_spacy(name)` would load (found without loading it)."""
    from importlib import metadata, util

    from gecscore.common.edits import SPACY_MODELS

    for candidate in (name,) if name else SPACY_MODELS:
        if util.find_spec(candidate) is not None:
            try:
                return f"{candidate}-{metadata.version(candidate.replace('_', '-'))}"
            except metadata.PackageNotFoundError:
                return candidate
    return name or "none"


class ErrantBaseline:
    """ERRANT and SentERRANT as gec-metrics computes them (`docs/reference-behaviour.md`, "Common conventions").

    Edits from `gecscore.common.edits` (ERRANT 3.0.2, cached in-process), counts and best references from
    `gecscore.common.errant_scoring`: the sentence score is F_β with the sentence's best reference; the corpus score
    is F_β of ERRANT's greedy corpus accumulation (ERRANT) or the mean sentence F_β (SentERRANT).
    """

    def __init__(self, *, sentence_average: bool = False, beta: float = 0.5, spacy_model: str | None = None) -> None:
        from gecscore.common.errant_scoring import FScore

        self.name = "senterrant" if sentence_average else "errant"
        self.sentence_average = sentence_average
        self.fscore = FScore(beta=float(beta), zero_division="errant")
        self.spacy_model = spacy_model

    def settings(self) -> dict[str, Any]:
        """Options that change scores (the spaCy pipeline changes edits and types)."""
        return {"beta": self.fscore.beta, "spacy_model": spacy_model_id(self.spacy_model)}

    def score_system(self, sources: Sequence[str], hypotheses: Sequence[str], references: Sequence[Sequence[str]],
                     *, gold_m2: Sequence[M2Sentence] | None = None, progress: bool = False) -> SystemScores:
        """ERRANT counts of every sentence against every reference, then sentence and corpus F_β."""
        from gecscore.common.edits import get_extractor, load_spacy
        from gecscore.common.errant_scoring import errant_counts

        extractor = get_extractor(load_spacy(self.spacy_model) if self.spacy_model else None)
        hyp_edits = extractor.extract(sources, hypotheses, progress=progress)
        pair_sources = [s for s, refs in zip(sources, references) for _ in refs]
        flat = extractor.extract(pair_sources, [r for refs in references for r in refs], progress=progress)
        ref_edits, k = [], 0
        for refs in references:
            ref_edits.append(flat[k:k + len(refs)])
            k += len(refs)
        result = self.fscore.aggregate(errant_counts(hyp_edits, ref_edits))
        sentence = [self.fscore.prf(c).f for c in result.sentence_counts]
        corpus = sum(sentence) / len(sentence) if self.sentence_average else self.fscore.prf(result.corpus).f
        return SystemScores(sentence, corpus)


class RegistryMetric:
    """A registry metric (`gecscore.registry`) as a `SentenceMetric`: the corpus score from the metric as
    configured, the sentence scores from its sentence-level form (PT-M²'s `m2` → `sentm2`, PT-ERRANT's `errant`
    → `senterrant`, CLEME's corpus level → sentence level), so that sentence-level meta-evaluation compares
    sentence scores. Options are checked when the adapter is built; no model loads before something is scored."""

    def __init__(self, name: str, **options: Any) -> None:
        self.name = name
        self._options = registry.check_options(name, options)
        self._spec = registry.spec(name)

    def settings(self) -> dict[str, Any]:
        """The metric's settings (defaults overridden by the options): the cache key."""
        return {k: v for k, v in {**self._spec.defaults, **self._options}.items() if k in self._spec.names("setting")}

    def score_system(self, sources: Sequence[str], hypotheses: Sequence[str], references: Sequence[Sequence[str]],
                     *, gold_m2: Sequence[M2Sentence] | None = None, progress: bool = False) -> SystemScores:
        """Run the metric (and its sentence-level form where that differs) through the registry."""
        corpus = self._run(self._options, sources, hypotheses, references, gold_m2, progress)
        sentence_options = {**self._options, **_sentence_level(self._spec.name, self.settings())}
        sentence = corpus if sentence_options == self._options else \
            self._run(sentence_options, sources, hypotheses, references, gold_m2, progress)
        return SystemScores(sentence.sentence_scores(), corpus.score)

    def _run(self, options: dict[str, Any], sources: Sequence[str], hypotheses: Sequence[str],
             references: Sequence[Sequence[str]], gold_m2: Sequence[M2Sentence] | None, progress: bool) -> Any:
        key = hashlib.sha256(json.dumps([self._spec.name, options, list(sources), list(hypotheses),
                                         [list(r) for r in references], gold_m2 is not None], ensure_ascii=False,
                                        default=str).encode("utf-8")).hexdigest()
        if key in _RUNS:
            return _RUNS[key]
        refs: Any = references
        gold = None
        if self._spec.reference_free:
            refs = None
        elif self._spec.name == "pt_m2" and options.get("variant", "sentm2") in ("m2", "sentm2") and gold_m2:
            refs, gold = None, list(gold_m2)  # M² variants score against the reference set's own M2
        result = registry.run(self._spec.name, sources, hypotheses, refs, gold_m2=gold, progress=progress, **options)
        if len(_RUNS) >= _MEMO_SIZE:
            _RUNS.pop(next(iter(_RUNS)))
        _RUNS[key] = result
        return result


# CLEME and SentCLEME, M² and SentM² share runs in-process: memoise a few.
_RUNS: dict[str, Any] = {}


def _sentence_level(metric: str, settings: dict[str, Any]) -> dict[str, Any]:
    """The options that turn a metric into its sentence-level form."""
    if metric == "pt_m2":
        return {"variant": {"m2": "sentm2", "errant": "senterrant"}.get(settings["variant"], settings["variant"])}
    if metric == "cleme2":
        return {"level": "sentence"}
    return {}


def _factory(cls: Callable[..., SentenceMetric], name: str, allowed: Sequence[str],
             **fixed: Any) -> Callable[..., SentenceMetric]:
    def build(**options: Any) -> SentenceMetric:
        _check_options(name, options, allowed)
        return cls(**fixed, **options)
    return build


BUILTIN: dict[str, Callable[..., SentenceMetric]] = {
    **{name: functools.partial(RegistryMetric, name) for name in registry.NAMES},
    "errant": _factory(ErrantBaseline, "errant", ("beta", "spacy_model"), sentence_average=False),
    "senterrant": _factory(ErrantBaseline, "senterrant", ("beta", "spacy_model"), sentence_average=True),
    "m2": _factory(M2Baseline, "m2", ("beta", "max_unchanged_words"), sentence_average=False),
    "sentm2": _factory(M2Baseline, "sentm2", ("beta", "max_unchanged_words"), sentence_average=True),
}
