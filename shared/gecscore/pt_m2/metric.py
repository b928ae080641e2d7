"""PT-M² and PT-ERRANT (Gong et al., EMNLP 2022): M² or ERRANT counts where every edit weighs
|F(source with only that edit, reference) − F(source, reference)|, F being BERTScore F1.

Behaviour follows `docs/reference-behaviour.md`, section "PT-M² and PT-ERRANT": PT-M² as in the reference CLI
(pygongnlp/PT-M2, `--base m2|sentm2`), PT-ERRANT as in gec-metrics (`PTERRANT`, ERRANT edits, greedy corpus
references). The pure parts (pseudo sentences, weights from similarities, counts, scores) take plain data; the
similarity function is injected (`gecscore.common.edit_impact`: `BERTScoreSimilarity`; `None` = unit weights,
the `self` scorer).
Each weight request puts F(source, ref) once per sentence and reference and all pseudo
sentences into one batched similarity call.

Every candidate keeps its counts per error type (`Candidate.types`; `return_types` tabulates them with
`gecscore.common.error_types`): ERRANT's types for PT-ERRANT, the gold M2 types for PT-M²
(`AnnotatorEdits.typed_counts` says where the unclassified system edits go).

Degenerate sentences (`PTResult.degenerate`, the records of `gecscore.common.results`): texts BERTScore truncates,
edits it cannot see (weight exactly 0), and M² counts with correct > proposed or correct > gold
(`INCONSISTENT_COUNTS`), which `robust=True` bounds (`AnnotatorEdits.counts(..., robust=True)`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Mapping, Sequence


from gecscore.pt_m2 import lattice as m2
from gecscore.common.inputs import (
    check_encoder_work, check_references, check_same_length, check_texts, language_tokenizer, tokenise_or_check,
)
from gecscore.common.results import (
    INCONSISTENT_COUNTS, MetricResult, TRUNCATED, ZERO_WEIGHT_EDITS, flag, merge, sentence_core,
)
from gecscore.common.bootstrap import CorpusStatistic, SentenceMean
from gecscore.common.edit_impact import Similarity, WeightRequest, edit_weights
from gecscore.common.edits import Edit, apply_edits
from gecscore.common.encoders import check_loadable
from gecscore.common.errant_scoring import Counts as ErrantCounts
from gecscore.common.errant_scoring import FScore, total
from gecscore.common.errant_scoring import errant_greedy
from gecscore.common.error_types import as_lists, corpus_types, type_table
from gecscore.common.m2io import M2Sentence, edits_to_m2, m2_references, m2_target, read_m2_input
from gecscore.common.chinese_edits import check_lexicon_option, token_texts
from gecscore.common.plain_edits import extractor_for
from gecscore.common.signature import language_setting, make_signature
from gecscore.common.statistics import Statistics
from gecscore.pt_m2 import SPEC
from gecscore.pt_m2.lattice import AnnotatorEdits, M2Counts, SysEdit, m2_greedy

if TYPE_CHECKING:
    from gecscore.common.edits import EditExtractor

#: The variants as a type (tests/test_registry.py holds it equal to `SPEC.variants`).
Variant = Literal["sentm2", "m2", "errant", "senterrant"]
VARIANTS: tuple[str, ...] = SPEC.variants


# ---------------------------------------------------------------------------------------------------
# The entry points: the statistics, how they are gathered, and the corpus rule (helpers below)

@dataclass(frozen=True, kw_only=True)
class PTStatistics(Statistics):
    """One system's statistics (`gecscore.common.statistics`): per sentence, its candidates (every gold annotator,
    or every reference in the ERRANT variants) with their weighted counts, per-type counts and weighted edits."""

    PER_SENTENCE: ClassVar[tuple[str, ...]] = ("candidates",)

    candidates: tuple[tuple[Candidate, ...], ...]


def check_models(options: Mapping[str, Any]) -> None:
    """Raise now, without loading weights, the error a run with `options` would raise loading its BERTScore model."""
    opts = SPEC.resolve(options)
    if opts["scorer"] == "bertscore":
        check_loadable(opts["model"])


def statistics_systems(sources: Sequence[str], systems: Mapping[str, Sequence[str]],
                       references: Sequence[Any] | None = None, *, gold_m2: Any = None, progress: bool = False,
                       **options: Any) -> dict[str, PTStatistics]:
    """Every system's statistics with PT-M² / PT-ERRANT (or M² / ERRANT with `scorer="self"`).

    With `gold_m2`, references (optional) are the texts edits are weighed against, indexed by annotator id;
    without it they are the gold (ERRANT edits of each reference, one annotator per reference).
    """
    return _statistics(sources, systems, references, gold_m2=gold_m2, progress=progress, **options)


def score(stats: PTStatistics) -> MetricResult:
    """The result of one system's statistics: the variant's corpus rule (`pt_result`), the sentence records with
    the chosen annotator or reference, the per-type table and the corpus rule as a resamplable statistic."""
    opts = stats.settings
    variant, beta = opts["variant"], opts["beta"]
    result = pt_result(variant, beta, stats.candidates, stats.degenerate)
    f_key = f"f{beta:g}"
    who = "annotator" if variant in ("m2", "sentm2") else "reference"
    sentences = [{**sentence_core(s.f, [c.index for c in s.candidates].index(s.chosen),
                                  [dict(zip(M2_STATISTICS, c.counts)) for c in s.candidates]),
                  f_key: s.f, "precision": s.precision, "recall": s.recall, who: s.chosen,
                  "counts": [list(c.counts) for c in s.candidates],
                  "types": [as_lists(c.types) for c in s.candidates]} for s in result.sentences]
    details: dict[str, Any] = {"edits": [sentence_record(s, variant) for s in result.sentences]} \
        if opts["return_edits"] else {}
    if opts["return_types"]:
        details["types"] = types_table(result, opts["return_types"], beta)
    details["degenerate_sentences"] = [dict(d) for d in result.degenerate]
    return MetricResult(
        "pt_m2", {"precision": result.precision, "recall": result.recall, f_key: result.f, "score": result.f},
        f_key, sentences, corpus_statistic(result, variant, beta), stats.signature, details,
        sentence_output=[s.f for s in result.sentences])


# ---------------------------------------------------------------------------------------------------
# Helpers


def pseudo_sentence(source: Sequence[str], edit: SysEdit) -> str:
    """The source tokens with only `edit` applied; an edit without original tokens inserts at its start
    (as PT-M² applies the merged first-row insertions of the M² lattice)."""
    end = edit.start if not edit.orig else edit.end
    return " ".join([*source[:edit.start], *edit.corr.split(), *source[end:]])


def uniform_if_all_zero(weights: dict[SysEdit, float]) -> dict[SysEdit, float]:
    """PT-M²'s sentence-level rule: weights that sum to exactly 0 all become 1/n."""
    if weights and sum(weights.values()) == 0:
        return dict.fromkeys(weights, 1 / len(weights))
    return weights


# ---------------------------------------------------------------------------------------------------
# Degenerate sentences (records in the format of `gecscore.common.results`)

# INCONSISTENT_COUNTS: `correct` exceeds `proposed` or `gold` in the published counts (a system edit matched two
# gold edits, or a gold edit matched through an alternative that weighs differently from its first one).


def truncated_texts(requests: Sequence[WeightRequest], owners: Sequence[tuple[int, int]],
                    similarity: Similarity | None, who: str) -> list[dict[str, Any]]:
    """TRUNCATED records for the texts BERTScore embeds (source, reference, the source with one edit) that are longer
    than its window; only requests with edits are embedded. Nothing for a similarity without `token_lengths`."""
    lengths_of = getattr(similarity, "token_lengths", None)
    window = getattr(similarity, "window", None)
    if lengths_of is None or window is None:
        return []
    used = [(owner, r) for owner, r in zip(owners, requests) if r.pseudo]
    texts = list(dict.fromkeys(t for _, r in used for t in (r.source, r.reference, *r.pseudo)))
    length = dict(zip(texts, lengths_of(texts)))
    records: list[dict[str, Any]] = []
    seen_sources: set[int] = set()
    edited: dict[int, list[int]] = {}
    for (i, k), r in used:
        if i not in seen_sources and length[r.source] > window:
            records.append(flag(i, TRUNCATED, text="source", tokens=length[r.source], limit=window))
        seen_sources.add(i)
        if length[r.reference] > window:
            records.append(flag(i, TRUNCATED, text="reference", **{who: k}, tokens=length[r.reference],
                                limit=window))
        edited.setdefault(i, []).extend(length[p] for p in r.pseudo)
    for i, counts in edited.items():
        over = [n for n in counts if n > window]
        if over:
            records.append(flag(i, TRUNCATED, text="edited source", tokens=max(over), limit=window))
    return records


def zero_weight_edits(index: int, who: str, k: int, weights: Mapping[SysEdit, float], system: set[SysEdit],
                      uniform: bool = False) -> list[dict[str, Any]]:
    """A ZERO_WEIGHT_EDITS record when some edit weighs exactly 0 against annotator/reference `k` (BERTScore cannot
    see it: same token ids as the source, e.g. a case edit under an uncased model, or beyond the window)."""
    zero = [e for e, w in weights.items() if w == 0]
    if not zero:
        return []
    edits = [{"start": e.start, "end": e.end, "orig": e.orig, "corr": e.corr, "system": e in system} for e in zero]
    extra = {"uniform": True} if uniform else {}
    return [flag(index, ZERO_WEIGHT_EDITS, **{who: k}, edits=edits, **extra)]


def check_work(requests: Sequence[WeightRequest], owners: Sequence[tuple[int, int]], similarity: Similarity | None,
               max_tokens: int | None) -> None:
    """Refuse, before BERTScore runs, a sentence whose edited copies cost too much (`check_encoder_work`)."""
    if similarity is None:
        return
    by_sentence: dict[int, list[str]] = {}
    for (i, _), request in zip(owners, requests):
        if request.pseudo:
            by_sentence.setdefault(i, []).extend((request.source, request.reference, *request.pseudo))
    check_encoder_work("PT-M2", {i: list(dict.fromkeys(t)) for i, t in by_sentence.items()},
                       getattr(similarity, "window", 512), max_tokens)


def inconsistent_counts(index: int, annotator: int, published: M2Counts, fixed: M2Counts) -> dict[str, Any]:
    """An INCONSISTENT_COUNTS record: the published counts of one annotator and the robust ones."""
    return flag(index, INCONSISTENT_COUNTS, annotator=annotator, counts=list(published),
                robust_counts=list(fixed))


# ---------------------------------------------------------------------------------------------------
# Results


@dataclass(frozen=True)
class Candidate:
    """One sentence against one annotator (M² variants) or reference (ERRANT variants), with edit weights."""

    index: int  # annotator id (M²) or reference position (ERRANT)
    system_edits: tuple[tuple[SysEdit, float, bool], ...]  # (edit, weight, matched)
    gold_edits: tuple[tuple[SysEdit, float], ...]  # first alternative (M²) or ERRANT reference edit, weight
    counts: tuple[float, float, float]  # correct/TP, proposed/TP+FP, gold/TP+FN (weighted)
    types: Mapping[str, ErrantCounts]  # TP/FP/FN per error type (`typed_m2_counts`, `weighted_errant_counts`)


@dataclass(frozen=True)
class SentenceResult:
    """The annotator or reference chosen for a sentence, its weighted counts and P/R/F of those counts."""

    chosen: int
    counts: tuple[float, float, float]
    precision: float
    recall: float
    f: float
    candidates: tuple[Candidate, ...]

    @property
    def types(self) -> Mapping[str, ErrantCounts]:
        """TP/FP/FN per error type against the chosen annotator or reference."""
        return next(c.types for c in self.candidates if c.index == self.chosen)


@dataclass(frozen=True)
class PTResult:
    """Corpus precision/recall/F (sentence variants: means over sentences) and the per-sentence results."""

    variant: str
    precision: float
    recall: float
    f: float
    sentences: tuple[SentenceResult, ...]
    #: Degenerate-sentence records (`gecscore.common.results`), sorted by sentence index.
    degenerate: tuple[dict[str, Any], ...] = ()


# ---------------------------------------------------------------------------------------------------
# PT-M² (M² lattice edits against gold M2)


def gold_references(gold: Sequence[M2Sentence], references: Sequence[Sequence[str]] | None) -> list[dict[int, str]]:
    """The reference text of every annotator of every sentence: `references[i][annotator]` when given
    (checked against the M2), else the M2 corrections applied to the source."""
    out = []
    for i, block in enumerate(gold):
        texts = {}
        for annotator in m2.gold_edits(block):
            target = m2_target(block, annotator)
            if references is None:
                texts[annotator] = target
                continue
            refs = references[i]
            if annotator >= len(refs):
                raise ValueError(f"`references[{i}]` has {len(refs)} entries but the gold M2 has annotator "
                                 f"{annotator} (references are indexed by annotator id)")
            if refs[annotator].split() != target.split():
                raise ValueError(
                    f"`references[{i}][{annotator}]` is not the gold M2 annotator {annotator}'s correction: "
                    f"{refs[annotator]!r} != {target!r}"
                )
            texts[annotator] = refs[annotator]
        out.append(texts)
    return out


def score_m2(sources: Sequence[str], hypotheses: Sequence[str], gold: Sequence[M2Sentence], *,
             variant: Variant = "sentm2", beta: float = 0.5, **options: Any) -> PTResult:
    """PT-M² (`sentm2`: mean sentence F_β, `m2`: corpus F_β) of whitespace-tokenised hypotheses: `pt_result` of
    their `m2_candidates` (`options`: its keywords)."""
    return pt_result(variant, beta, *m2_candidates(sources, hypotheses, gold, variant=variant, **options))


def m2_candidates(sources: Sequence[str], hypotheses: Sequence[str], gold: Sequence[M2Sentence], *,
                  variant: Variant = "sentm2", similarity: Similarity | None = None,
                  reference_texts: Sequence[Mapping[int, str]] | None = None, max_unchanged_words: int = 2,
                  robust: bool = False, progress: bool = False, max_tokens: int | None = None
                  ) -> tuple[list[list[Candidate]], list[dict[str, Any]]]:
    """Every sentence's candidates (one per gold annotator, with weighted counts) and the degenerate records.

    `reference_texts[i][annotator]` is the text edits are weighed against (default: `gold_references`).
    `robust=True` counts each system edit as matching at most one gold edit and weighs a matched gold edit as the
    alternative the system chose, so that correct ≤ proposed and correct ≤ gold (P, R, F in [0, 1]); sentences
    where this changes the counts are flagged in both modes (`INCONSISTENT_COUNTS`).
    """
    if variant not in ("sentm2", "m2"):
        raise ValueError(f"`variant` must be 'sentm2' or 'm2' here, got {variant!r}")
    if not (len(sources) == len(hypotheses) == len(gold)):
        raise ValueError(f"sources ({len(sources)}), predictions ({len(hypotheses)}) and the gold M2 "
                         f"({len(gold)} sentences) differ in length")
    for i, (source, block) in enumerate(zip(sources, gold)):
        if source.split() != block.source.split():
            raise ValueError(f"`sources[{i}]` differs from the gold M2 source of sentence {i}: "
                             f"{source!r} != {block.source!r}")
    texts = gold_references(gold, None) if reference_texts is None else reference_texts
    sentence_level = variant == "sentm2"
    tokens = [source.split() for source in sources]
    per_block: dict[int, tuple[dict, tuple]] = {}  # id → gold edits and types, once per block object
    for block in gold:
        if id(block) not in per_block:
            per_block[id(block)] = (m2.gold_edits(block),
                                    tuple((a, tuple(t)) for a, t in m2.gold_types(block).items()))
    items = [(source, hypothesis.split(), per_block[id(block)][0])
             for source, hypothesis, block in zip(tokens, hypotheses, gold)]
    types = [per_block[id(block)][1] for block in gold]
    degenerate: list[dict[str, Any]] = []
    sentences: list[list[Candidate]] = []
    if similarity is None:  # unit weights: the candidates are made where the lattices are
        done = m2.extract_all(items, max_unchanged_words=max_unchanged_words, progress=progress,
                              then=UnitCandidates(sentence_level, robust), extras=types)
        for i, (candidates, inconsistent) in enumerate(done):
            degenerate += [inconsistent_counts(i, *problem) for problem in inconsistent]
            sentences.append(candidates)
        return sentences, merge(degenerate)
    requests: list[WeightRequest] = []
    owners: list[tuple[int, int]] = []  # (sentence, annotator) of each request
    extracted = m2.extract_all(items, max_unchanged_words=max_unchanged_words, progress=progress)
    for i, per_annotator in enumerate(extracted):
        source = tokens[i]
        for a in per_annotator:
            edits = a.edits_to_weigh()
            requests.append(WeightRequest(" ".join(source), texts[i][a.annotator],
                                          tuple(pseudo_sentence(source, e) for e in edits)))
            owners.append((i, a.annotator))
    check_work(requests, owners, similarity, max_tokens)
    weights = iter(edit_weights(requests, similarity))
    degenerate += truncated_texts(requests, owners, similarity, "annotator")
    for i, (per_annotator, sentence_types) in enumerate(zip(extracted, types)):
        candidates = []
        for a in per_annotator:
            raw = dict(zip(a.edits_to_weigh(), next(weights)))
            candidate, uniform, inconsistent = annotator_candidate(a, raw, dict(sentence_types), sentence_level,
                                                                   robust)
            degenerate += zero_weight_edits(i, "annotator", a.annotator, raw, set(a.edit_seq), uniform=uniform)
            if inconsistent is not None:
                degenerate.append(inconsistent_counts(i, *inconsistent))
            candidates.append(candidate)
        sentences.append(candidates)
    return sentences, merge(degenerate)


def m2_candidates_systems(sources: Sequence[str], systems: Sequence[Sequence[str]], gold: Sequence[M2Sentence], *,
                          reference_texts: Sequence[Mapping[int, str]] | None = None, **options: Any
                          ) -> list[tuple[list[list[Candidate]], list[dict[str, Any]]]]:
    """`m2_candidates` of several systems' hypotheses with unit weights in one extraction (one hand-over to the
    workers; a sentence that several systems share is extracted once): per system, what `m2_candidates` returns."""
    if options.get("similarity") is not None:
        raise ValueError("m2_candidates_systems is for unit weights (similarity=None)")
    n = len(sources)
    for hypotheses in systems:
        if len(hypotheses) != n:
            raise ValueError(f"sources ({n}) and predictions ({len(hypotheses)}) differ in length")
    texts = None if reference_texts is None else list(reference_texts) * len(systems)
    candidates, degenerate = m2_candidates(list(sources) * len(systems), [h for hyps in systems for h in hyps],
                                           list(gold) * len(systems), reference_texts=texts, **options)
    out: list[tuple[list[list[Candidate]], list[dict[str, Any]]]] = [(candidates[k * n:(k + 1) * n], [])
                                                                     for k in range(len(systems))]
    for record in degenerate:
        k, index = divmod(record["index"], n)
        out[k][1].append({**record, "index": index})
    return out


def annotator_candidate(a: AnnotatorEdits, raw: dict[SysEdit, float], types: Mapping[int, Sequence[str]],
                        sentence_level: bool, robust: bool
                        ) -> tuple[Candidate, bool, tuple[int, M2Counts, M2Counts] | None]:
    """One annotator's candidate from the edits' raw weights, whether the weights were made uniform (sum 0 at
    sentence level), and (annotator, published counts, robust counts) where those differ."""
    w = uniform_if_all_zero(raw) if sentence_level else raw
    c = a.counts(w)
    fixed = a.counts(w, robust=True)
    inconsistent = None if fixed == c else (a.annotator, c, fixed)
    if robust:
        c = fixed
    matched = set(a.robust_matches()[0] if robust else a.correct)
    candidate = Candidate(
        a.annotator,
        tuple((e, w[e], e in matched) for e in reversed(a.edit_seq)),
        tuple((g.first, w[g.first]) for g in a.gold),
        tuple(c),
        typed_m2_counts(a.typed_counts(types[a.annotator], w, robust=robust)),
    )
    return candidate, w is not raw, inconsistent


@dataclass(frozen=True)
class UnitCandidates:
    """Every annotator's candidate of one sentence with unit weights (the `self` scorer): picklable, so that
    `m2.extract_all` runs it on the worker that extracted the sentence."""

    sentence_level: bool
    robust: bool

    def __call__(self, per_annotator: list[AnnotatorEdits], types: tuple[tuple[int, tuple[str, ...]], ...]
                 ) -> tuple[list[Candidate], list[tuple[int, M2Counts, M2Counts]]]:
        candidates, inconsistent = [], []
        by_annotator = dict(types)
        for a in per_annotator:
            raw = dict.fromkeys(a.edits_to_weigh(), 1.0)
            candidate, _, problem = annotator_candidate(a, raw, by_annotator, self.sentence_level, self.robust)
            candidates.append(candidate)
            if problem is not None:
                inconsistent.append(problem)
        return candidates, inconsistent


def pt_result(variant: str, beta: float, candidates: Sequence[Sequence[Candidate]],
              degenerate: Sequence[Mapping[str, Any]] = ()) -> PTResult:
    """The corpus rule of every variant over each sentence's candidates: M²'s greedy annotators (`m2`, through
    `corpus_m2`) or each sentence's best (`sentm2`); ERRANT's greedy references (`errant`, `FScore.aggregate`) or
    each sentence's best (`senterrant`); the sentence variants' P/R/F are the means of the sentence values."""
    if variant in ("m2", "sentm2"):
        counts = [[M2Counts(*c.counts) for c in cands] for cands in candidates]
        scored = m2.sentence_m2(counts, beta) if variant == "sentm2" else m2.corpus_m2(counts, beta)
        chosen, sentence_prf = list(scored.chosen), list(scored.sentence_scores)
        p, r, f = scored.precision, scored.recall, scored.f
    else:
        fscore = FScore(beta, "errant")
        per_sentence = [[total(c.types.values()) for c in cands] for cands in candidates]
        agg = fscore.aggregate(per_sentence)
        chosen = agg.sentence_refs if variant == "senterrant" else agg.corpus_refs
        sentence_prf = [fscore.prf(counts[k]) for counts, k in zip(per_sentence, chosen)]
        n = len(sentence_prf)
        p, r, f = ((sum(s[x] for s in sentence_prf) / n for x in range(3)) if variant == "senterrant"
                   else fscore.prf(agg.corpus))
    results = tuple(SentenceResult(cands[k].index, cands[k].counts, *sentence_prf[i], tuple(cands))
                    for i, (cands, k) in enumerate(zip(candidates, chosen)))
    return PTResult(variant, p, r, f, results, tuple(degenerate))


# ---------------------------------------------------------------------------------------------------
# PT-ERRANT (ERRANT edits against raw references; gec-metrics)


def typed_m2_counts(types: Mapping[str, M2Counts]) -> dict[str, ErrantCounts]:
    """Per-type correct / proposed / gold as TP, FP = proposed − correct, FN = gold − correct."""
    return {t: ErrantCounts(c.correct, c.proposed - c.correct, c.gold - c.correct) for t, c in types.items()}


def weighted_errant_counts(hyp_edits: Sequence[Edit], ref_edits: Sequence[Edit],
                           weights: dict[tuple[int, int, str], float]) -> dict[str, ErrantCounts]:
    """ERRANT TP/FP/FN per error type where each edit adds its weight (TP and FP under the hypothesis edit's type,
    FN under the reference edit's); the metric sums them over types in this order."""
    ref_keys = {e.key for e in ref_edits}
    hyp_keys = {e.key for e in hyp_edits}
    by_type: dict[str, ErrantCounts] = {}
    for e in hyp_edits:
        w = weights[e.key]
        hit = e.key in ref_keys
        by_type[e.type] = by_type.get(e.type, ErrantCounts()) + ErrantCounts(tp=w if hit else 0.0,
                                                                               fp=0.0 if hit else w)
    for e in ref_edits:
        if e.key not in hyp_keys:
            by_type[e.type] = by_type.get(e.type, ErrantCounts()) + ErrantCounts(fn=weights[e.key])
    return by_type


def score_errant(sources: Sequence[str], hypotheses: Sequence[str], references: Sequence[Sequence[str]], *,
                 variant: Variant = "senterrant", beta: float = 0.5, **options: Any) -> PTResult:
    """PT-ERRANT (`errant`: greedy corpus F_β, `senterrant`: mean sentence F_β); references per sentence:
    `pt_result` of their `errant_candidates` (`options`: its keywords).

    Each sentence's `chosen` reference is the greedy corpus choice (`errant`) or its own best (`senterrant`)."""
    return pt_result(variant, beta, *errant_candidates(sources, hypotheses, references, variant=variant, **options))


def errant_candidates(sources: Sequence[str], hypotheses: Sequence[str], references: Sequence[Sequence[str]], *,
                      extractor: EditExtractor, variant: Variant = "senterrant", similarity: Similarity | None = None,
                      progress: bool = False, max_tokens: int | None = None
                      ) -> tuple[list[list[Candidate]], list[dict[str, Any]]]:
    """Every sentence's candidates (one per reference, with weighted ERRANT counts) and the degenerate records."""
    if variant not in ("errant", "senterrant"):
        raise ValueError(f"`variant` must be 'errant' or 'senterrant' here, got {variant!r}")
    if not (len(sources) == len(hypotheses) == len(references)):
        raise ValueError(f"sources ({len(sources)}), predictions ({len(hypotheses)}) and references "
                         f"({len(references)}) differ in length")
    flat_sources = [s for s, refs in zip(sources, references) for _ in refs]
    flat_refs = [r for refs in references for r in refs]
    every = extractor.extract([*sources, *flat_sources], [*hypotheses, *flat_refs], progress=progress)
    hyp_edits, flat_edits = every[:len(sources)], iter(every[len(sources):])  # one extraction: sources parsed once
    ref_edits = [[next(flat_edits) for _ in refs] for refs in references]
    requests, keys, owners = [], [], []
    for i, (source, hyp, refs, per_ref) in enumerate(zip(sources, hyp_edits, references, ref_edits)):
        for r, (ref, r_edits) in enumerate(zip(refs, per_ref)):
            unique: dict[tuple[int, int, str], Edit] = {}
            for e in (*hyp, *r_edits):
                unique.setdefault(e.key, e)
            keys.append(list(unique))
            requests.append(WeightRequest(source, ref, tuple(apply_edits(source, [e]) for e in unique.values())))
            owners.append((i, r))
    check_work(requests, owners, similarity, max_tokens)
    weights = iter(edit_weights(requests, similarity))
    key_lists = iter(keys)
    candidates: list[list[Candidate]] = []
    degenerate = truncated_texts(requests, owners, similarity, "reference")
    for i, (hyp, per_ref) in enumerate(zip(hyp_edits, ref_edits)):
        cands = []
        for r, r_edits in enumerate(per_ref):
            w = dict(zip(next(key_lists), next(weights)))
            if similarity is not None:
                edits = {e.key: _as_sys(e) for e in (*hyp, *r_edits)}
                degenerate += zero_weight_edits(i, "reference", r, {edits[k]: v for k, v in w.items()},
                                                {_as_sys(e) for e in hyp})
            types = weighted_errant_counts(hyp, r_edits, w)
            c = total(types.values())
            ref_keys = {e.key for e in r_edits}
            cands.append(Candidate(
                r,
                tuple((_as_sys(e), w[e.key], e.key in ref_keys) for e in hyp),
                tuple((_as_sys(e), w[e.key]) for e in r_edits),
                (c.tp, c.tp + c.fp, c.tp + c.fn),
                types,
            ))
        candidates.append(cands)
    return candidates, merge(degenerate)


def _as_sys(edit: Edit) -> SysEdit:
    return SysEdit(edit.o_start, edit.o_end, edit.o_str, edit.c_str)


# ---------------------------------------------------------------------------------------------------
# Gold from references, references from gold, output records


def default_extractor() -> EditExtractor:
    """The process-wide ERRANT edit extractor."""
    from gecscore.common.edits import get_extractor

    return get_extractor()


def start_pool_for_lattices(sources: Sequence[str], systems: Sequence[Sequence[str]],
                            references: Sequence[Sequence[str]]) -> None:
    """Start the worker pool now where the lattices will start it (`m2.lattice_workers`), so that the references'
    edits, which come first and are often too few to start it themselves, run on it too: this process then loads
    no spaCy pipeline of its own."""
    from gecscore.common import workers

    distinct = len({(s, h, tuple(r)) for hyps in systems for s, h, r in zip(sources, hyps, references)})
    count = m2.lattice_workers(distinct)
    if count > 1:
        workers.worker_pool(count)  # the running pool, or a new one


def gold_from_references(sources: Sequence[str], references: Sequence[Sequence[str]], *,
                         extractor: EditExtractor | None = None, progress: bool = False
                         ) -> tuple[list[M2Sentence], list[dict[int, str]]]:
    """A gold M2 with one annotator per reference (its ERRANT edits) and the references as weighing texts."""
    extractor = extractor or default_extractor()
    flat = extractor.extract([s for s, refs in zip(sources, references) for _ in refs],
                             [r for refs in references for r in refs], progress=progress)
    edits = iter(flat)
    blocks: dict[tuple[str, tuple[str, ...]], M2Sentence] = {}  # a repeated sentence (several systems) shares its block
    gold = []
    for source, refs in zip(sources, references):
        found = [next(edits) for _ in refs]
        key = (source, tuple(refs))
        if key not in blocks:
            blocks[key] = edits_to_m2(source, found)
        gold.append(blocks[key])
    return gold, [dict(enumerate(refs)) for refs in references]


#: The names of the weighted counts of a sentence against one annotator or reference (precision = correct /
#: proposed, recall = correct / gold).
M2_STATISTICS = ("correct", "proposed", "gold")


def sentence_record(sentence: SentenceResult, variant: str) -> dict:
    """A JSON-friendly record of one sentence: chosen annotator/reference, counts and every edit's weight."""
    who = "annotator" if variant in ("m2", "sentm2") else "reference"

    def edit(e: SysEdit, weight: float) -> dict:
        return {"start": e.start, "end": e.end, "orig": e.orig, "corr": e.corr, "weight": weight}

    return {
        who: sentence.chosen,
        **dict(zip(M2_STATISTICS, sentence.counts)),
        "precision": sentence.precision, "recall": sentence.recall, "f": sentence.f,
        "candidates": [{
            who: c.index,
            **dict(zip(M2_STATISTICS, c.counts)),
            "system_edits": [edit(e, w) | {"matched": m} for e, w, m in c.system_edits],
            "gold_edits": [edit(e, w) for e, w in c.gold_edits],
        } for c in sentence.candidates],
    }


def signature(variant: str, scorer: str, similarity: Similarity | None, beta: float, max_unchanged_words: int,
              gold: str, robust: bool = False, tokenize: bool = False, language: str = "en",
              zh_lexicon: str | None = None) -> str:
    """The version signature of a PT-M² / PT-ERRANT result."""
    settings: dict[str, object] = {"variant": variant, "scorer": scorer}
    if similarity is not None:
        settings["model"] = getattr(similarity, "model", "custom")
        settings["layer"] = getattr(similarity, "layer", None)
    settings["beta"] = float(beta)
    if variant in ("m2", "sentm2"):
        settings["max_unchanged_words"] = max_unchanged_words
    settings["gold"] = gold
    settings.update(language_setting({"language": language, "zh_lexicon": zh_lexicon},
                                     edits=gold == "references" or variant in ("errant", "senterrant")))
    settings["tokenize"] = "spacy" if tokenize else "none"
    settings["robust"] = robust
    return make_signature("pt_m2", settings)


# ---------------------------------------------------------------------------------------------------
# Entry point: inputs → gold → weights → counts → the one result protocol


def _statistics(sources: Sequence[str], systems: Mapping[str, Sequence[str]], references: Sequence[Any] | None, *,
                gold_m2: Any, progress: bool, **options: Any) -> dict[str, PTStatistics]:
    """Every system's statistics: the inputs checked, the gold and the similarity made once for all systems.
    With unit weights (M² / SentM² with the `self` scorer) all systems' sentences go through one extraction
    (`m2_candidates_systems`)."""
    opts = SPEC.resolve(options)
    variant, scorer, beta = opts["variant"], opts["scorer"], opts["beta"]
    sources = check_texts("sources", sources)
    names = list(systems)
    predicted = [check_texts("predictions", predictions) for predictions in systems.values()]
    n = len(sources)
    for predictions in predicted:
        check_same_length(sources=sources, predictions=predictions)
    refs = _optional_references(references, n)
    given = any(refs)
    gold = read_m2_input(gold_m2, "gold_m2")
    if gold is None and not given:
        raise ValueError("pass `references` (corrected sentences) or `gold_m2` (an M2 annotation)")
    if gold is not None and len(gold) != n:
        raise ValueError(f"`gold_m2` has {len(gold)} sentences but there are {n} predictions")
    language = opts["language"]
    nlp = language_tokenizer(language) if opts["tokenize"] and language != "en" else None
    sources, predicted, refs = tokenise_or_check(sources, predicted, refs, tokenize=opts["tokenize"],
                                                 fixed=gold is not None, nlp=nlp)
    check_lexicon_option(language, opts["zh_lexicon"])
    if language == "zh":  # the char tokens ChERRANT's edits index, corrections in simplified characters
        if gold is not None:
            raise ValueError("language='zh' extracts the edits from text; a gold M2 has its tokens and edits "
                             "already: drop `language` (or `gold_m2`)")
        sources, texts, refs = token_texts(sources, dict(zip(names, predicted)), refs)
        predicted = [texts[name] for name in names]
    if gold is not None and variant in ("m2", "sentm2"):
        check_type_level(gold, opts["return_types"])
    similarity = None
    if scorer == "bertscore":
        from gecscore.common.edit_impact import BERTScoreSimilarity

        similarity = BERTScoreSimilarity(opts["model"], layer=opts["layer"], device=opts["device"])
    common = dict(variant=variant, similarity=similarity, progress=progress, max_tokens=opts["max_tokens"])
    if variant in ("m2", "sentm2"):
        if gold is not None:
            texts = gold_references(gold, refs if given else None)
        else:
            extractor = extractor_for(language, zh_lexicon=opts["zh_lexicon"])
            start_pool_for_lattices(sources, predicted, refs)
            gold, texts = gold_from_references(sources, refs, extractor=extractor, progress=progress)
        m2_options = dict(reference_texts=texts, max_unchanged_words=opts["max_unchanged_words"],
                          robust=opts["robust"], **common)
        if similarity is None and len(predicted) > 1:
            found = m2_candidates_systems(sources, predicted, gold, **m2_options)
        else:
            found = [m2_candidates(sources, predictions, gold, **m2_options) for predictions in predicted]
    else:
        if not given:
            refs = m2_references(gold)
        extractor = extractor_for(language, zh_lexicon=opts["zh_lexicon"])
        found = [errant_candidates(sources, predictions, refs, extractor=extractor, **common)
                 for predictions in predicted]
    settings = {**opts, "gold_m2": None}  # the M2 itself is in the candidates; its kind is in the signature
    made = signature(variant, scorer, similarity, beta, opts["max_unchanged_words"],
                     "m2" if gold_m2 is not None else "references", opts["robust"], opts["tokenize"], language,
                     opts["zh_lexicon"])
    return {name: PTStatistics(settings=settings, degenerate=tuple(degenerate), signature=made,
                               candidates=tuple(tuple(cands) for cands in candidates))
            for name, (candidates, degenerate) in zip(names, found)}


def check_type_level(gold: Sequence[M2Sentence], level: int) -> None:
    """Refuse levels 1 and 2 (operation, main type) when the gold M2's types are not ERRANT's (`R:NOUN`, `UNK`)."""
    if level not in (1, 2):
        return
    for i, block in enumerate(gold):
        for e in block.edits:
            if not (e.is_noop or e.type == "UNK" or (len(e.type) > 2 and e.type[0] in "MRU" and e.type[1] == ":")):
                raise ValueError(f"`return_types={level}` merges ERRANT error types (M:/R:/U:...), but the gold M2 "
                                 f"has the type {e.type!r} (sentence {i}); use return_types=3")


def types_table(result: PTResult, level: int, beta: float) -> dict[str, Any]:
    """The corpus per-type table (`gecscore.common.error_types.type_table`) over each sentence's chosen annotator
    or reference: the greedy corpus choice (`m2`, `errant`), each sentence's own best (`sentm2`, `senterrant`)."""
    return type_table(corpus_types([s.types for s in result.sentences]), level, FScore(beta, "errant"), f"f{beta:g}")


def corpus_statistic(result: PTResult, variant: str, beta: float) -> CorpusStatistic:
    """The variant's corpus rule over the per-sentence counts: greedy annotator (m2), greedy reference (errant)
    or the mean of sentence F (sentm2, senterrant)."""
    candidates = [[c.counts for c in s.candidates] for s in result.sentences]
    if variant == "m2":
        return m2_greedy(candidates, beta)
    if variant == "errant":  # the per-type counts summed, as `pt_result` sums them
        return errant_greedy([[total(c.types.values()) for c in s.candidates] for s in result.sentences],
                             FScore(beta, "errant"))
    return SentenceMean([s.f for s in result.sentences])


def _optional_references(references: Sequence[Any] | None, n: int) -> list[list[str]]:
    """References per example, or empty lists when none are given (a gold M2 stands in); all or none."""
    if references is None:
        return [[] for _ in range(n)]
    refs = list(references)
    empty = [i for i, r in enumerate(refs) if not isinstance(r, str) and r is not None and len(r) == 0]
    if len(refs) == n and len(empty) == n:
        return [[] for _ in range(n)]
    if empty:
        raise ValueError(f"`references[{empty[0]}]` is empty while other examples have references")
    return check_references(refs, n)
