"""GoToScorer as gec-metrics 0.1.1 computes it (`gec_metrics.metrics.gotoscorer`; docs/reference-behaviour.md).

Per sentence and reference, the statistics are the weighted TP/FP/FN/TN of the reference's chunks per chunk type
(`chunks.typed_counts`). A sentence's counts against reference `ref_id` are its types added in order; its score is
F-beta of them (P = 1 when FP = 0, R = 1 when FN = 0, as ERRANT's); the corpus adds the sentences' counts in order
and scores the sums. Those are gec-metrics' float operations in its order, so the floats are its own.

Difficulty weights from the systems of a run are one quantity computed from every system: `statistics_systems`
receives every system of the run (the CLI's and leaderboard's `--predictions A B C`, every shard of a sharded run),
so it estimates them before any system's statistics. A sentence's weights depend only on that sentence's outputs,
so shards still concatenate; a weight file covers the whole corpus and is scored unsharded (`SPEC.unshardable`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Mapping, Sequence

from gecscore.common.bootstrap import Aggregate
from gecscore.common.caller import warn
from gecscore.common.chinese_edits import check_lexicon_option, token_texts
from gecscore.common.errant_compare import category_of
from gecscore.common.errant_scoring import Counts, FScore, errant_greedy
from gecscore.common.inputs import UnusedReferencesWarning
from gecscore.common.results import MetricResult, ZERO_WEIGHT_EDITS, flag, sentence_core
from gecscore.common.plain_edits import extractor_for
from gecscore.common.signature import language_setting, make_signature
from gecscore.common.statistics import Statistics
from gecscore.gotoscorer import SPEC, WEIGHT_MODES
from gecscore.gotoscorer.chunks import COUNTED, DUMMY, Chunk, chunk_sequence, outcome, typed_counts
from gecscore.gotoscorer.weights import difficulty, evaluations, read_weight_file, write_weight_file

#: The settings that change the numbers, in signature order.
SETTINGS = ("weights", "ref_id", "beta", "tokenize", "robust")
COUNT_NAMES = ("tp", "fp", "fn", "tn")
#: A chunk record: [o_start, o_end, correction, type, weight, outcome].
ChunkRow = tuple[int, int, str, str, float, str]


# ---------------------------------------------------------------------------------------------------
# The entry points: the statistics, how they are gathered, and the corpus rule (helpers below)

@dataclass(frozen=True, kw_only=True)
class GoToScorerStatistics(Statistics):
    """One system's statistics (`gecscore.common.statistics`): per sentence and reference, the weighted
    `[tp, fp, fn, tn]` per chunk type (in the order gec-metrics adds them), and the chunk records against
    `ref_id`."""

    PER_SENTENCE: ClassVar[tuple[str, ...]] = ("typed", "chunks")

    typed: tuple[tuple[Mapping[str, tuple[float, float, float, float]], ...], ...]
    chunks: tuple[tuple[ChunkRow, ...], ...]


def check_models(options: Mapping[str, Any]) -> None:
    """What a run with `options` would refuse before any work, checked without data (the Trainer hook calls it when
    it is built): GoToScorer loads no model, but its weight file must exist. The spaCy pipeline is loaded on first
    use."""
    opts = SPEC.resolve(options)
    check_weight_options(opts, None)
    check_chinese_options(opts)


def statistics_systems(sources: Sequence[str], systems: Mapping[str, Sequence[str]],
                       references: Sequence[Sequence[str]] | None = None, *, progress: bool = False,
                       **options: Any) -> dict[str, GoToScorerStatistics]:
    """Every system's chunk counts against every reference, with the weights asked for ('systems': estimated
    from all the systems given here first); the sources and references are chunked once for all systems."""
    opts = SPEC.resolve(options)
    check_weight_options(opts, len(systems))
    check_chinese_options(opts)
    ref_id = opts["ref_id"]
    predictions = systems  # tokenised by the input layer, which checked that every sentence has reference `ref_id`
    if opts["language"] == "zh":  # the char tokens ChERRANT's edits index, corrections in simplified characters
        sources, predictions, references = token_texts(sources, systems, references)
    unused = sum(len(refs) > 1 for refs in references)
    if unused and "ref_id" not in options:  # chosen by the user: they know the others are not read
        warn(f"GoToScorer scores against one reference per sentence (ref_id={ref_id}); {unused} of {len(references)} "
             f"sentences have more, which are not used. Pass ref_id=K to say which one, or give one reference per "
             f"sentence", UnusedReferencesWarning)
    pairs = [(i, source, ref) for i, (source, refs) in enumerate(zip(sources, references)) for ref in refs]
    extractor = extractor_for(opts["language"], zh_lexicon=opts["zh_lexicon"])
    flat = _chunks([p[1] for p in pairs], [p[2] for p in pairs], extractor, progress)
    reference_chunks: list[list[list[Chunk]]] = [[] for _ in sources]
    for (i, _, _), chunks in zip(pairs, flat):
        reference_chunks[i].append(chunks)
    system_chunks = {name: _chunks(sources, hyps, extractor, progress) for name, hyps in predictions.items()}
    weights, weight_name = _weights(opts["weights"], reference_chunks, system_chunks, ref_id, opts["save_weights"],
                                    opts["rules"])
    rules = {"rules": opts["rules"]} if opts["rules"] != "gec-metrics" else {}  # English signatures unchanged
    signature = make_signature("gotoscorer", {**{k: opts[k] for k in SETTINGS}, "weights": weight_name, **rules,
                                              **language_setting(opts, edits=True)},
                               libraries=("errant", "spacy"))
    return {name: _system_statistics(reference_chunks, hyp_chunks, weights, opts, signature)
            for name, hyp_chunks in system_chunks.items()}


def score(stats: GoToScorerStatistics) -> MetricResult:
    """Each sentence's F-beta against `ref_id`, the corpus F-beta of the summed counts, the per-type table when
    asked, and the corpus rule as a resamplable statistic (`errant_greedy` with one candidate per sentence: the
    counts added in sentence order). Under the original GoToScorer's rules (`rules='gts'`) the corpus adds every
    chunk's weight in corpus order, as GTS does, and a vanishing denominator gives 0 (`fbeta`'s "zero")."""
    opts = stats.settings
    gts = opts["rules"] == "gts"
    ref_id, rule = opts["ref_id"], FScore(opts["beta"], "zero" if gts else "errant")
    f_key = f"f{opts['beta']:g}"
    totals = [[total(types) for types in refs] for refs in stats.typed]
    sentences = []
    for refs, types, chunks in zip(totals, stats.typed, stats.chunks):
        p, r, f = rule.prf(Counts(*refs[ref_id][:3]))
        record = sentence_core(f, ref_id, [dict(zip(COUNT_NAMES, c)) for c in refs])
        record.update({"precision": p, "recall": r, f_key: f, "chunks": [list(row) for row in chunks],
                       "types": {t: list(c) for t, c in types[ref_id].items()}})
        sentences.append(record)
    if gts:
        statistic: Any = Aggregate(list(stats.chunks), lambda rows: rule.prf(Counts(*chunk_totals(rows)[:3])).f)
        tp, fp, fn, tn = chunk_totals(list(stats.chunks))
    else:
        statistic = errant_greedy([[Counts(*refs[ref_id][:3])] for refs in totals], rule)
        _, corpus = statistic.choose()
        tn = 0.0
        for refs in totals:
            tn += refs[ref_id][3]
        tp, fp, fn = (float(x) for x in corpus)
    p, r, f = rule.prf(Counts(tp, fp, fn))
    scores = {f_key: f, "precision": p, "recall": r, "tp": tp, "fp": fp, "fn": fn, "tn": tn}
    details: dict[str, Any] = {"degenerate_sentences": [dict(d) for d in stats.degenerate]}
    if opts["return_types"]:
        details["types"] = {"level": opts["return_types"],
                            "rows": type_rows([types[ref_id] for types in stats.typed], opts["return_types"], rule,
                                              f_key)}
    return MetricResult("gotoscorer", scores, f_key, sentences, statistic, stats.signature, details)


# ---------------------------------------------------------------------------------------------------
# Helpers


def _chunks(sources: Sequence[str], targets: Sequence[str], extractor: Any, progress: bool) -> list[list[Chunk]]:
    """Every source's chunk sequence against its target by `extractor` (`plain_edits.extractor_for`: ERRANT edits,
    `noop` and `UNK` left out as gec-metrics does; in Chinese, ChERRANT's first char alignment's; in another
    language, plain edits)."""
    edits = extractor.extract(sources, targets, progress=progress)
    return [chunk_sequence(e, source.split(" ")) for e, source in zip(edits, sources)]


def check_chinese_options(opts: Mapping[str, Any]) -> None:
    """`zh_lexicon` only with language='zh', and no main-type table there: ChERRANT's types (M/R/S/W) have none, so
    level 2 would put every chunk under an empty name."""
    check_lexicon_option(opts["language"], opts["zh_lexicon"])
    if opts["language"] == "zh" and opts["return_types"] == 2:
        raise ValueError("`return_types=2` (main types) does not apply to language='zh': ChERRANT's char edits are "
                         "typed M/R/S/W only; pass return_types=1 or 3")


def check_weight_options(opts: Mapping[str, Any], systems: int | None) -> None:
    """The weight settings checked before any work: 'systems' with several systems (when their number is known),
    a weight file that exists, `save_weights` only with weights estimated here."""
    mode = opts["weights"]
    if opts["save_weights"] is not None and mode != "systems":
        raise ValueError("`save_weights` writes weights estimated from the systems: pass weights='systems'")
    if mode == "systems" and systems is not None and systems < 2:
        raise ValueError(f"weights='systems' estimates each chunk's difficulty from the systems scored together "
                         f"and got {systems}; score at least 2 systems in one run (e.g. `gecscore score gotoscorer "
                         "--predictions A B C ...`), or pass a weight file")
    if mode not in WEIGHT_MODES and not Path(mode).is_file():
        raise FileNotFoundError(f"`weights`: no weight file {mode} (give 'none', 'systems' or the path of a "
                                "gec-metrics weight file)")


def _weights(mode: str, reference_chunks: list[list[list[Chunk]]], system_chunks: Mapping[str, list[list[Chunk]]],
             ref_id: int, save: str | None, rules: str) -> tuple[list[list[list[float]]], str]:
    """Per sentence, reference and chunk: the weights, and how the signature names them."""
    unit = [[[1.0] * len(chunks) for chunks in refs] for refs in reference_chunks]
    if mode == "none":
        return unit, "none"
    if mode == "systems":
        outputs = list(system_chunks.values())
        judged = [[evaluations(chunks, [system[i] for system in outputs], rules) for chunks in refs]
                  for i, refs in enumerate(reference_chunks)]
        if save is not None:
            write_weight_file(save, [refs[ref_id] for refs in judged], [difficulty(refs[ref_id]) for refs in judged])
        return [[difficulty(e) for e in refs] for refs in judged], f"systems({len(system_chunks)})"
    weights = read_weight_file(mode, [len(refs[ref_id]) for refs in reference_chunks])
    for refs, given in zip(unit, weights):
        refs[ref_id] = given
    digest = hashlib.sha256(Path(mode).read_bytes()).hexdigest()[:12]
    return unit, f"file({digest})"


def _system_statistics(reference_chunks: list[list[list[Chunk]]], hyp_chunks: list[list[Chunk]],
                       weights: list[list[list[float]]], opts: Mapping[str, Any],
                       signature: str) -> GoToScorerStatistics:
    """One system's typed counts and chunk records; a sentence with errors (FP or FN chunks) against `ref_id` that
    all weigh 0 is flagged: it scores as if it had none."""
    ref_id = opts["ref_id"]
    typed, rows, degenerate = [], [], []
    for i, (refs, hyp, ref_weights) in enumerate(zip(reference_chunks, hyp_chunks, weights)):
        per_ref = []
        for k, (chunks, chunk_weights) in enumerate(zip(refs, ref_weights)):
            outcomes = [outcome(chunk, hyp, opts["rules"]) for chunk in chunks]
            per_ref.append({t: tuple(c) for t, c in typed_counts(chunks, outcomes, chunk_weights).items()})
            if k == ref_id:
                rows.append(tuple((c.o_start, c.o_end, c.c_str, c.type, w, o)
                                  for c, w, o in zip(chunks, chunk_weights, outcomes)))
                errors = [w for w, o in zip(chunk_weights, outcomes) if o not in ("tp", "tn")]
                if errors and not any(errors):
                    degenerate.append(flag(i, ZERO_WEIGHT_EDITS, reference=ref_id, chunks=len(errors)))
        typed.append(tuple(per_ref))
    return GoToScorerStatistics(settings=opts, signature=signature, degenerate=tuple(degenerate),
                                typed=tuple(typed), chunks=tuple(rows))


def chunk_totals(sentences: Sequence[Sequence[ChunkRow]]) -> tuple[float, float, float, float]:
    """TP/FP/FN/TN of chunk records, every chunk's weight added in corpus order (the original GoToScorer's
    `update_scores`)."""
    counts = dict.fromkeys(COUNT_NAMES, 0.0)
    for rows in sentences:
        for *_, weight, result in rows:
            for name in COUNTED[result]:
                counts[name] += weight
    return counts["tp"], counts["fp"], counts["fn"], counts["tn"]


def total(types: Mapping[str, Sequence[float]]) -> tuple[float, float, float, float]:
    """A sentence's counts: its types added in order from zero, as gec-metrics' `aggregate_to_overall`."""
    tp = fp = fn = tn = 0.0
    for c in types.values():
        tp, fp, fn, tn = tp + c[0], fp + c[1], fn + c[2], tn + c[3]
    return tp, fp, fn, tn


def type_rows(typed: Sequence[Mapping[str, Sequence[float]]], level: int, rule: FScore, f_key: str
              ) -> dict[str, dict[str, float]]:
    """The corpus per-type table: counts per category (`errant_compare -cat` levels; non-edit chunks are DUMMY at
    every level), added sentence by sentence, scored with the metric's F rule; categories sorted."""
    merged: dict[str, list[float]] = {}
    for types in typed:
        for t, c in types.items():
            name = "DUMMY" if t == DUMMY else category_of(t, level)
            into = merged.setdefault(name, [0.0, 0.0, 0.0, 0.0])
            for j in range(4):
                into[j] += c[j]
    rows = {}
    for name, (tp, fp, fn, tn) in sorted(merged.items()):
        p, r, f = rule.prf(Counts(tp, fp, fn))
        rows[name] = {"tp": tp, "fp": fp, "fn": fn, "tn": tn, "precision": p, "recall": r, f_key: f}
    return rows


