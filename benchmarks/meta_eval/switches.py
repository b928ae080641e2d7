"""The switches: named, documented changes of a row's or listing's base protocol, and what else was tried.

A switch counts for a cell only if its value equals the published one (results.md, "Switches"); `TRIED` holds the
text that a missed cell links to, `CAUSES` the causes of the missed cells and whether each locates the difference.
The evaluator is passed to each switch, so this module needs no import of it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Callable

from external import cleme_m2_file_scores, lattice_gold, legacy_errant_scores, sn8gec_published_m2
from listing_values import (TABLE12_ALPHA, alpha_grid, heuo_ablation, heuo_correlation, heuo_table,
                            rank_difference)
from published import Listing, Row, variants

if TYPE_CHECKING:
    from evaluator import Evaluator


@dataclass(frozen=True)
class Switch:
    """A named change of a row's or listing's protocol: `compute(item, evaluator)` gives the row's two values (or
    None), or one value per listing cell."""

    name: str
    description: str
    compute: Callable[[Row | Listing, Evaluator], tuple[float | None, float | None] | list | None]


def _row_variant(options: dict | None = None, **fields) -> Callable:
    def compute(row: Row, ev: Evaluator) -> tuple[float | None, float | None] | None:
        return ev.values(replace(row, options={**row.options, **(options or {})}, **fields))
    return compute


def _transposed(variant: Callable[[Row, Evaluator], tuple[float | None, float | None] | None]) -> Callable:
    """A variant with the EW ρ and TS r cells exchanged: (EW r, TS r) for the EW row, (EW ρ, TS ρ) for TS."""
    def compute(row: Row, ev: Evaluator) -> tuple[float | None, float | None] | None:
        ew, ts = variant(replace(row, human="ew_nusnlp"), ev), variant(replace(row, human="ts_nusnlp"), ev)
        if ew is None or ts is None:
            return None
        return (ew[0], ts[0]) if row.human == "ew_nusnlp" else (ew[1], ts[1])
    return compute


def _row_slip(label: str) -> Callable:
    """The values of another row (the paper printed that row's pair here)."""
    def compute(row: Row, ev: Evaluator) -> tuple[float | None, float | None] | None:
        metric, options = variants()[label]
        return ev.values(replace(row, metric=metric, options=options, label=label))
    return compute


def _cleme_errant_m2(row: Row, ev: Evaluator) -> tuple[float | None, float | None] | None:
    return ev.external("cleme-errant-m2", row, lambda: cleme_m2_file_scores(ev.data_dir, row))


def _legacy_errant(row: Row, ev: Evaluator) -> tuple[float | None, float | None] | None:
    return ev.external("errant-2.3.3", row, lambda: legacy_errant_scores(ev, row))


def _seeda_lm_critic_as_pie(row: Row, ev: Evaluator) -> tuple[float | None, float | None] | None:
    if row.dataset != "seeda" or row.aggregation != "default":
        raise ValueError(f"{SEEDA_LM_CRITIC} applies to SEEDA rows with per-system scores (default aggregation)")

    def scores() -> dict[str, float]:
        out = dict(ev.result(row).metric_scores)
        out["LM-Critic"] = out["PIE"]
        return out

    return ev.external(SEEDA_LM_CRITIC, row, scores)


def _sn8gec_published(row: Row, ev: Evaluator) -> tuple[float | None, float | None] | None:
    return ev.external("sn8gec-published-m2", row, lambda: sn8gec_published_m2(ev.data_dir, row.references or ""))


def _lattice_gold_switch(row: Row, ev: Evaluator) -> tuple[float | None, float | None] | None:
    def scores() -> dict[str, float]:
        from gecscore.meta_eval import get_metric, meta_evaluate

        data = ev.dataset(row)
        variant = replace(data, gold_m2=lattice_gold(data.sources, data.references),
                          reference_set=f"{data.reference_set}:lattice-gold")
        return meta_evaluate(get_metric(row.metric, **row.options), variant, system_set=row.system_set,
                             aggregation=row.aggregation, cache=ev.cache).metric_scores

    return ev.external("m2-gold=lattice", row, scores)


SEEDA_LM_CRITIC = "seeda-lm-critic=pie"

SWITCHES: dict[str, Switch] = {s.name: s for s in (
    Switch("cleme-errant-m2",
           "Edits from the ERRANT M2 files CLEME ships for CoNLL-2014 (`CoNLL-2014/CLEME/demo/examples/conll14.errant` "
           "for the references, `conll14-<SYS>.errant` for the 13 systems; made by an older errant/spaCy than ours) "
           "instead of our errant 3.0.2 extraction, scored by our own code: `gecscore.common.errant_scoring` for "
           "ERRANT (corpus F0.5 of the greedily accumulated counts), PT-M2's `errant_score.py` rules for SentERRANT "
           "(`sentence_errant_from_edits`), `gecscore.cleme2.metric.cleme_score(hyp_m2=, ref_m2=)` for CLEME.",
           _cleme_errant_m2),
    Switch("errant-2.3.3",
           "GJG15 rows (SN-8GEC and CoNLL-2014 reference sets): reference edits made by ERRANT 2.3.3, the version "
           "CLEME states it used, in its own spaCy 2 environment (`legacy_errant.py`: spaCy 2.3.9, `en_core_web_sm` "
           "2.2.5, ERRANT's `errant_parallel`; on CoNLL-2014 from PT-M2's references), and the 13 systems' edits "
           "from CLEME's `conll14-<SYS>.errant`, scored as in `cleme-errant-m2`, instead of our errant 3.0.2 edits "
           "of both. The model CLEME used (spaCy 2.3's `en_core_web_sm`) is not on PyPI: on "
           "CoNLL-2014 this setup gives CLEME's 5937 reference edits with 11 of 1312 sentences' spans differing.",
           _legacy_errant),
    Switch("errant-2.3.3+refs=official-pt-m2",
           "SEEDA rows: `errant-2.3.3` with PT-M2's references (`refs=official-pt-m2`, the references of CLEME's "
           "CoNLL-2014 `conll14.errant`); ERRANT 2.3.3 extracts the systems' edits as well, as no M2 files of the "
           "SEEDA systems ship.",
           lambda row, ev: _legacy_errant(replace(row, references="official-pt-m2"), ev)),
    Switch("errant-2.3.3+transposed",
           "`errant-2.3.3`, with the printed EW ρ and TS r cells exchanged (EW ρ printed = our TS r, TS r printed = "
           "our EW ρ), the exchange `cleme-release-2025+transposed` shows in the same table.",
           _transposed(_legacy_errant)),
    Switch("cleme-release-2025",
           "CLEME's 2025 code generation (`release=2025`: sentence key [F, P, R, Acc], no 4-decimal rounding of the "
           "sentence mean) instead of the 2023 release that every other SentCLEME cell matches.",
           _row_variant({"release": "2025"})),
    Switch("cleme-release-2025+transposed",
           "`cleme-release-2025`, with the printed EW ρ and TS r cells exchanged (EW ρ printed = our TS r, TS r "
           "printed = our EW ρ).",
           _transposed(_row_variant({"release": "2025"}))),
    Switch("row-slip:CLEME2.0-dep",
           "The values of the CLEME2.0-dep row (same reference set and human score): the pair printed in this row "
           "is that row's pair.",
           _row_slip("CLEME2.0-dep")),
    Switch("sn8gec-published-m2",
           "System scores from `SN-8GEC/metric_scores` (Sakaguchi et al. 2016's own M² F0.5 of the 12 CoNLL-14 "
           "systems + source, per reference set; BN15 = BN-10GEC; the 34 merged lines skipped) instead of our M² "
           "against an ERRANT-built gold M2, correlated with the same human scores.",
           _sn8gec_published),
    Switch("m2-gold=lattice",
           "M² / SentM² against a gold M2 whose edits are, for each reference, the M² lattice's shortest path from "
           "the source without gold guidance (max_unchanged_words=0; `lattice_gold`) — what CLEME's `MaxMatch` does "
           "with a reference that comes without edits — instead of the ERRANT-built gold.",
           _lattice_gold_switch),
    Switch("cleme-fn=published",
           "SentCLEME-ind with CLEME's published sentence-level FN sigmoid (α=10, [1, 1]: every FN chunk weighs 1) "
           "instead of the α=2 [0.75, 1.25] FN sigmoid of UOT-ERRANT's CLEME runs.",
           _row_variant(metric="cleme", options={"assumption": "independent", "level": "sentence"}, label="")),
    Switch("empty-prediction=source",
           "An empty system sentence scored as its unchanged source (`robust_predictions`, the registry's "
           "`robust=True` rule) instead of as the deletion of every source token. On SEEDA this changes one "
           "sentence: REF-F's line 21 (+Fluency).",
           _row_variant({"robust": True})),
    Switch(SEEDA_LM_CRITIC,
           "SEEDA's LM-Critic output as tmu-nlp/SEEDA shipped it before commit 082e663 (2024-12-14): "
           "`outputs/subset/LM-Critic.txt` was then a byte copy of `PIE.txt` (git blob 5fa7b54 for both at 4663ab6, "
           "5330d68 for both at 870b1b9; 5330d68 is today's `PIE.txt`, which `test_meta_cells` checks). LM-Critic "
           "is scored with PIE's output: system scores of these rows depend on a system's own output only, so its "
           "score is PIE's.",
           _seeda_lm_critic_as_pie),
    Switch("refs=official-pt-m2",
           "PT-M2's/CLEME's raw CoNLL-2014 references (REF1 = annotator 0's correction in the 88 collapsed "
           "sentences, 22 of them in the SEEDA subset) instead of gec-metrics' (REF1 = source there).",
           _row_variant(references="official-pt-m2")),
    Switch("refs=official",
           "gec-metrics' raw CoNLL-2014 references (REF1 = source in the 88 collapsed sentences) instead of PT-M2's.",
           _row_variant(references="official")),
    Switch("rank-diff=ts",
           "PT-M2 Table 6 Δ against the TrueSkill ranking (ts_nusnlp) instead of the Expected Wins ranking.",
           rank_difference(("ts",))),
    Switch("rank-diff=nearer-human",
           "PT-M2 Table 6 Δ with each system's rank difference taken to the nearer of its two human ranks "
           "(min over EW and TS, `rank_differences`), summed over the 13 ranks.",
           rank_difference(("ew", "ts"))),
    Switch("indicator=x",
           "CLEME2.0 Table 5: the Wrong / Under / Over scores x themselves correlated, instead of 1 − x (the paper "
           "says it reports 1 − x).",
           heuo_correlation(lambda name: False)),
    Switch("alpha=0.50/0.40/0.05/0.05",
           "CLEME2.0 Tables 12 and 5: trade-off factors α = (0.50, 0.40, 0.05, 0.05) for both levels (reference "
           "choice and Score) instead of the paper's stated (0.45, 0.35, 0.15, 0.05) corpus / (0.35, 0.25, 0.20, "
           "0.20) sentence factors. Found by scoring every α of the 0.05 grid against the printed Score rows.",
           heuo_table(TABLE12_ALPHA)),
    Switch("alpha=0.50/0.40/0.05/0.05+cleme-errant-m2",
           "`alpha=0.50/0.40/0.05/0.05` with the chunk counts made from the ERRANT M2 files CLEME ships for "
           "CoNLL-2014 (the edits of switch `cleme-errant-m2`: `conll14.errant`, `conll14-<SYS>.errant`) instead of "
           "our errant 3.0.2 edits of PT-M2's references (`gecscore.meta_eval.heuo.reference_counts_m2`).",
           heuo_table(TABLE12_ALPHA, edits="m2")),
    Switch("alpha=one-hot+cleme-errant-m2",
           "CLEME2.0 Table 5 as the ablation §5.2 describes: each row's indicator alone, i.e. α = (1, 0, 0, 0) for "
           "Hit, (0, 1, 0, 0) Wrong, (0, 0, 1, 0) Under, (0, 0, 0, 1) Over, so CLEME's reference choice follows that "
           "indicator; chunk counts from CLEME's CoNLL-2014 ERRANT M2 files (`heuo.reference_counts_m2`), 1 − x for "
           "Wrong / Under / Over; the Avg. is the mean of the four cells as printed (3 decimals, rounded half up).",
           heuo_ablation),
    Switch("alpha=0.50/0.40/0.05/0.05+1-x",
           "`alpha=0.50/0.40/0.05/0.05` for CLEME2.0 Table 5 (1 − x for Wrong / Under / Over, as the base).",
           heuo_correlation(lambda name: name != "hit", TABLE12_ALPHA)),
    Switch("alpha-grid=with-zeros",
           "CLEME2.0 Table 11: the 1771 α of the 0.05 grid with α_i ≥ 0 (`nonnegative_grid`) instead of the 969 "
           "with 0 < α_i < 1 (the paper's constraint on α).",
           alpha_grid(positive=False)),
    Switch("aggregation=trueskill",
           "TrueSkill aggregation of the sentence scores (gec-metrics' `run_trueskill`) instead of the metric's "
           "corpus score.",
           _row_variant(aggregation="trueskill")),
)}

# What was tried for unequal cells that no switch reproduces (shown after the switches' own values). Each entry says
# what was computed, never what the cause is.
TRIED = {
    "errant-conll": (
        "our errant 3.0.2 + spaCy 3.8 `en_core_web_sm` 3.8.0 edits on PT-M2's raw references (shown) and CLEME's "
        "ERRANT M2 files (switch `cleme-errant-m2`, value above), and ERRANT 2.3.3's edits of PT-M2's references "
        "with the files' system edits (switch `errant-2.3.3`, which gives all four cells). Our reference edits "
        "number 5956, the file's (and CLEME2.0 Table 7's) 5937 (probes.md §2)."
    ),
    "senterrant-conll": (
        "PT-M2 `errant_score.py` sentence rules (best reference by F, then TP, then fewer proposed + β²·gold; "
        "P, R = "
        "1 on empty denominators) on our edits (shown) and on CLEME's ERRANT M2 files (switch value above); "
        "gec-metrics' sentence F on the M2 files (same values); ERRANT 2.3.3's edits of PT-M2's references with "
        "the M2 files' system edits (switch `errant-2.3.3`, value above; it gives EW r .870); the M2-file system "
        "scores rounded to 4, 3 or 2 "
        "decimals before correlating (probes.md §4: at most 1 of the 4 cells, EW r at 3 decimals); the M2 files' "
        "system edits against the official CoNLL-2014 M2 (what PT-M2's `evaluate.py` reads as `<reference>.m2`; "
        "probes.md §4)."
    ),
    "errant-sn8": (
        "our errant 3.0.2 edits (shown) and ERRANT 2.3.3's (switch `errant-2.3.3`, value above). CLEME2.0's "
        "reference edits are neither: Table 7 counts 4500 / 8373 / 4964 / 11033 ERRANT edits for E-Minimal / "
        "E-Fluency / NE-Minimal / NE-Fluency; errant 3.0.2 gives 4502 / 8384 / 4969 / 10963, ERRANT 2.3.3 with the "
        "nearest spaCy 2 model on PyPI 4505 / 8377 / 4959 / 11038 (probes.md §2). Their SN-8GEC M2 files are not "
        "published, and the spaCy 2.3 model CLEME used is not on PyPI."
    ),
    "senterrant-copy": (
        "the printed pair .732/.764 is identical to the printed SentM² E-Fluency TS pair, and the EW pair of this row "
        "equals ours; but our SentM² E-Fluency TS is .841/.863, so a copy slip cannot be reproduced from our values."
    ),
    "m2-sn8": (
        "gold M2 built with ERRANT, one annotator per reference (shown); gold from the M² lattice (switch "
        "`m2-gold=lattice`) and Sakaguchi et al.'s published scores (switch `sn8gec-published-m2`), values above; "
        "with annotator A only or B only (E-Minimal); each gold on all 1312 lines and without the 34 merged lines "
        "(probes.md §1); ERRANT 3.0.2, ERRANT 2.3.3 and lattice golds with CLEME 2025's PRF aggregation (4-decimal "
        "rounding, its tie-breaks; probes.md §5). None of these reproduces an E-Minimal, E-Fluency or NE-Minimal M² "
        "cell."
    ),
    "m2-bn10gec": (
        "BN-10GEC is not on disk, so there is no base value; Sakaguchi et al.'s published BN15 M² scores (switch "
        "value above) give the printed ρ but not r."
    ),
    "sentm2-sn8": (
        "gold M2 built with ERRANT, one annotator per reference (shown), and from the M² lattice (switch "
        "`m2-gold=lattice`, value above; probes.md §1); ERRANT 3.0.2, ERRANT 2.3.3 and lattice golds with CLEME "
        "2025's PRF aggregation (4-decimal rounding, best reference by F, P, R, accuracy; probes.md §5)."
    ),
    "cleme-conll": (
        "our errant 3.0.2 edits (shown) and CLEME's ERRANT M2 files (switch value above)."
    ),
    "cleme-sn8": (
        "our errant 3.0.2 edits (shown) and ERRANT 2.3.3's (switch `errant-2.3.3`, value above). CLEME2.0's "
        "reference edits are neither (edit counts against its Table 7: see errant-sn8 and probes.md §2), and its "
        "SN-8GEC M2 files are not published."
    ),
    "seeda-classic": (
        "gec-metrics references (shown) and PT-M2's (switch value above) on the 391-sentence subset, Base, default "
        "aggregation; ERRANT 2.3.3's edits of PT-M2's references and of the systems (switch "
        "`errant-2.3.3+refs=official-pt-m2`, value above: it gives the printed ERRANT ρ, not r); the SEEDA README's "
        "full-test-set system scores correlated on Base (M² .639/.510, .740/.769; ERRANT .542/.329, .675/.629; "
        "SentERRANT .782/.720, .858/.923) and on +Fluency, +INPUT, all (further off)."
    ),
    "seeda-cleme": (
        "PT-M2 references (shown), gec-metrics' references and TrueSkill aggregation (switch values above). Before "
        "`seeda-lm-critic=pie` was found, probes.md §3 tried for all 8 rows: Expected Wins human scores, "
        "expected_wins aggregation, system sets +INPUT / +Fluency / all, the full 1312-sentence test set, SN-8GEC "
        "E-Minimal (annotator B) and NE-Minimal references, unchanged references excluded, CLEME's 2025 code, "
        "ERRANT 2.3.3's edits of the references and the systems: none reproduces a cell the base does not."
    ),
    "heuo-table": (
        "per-sentence CLEME chunk counts from our errant 3.0.2 edits on PT-M2's references, reference choice and "
        "Score under the paper's stated α (shown) and under α = (0.50, 0.40, 0.05, 0.05) (switch value above). For "
        "the three Score rows every α of the 0.05 grid with α_i ≥ 0 (1771 points, `nonnegative_grid`) was scored: "
        "(0.50, 0.40, 0.05, 0.05) gives 11 of 13 printed CLEME2.0-dep cells and 13 of 13 for each sentence row, "
        "no other α more than 4. With CLEME's ERRANT M2 files and that α (second switch, value above) 439 of the "
        "442 cells are equal; left: CLEME2.0-dep Score IITB .4316 (printed .431) and RAC .449 (printed .505, which "
        "is also RAC's printed Over value), CLEME2.0-ind Under CUUI .5125 (printed .513). The IITB and CUUI "
        "values cannot both come from one rounding rule (truncation gives .431 and .512, rounding half up .432 "
        "and .513)."
    ),
    "heuo-correlation": (
        "CLEME2.0-dep indicators correlated with Chollampatt & Ng's EW / TS: 1 − x for Wrong / Under / Over under "
        "the paper's α (shown), x itself (switch `indicator=x`), 1 − x under the Table 12 α (0.50, 0.40, 0.05, "
        "0.05), and the one-hot ablation (switch `alpha=one-hot+cleme-errant-m2`: all 32 printed correlations, 7 of "
        "the 8 Avg.); switch values above. The printed corpus Over Avg. (.253) is not the mean of its row's four "
        "printed cells (.184, which the ablation gives); every other printed Avg. is the mean of its row's printed "
        "cells. Before the ablation was found, a shared α for all rows was tried: every α of the 0.05 grid with "
        "α_i ≥ 0 (`heuo.indicator_grid`), with our and CLEME's M2-file counts, both assumptions, GJG15 Table 3's "
        "human scores and the 12 systems without INPUT; none reproduces a level."
    ),
    "alpha-grid": (
        "the 969 α of the 0.05 grid with 0 < α_i < 1 (shown) and the 1771 α with α_i ≥ 0 (switch value above), "
        "each with CLEME2.0's reference choice made per α (`gecscore.meta_eval.heuo.com_grid`); both again with "
        "the counts from CLEME's ERRANT M2 files (0 and 17 of the 20 cells)."
    ),
}


@dataclass(frozen=True)
class Located:
    """Where the paper's computation differs from ours, an input or a step, and the evidence that shows it; none of
    the evidence is the missed cells' own printed values."""

    where: str
    evidence: str


@dataclass(frozen=True)
class NotLocated:
    """A cause whose evidence does not show in which input or step the paper's computation differs, and why not."""

    why: str


@dataclass(frozen=True)
class Cause:
    """A cause shared by missed cells: the cells it covers (by their `TRIED` entry, or by metric for cells with none;
    `data` limits both to some "dataset references" pairs, and `cells` names single cells, which belong to this cause
    whatever their entry), the evidence for it, what would settle it, and `location`: `Located` when the evidence
    shows where the paper's computation differs from ours, which makes its cells explained misses (still misses,
    never reproduced), `NotLocated` otherwise, which leaves them unexplained."""

    title: str
    tried: tuple[str, ...]
    metrics: tuple[str, ...]
    evidence: str
    needed: str
    location: Located | NotLocated
    data: tuple[str, ...] = ()
    cells: tuple[tuple[str, str, str, str, str], ...] = ()

    @property
    def explains(self) -> bool:
        """Whether the cause locates the difference (its cells are explained misses)."""
        return isinstance(self.location, Located)


SN8GEC = ("gjg15 e-minimal", "gjg15 e-fluency", "gjg15 ne-minimal", "gjg15 ne-fluency")

# The missed cells grouped by cause (results.md "Misses by cause"; each missed cell in exactly one group, which
# tests/test_meta_cells.py checks). A cause explains its cells only when its `location` is `Located`.
CAUSES = {
    "sn8-reference-edits": Cause(
        "SN-8GEC ERRANT, SentERRANT and CLEME cells: CLEME2.0's reference edits are not ours",
        ("errant-sn8", "cleme-sn8"), (),
        "CLEME2.0 Table 7 counts 4500 / 8373 / 4964 / 11033 reference edits for E-Minimal / E-Fluency / NE-Minimal / "
        "NE-Fluency; errant 3.0.2 gives 4502 / 8384 / 4969 / 10963 and ERRANT 2.3.3 4505 / 8377 / 4959 / 11038 "
        "(probes.md §2): the paper scored against edits that neither extraction makes.",
        "CLEME2.0's SN-8GEC M2 files (not published), or the spaCy 2.3 model its ERRANT 2.3.3 used (not on PyPI).",
        Located(
            "the SN-8GEC reference edits, an input: the ERRANT edits of the references that these rows score",
            "the paper's own count of those edits (CLEME2.0 Table 7) differs from the declared `errant-2.3.3` "
            "extraction's in every reference set (4500 / 8373 / 4964 / 11033 against 4505 / 8377 / 4959 / 11038), so "
            "the rows score other reference edits than the paper's; the systems' edits are CLEME's shipped files, "
            "with which the same metrics reproduce on CoNLL-2014, where Table 7's 5937 equals the extraction's."),
    ),
    "sn8-m2": Cause(
        "SN-8GEC M² and SentM² in CLEME2.0 Table 1: the gold M2 and scorer CLEME2.0 ran",
        ("m2-sn8", "sentm2-sn8"), (),
        "the declared protocol builds the gold from the raw references with the M² lattice, as CLEME's `MaxMatch` "
        "does; ERRANT 3.0.2, ERRANT 2.3.3 and lattice golds, one annotator, the 34 merged lines skipped, Sakaguchi "
        "et al.'s own scores and CLEME 2025's PRF aggregation (probes.md §1, §5) each reproduce at most a few cells; "
        "the printed SentM² E-Fluency and NE-Fluency values (.62–.73) lie below every variant computed (.74–.87).",
        "the gold M2 files and the M² scorer output behind CLEME2.0's SN-8GEC columns.",
        NotLocated(
            "Table 7's counts are ERRANT's reference edits, which the M² rows' declared gold (the lattice from raw "
            "references) does not use, and a gold with ERRANT 2.3.3's edits, within 0.1 % of those counts, reproduces "
            "no cell either; the CoNLL-2014 M² and SentM² cells that check the scorer are printed alike in PT-M2 "
            "Table 5, so they need not come from CLEME2.0's own scorer. Whether the gold, the scorer or both differ "
            "is not shown."),
    ),
    "conll-sentence-edits": Cause(
        "CoNLL-2014 sentence-level and independent cells with CLEME's own M2 files",
        ("senterrant-conll", "cleme-conll", "errant-conll"), (),
        "ERRANT's and CLEME-dep's CoNLL-2014 cells reproduce from the same edits (CLEME's M2 files, ERRANT 2.3.3), "
        "so the corpus counts are right; the misses are sentence-averaged (SentERRANT, SentCLEME-ind) and "
        "CLEME-ind cells, |Δ| ≤ .022.",
        "the per-sentence scores or M2 files behind the paper's sentence-level runs (PT-M2's `errant_score.py` "
        "output, CLEME's sentence scorer output).",
        NotLocated(
            "the evidence clears the edits as a whole but shows no input or step for these cells: the same system "
            "scores reproduce other cells of the same rows (SentERRANT EW r .870; CLEME-ind EW r, TS r and TS ρ; "
            "SentCLEME-ind EW r, EW ρ and TS ρ), our sentence rules are `errant_score.py`'s and gec-metrics' "
            "sentence F gives the same values, and CLEME's files, ERRANT 2.3.3 and rounded system scores each "
            "reproduce a different subset. The misses are rank swaps and last-digit differences of nearly equal "
            "system scores whose source is not shown."),
    ),
    "seeda-references": Cause(
        "SEEDA classic-metric cells of CLEME2.0 Table 2: which references and system outputs",
        ("seeda-classic", "seeda-cleme"), ("gleu",),
        "the same metrics reproduce on CoNLL-2014; on SEEDA neither gec-metrics' nor PT-M2's references, nor the "
        "SEEDA README's full-test-set scores, give the printed r (what was tried: the TRIED entry); gec-metrics' "
        "GLEU reproduces every SEEDA GLEU cell of UOT-ERRANT and IMPARA-GED, but not CLEME2.0 Table 2's.",
        "the reference files and system outputs the paper scored SEEDA with.",
        NotLocated(
            "the candidates each reproduce some cells of these rows and not others: ERRANT 2.3.3 with PT-M2's "
            "references gives the printed ERRANT ρ but not r; PT-M2's references on today's outputs give the four "
            "Sent-M² cells (found after scoring), while the LM-Critic copy that the same table's M² and CLEME rows "
            "reproduce with breaks them; the GLEU row was computed with neither. Which references and outputs each "
            "row used is not shown."),
        data=("seeda official",),
    ),
    "gleu-implementation": Cause(
        "GLEU and SentGLEU on CoNLL-2014: another implementation or other references",
        (), ("gleu", "sentgleu"),
        "the official GLEU script (which our default equals, tests/test_gleu.py) gives .718/.445/.754/.505 against "
        "the printed .701/.467/.750/.555 on CoNLL-2014, printed alike in PT-M2 Table 5 and CLEME2.0 Table 1; none "
        "of the 8 distinct GLEU and SentGLEU values reproduces.",
        "the GLEU code, version and reference files the two papers ran (neither paper names them).",
        Located(
            "the papers' GLEU step on CoNLL-2014: the GLEU code, version or options, or the reference files it read",
            "the same 13 system outputs and human scores reproduce every M² and SentM² cell of the column (official "
            "M2) and, under `errant-2.3.3`, every ERRANT cell, and our GLEU equals the official script on the same "
            "texts: everything but the GLEU step is shared with reproduced cells, and no GLEU cell of the column "
            "reproduces."),
        data=("gjg15 official",),
    ),
    "sn8-gleu": Cause(
        "GLEU and SentGLEU on SN-8GEC in CLEME2.0 Table 1",
        (), ("gleu", "sentgleu"),
        "misses from .0006 to .099 (the largest with unchanged references excluded, SentGLEU NE-Minimal*); the same "
        "code reproduces all four GLEU E-Minimal cells, GLEU E-Fluency TS r, both GLEU NE-Fluency ρ, both SentGLEU "
        "E-Fluency ρ and all 8 SentGLEU cells of CLEME2.0 Table 8 (E-Minimal, NE-Minimal).",
        "the GLEU code and reference files of CLEME2.0's SN-8GEC runs, or its per-system GLEU scores.",
        NotLocated(
            "the same GLEU code on the same references, outputs and human scores reproduces 17 SN-8GEC cells of the "
            "same paper, some in the very rows that miss, so neither the GLEU step nor the references are shown to "
            "differ; the CoNLL-2014 evidence of `gleu-implementation` does not carry over."),
        data=SN8GEC,
    ),
    "gotoscorer-weights": Cause(
        "GoToScorer in CLEME2.0 Table 2: the published row used difficulty weights",
        (), ("gotoscorer",),
        "declared without weights (gec-metrics' default): r .272 and ρ .112 against the printed .929 and .881 "
        "(SEEDA-S), the largest misses of the table. An exploration after scoring "
        "(benchmarks/meta_eval/gotoscorer_gts.md) finds the original GoToScorer (`rules='gts'`, equal to "
        "gotutiyan/GTS on SEEDA, tests/test_gotoscorer_gts.py) with difficulty weights from all 15 SEEDA outputs, "
        "against the second official reference (`ref_id=1`): both printed ρ equal (.881, .937) and both r within "
        ".02 (.919 and .884 against .929 and .901); gec-metrics' weights reach neither ρ, and GTS itself on ERRANT "
        "2.3.3's M2 files does not close the r gap (.916, .883). Found after scoring, so it does not count.",
        "the paper's GoToScorer settings and inputs: the reference, the systems behind the weights and the M2 files "
        "it scored.",
        Located(
            "GoToScorer's difficulty weights, a step, with the reference and systems they are estimated from",
            "GoToScorer is defined by its difficulty weights (Gotou et al. 2020, gotutiyan/GTS: each edit weighted by "
            "how many systems fail to make it), which the declared row, gec-metrics' default, leaves out; in "
            "gotoscorer_gts.md every weighted setting (both rule sets, weights from 12 or 15 outputs, either "
            "reference) puts SEEDA-S r at .73–.92 and every unweighted one at .26–.71, so the weights carry the gap "
            "under all of them, not only under the setting that hits the printed ρ."),
    ),
    "empty-prediction": Cause(
        "UOT-ERRANT's CLEME row: an empty prediction scored as its source",
        (), ("cleme-length",),
        "the exploration switch `empty-prediction=source` gives the printed r .473 (both versions of the paper); it "
        "was found after scoring, so by the declared-protocol rule it does not count.",
        "evidence independent of the printed value (the authors' scoring code) to declare `empty-prediction=source`.",
        NotLocated(
            "the only evidence is a switch found from the printed value: it changes one sentence of one system "
            "(REF-F's empty line 21) and moves r by .002 onto .473; nothing in UOT-ERRANT's text or code says an "
            "empty line is scored as its source, and a change that small could come from any sentence."),
    ),
    "printed-digits": Cause(
        "CLEME2.0 Tables 11 and 12: the last printed digit",
        ("heuo-table", "alpha-grid"), (),
        "the 4 cells are within .0013 of ours, and the other cells of their rows reproduce (but RAC's Score, "
        "`copy-slip`); IITB (.4316, printed "
        ".431) and CUUI (.5125, printed .513) cannot both come from one rounding rule.",
        "the paper's unrounded values.",
        NotLocated(
            "the size of a miss is not its location: no rounding rule gives both IITB's and CUUI's printed digits, "
            "and no rounding or grid variant gives Table 11's two averages, so no step is shown."),
    ),
    "copy-slip": Cause(
        "Printed values that repeat another printed cell (CLEME2.0 Tables 1 and 12)",
        ("senterrant-copy",), (),
        "CLEME2.0 Table 1's SentERRANT E-Fluency TS pair .732/.764 is the printed SentM² E-Fluency TS pair, and the "
        "row's EW pair reproduces; CLEME2.0 Table 12's CLEME2.0-dep Score of RAC (.505, ours .449) is RAC's printed "
        "CLEME2.0-dep Over value, which we reproduce, and 11 of the row's other 12 Score cells reproduce.",
        "the authors' confirmation; a slip is counted only when a switch shows the intended value, and neither our "
        "SentM² pair (.841/.863) nor any switch gives it.",
        Located(
            "the paper's table-making: these printed cells hold another printed cell's value",
            "the other printed cells they repeat (a pair of two values; a value of the same system's column), and "
            "the reproduced cells beside them: the same rows' other cells and, for RAC, every other cell of its "
            "column, computed from the same inputs."),
        cells=(("CLEME2.0 (ACL 2025)", "Table 12", "CLEME2.0-dep Score", "RAC", "score"),),
    ),
}
