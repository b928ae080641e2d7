"""Built-in `SentenceMetric` adapters: the ERRANT and M² baselines and our metrics' Python cores."""

from __future__ import annotations

import hashlib
import inspect
import json
from typing import TYPE_CHECKING, Any, Callable, Sequence

from tqdm.auto import tqdm

from gecscore.meta_eval.metrics import SentenceMetric, SystemScores

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
    """ERRANT and SentERRANT as gec-metrics computes them (spec §1).

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


class CoreAdapter:
    """A metric core built from options only when something must be scored, so a fully cached run never loads
    a model. `spec`'s parameters are the allowed options and their defaults (`settings()`, the cache key);
    `build(**options)` makes the core (default: `spec` itself); `score(core, options, sources, hypotheses,
    references, gold_m2, progress)` returns `SystemScores`."""

    def __init__(self, name: str, options: dict[str, Any], *, spec: Callable[..., Any],
                 score: Callable[..., SystemScores], build: Callable[..., Any] | None = None,
                 fixed: dict[str, Any] | None = None) -> None:
        fixed = fixed or {}
        parameters = inspect.signature(spec).parameters
        _check_options(name, options, [p for p in parameters if p not in fixed])
        defaults = {p.name: p.default for p in parameters.values() if p.default is not inspect.Parameter.empty}
        self.name = name
        self._build = build or spec
        self._score = score
        self._options = {**defaults, **fixed, **options}
        self._core: Any = None

    def settings(self) -> dict[str, Any]:
        """Constructor defaults overridden by the options (the cache key)."""
        return dict(self._options)

    def score_system(self, sources: Sequence[str], hypotheses: Sequence[str], references: Sequence[Sequence[str]],
                     *, gold_m2: Sequence[M2Sentence] | None = None, progress: bool = False) -> SystemScores:
        """Build the core once, then score."""
        if self._core is None:
            self._core = self._build(**self._options)
        return self._score(self._core, self._options, sources, hypotheses, references, gold_m2, progress)


def _impara(variant: str) -> Callable[..., SentenceMetric]:
    """IMPARA-GED (`impara-ged`) or IMPARA (`impara`) from `gecscore.impara_ged.metric`; `-o model=PATH` picks the QE model
    (`embedded` is the bundled MiniLM QE). Reference-free: the default aggregation is the mean."""
    def score(core: Any, options: dict, sources: Sequence[str], hypotheses: Sequence[str], references: Any,
              gold: Any, progress: bool) -> SystemScores:
        return core.score_system(sources, hypotheses, progress=progress)

    def build(**options: Any) -> SentenceMetric:
        from gecscore.impara_ged.metric import Impara

        return CoreAdapter(variant.replace("_", "-"), options, spec=Impara, score=score, fixed={"variant": variant})
    return build


def _uot_errant(**options: Any) -> SentenceMetric:
    """UOT-ERRANT from `gecscore.uot_errant.metric` (options: the fields of `UOTConfig`); sentence F with the best reference,
    corpus F of the greedy accumulation."""
    from gecscore.uot_errant.metric import UOTConfig, UOTErrant

    def score(core: Any, opts: dict, sources: Sequence[str], hypotheses: Sequence[str],
              references: Sequence[Sequence[str]], gold: Any, progress: bool) -> SystemScores:
        result = core.score(sources, hypotheses, references)
        return SystemScores([s.scores.f for s in result.sentences], result.scores.f)

    return CoreAdapter("uot-errant", options, spec=UOTConfig, score=score,
                       build=lambda **o: UOTErrant(UOTConfig(**o)))


def _pt_settings(model: str = "bert-base-uncased", layer: int | None = None, device: str | None = None,
                 beta: float = 0.5, base: str = "sentm2", max_unchanged_words: int = 2) -> dict[str, Any]:
    """PT-M2 / PT-ERRANT options (BERTScore model and layer, β, which base gives the corpus score)."""
    return {"model": model, "layer": layer, "device": device, "beta": beta, "base": base,
            "max_unchanged_words": max_unchanged_words}


def _pt_m2(**options: Any) -> SentenceMetric:
    """PT-M² from `gecscore.pt_m2.metric`: sentence scores are sentence PT-M² F (best annotator); the corpus score is
    the mean (`base=sentm2`, the recommended PT-M²) or corpus PT-M² (`base=m2`). Needs a gold M2 (the
    reference set's own, else built from the raw references with ERRANT)."""
    def score(core: dict, opts: dict, sources: Sequence[str], hypotheses: Sequence[str],
              references: Sequence[Sequence[str]], gold: Any, progress: bool) -> SystemScores:
        from gecscore.common.edit_impact import BERTScoreSimilarity
        from gecscore.pt_m2.metric import score_m2

        if core["base"] not in ("sentm2", "m2"):
            raise ValueError(f"pt-m2 option `base` must be 'sentm2' or 'm2', got {core['base']!r}")
        gold = list(gold) if gold is not None else _m2_from_references(sources, references, progress)
        similarity = BERTScoreSimilarity(core["model"], layer=core["layer"], device=core["device"])
        common = dict(similarity=similarity, beta=core["beta"], max_unchanged_words=core["max_unchanged_words"],
                      progress=progress)
        sent = score_m2(sources, hypotheses, gold, variant="sentm2", **common)
        corpus = sent.f if core["base"] == "sentm2" else score_m2(sources, hypotheses, gold, variant="m2", **common).f
        return SystemScores([s.f for s in sent.sentences], corpus)

    return CoreAdapter("pt-m2", options, spec=_pt_settings, score=score)


def _pt_errant(**options: Any) -> SentenceMetric:
    """PT-ERRANT (gec-metrics) from `gecscore.pt_m2.metric`: sentence F with the best reference; corpus F of the greedy
    accumulation (`base=errant`, default) or the sentence mean (`base=senterrant`)."""
    def score(core: dict, opts: dict, sources: Sequence[str], hypotheses: Sequence[str],
              references: Sequence[Sequence[str]], gold: Any, progress: bool) -> SystemScores:
        from gecscore.common.edits import get_extractor
        from gecscore.common.edit_impact import BERTScoreSimilarity
        from gecscore.pt_m2.metric import score_errant

        if core["base"] not in ("errant", "senterrant"):
            raise ValueError(f"pt-errant option `base` must be 'errant' or 'senterrant', got {core['base']!r}")
        similarity = BERTScoreSimilarity(core["model"], layer=core["layer"], device=core["device"])
        common = dict(extractor=get_extractor(), similarity=similarity, beta=core["beta"], progress=progress)
        sent = score_errant(sources, hypotheses, references, variant="senterrant", **common)
        corpus = sent.f if core["base"] == "senterrant" else \
            score_errant(sources, hypotheses, references, variant="errant", **common).f
        return SystemScores([s.f for s in sent.sentences], corpus)

    def spec(model: str = "bert-base-uncased", layer: int | None = None, device: str | None = None,
             beta: float = 0.5, base: str = "errant") -> dict[str, Any]:
        return {"model": model, "layer": layer, "device": device, "beta": beta, "base": base}

    return CoreAdapter("pt-errant", options, spec=spec, score=score)


_CLEME_SENTENCE_RUNS: dict[str, dict] = {}


def _cleme(variant: str) -> Callable[..., SentenceMetric]:
    """CLEME2.0 (`cleme2`) or CLEME (`cleme`) from `gecscore.cleme2.metric` (options: `ClemeConfig` fields).
    Sentence scores come from the sentence level (`alpha` default: the sentence factors); the corpus score
    from `level` (corpus: CLEME2.0 / CLEME, sentence: SentCLEME2.0 / SentCLEME). Model-free with
    `weighting=none` (CLEME2.0 unweighted) or `length` (CLEME's default)."""
    def score(core: Any, opts: dict, sources: Sequence[str], hypotheses: Sequence[str],
              references: Sequence[Sequence[str]], gold: Any, progress: bool) -> SystemScores:
        from gecscore.cleme2.metric import cleme_score

        settings = {k: v for k, v in opts.items() if k != "level"}
        if settings.get("alpha") is not None:
            settings["alpha"] = tuple(settings["alpha"])
        # The sentence-level run does not depend on `level`: CLEME and SentCLEME share it in-process.
        key = hashlib.sha256(json.dumps([settings, list(sources), list(hypotheses), [list(r) for r in references]],
                                        ensure_ascii=False, default=str).encode("utf-8")).hexdigest()
        sent = _CLEME_SENTENCE_RUNS.pop(key, None) or cleme_score(
            sources, hypotheses, references, sentences=True, progress=progress, level="sentence", **settings)
        _CLEME_SENTENCE_RUNS[key] = sent
        if len(_CLEME_SENTENCE_RUNS) > _MEMO_SIZE:
            _CLEME_SENTENCE_RUNS.pop(next(iter(_CLEME_SENTENCE_RUNS)))
        corpus = sent["score"] if opts["level"] == "sentence" else \
            cleme_score(sources, hypotheses, references, progress=progress, level="corpus", **settings)["score"]
        return SystemScores([float(s["score"]) for s in sent["sentences"]], float(corpus))

    def build(**options: Any) -> SentenceMetric:
        from gecscore.cleme2.metric import ClemeConfig

        return CoreAdapter(variant, options, spec=ClemeConfig, score=score, fixed={"variant": variant})
    return build


def _factory(cls: Callable[..., SentenceMetric], name: str, allowed: Sequence[str],
             **fixed: Any) -> Callable[..., SentenceMetric]:
    def build(**options: Any) -> SentenceMetric:
        _check_options(name, options, allowed)
        return cls(**fixed, **options)
    return build


BUILTIN: dict[str, Callable[..., SentenceMetric]] = {
    "errant": _factory(ErrantBaseline, "errant", ("beta", "spacy_model"), sentence_average=False),
    "senterrant": _factory(ErrantBaseline, "senterrant", ("beta", "spacy_model"), sentence_average=True),
    "m2": _factory(M2Baseline, "m2", ("beta", "max_unchanged_words"), sentence_average=False),
    "sentm2": _factory(M2Baseline, "sentm2", ("beta", "max_unchanged_words"), sentence_average=True),
    "impara-ged": _impara("impara_ged"),
    "impara": _impara("impara"),
    "uot-errant": _uot_errant,
    "pt-m2": _pt_m2,
    "pt-errant": _pt_errant,
    "cleme2": _cleme("cleme2"),
    "cleme": _cleme("cleme"),
}
