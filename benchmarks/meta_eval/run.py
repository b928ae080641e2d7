"""Recompute the model-free meta-evaluation numbers of the seed papers' tables, next to the published values.

    .venv/bin/python benchmarks/meta_eval/run.py --data ../shared/data --out benchmarks/meta_eval

writes `results.md` (tables + causes of differences) and `results.json`. Sentence scores go through the
meta-evaluation cache (`--cache-dir`, default `$GECSCORE_CACHE/meta_eval` or `~/.cache/gecscore/meta_eval`), so a
second run only re-aggregates. Published values are typed from the papers' tables (sources in
`docs/meta-evaluation.md`, section "Published values in the benchmarks"); a row's `note` gives the cause found
where ours differs.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from gecscore.meta_eval import ScoreCache, default_cache_dir, get_metric, load_dataset, meta_evaluate
from gecscore.meta_eval.metrics import available_metrics


@dataclass(frozen=True)
class Row:
    """One published cell pair: (r, rho) at system level, or (accuracy, tau) at sentence level."""

    source: str              # paper and table
    metric: str
    dataset: str
    references: str | None
    system_set: str
    aggregation: str
    human: str               # human score (system level) or judgment set (sentence level)
    published: tuple[float, float]
    exclude_unchanged: bool = False
    level: str = "system"
    note: str = ""
    options: dict = field(default_factory=dict)
    label: str = ""


UOT = "UOT-ERRANT (TACL 2026) Table 1"
PTM2 = "PT-M2 (EMNLP 2022) Table 5"
CLEME_T1 = "CLEME2.0 (ACL 2025) Table 1"
CLEME_T8 = "CLEME2.0 (ACL 2025) Table 8"
CLEME_T2 = "CLEME2.0 (ACL 2025) Table 2"
GECM = "gec-metrics / Rethinking (ACL 2025) [S]"

# Causes found (see results.md, "Causes").
N_ERRANT_VERSION = "edit extraction"
N_UNCHANGED = "unchanged-reference exclusion"
N_SEEDA_CITED = "cited SEEDA numbers"
N_GMEG = "GMEG"
N_SN8_M2 = "M2 of raw references"
N_CLEME_EDITS = "CLEME edits"
N_TYPO = "paper typo"
N_CLEME_2025 = "CLEME 2025 code"
N_CLEME_SEEDA = "CLEME on SEEDA"

# CLEME variants of CLEME2.0's tables: label → (metric, options). CLEME2.0 "unweighted" = weighting none;
# CLEME (v1) uses its default length weighting (2023 release).
CLEME_VARIANTS = {
    "CLEME-dep": ("cleme", {"assumption": "dependent"}),
    "CLEME-ind": ("cleme", {"assumption": "independent"}),
    "CLEME2.0-dep": ("cleme2", {"weighting": "none", "assumption": "dependent"}),
    "CLEME2.0-ind": ("cleme2", {"weighting": "none", "assumption": "independent"}),
    "SentCLEME-dep": ("cleme", {"assumption": "dependent", "level": "sentence"}),
    "SentCLEME-ind": ("cleme", {"assumption": "independent", "level": "sentence"}),
    "SentCLEME2.0-dep": ("cleme2", {"weighting": "none", "assumption": "dependent", "level": "sentence"}),
    "SentCLEME2.0-ind": ("cleme2", {"weighting": "none", "assumption": "independent", "level": "sentence"}),
    "CLEME-dep-unw": ("cleme", {"assumption": "dependent", "weighting": "none"}),
    "CLEME-ind-unw": ("cleme", {"assumption": "independent", "weighting": "none"}),
    "SentCLEME-dep-unw": ("cleme", {"assumption": "dependent", "weighting": "none", "level": "sentence"}),
    "SentCLEME-ind-unw": ("cleme", {"assumption": "independent", "weighting": "none", "level": "sentence"}),
}
CLEME_REFSETS = ("official", "e-minimal", "e-fluency", "ne-minimal", "ne-fluency")
# CLEME2.0 Table 1 (GJG15): per variant, per reference set (BN-10GEC left out): (EW r, EW rho, TS r, TS rho).
CLEME_T1_ROWS = {
    "CLEME-dep": ((0.648, 0.709, 0.691, 0.742), (0.594, 0.797, 0.644, 0.813), (0.589, 0.714, 0.654, 0.775),
                  (0.595, 0.786, 0.643, 0.835), (0.612, 0.720, 0.673, 0.791)),
    "CLEME-ind": ((0.649, 0.709, 0.691, 0.731), (0.593, 0.791, 0.643, 0.802), (0.587, 0.731, 0.653, 0.791),
                  (0.601, 0.797, 0.647, 0.841), (0.611, 0.714, 0.672, 0.786)),
    "CLEME2.0-dep": ((0.700, 0.665, 0.765, 0.736), (0.690, 0.736, 0.768, 0.808), (0.695, 0.742, 0.788, 0.830),
                     (0.702, 0.775, 0.778, 0.846), (0.704, 0.599, 0.800, 0.714)),
    "CLEME2.0-ind": ((0.718, 0.665, 0.777, 0.736), (0.708, 0.736, 0.784, 0.808), (0.736, 0.742, 0.824, 0.830),
                     (0.757, 0.775, 0.826, 0.846), (0.801, 0.670, 0.848, 0.769)),
    "SentCLEME-dep": ((0.876, 0.824, 0.844, 0.808), (0.806, 0.775, 0.838, 0.819), (0.849, 0.824, 0.886, 0.863),
                      (0.742, 0.797, 0.795, 0.846), (0.876, 0.791, 0.921, 0.846)),
    "SentCLEME-ind": ((0.868, 0.725, 0.857, 0.758), (0.821, 0.775, 0.856, 0.819), (0.841, 0.808, 0.877, 0.846),
                      (0.782, 0.819, 0.831, 0.874), (0.852, 0.762, 0.896, 0.825)),
    "SentCLEME2.0-dep": ((0.870, 0.714, 0.881, 0.725), (0.941, 0.857, 0.954, 0.885), (0.892, 0.824, 0.938, 0.901),
                         (0.913, 0.857, 0.918, 0.912), (0.916, 0.720, 0.949, 0.791)),
    "SentCLEME2.0-ind": ((0.866, 0.709, 0.881, 0.720), (0.941, 0.879, 0.956, 0.912), (0.915, 0.857, 0.952, 0.923),
                         (0.915, 0.824, 0.917, 0.885), (0.883, 0.654, 0.904, 0.720)),
}
# CLEME2.0 Table 8: sentence-level variants without excluding unchanged references (E-Minimal, NE-Minimal).
CLEME_T8_ROWS = {
    "SentCLEME-dep": {"e-minimal": (0.602, 0.451, 0.507, 0.412), "ne-minimal": (-0.021, -0.181, -0.127, -0.247)},
    "SentCLEME-ind": {"e-minimal": (0.513, 0.368, 0.410, 0.335), "ne-minimal": (-0.061, -0.167, -0.181, -0.247)},
    "SentCLEME2.0-dep": {"e-minimal": (0.937, 0.846, 0.928, 0.852), "ne-minimal": (0.634, 0.368, 0.571, 0.352)},
    "SentCLEME2.0-ind": {"e-minimal": (0.940, 0.819, 0.933, 0.835), "ne-minimal": (0.693, 0.423, 0.631, 0.401)},
}
# CLEME2.0 Table 10 (CoNLL-2014 official): (EW r, EW rho, TS r, TS rho).
CLEME_T10_ROWS = {
    "CLEME-dep-unw": (0.638, 0.654, 0.681, 0.709), "CLEME-ind-unw": (0.640, 0.648, 0.680, 0.698),
    "CLEME-dep": (0.700, 0.665, 0.691, 0.742), "CLEME-ind": (0.649, 0.709, 0.691, 0.731),
    "SentCLEME-dep-unw": (0.853, 0.687, 0.805, 0.604), "SentCLEME-ind-unw": (0.790, 0.275, 0.722, 0.181),
    "SentCLEME-dep": (0.876, 0.824, 0.844, 0.808), "SentCLEME-ind": (0.868, 0.725, 0.857, 0.758),
}
# CLEME2.0 Table 2 (SEEDA, TrueSkill human): (SEEDA-S r, rho, SEEDA-E r, rho).
CLEME_T2_ROWS = {
    "CLEME-dep": (0.633, 0.501, 0.755, 0.757), "CLEME-ind": (0.616, 0.466, 0.736, 0.708),
    "CLEME2.0-dep": (0.937, 0.865, 0.945, 0.939), "CLEME2.0-ind": (0.908, 0.844, 0.961, 0.946),
    "SentCLEME-dep": (0.866, 0.809, 0.944, 0.939), "SentCLEME-ind": (0.864, 0.858, 0.935, 0.911),
    "SentCLEME2.0-dep": (0.905, 0.844, 0.955, 0.946), "SentCLEME2.0-ind": (0.875, 0.837, 0.953, 0.953),
}
CLEME_T10 = "CLEME2.0 (ACL 2025) Table 10"


def rows() -> list[Row]:
    """Every recomputable model-free cell."""
    out: list[Row] = []
    # UOT-ERRANT Table 1: SEEDA-E TrueSkill human (ts_edit), TrueSkill aggregation; GMEG-Data wiki test.
    for refs, system_set, pub in (
        ("official", "base", (0.881, 0.895)), ("e-minimal", "base", (0.864, 0.804)),
        ("ne-minimal", "base", (0.740, 0.720)), ("e-fluency", "+fluency", (-0.005, 0.424)),
        ("ne-fluency", "+fluency", (0.114, 0.508)),
    ):
        out.append(Row(UOT, "errant", "seeda", refs, system_set, "trueskill", "ts_edit", pub))
    out.append(Row(UOT, "errant", "gmeg", None, "all", "trueskill", "score", (0.780, 0.667), note=N_GMEG))

    # PT-M2 Table 5: GJG15, 13 systems, Chollampatt & Ng's human files; corpus (M2, ERRANT) and sentence
    # (SentM2, SentERRANT) columns.
    for metric, refs, ew, ts in (
        ("m2", "official", (0.623, 0.687), (0.672, 0.720)),
        ("sentm2", "official", (0.871, 0.731), (0.864, 0.758)),
        ("errant", "official-pt-m2", (0.642, 0.659), (0.688, 0.698)),
        ("senterrant", "official-pt-m2", (0.870, 0.742), (0.846, 0.747)),
    ):
        note = N_ERRANT_VERSION if "errant" in metric else ""
        out.append(Row(PTM2, metric, "gjg15", refs, "all", "default", "ew_nusnlp", ew, note=note))
        out.append(Row(PTM2, metric, "gjg15", refs, "all", "default", "ts_nusnlp", ts, note=note))

    # CLEME2.0 Table 1 (GJG15; BN-10GEC is not available). Sentence-level metrics marked * there exclude
    # unchanged references on E-Minimal and NE-Minimal; Table 8 gives SentERRANT without the exclusion.
    cleme_t1 = {
        "m2": {"official": ((0.623, 0.687), (0.672, 0.720)), "e-minimal": ((0.597, 0.654), (0.650, 0.703)),
               "e-fluency": ((0.590, 0.654), (0.659, 0.709)), "ne-minimal": ((0.575, 0.577), (0.634, 0.648)),
               "ne-fluency": ((0.582, 0.648), (0.649, 0.703))},
        "errant": {"official": ((0.642, 0.659), (0.688, 0.698)), "e-minimal": ((0.578, 0.742), (0.631, 0.786)),
                   "e-fluency": ((0.594, 0.720), (0.663, 0.775)), "ne-minimal": ((0.585, 0.747), (0.637, 0.797)),
                   "ne-fluency": ((0.597, 0.753), (0.659, 0.797))},
        "sentm2": {"official": ((0.871, 0.731), (0.864, 0.758)), "e-minimal": ((0.805, 0.806), (0.836, 0.845)),
                   "e-fluency": ((0.655, 0.731), (0.732, 0.764)), "ne-minimal": ((0.729, 0.797), (0.785, 0.846)),
                   "ne-fluency": ((0.621, 0.632), (0.699, 0.687))},
        "senterrant": {"official": ((0.870, 0.742), (0.846, 0.747)),
                       "e-minimal": ((0.768, 0.775), (0.803, 0.819)),
                       "e-fluency": ((0.806, 0.813), (0.732, 0.764)),
                       "ne-minimal": ((0.710, 0.780), (0.765, 0.841)),
                       "ne-fluency": ((0.793, 0.830), (0.847, 0.857))},
    }
    for metric, by_refs in cleme_t1.items():
        for refs, (ew, ts) in by_refs.items():
            starred = metric.startswith("sent") and refs in ("e-minimal", "ne-minimal")
            conll = "official-pt-m2" if refs == "official" and "errant" in metric else refs
            note = N_ERRANT_VERSION if "errant" in metric else N_SN8_M2 if refs != "official" else ""
            if starred:
                note = N_UNCHANGED
            for human, pub in (("ew_nusnlp", ew), ("ts_nusnlp", ts)):
                typo = metric == "senterrant" and refs == "e-fluency" and human == "ts_nusnlp"
                out.append(Row(CLEME_T1, metric, "gjg15", conll, "all", "default", human, pub,
                               exclude_unchanged=starred, note=N_TYPO if typo else note))
    for refs, ew, ts in (("e-minimal", (0.760, 0.626), (0.692, 0.588)),
                         ("ne-minimal", (0.104, -0.003), (-0.066, -0.137))):
        for human, pub in (("ew_nusnlp", ew), ("ts_nusnlp", ts)):
            out.append(Row(CLEME_T8, "senterrant", "gjg15", refs, "all", "default", human, pub,
                           note=N_ERRANT_VERSION))

    # CLEME2.0 Table 2: SEEDA, TrueSkill human (these rows are the SEEDA paper's own numbers, cited).
    for metric, s, e in (
        ("m2", (0.658, 0.487), (0.791, 0.764)), ("errant", (0.557, 0.406), (0.697, 0.671)),
        ("sentm2", (0.802, 0.692), (0.887, 0.846)), ("senterrant", (0.758, 0.643), (0.860, 0.825)),
    ):
        out.append(Row(CLEME_T2, metric, "seeda", "official", "base", "default", "ts_sent", s, note=N_SEEDA_CITED))
        out.append(Row(CLEME_T2, metric, "seeda", "official", "base", "default", "ts_edit", e, note=N_SEEDA_CITED))

    # CLEME2.0 Tables 1, 8, 10 (GJG15) and 2 (SEEDA): CLEME/CLEME2.0 variants without model weights. CoNLL-2014
    # "Official" is CLEME's `conll14.errant`, i.e. PT-M2's references (official-pt-m2).
    def cleme_rows(source: str, label: str, dataset: str, refs: str, values: tuple, humans: tuple[str, str],
                   system_set: str, exclude: bool = False, note: str = N_CLEME_EDITS) -> list[Row]:
        metric, options = CLEME_VARIANTS[label]
        conll = "official-pt-m2" if refs == "official" else refs
        return [Row(source, metric, dataset, conll, system_set, "default", human, (values[2 * k], values[2 * k + 1]),
                    exclude_unchanged=exclude, note=note, options=options, label=label)
                for k, human in enumerate(humans)]

    gjg_humans = ("ew_nusnlp", "ts_nusnlp")
    for label, per_refs in CLEME_T1_ROWS.items():
        for refs, values in zip(CLEME_REFSETS, per_refs):
            starred = label.startswith("Sent") and refs in ("e-minimal", "ne-minimal")
            out += cleme_rows(CLEME_T1, label, "gjg15", refs, values, gjg_humans, "all", starred,
                              N_UNCHANGED if starred else N_CLEME_EDITS)
    for label, per_refs in CLEME_T8_ROWS.items():
        for refs, values in per_refs.items():
            rows_t8 = cleme_rows(CLEME_T8, label, "gjg15", refs, values, gjg_humans, "all")
            if label.startswith("SentCLEME-"):  # these cells come from CLEME's 2025 code
                swapped = label == "SentCLEME-ind" and refs == "ne-minimal"  # EW rho and TS r swapped in print
                rows_t8 = [replace(r, options={**r.options, "release": "2025"}, label=f"{label} (2025 code)",
                                   note=N_TYPO if swapped else N_CLEME_2025) for r in rows_t8]
            out += rows_t8
    for label, values in CLEME_T10_ROWS.items():
        rows_t10 = cleme_rows(CLEME_T10, label, "gjg15", "official", values, gjg_humans, "all")
        if label == "CLEME-dep":  # its EW pair is CLEME2.0-dep's
            rows_t10[0] = replace(rows_t10[0], note=N_TYPO)
        out += rows_t10
    for label, values in CLEME_T2_ROWS.items():
        out += cleme_rows(CLEME_T2, label, "seeda", "official", values, ("ts_sent", "ts_edit"), "base",
                          note=N_CLEME_SEEDA)

    # gec-metrics paper and "Rethinking…" (secondary, see docs/meta-evaluation.md): ERRANT on SEEDA, Official.
    for system_set, aggregation, human, pub in (
        ("+fluency", "default", "ts_edit", (-0.508, 0.033)),
    ):
        out.append(Row(GECM, "errant", "seeda", "official", system_set, aggregation, human, pub))
    out.append(Row(GECM, "errant", "seeda", "official", "base", "default", "sent", (0.594, 0.189), level="sentence"))
    return out


# Rows whose published value is only one of the pair (rho) are compared on that value alone.
RHO_ONLY = (
    ("errant", "seeda", "base", "default", "ts_sent", 0.343),
    ("errant", "seeda", "base", "trueskill", "ts_sent", 0.706),
    ("errant", "seeda", "+fluency", "default", "ts_sent", -0.156),
    ("errant", "seeda", "+fluency", "trueskill", "ts_sent", 0.095),
)

CAUSES = {
    N_ERRANT_VERSION: (
        "Edit extraction. Our ERRANT is errant 3.0.2 with spaCy 3.8 `en_core_web_sm` 3.8.0 (identical to errant's own "
        "`annotate`, see benchmarks/edits.md). PT-M2 (2022) and CLEME2.0 used ERRANT M2 files made by an older "
        "errant/spaCy, whose POS tags and parses give other spans for some edits (errant issues #10/#14/#36); CLEME "
        "ships those files for CoNLL-2014. Scored by our `gecscore.common.errant_scoring`, those files give ERRANT r/ρ "
        ".642/.659 (EW) and .689/.698 (TS) — the published corpus-level values (diagnostic section) — while our "
        "own edits give .643/.687 and .690/.714: Pearson agrees within .002, Spearman moves in steps because a few "
        "systems have near-equal scores and swap ranks. SentERRANT stays at .871/.775 even with those files, so "
        "PT-M2's sentence-level ERRANT (its `errant_score.py`, which picks references M²-style and rounds F) "
        "differs in scoring, not edits; we follow gec-metrics' ERRANT and do not reproduce that variant."
    ),
    N_UNCHANGED: (
        "CLEME2.0 excludes references equal to the source on E-Minimal and NE-Minimal (470 and 612 references, "
        "which our `exclude_unchanged` reproduces exactly: a reference is dropped when it equals the source and "
        "another reference of the sentence does not); remaining differences are those of edit extraction."
    ),
    N_SEEDA_CITED: (
        "CLEME2.0 Table 2 cites the SEEDA paper's numbers for these baselines. SentM² matches exactly (so gold M2, "
        "subset and M² edits agree); M² and ERRANT do not. Official REF0/REF1 in PT-M2's convention "
        "(`official-pt-m2`, annotator 0's correction for the 22 collapsed subset sentences) brings SentERRANT to "
        ".753/.643 and .861/.825 (published .758/.643, .860/.825) and ERRANT to .547/.343, .689/.643; the rest is "
        "SEEDA's own ERRANT version. Corpus M² with an ERRANT-built gold gives .677/.573, .780/.825, further away "
        "than the official M2 (.654/.483, .767/.755): SEEDA's corpus M² setting could not be identified."
    ),
    N_GMEG: (
        "GMEG-Data (wiki test, 8 systems, refs ref1–ref3, ref0 rated as `ref`, TrueSkill) as gotutiyan/uot-errant "
        "builds it."
    ),
    N_SN8_M2: (
        "M² needs a gold M2: for SN-8GEC references we build it with ERRANT (one annotator per reference, as "
        "`errant_parallel`). CLEME2.0 does not say how it made these M2 files, and neither this nor a single "
        "annotator (A: .545/.747, B: .595/.764 EW on E-Minimal; published .597/.654) reproduces its M² column; "
        "its ERRANT column, from raw text like ours, agrees within edit-extraction noise."
    ),
    N_CLEME_EDITS: (
        "From raw text our CLEME/CLEME2.0 use our ERRANT 3.0.2 edits; CLEME2.0 used ERRANT M2 files from an older "
        "errant. Run on CLEME's own CoNLL-2014 M2 files (diagnostic section), our CLEME core reproduces 22 of the "
        "24 CoNLL-2014 cells of Tables 1 and 10 to 3 decimals (the other two: ρ .703 vs .709, one rank swap, and r "
        ".853 vs .857), so the remaining differences of the raw-text rows are the edits (and, for SN-8GEC, "
        "CLEME2.0's own unpublished reference M2 files)."
    ),
    N_TYPO: (
        "Copy slips in CLEME2.0's tables: Table 1 prints for SentERRANT E-Fluency TS the pair of SentM² E-Fluency TS "
        "(.732/.764; Table 8 repeats it) while the EW cells of the same row (.806/.813) equal ours exactly; Table 10 "
        "prints for CLEME-dep-len EW the CLEME2.0-dep EW pair (.700/.665), while its Table 1 CLEME-dep EW "
        "(.648/.709) and Table 10's TS cells equal ours; Table 8's SentCLEME-ind NE-Minimal cells print EW ρ and TS "
        "r swapped (ours: EW −.061/−.181, TS −.167/−.247; printed: −.061/−.167, −.181/−.247), the 2025 code "
        "otherwise."
    ),
    N_CLEME_SEEDA: (
        "CLEME2.0 does not state its SEEDA protocol (references, edits of the SEEDA outputs, aggregation). With "
        "PT-M2's references and default aggregation (shown) ours are .00–.05 lower; gec-metrics' references give "
        "about the same (CLEME2.0-dep .931/.846, .922/.930) and TrueSkill aggregation is far off (.731/.636, "
        ".817/.818). Not resolved; the same core reproduces its GJG15 tables (above)."
    ),
    N_CLEME_2025: (
        "CLEME2.0 Table 8's SentCLEME (v1) cells for E-/NE-Minimal were made with CLEME's 2025 code (sentence key "
        "[F, P, R, Acc], no 4-decimal rounding of the mean): with `release=2025` they match, while every other "
        "SentCLEME cell of Tables 1, 8 and 10 matches the 2023 release (`release=2023`, the default)."
    ),
}


def diagnostic_rows(source: str, metric: str, references: str, scores: dict[str, float], published: dict,
                    data, options: dict | None = None) -> list[dict]:
    """Result rows for system scores computed outside the runner (the diagnostics below)."""
    from gecscore.meta_eval.correlate import correlate_systems

    out = []
    for human, pub in published.items():
        corr = correlate_systems(scores, data.human[human], data.systems)
        ours = (corr.pearson, corr.spearman)
        out.append({
            "source": source, "metric": metric, "options": options or {}, "dataset": data.dataset,
            "references": references, "system_set": "all", "aggregation": "default", "level": "system",
            "human": human, "published": list(pub), "ours": list(ours),
            "match_3dp": all(round(p, 3) == round(o, 3) for p, o in zip(pub, ours)),
            "max_abs_diff": max(abs(p - o) for p, o in zip(pub, ours)),
            "note": N_ERRANT_VERSION if "errant" in metric else N_CLEME_EDITS, "metric_scores": scores,
            "signature": "from-cleme-m2-files",
        })
    return out


def errant_from_cleme_m2_files(data_dir: str) -> list[dict]:
    """Diagnostic: ERRANT/SentERRANT on GJG15 from the ERRANT M2 files CLEME ships (`conll14-<SYS>.errant`,
    `conll14.errant`, made by an older errant), scored with our `gecscore.common.errant_scoring`. If these reproduce the
    published values where our own extraction does not, the difference is the edits."""
    from gecscore.common.edits import Edit
    from gecscore.common.errant_scoring import FScore, errant_counts
    from gecscore.common.m2io import read_m2

    folder = Path(data_dir) / "CoNLL-2014" / "CLEME" / "demo" / "examples"

    def edits(block, annotator):
        return [Edit(e.o_start, e.o_end, "", -1, -1, e.correction, e.type)
                for e in block.edits_of(annotator) if not e.is_noop and e.type != "UNK"]

    refs = [[edits(b, a) for a in b.annotators] for b in read_m2(folder / "conll14.errant")]
    data = load_dataset("gjg15", data_dir)
    fscore = FScore()
    corpus, sentence = {}, {}
    for system in data.systems:
        hyps = [edits(b, 0) for b in read_m2(folder / f"conll14-{system}.errant")]
        result = fscore.aggregate(errant_counts(hyps, refs))
        corpus[system] = fscore.prf(result.corpus).f
        scores = [fscore.prf(c).f for c in result.sentence_counts]
        sentence[system] = sum(scores) / len(scores)
    source = f"{PTM2}, diagnostic: edits from CLEME's ERRANT M2 files"
    return (diagnostic_rows(source, "errant", "conll14.errant", corpus,
                            {"ew_nusnlp": (0.642, 0.659), "ts_nusnlp": (0.688, 0.698)}, data)
            + diagnostic_rows(source, "senterrant", "conll14.errant", sentence,
                              {"ew_nusnlp": (0.870, 0.742), "ts_nusnlp": (0.846, 0.747)}, data))


def cleme_from_m2_files(data_dir: str) -> list[dict]:
    """Diagnostic: the CoNLL-2014 CLEME rows from CLEME's own ERRANT M2 files (`conll14-<SYS>.errant` against
    `conll14.errant`) through our `gecscore.cleme2.metric`: the edits CLEME2.0 used, scored by our core."""
    from gecscore.cleme2.metric import cleme_score

    folder = Path(data_dir) / "CoNLL-2014" / "CLEME" / "demo" / "examples"
    data = load_dataset("gjg15", data_dir)
    published = {**{label: values[0] for label, values in CLEME_T1_ROWS.items()},
                 **{label: values for label, values in CLEME_T10_ROWS.items() if label.endswith("-unw")}}
    out = []
    for label, values in published.items():
        metric, options = CLEME_VARIANTS[label]
        settings = {"variant": metric, "level": "corpus", **options}
        scores = {
            system: cleme_score(hyp_m2=folder / f"conll14-{system}.errant", ref_m2=folder / "conll14.errant",
                                **settings)["score"]
            for system in data.systems
        }
        published_pairs = {"ew_nusnlp": values[:2], "ts_nusnlp": values[2:]}
        out += diagnostic_rows(f"{CLEME_T1} / Table 10, diagnostic: CLEME's ERRANT M2 files", label,
                               "conll14.errant", scores, published_pairs, data, options)
    return out


def _fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def run(data_dir: str, cache: ScoreCache, progress: bool) -> list[dict]:
    """Evaluate every row (grouped so each configuration is meta-evaluated once)."""
    results: dict[tuple, object] = {}
    datasets: dict[tuple, object] = {}
    out = []
    all_rows = rows()
    for key in RHO_ONLY:
        metric, dataset, system_set, aggregation, human, rho = key
        all_rows.append(Row(GECM, metric, dataset, "official", system_set, aggregation, human, (float("nan"), rho)))
    for row in all_rows:
        if row.metric not in available_metrics():
            continue
        data_key = (row.dataset, row.references, row.exclude_unchanged)
        if data_key not in datasets:
            datasets[data_key] = load_dataset(row.dataset, data_dir, references=row.references,
                                              exclude_unchanged=row.exclude_unchanged)
        run_key = data_key + (row.metric, json.dumps(row.options, sort_keys=True), row.system_set, row.aggregation)
        if run_key not in results:
            started = time.time()
            results[run_key] = meta_evaluate(get_metric(row.metric, **row.options), datasets[data_key],
                                             system_set=row.system_set, aggregation=row.aggregation, cache=cache,
                                             progress=progress)
            print(f"{row.label or row.metric} {data_key} {row.system_set} {row.aggregation}: "
                  f"{time.time() - started:.0f}s", file=sys.stderr, flush=True)
        result = results[run_key]
        if row.level == "system":
            corr = result.system[row.human]
            ours = (corr.pearson, corr.spearman)
        else:
            agreement = result.sentence[row.human]
            ours = (agreement.accuracy, agreement.kendall)
        compared = [(p, o) for p, o in zip(row.published, ours) if p == p]
        out.append({
            "source": row.source, "metric": row.label or row.metric, "options": row.options, "dataset": row.dataset,
            "references": result.reference_set, "system_set": row.system_set, "aggregation": row.aggregation,
            "level": row.level, "human": row.human,
            "published": [p if p == p else None for p in row.published], "ours": list(ours),
            "match_3dp": all(round(p, 3) == round(o, 3) for p, o in compared),
            "max_abs_diff": max(abs(p - o) for p, o in compared),
            "note": row.note, "metric_scores": result.metric_scores, "signature": result.signature,
        })
    return out


def to_markdown(results: list[dict]) -> str:
    """Tables per source, then the causes."""
    lines = [
        "# Meta-evaluation: our numbers next to the published ones",
        "",
        "Produced by `benchmarks/meta_eval/run.py` (command at the top of that file). System level: Pearson r / "
        "Spearman ρ against the human score named in the `human` column; sentence level: accuracy / Kendall τ. "
        "`✓` = equal to 3 decimals. GJG15 uses all 13 systems (INPUT included) and, as PT-M2 and CLEME2.0, the "
        "human scores of Chollampatt & Ng (2018) (`*_nusnlp`). BN-10GEC (\"10 Refs\") is not available, so its "
        "columns are not recomputed.",
        "",
    ]
    matched = sum(r["match_3dp"] for r in results)
    close = sum(r["max_abs_diff"] <= 0.0025 for r in results)
    lines += [f"**{matched} of {len(results)} rows equal to 3 decimals; {close} within 0.0025.**", "",
              "| source | rows | equal to 3 decimals | within 0.0025 |", "|---|---|---|---|"]
    sources: dict[str, list[dict]] = {}
    for r in results:
        sources.setdefault(r["source"], []).append(r)
    for source, items in sources.items():
        lines.append(f"| {source} | {len(items)} | {sum(r['match_3dp'] for r in items)} | "
                     f"{sum(r['max_abs_diff'] <= 0.0025 for r in items)} |")
    lines.append("")
    for source, items in sources.items():
        lines += [f"## {source}", "",
                  "| metric | data | references | systems | aggregation | human | published | ours | | note |",
                  "|---|---|---|---|---|---|---|---|---|---|"]
        for r in items:
            pub = " / ".join(_fmt(v) for v in r["published"])
            ours = " / ".join(_fmt(v) for v in r["ours"])
            mark = "✓" if r["match_3dp"] else f"Δ {r['max_abs_diff']:.3f}"
            lines.append(f"| {r['metric']} | {r['dataset']} | {r['references']} | {r['system_set']} | "
                         f"{r['aggregation']} | {r['human']} | {pub} | {ours} | {mark} | {r['note']} |")
        lines.append("")
    lines += ["## Causes", ""]
    lines += [f"- **{name}**: {text}" for name, text in CAUSES.items()]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Run every row and write results.md and results.json."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", required=True, help="data directory laid out like ../shared/data")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent)
    parser.add_argument("--cache-dir", type=Path, default=None)
    parser.add_argument("--progress", action="store_true")
    args = parser.parse_args(argv)
    cache = ScoreCache(args.cache_dir or default_cache_dir())
    results = run(args.data, cache, args.progress) + errant_from_cleme_m2_files(args.data) + \
        cleme_from_m2_files(args.data)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "results.json").write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    (args.out / "results.md").write_text(to_markdown(results), encoding="utf-8")
    print(to_markdown(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
