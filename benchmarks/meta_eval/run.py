"""Recompute the model-free meta-evaluation cells of the seed papers' tables, one by one, beside the published values.

    .venv/bin/python benchmarks/meta_eval/run.py --data ../shared/data --out benchmarks/meta_eval

writes `results.md` and `results.json`: one entry per *cell* (one printed r, ρ, accuracy or τ, or in the listing
tables one printed system name, rank difference, count or score) with the published
value, ours, whether they are equal at 3 decimals and, for an unequal cell, either the named switch (`SWITCHES`)
that reproduces it or `unexplained: <what was tried>`. Counts are per paper and table, in cells. Sentence scores go
through the meta-evaluation cache (`--cache-dir`, default `$GECSCORE_CACHE/meta_eval` or
`~/.cache/gecscore/meta_eval`), so a second run only re-aggregates. `--from-json results.json` rebuilds the table from
a previous run's values without scoring anything. Published values are typed from the papers' tables (sources in
`docs/meta-evaluation.md`, section "Published values in the benchmarks").

"ours" is always the benchmark's base protocol for the row (the `references`, `systems`, `aggregation` and `human`
columns of the row; conventions in results.md's header). A *switch* is one documented change of that protocol (another
edit source, code release, score file, reference convention, ...). A switch counts for a cell only if its value
equals the published one at 3 decimals; every switch tried on a cell, reproducing or not, is listed with its value.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Callable, Iterable, Sequence

# --------------------------------------------------------------------------------------------- published rows

UOT = ("UOT-ERRANT (TACL 2026)", "Table 1")
UOT_JA = ("UOT-ERRANT, Japanese version", "Table 1")
PTM2 = ("PT-M2 (EMNLP 2022)", "Table 5")
CLEME_T1 = ("CLEME2.0 (ACL 2025)", "Table 1")
CLEME_T2 = ("CLEME2.0 (ACL 2025)", "Table 2")
CLEME_T8 = ("CLEME2.0 (ACL 2025)", "Table 8")
CLEME_T10 = ("CLEME2.0 (ACL 2025)", "Table 10")
CLEME_T5 = ("CLEME2.0 (ACL 2025)", "Table 5")
CLEME_T11 = ("CLEME2.0 (ACL 2025)", "Table 11")
CLEME_T12 = ("CLEME2.0 (ACL 2025)", "Table 12")
PTM2_T6 = ("PT-M2 (EMNLP 2022)", "Table 6")
IMPARA_T2 = ("IMPARA-GED (ACL 2025 Findings)", "Table 2")
GECM = ("gec-metrics / Rethinking (ACL 2025) [S]", "text")


@dataclass(frozen=True)
class Row:
    """Two published cells of one configuration: (r, ρ) at system level or (accuracy, τ) at sentence level.

    `published` holds None for a cell the paper does not print. `computable=False`: the data for the base protocol is
    not on disk (BN-10GEC), so only switches can give a value. `switches` are tried on the row's unequal cells;
    `tried` names the entry of `TRIED` that says what else was tried when no switch reproduces a cell.
    """

    paper: str
    table: str
    metric: str
    dataset: str
    references: str | None
    system_set: str
    aggregation: str
    human: str
    published: tuple[float | None, float | None]
    exclude_unchanged: bool = False
    level: str = "system"
    options: dict = field(default_factory=dict)
    label: str = ""
    switches: tuple[str, ...] = ()
    tried: str = ""
    computable: bool = True

    @property
    def name(self) -> str:
        """The paper's row name."""
        return self.label or self.metric

    @property
    def stats(self) -> tuple[str, str]:
        return ("r", "ρ") if self.level == "system" else ("acc", "τ")

    @property
    def column(self) -> str:
        """The paper's column, in words."""
        refs = REFSET_NAMES.get(self.references or "", self.references or "")
        if self.references in ("official", "official-pt-m2"):  # the convention is in the `config` column
            refs = "CoNLL-2014" if self.dataset == "gjg15" else "Official"
        if self.exclude_unchanged:
            refs += "*"
        human = HUMAN_NAMES.get(self.human, self.human)
        if self.dataset == "gjg15":
            return f"{refs} {human}"
        if self.dataset == "gmeg":
            return "GMEG-Data wiki"
        return f"{human} {self.system_set}, {refs} refs, {self.aggregation} agg."


REFSET_NAMES = {"e-minimal": "E-Minimal",
                "e-fluency": "E-Fluency", "ne-minimal": "NE-Minimal", "ne-fluency": "NE-Fluency",
                "bn-10gec": "BN-10GEC"}
HUMAN_NAMES = {"ew_nusnlp": "EW", "ts_nusnlp": "TS", "ts_edit": "SEEDA-E", "ts_sent": "SEEDA-S", "sent": "SEEDA-S",
               "edit": "SEEDA-E", "score": "human"}

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
# CLEME2.0 Table 10 (CoNLL-2014 official): (EW r, EW rho, TS r, TS rho). The paper's "-len" rows are CLEME's default.
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
# CLEME2.0 Table 1, classic metrics: metric → reference set → ((EW r, rho), (TS r, rho)).
CLEME_T1_CLASSIC = {
    "m2": {"official": ((0.623, 0.687), (0.672, 0.720)), "bn-10gec": ((0.547, 0.648), (0.610, 0.692)),
           "e-minimal": ((0.597, 0.654), (0.650, 0.703)), "e-fluency": ((0.590, 0.654), (0.659, 0.709)),
           "ne-minimal": ((0.575, 0.577), (0.634, 0.648)), "ne-fluency": ((0.582, 0.648), (0.649, 0.703))},
    "errant": {"official": ((0.642, 0.659), (0.688, 0.698)), "e-minimal": ((0.578, 0.742), (0.631, 0.786)),
               "e-fluency": ((0.594, 0.720), (0.663, 0.775)), "ne-minimal": ((0.585, 0.747), (0.637, 0.797)),
               "ne-fluency": ((0.597, 0.753), (0.659, 0.797))},
    "sentm2": {"official": ((0.871, 0.731), (0.864, 0.758)), "e-minimal": ((0.805, 0.806), (0.836, 0.845)),
               "e-fluency": ((0.655, 0.731), (0.732, 0.764)), "ne-minimal": ((0.729, 0.797), (0.785, 0.846)),
               "ne-fluency": ((0.621, 0.632), (0.699, 0.687))},
    "senterrant": {"official": ((0.870, 0.742), (0.846, 0.747)), "e-minimal": ((0.768, 0.775), (0.803, 0.819)),
                   "e-fluency": ((0.806, 0.813), (0.732, 0.764)), "ne-minimal": ((0.710, 0.780), (0.765, 0.841)),
                   "ne-fluency": ((0.793, 0.830), (0.847, 0.857))},
}
# UOT-ERRANT Table 1: the SEEDA-E reference sets (10 Refs = BN-10GEC left out) and system sets, and the CLEME row.
UOT_REFSETS = ("official", "e-minimal", "ne-minimal", "e-fluency", "ne-fluency")
UOT_SYSTEM_SETS = ("base", "base", "base", "+fluency", "+fluency")
UOT_ERRANT = ((0.881, 0.895), (0.864, 0.804), (0.740, 0.720), (-0.005, 0.424), (0.114, 0.508))
UOT_CLEME = ((0.910, 0.930), (0.910, 0.965), (0.716, 0.706), (-0.043, 0.297), (0.473, 0.653), (0.825, 0.667))
SN8 = ("e-minimal", "e-fluency", "ne-minimal", "ne-fluency")
GJG_HUMANS = ("ew_nusnlp", "ts_nusnlp")


def rows() -> list[Row]:
    """Every published model-free cell this benchmark covers, two per row."""
    out: list[Row] = []
    # UOT-ERRANT Table 1: SEEDA-E TrueSkill human (ts_edit), TrueSkill aggregation; GMEG-Data wiki test.
    for refs, system_set, pub in zip(UOT_REFSETS, UOT_SYSTEM_SETS, UOT_ERRANT):
        out.append(Row(*UOT, "errant", "seeda", refs, system_set, "trueskill", "ts_edit", pub))
    out.append(Row(*UOT, "errant", "gmeg", None, "all", "trueskill", "score", (0.780, 0.667)))
    # Its CLEME row: CLEME (v1) independent, sentence scorer, FN sigmoid α=2 [0.75, 1.25] (`cleme_length`).
    for refs, system_set, pub in zip(UOT_REFSETS, UOT_SYSTEM_SETS, UOT_CLEME[:-1]):
        empty = ("empty-prediction=source",) if system_set == "+fluency" else ()  # REF-F has an empty line
        out.append(Row(*UOT, "cleme-length", "seeda", refs, system_set, "trueskill", "ts_edit", pub, label="CLEME",
                       switches=UOT_CLEME_SWITCHES + empty))
    out.append(Row(*UOT, "cleme-length", "gmeg", None, "all", "trueskill", "score", UOT_CLEME[-1], label="CLEME",
                   switches=UOT_CLEME_SWITCHES))
    # The Japanese version of the paper prints the same ERRANT and CLEME cells for Official, E-Fluency and NE-Fluency
    # (its "10 Refs" column is BN-10GEC, not on disk).
    for refs, system_set, errant_pub, cleme_pub in zip(UOT_REFSETS, UOT_SYSTEM_SETS, UOT_ERRANT, UOT_CLEME):
        if refs in ("official", "e-fluency", "ne-fluency"):
            out.append(Row(*UOT_JA, "errant", "seeda", refs, system_set, "trueskill", "ts_edit", errant_pub))
            empty = ("empty-prediction=source",) if system_set == "+fluency" else ()
            out.append(Row(*UOT_JA, "cleme-length", "seeda", refs, system_set, "trueskill", "ts_edit", cleme_pub,
                           label="CLEME", switches=UOT_CLEME_SWITCHES + empty))

    # PT-M2 Table 5: GJG15, 13 systems, Chollampatt & Ng's human files; M² from the official M2, ERRANT from PT-M2's
    # raw references (official-pt-m2).
    for metric, ew, ts in (
        ("m2", (0.623, 0.687), (0.672, 0.720)), ("sentm2", (0.871, 0.731), (0.864, 0.758)),
        ("errant", (0.642, 0.659), (0.688, 0.698)), ("senterrant", (0.870, 0.742), (0.846, 0.747)),
    ):
        refs = "official-pt-m2" if "errant" in metric else "official"
        for human, pub in (("ew_nusnlp", ew), ("ts_nusnlp", ts)):
            out.append(Row(*PTM2, metric, "gjg15", refs, "all", "default", human, pub,
                           switches=("cleme-errant-m2", "errant-2.3.3") if "errant" in metric else (),
                           tried="senterrant-conll" if metric == "senterrant" else "errant-conll"))

    # CLEME2.0 Table 1 (GJG15). Sentence-level metrics marked * there exclude unchanged references on E-Minimal and
    # NE-Minimal. BN-10GEC is not on disk: only its M² cells are covered, through the published M² scores.
    for metric, by_refs in CLEME_T1_CLASSIC.items():
        for refs, (ew, ts) in by_refs.items():
            starred = metric.startswith("sent") and refs in ("e-minimal", "ne-minimal")
            conll = "official-pt-m2" if refs == "official" and "errant" in metric else refs
            for human, pub in (("ew_nusnlp", ew), ("ts_nusnlp", ts)):
                switches: tuple[str, ...] = ()
                if refs == "official" and "errant" in metric:
                    switches, tried = ("cleme-errant-m2", "errant-2.3.3"), f"{metric}-conll"
                elif refs == "official":
                    switches, tried = (), ""
                elif metric == "m2" and refs == "bn-10gec":
                    switches, tried = ("sn8gec-published-m2",), "m2-bn10gec"
                elif metric == "m2":
                    switches, tried = ("sn8gec-published-m2", "m2-gold=lattice"), "m2-sn8"
                elif metric == "sentm2":
                    switches, tried = ("m2-gold=lattice",), "sentm2-sn8"
                elif metric == "senterrant" and refs == "e-fluency" and human == "ts_nusnlp":
                    switches, tried = ("errant-2.3.3",), "senterrant-copy"
                else:
                    switches, tried = ("errant-2.3.3",), "errant-sn8"
                out.append(Row(*CLEME_T1, metric, "gjg15", conll, "all", "default", human, pub,
                               exclude_unchanged=starred, switches=switches, tried=tried,
                               computable=refs != "bn-10gec"))
    for refs, ew, ts in (("e-minimal", (0.760, 0.626), (0.692, 0.588)),
                         ("ne-minimal", (0.104, -0.003), (-0.066, -0.137))):
        for human, pub in (("ew_nusnlp", ew), ("ts_nusnlp", ts)):
            transposed = ("errant-2.3.3+transposed",) if refs == "ne-minimal" else ()
            out.append(Row(*CLEME_T8, "senterrant", "gjg15", refs, "all", "default", human, pub,
                           switches=("errant-2.3.3",) + transposed, tried="errant-sn8"))

    # CLEME2.0 Table 2: SEEDA, TrueSkill human, classic metrics.
    for metric, s, e in (
        ("m2", (0.658, 0.487), (0.791, 0.764)), ("errant", (0.557, 0.406), (0.697, 0.671)),
        ("sentm2", (0.802, 0.692), (0.887, 0.846)), ("senterrant", (0.758, 0.643), (0.860, 0.825)),
    ):
        for human, pub in (("ts_sent", s), ("ts_edit", e)):
            legacy = ("errant-2.3.3+refs=official-pt-m2",) if "errant" in metric else ()
            out.append(Row(*CLEME_T2, metric, "seeda", "official", "base", "default", human, pub,
                           switches=("refs=official-pt-m2", SEEDA_LM_CRITIC) + legacy, tried="seeda-classic"))

    # CLEME / CLEME2.0 variants (no model weights) of Tables 1, 8, 10 (GJG15) and 2 (SEEDA). CoNLL-2014 "Official" is
    # CLEME's `conll14.errant`, i.e. PT-M2's references (official-pt-m2).
    def cleme_rows(where: tuple[str, str], label: str, dataset: str, refs: str, values: tuple,
                   humans: Sequence[str], system_set: str, exclude: bool = False,
                   switches: tuple[str, ...] = (), tried: str = "") -> list[Row]:
        metric, options = CLEME_VARIANTS[label]
        conll = "official-pt-m2" if refs == "official" else refs
        return [Row(*where, metric, dataset, conll, system_set, "default", human, (values[2 * k], values[2 * k + 1]),
                    exclude_unchanged=exclude, options=options, label=label, switches=switches, tried=tried)
                for k, human in enumerate(humans)]

    for label, per_refs in CLEME_T1_ROWS.items():
        for refs, values in zip(CLEME_REFSETS, per_refs):
            starred = label.startswith("Sent") and refs in ("e-minimal", "ne-minimal")
            official = refs == "official"
            out += cleme_rows(CLEME_T1, label, "gjg15", refs, values, GJG_HUMANS, "all", starred,
                              ("cleme-errant-m2",) if official else ("errant-2.3.3",),
                              "cleme-conll" if official else "cleme-sn8")
    for label, per_refs in CLEME_T8_ROWS.items():
        for refs, values in per_refs.items():
            switches: tuple[str, ...] = ()
            if label.startswith("SentCLEME-"):
                switches = ("cleme-release-2025",)
                if label == "SentCLEME-ind" and refs == "ne-minimal":
                    switches += ("cleme-release-2025+transposed",)
            out += cleme_rows(CLEME_T8, label, "gjg15", refs, values, GJG_HUMANS, "all",
                              switches=switches + ("errant-2.3.3",), tried="cleme-sn8")
    for label, values in CLEME_T10_ROWS.items():
        switches = ("cleme-errant-m2",)
        if label == "CLEME-dep":
            switches = ("row-slip:CLEME2.0-dep",) + switches
        out += cleme_rows(CLEME_T10, label, "gjg15", "official", values, GJG_HUMANS, "all", switches=switches,
                          tried="cleme-conll")
    for label, values in CLEME_T2_ROWS.items():
        out += cleme_rows(CLEME_T2, label, "seeda", "official", values, ("ts_sent", "ts_edit"), "base",
                          switches=(SEEDA_LM_CRITIC,) + SEEDA_CLEME_SWITCHES, tried="seeda-cleme")

    # IMPARA-GED Table 2: SEEDA Base, gec-metrics' defaults (Official references), TrueSkill aggregation; its only
    # model-free row covered is ERRANT (GREEN and GLEU are not metrics of this library).
    for human, level, pub in (("ts_sent", "system", (0.763, 0.706)), ("ts_edit", "system", (0.881, 0.895)),
                              ("sent", "sentence", (0.594, 0.189)), ("edit", "sentence", (0.608, 0.217))):
        out.append(Row(*IMPARA_T2, "errant", "seeda", "official", "base", "trueskill", human, pub, level=level))

    # gec-metrics paper and "Rethinking…" (secondary, see docs/meta-evaluation.md): ERRANT on SEEDA, Official.
    out.append(Row(*GECM, "errant", "seeda", "official", "+fluency", "default", "ts_edit", (-0.508, 0.033)))
    out.append(Row(*GECM, "errant", "seeda", "official", "base", "default", "sent", (0.594, 0.189), level="sentence"))
    for system_set, aggregation, rho in (("base", "default", 0.343), ("base", "trueskill", 0.706),
                                         ("+fluency", "default", -0.156), ("+fluency", "trueskill", 0.095)):
        out.append(Row(*GECM, "errant", "seeda", "official", system_set, aggregation, "ts_sent", (None, rho)))
    return out


# --------------------------------------------------------------------------------------------- printed listings

@dataclass(frozen=True)
class Listing:
    """Printed cells that are not an (r, ρ) pair: systems at ranks, rank differences, counts, scores, or a row of
    correlations with its average. One cell per column; `published` holds the printed text (the printed number of
    decimals is the precision of the comparison). `compute` names the entry of `LISTING_COMPUTE` that gives ours
    under the base protocol `config` (with `args`); `switches` and `tried` work as for `Row`."""

    paper: str
    table: str
    name: str
    columns: tuple[str, ...]
    stats: tuple[str, ...]
    published: tuple[str, ...]
    compute: str
    config: str
    args: dict = field(default_factory=dict)
    switches: tuple[str, ...] = ()
    tried: str = ""


T6_SYSTEMS = {  # PT-M2 Table 6: the system at each rank, 1..13
    "M²": "CAMB CUUI AMU POST NTHU RAC UMC PKU SJTU UFC IPN IITB INPUT",
    "SentM²": "CUUI AMU CAMB POST NTHU RAC PKU UMC SJTU UFC IITB INPUT IPN",
    "Human EW": "AMU RAC CAMB CUUI POST UFC PKU UMC IITB SJTU INPUT NTHU IPN",
    "Human TS": "AMU CAMB RAC CUUI POST PKU UMC UFC IITB INPUT SJTU NTHU IPN",
}
T6_DELTA = {"M²": "27", "SentM²": "21"}
T6_METRICS = {"M²": "m2", "SentM²": "sentm2"}
# CLEME2.0 Table 12: the model-free (not "sim") rows, systems in the table's order. The CLEME2.0-ind Score row
# prints 12 values for 13 systems, so which system lacks one is unknown: it is left out.
T12_SYSTEMS = ("AMU", "CAMB", "CUUI", "IITB", "INPUT", "IPN", "NTHU", "PKU", "POST", "RAC", "SJTU", "UFC", "UMC")
T12_FIELDS = {"TP": "tp", "FP": "fp", "FP_ne": "fp_ne", "FP_un": "fp_un", "FN": "fn", "Hit": "hit", "Wrong": "err",
              "Under": "und", "Over": "ove", "Score": "com"}
T12_ROWS = {
    ("CLEME2.0-dep", "dependent", "corpus"): {
        "TP": "380 584 471 22 0 39 330 246 412 254 85 32 260",
        "FP": "817 1307 964 67 0 488 905 709 1145 782 272 18 789",
        "FP_ne": "276 418 311 34 0 149 302 254 316 259 76 12 245",
        "FP_un": "541 889 653 33 0 339 603 455 829 523 196 6 544",
        "FN": "1360 1150 1357 2057 1782 2886 1388 1454 1354 1487 1668 2087 1461",
        "Hit": "0.188 0.271 0.220 0.010 0.00 0.013 0.163 0.126 0.198 0.127 0.046 0.015 0.132",
        "Wrong": "0.137 0.194 0.145 0.016 0.00 0.048 0.150 0.130 0.152 0.130 0.042 0.006 0.125",
        "Under": "0.675 0.534 0.634 0.973 1.00 0.939 0.687 0.744 0.650 0.744 0.912 0.979 0.743",
        "Over": "0.452 0.470 0.455 0.371 0.00 0.643 0.488 0.476 0.532 0.505 0.549 0.12 0.519",
        "Score": "0.483 0.508 0.497 0.431 0.45 0.408 0.463 0.450 0.479 0.505 0.434 0.450 0.453",
    },
    ("SentCLEME2.0-dep", "dependent", "sentence"): {
        "TP": "376 580 467 22 0 39 327 244 409 251 84 32 259",
        "FP": "821 1311 968 67 0 488 908 711 1148 785 273 18 790",
        "FP_ne": "286 431 320 22 0 132 310 262 326 271 81 10 255",
        "FP_un": "535 880 648 45 0 356 598 449 822 514 192 8 535",
        "FN": "1600 1374 1577 1972 1982 1940 1660 1712 1587 1744 1900 1980 1714",
        "Hit": "0.136 0.210 0.163 0.008 0.00 0.013 0.119 0.088 0.142 0.089 0.032 0.012 0.091",
        "Wrong": "0.080 0.129 0.090 0.005 0.00 0.038 0.095 0.076 0.088 0.071 0.023 0.002 0.070",
        "Under": "0.500 0.392 0.479 0.675 0.687 0.639 0.496 0.538 0.486 0.551 0.637 0.678 0.546",
        "Over": "0.248 0.419 0.293 0.031 0.00 0.242 0.304 0.235 0.342 0.232 0.121 0.006 0.267",
        "Score": "0.498 0.513 0.507 0.467 0.466 0.447 0.481 0.475 0.495 0.477 0.469 0.471 0.476",
    },
    ("CLEME2.0-ind", "independent", "corpus"): {
        "TP": "388 596 487 22 0 39 338 248 420 255 85 32 262",
        "FP": "809 1295 948 67 0 488 897 707 1137 781 272 18 787",
        "FP_ne": "408 627 449 34 0 234 447 388 487 406 134 12 366",
        "FP_un": "401 668 499 33 0 254 450 319 650 375 138 6 421",
        "FN": "1029 778 984 1497 1530 1382 1045 1129 989 1135 1398 1506 1136",
        "Hit": "0.213 0.298 0.254 0.014 0.000 0.024 0.185 0.141 0.222 0.142 0.053 0.021 0.149",
        "Wrong": "0.224 0.313 0.234 0.022 0.000 0.141 0.244 0.220 0.257 0.226 0.083 0.008 0.207",
        "Under": "0.564 0.389 0.513 0.964 1.000 0.835 0.571 0.640 0.522 0.632 0.865 0.972 0.644",
        "Over": "0.335 0.353 0.348 0.371 0.000 0.482 0.364 0.334 0.417 0.362 0.387 0.12 0.401",
    },
    ("SentCLEME2.0-ind", "independent", "sentence"): {
        "Hit": "0.155 0.239 0.189 0.010 0.000 0.016 0.137 0.100 0.165 0.106 0.036 0.015 0.105",
        "Wrong": "0.159 0.261 0.178 0.015 0.000 0.110 0.192 0.165 0.192 0.162 0.059 0.005 0.147",
        "Under": "0.403 0.268 0.373 0.627 0.647 0.563 0.390 0.447 0.375 0.450 0.574 0.635 0.449",
        "Over": "0.183 0.315 0.227 0.023 0.000 0.171 0.224 0.163 0.266 0.165 0.086 0.004 0.206",
        "Score": "0.485 0.486 0.493 0.466 0.468 0.428 0.461 0.453 0.474 0.458 0.461 0.474 0.461",
    },
}
CORR_COLUMNS = ("EW r", "EW ρ", "TS r", "TS ρ", "Avg.")
CORR_STATS = ("r", "ρ", "r", "ρ", "avg")
# CLEME2.0 Table 5 (CLEME2.0-dep, GJG15 ranking: CoNLL-2014): (EW r, ρ, TS r, ρ, Avg.) per disentangled score.
T5_ROWS = {
    ("corpus", "Hit"): "0.599 0.593 0.673 0.648 0.628", ("corpus", "Wrong"): "-0.444 -0.533 -0.526 -0.593 -0.524",
    ("corpus", "Under"): "0.496 0.599 0.576 0.659 0.583", ("corpus", "Over"): "0.118 0.269 0.073 0.275 0.253",
    ("sentence", "Hit"): "0.594 0.593 0.672 0.648 0.627", ("sentence", "Wrong"): "-0.405 -0.429 -0.489 -0.500 -0.456",
    ("sentence", "Under"): "0.489 0.511 0.572 0.582 0.539",
    ("sentence", "Over"): "-0.247 -0.363 -0.346 -0.440 -0.349",
}
# CLEME2.0 Table 11: correlations averaged over the α grid (unweighted rows; the -sim rows need a model).
T11_ROWS = {
    ("CLEME2.0-dep", "dependent", "corpus"): "0.461 0.423 0.483 0.457 0.456",
    ("CLEME2.0-ind", "independent", "corpus"): "0.468 0.421 0.489 0.453 0.458",
    ("SentCLEME2.0-dep", "dependent", "sentence"): "0.374 0.305 0.362 0.290 0.333",
    ("SentCLEME2.0-ind", "independent", "sentence"): "0.372 0.302 0.356 0.283 0.328",
}
HEUO_CONFIG = "cleme2(weighting=none) gjg15 official-pt-m2 all, our errant 3.0.2 edits"


def listings() -> list[Listing]:
    """Every printed non-correlation cell (and CLEME2.0's per-indicator and α-averaged correlations) covered."""
    out: list[Listing] = []
    ranks = tuple(f"rank {k}" for k in range(1, 14))
    for name, systems in T6_SYSTEMS.items():
        metric = T6_METRICS.get(name)
        compute, args = ("metric-ranking", {"metric": metric}) if metric else \
            ("human-ranking", {"human": "ew_nusnlp" if name.endswith("EW") else "ts_nusnlp"})
        config = f"{metric}() gjg15 official all default" if metric else f"{args['human']} human scores"
        out.append(Listing(*PTM2_T6, name, ranks, ("system",) * 13, tuple(systems.split()), compute, config, args))
    out.append(Listing(*PTM2_T6, "Δ", tuple(T6_DELTA), ("Δ",) * len(T6_DELTA), tuple(T6_DELTA.values()),
                       "rank-difference", "Σ|metric rank − EW rank| (ew_nusnlp)", {"human": "ew"},
                       switches=("rank-diff=ts", "rank-diff=nearer-human")))
    for (label, assumption, level), by_row in T12_ROWS.items():
        for row, values in by_row.items():
            out.append(Listing(*CLEME_T12, f"{label} {row}", T12_SYSTEMS, ("count" if row.startswith(("T", "F"))
                               else "score",) * 13, tuple(values.split()), "heuo-table",
                               f"{HEUO_CONFIG}, α of the level", {"assumption": assumption, "level": level,
                                                                  "field": T12_FIELDS[row]},
                               switches=("alpha=0.50/0.40/0.05/0.05", "alpha=0.50/0.40/0.05/0.05+cleme-errant-m2"),
                               tried="heuo-table"))
    for (level, row), values in T5_ROWS.items():
        label = ("CLEME2.0" if level == "corpus" else "SentCLEME2.0") + f"-dep-{row}"
        out.append(Listing(*CLEME_T5, label, CORR_COLUMNS, CORR_STATS, tuple(values.split()), "heuo-correlation",
                           f"{HEUO_CONFIG}, 1 − x for Wrong/Under/Over", {"level": level, "field": T12_FIELDS[row]},
                           switches=("alpha=one-hot+cleme-errant-m2", "alpha=0.50/0.40/0.05/0.05+1-x")
                           + (("indicator=x",) if row != "Hit" else ()),
                           tried="heuo-correlation"))
    for (label, assumption, level), values in T11_ROWS.items():
        out.append(Listing(*CLEME_T11, label, CORR_COLUMNS, CORR_STATS, tuple(values.split()), "alpha-grid",
                           f"{HEUO_CONFIG}, mean over the 969 α of the 0.05 grid with 0 < α_i < 1",
                           {"assumption": assumption, "level": level}, switches=("alpha-grid=with-zeros",),
                           tried="alpha-grid"))
    return out


# --------------------------------------------------------------------------------------------- listing values

def ranking(scores: dict[str, float]) -> list[str]:
    """Systems from the highest score to the lowest (ties keep the given order)."""
    return sorted(scores, key=lambda s: -scores[s])


def rank_differences(metric_ranking: Sequence[str], human_rankings: Sequence[Sequence[str]]) -> list[int]:
    """Per rank of the metric's ranking: the distance to the system's nearest rank among the human rankings."""
    return [min(abs(human.index(system) - k) for human in human_rankings)
            for k, system in enumerate(metric_ranking)]


def _gjg_row(metric: str, human: str = "ew_nusnlp") -> Row:
    return Row(*PTM2_T6, metric, "gjg15", "official", "all", "default", human, (None, None))


def _metric_ranking(item: Listing, ev: Evaluator) -> list:
    return ranking(ev.result(_gjg_row(item.args["metric"])).metric_scores)


def _human_ranking(item: Listing, ev: Evaluator) -> list:
    human, systems = ev.human(_gjg_row("m2", item.args["human"]))
    return ranking({s: human[s] for s in systems})


def _rank_difference(humans: Sequence[str]) -> Callable[[Listing, Evaluator], list]:
    def compute(item: Listing, ev: Evaluator) -> list:
        targets = [_human_ranking(replace(item, args={"human": f"{h}_nusnlp"}), ev) for h in humans]
        return [sum(rank_differences(_metric_ranking(replace(item, args={"metric": T6_METRICS[name]}), ev), targets))
                for name in item.columns]
    return compute


def _alpha(level: str) -> tuple[float, ...]:
    from gecscore.cleme2.metric import ALPHA_CORPUS, ALPHA_SENTENCE

    return ALPHA_CORPUS if level == "corpus" else ALPHA_SENTENCE


TABLE12_ALPHA = (0.50, 0.40, 0.05, 0.05)


def _heuo_table(alpha: tuple[float, ...] | None = None, edits: str = "ours") -> Callable[[Listing, Evaluator], list]:
    def compute(item: Listing, ev: Evaluator) -> list:
        a = item.args
        return [ev.disentangled(s, a["assumption"], a["level"], alpha or _alpha(a["level"]), edits)[a["field"]]
                for s in item.columns]
    return compute


def correlation_cells(scores: dict[str, float], ev: Evaluator) -> list[float]:
    """EW r, EW ρ, TS r, TS ρ of GJG15 system scores and their mean (the papers' "Avg.")."""
    from gecscore.meta_eval.correlate import correlate_systems

    values = []
    for human in GJG_HUMANS:
        scores_h, systems = ev.human(_gjg_row("m2", human))
        corr = correlate_systems(scores, scores_h, systems)
        values += [corr.pearson, corr.spearman]
    return values + [sum(values) / len(values)]


def _heuo_correlation(sign: Callable[[str], bool], alpha: tuple[float, ...] | None = None
                      ) -> Callable[[Listing, Evaluator], list]:
    def compute(item: Listing, ev: Evaluator) -> list:
        from gecscore.meta_eval.data import GJG15_SYSTEMS

        level, name = item.args["level"], item.args["field"]
        raw = {s: ev.disentangled(s, "dependent", level, alpha or _alpha(level))[name] for s in GJG15_SYSTEMS}
        return correlation_cells({s: 1 - v if sign(name) else v for s, v in raw.items()}, ev)
    return compute


ONE_HOT = {"hit": (1.0, 0.0, 0.0, 0.0), "err": (0.0, 1.0, 0.0, 0.0), "und": (0.0, 0.0, 1.0, 0.0),
           "ove": (0.0, 0.0, 0.0, 1.0)}


def _heuo_ablation(item: Listing, ev: Evaluator) -> list:
    """CLEME2.0 Table 5 as an ablation: each row's indicator alone (one-hot α, so the reference choice follows that
    indicator), CLEME's M2-file counts; the Avg. is the mean of the four cells as printed (3 decimals, half up)."""
    from decimal import ROUND_HALF_UP, Decimal

    from gecscore.meta_eval.data import GJG15_SYSTEMS

    level, name = item.args["level"], item.args["field"]
    raw = {s: ev.disentangled(s, "dependent", level, ONE_HOT[name], "m2")[name] for s in GJG15_SYSTEMS}
    values = correlation_cells({s: v if name == "hit" else 1 - v for s, v in raw.items()}, ev)[:4]
    printed = [Decimal(repr(v)).quantize(Decimal("0.001"), ROUND_HALF_UP) for v in values]
    return values + [float((sum(printed) / 4).quantize(Decimal("0.001"), ROUND_HALF_UP))]


def grid_average(per_system: dict[str, Sequence[float]], human: dict[str, float], systems: Sequence[str]
                 ) -> tuple[float, float]:
    """Pearson and Spearman averaged over grid points (`per_system[s][k]`: system s's score at point k)."""
    from gecscore.meta_eval.correlate import correlate_systems

    n = len(next(iter(per_system.values())))
    corrs = [correlate_systems({s: per_system[s][k] for s in systems}, human, systems) for k in range(n)]
    return (sum(c.pearson for c in corrs) / n, sum(c.spearman for c in corrs) / n)


def _alpha_grid(positive: bool) -> Callable[[Listing, Evaluator], list]:
    def compute(item: Listing, ev: Evaluator) -> list:
        import numpy as np

        from gecscore.meta_eval.data import GJG15_SYSTEMS
        from gecscore.meta_eval.heuo import com_grid
        from gecscore.meta_eval.search import simplex_grid

        grid = np.array(simplex_grid(0.05) if positive else nonnegative_grid(0.05))
        a = item.args
        scores = {s: com_grid(ev.heuo_counts(s)[a["assumption"]], grid, a["level"]) for s in GJG15_SYSTEMS}
        values = []
        for human in GJG_HUMANS:
            scores_h, systems = ev.human(_gjg_row("m2", human))
            values += list(grid_average(scores, scores_h, systems))
        return values + [sum(values) / len(values)]
    return compute


def nonnegative_grid(step: float) -> list[tuple[float, ...]]:
    """Every (α1, α2, α3, α4) of multiples of `step`, each ≥ 0, that sum to 1 (1771 points at 0.05)."""
    units = round(1 / step)
    return [tuple(round(k * step, 10) for k in (a, b, c, units - a - b - c))
            for a in range(units + 1) for b in range(units + 1 - a) for c in range(units + 1 - a - b)]


LISTING_COMPUTE: dict[str, Callable[[Listing, Evaluator], list]] = {
    "metric-ranking": _metric_ranking,
    "human-ranking": _human_ranking,
    "rank-difference": _rank_difference(("ew",)),
    "heuo-table": _heuo_table(),
    "heuo-correlation": _heuo_correlation(lambda name: name != "hit"),
    "alpha-grid": _alpha_grid(positive=True),
}


# --------------------------------------------------------------------------------------------- switches

@dataclass(frozen=True)
class Switch:
    """A named change of a row's or listing's protocol: `compute(item, evaluator)` gives the row's two values (or
    None), or one value per listing cell."""

    name: str
    description: str
    compute: Callable[[Row | Listing, "Evaluator"], tuple[float | None, float | None] | list | None]


def _row_variant(options: dict | None = None, **fields) -> Callable:
    def compute(row: Row, ev: Evaluator) -> tuple[float | None, float | None] | None:
        return ev.values(replace(row, options={**row.options, **(options or {})}, **fields))
    return compute


def _transposed(variant: Callable[[Row, "Evaluator"], tuple[float | None, float | None] | None]) -> Callable:
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
        metric, options = CLEME_VARIANTS[label]
        return ev.values(replace(row, metric=metric, options=options, label=label))
    return compute


def _cleme_errant_m2(row: Row, ev: Evaluator) -> tuple[float | None, float | None] | None:
    return ev.external("cleme-errant-m2", row, lambda: cleme_m2_file_scores(ev.data_dir, row))


def _legacy_errant(row: Row, ev: Evaluator) -> tuple[float | None, float | None] | None:
    return ev.external("errant-2.3.3", row, lambda: legacy_errant_scores(ev, row))


def legacy_errant_scores(ev: "Evaluator", row: Row) -> dict[str, float]:
    """System scores of a row from ERRANT 2.3.3's reference edits (switch `errant-2.3.3`): the systems' edits are
    CLEME's `conll14-<SYS>.errant` on GJG15; no such files ship for SEEDA, so ERRANT 2.3.3 extracts them too."""
    ref_m2 = legacy_reference_m2(ev, row)
    if row.dataset == "gjg15":
        return cleme_m2_file_scores(ev.data_dir, row, ref_m2=ref_m2)
    data = ev.dataset(row)
    systems = data.system_set(row.system_set)
    return m2_file_scores(row, {s: legacy_system_m2(ev, s, data) for s in systems}, ref_m2)


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
        from gecscore.meta_eval import adapters, get_metric, meta_evaluate

        data = ev.dataset(row)
        variant = replace(data, gold_m2=lattice_gold(data.sources, data.references),
                          reference_set=f"{data.reference_set}:lattice-gold")
        # The adapters' in-process memo keys a run on the references, not on the gold M2's content.
        adapters._RUNS.clear()
        return meta_evaluate(get_metric(row.metric, **row.options), variant, system_set=row.system_set,
                             aggregation=row.aggregation, cache=ev.cache).metric_scores

    return ev.external("m2-gold=lattice", row, scores)


SEEDA_CLEME_SWITCHES = ("refs=official", "aggregation=trueskill")
SEEDA_LM_CRITIC = "seeda-lm-critic=pie"
UOT_CLEME_SWITCHES = ("cleme-fn=published",)

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
           _rank_difference(("ts",))),
    Switch("rank-diff=nearer-human",
           "PT-M2 Table 6 Δ with each system's rank difference taken to the nearer of its two human ranks "
           "(min over EW and TS, `rank_differences`), summed over the 13 ranks.",
           _rank_difference(("ew", "ts"))),
    Switch("indicator=x",
           "CLEME2.0 Table 5: the Wrong / Under / Over scores x themselves correlated, instead of 1 − x (the paper "
           "says it reports 1 − x).",
           _heuo_correlation(lambda name: False)),
    Switch("alpha=0.50/0.40/0.05/0.05",
           "CLEME2.0 Tables 12 and 5: trade-off factors α = (0.50, 0.40, 0.05, 0.05) for both levels (reference "
           "choice and Score) instead of the paper's stated (0.45, 0.35, 0.15, 0.05) corpus / (0.35, 0.25, 0.20, "
           "0.20) sentence factors. Found by scoring every α of the 0.05 grid against the printed Score rows.",
           _heuo_table(TABLE12_ALPHA)),
    Switch("alpha=0.50/0.40/0.05/0.05+cleme-errant-m2",
           "`alpha=0.50/0.40/0.05/0.05` with the chunk counts made from the ERRANT M2 files CLEME ships for "
           "CoNLL-2014 (the edits of switch `cleme-errant-m2`: `conll14.errant`, `conll14-<SYS>.errant`) instead of "
           "our errant 3.0.2 edits of PT-M2's references (`gecscore.meta_eval.heuo.reference_counts_m2`).",
           _heuo_table(TABLE12_ALPHA, edits="m2")),
    Switch("alpha=one-hot+cleme-errant-m2",
           "CLEME2.0 Table 5 as the ablation §5.2 describes: each row's indicator alone, i.e. α = (1, 0, 0, 0) for "
           "Hit, (0, 1, 0, 0) Wrong, (0, 0, 1, 0) Under, (0, 0, 0, 1) Over, so CLEME's reference choice follows that "
           "indicator; chunk counts from CLEME's CoNLL-2014 ERRANT M2 files (`heuo.reference_counts_m2`), 1 − x for "
           "Wrong / Under / Over; the Avg. is the mean of the four cells as printed (3 decimals, rounded half up).",
           _heuo_ablation),
    Switch("alpha=0.50/0.40/0.05/0.05+1-x",
           "`alpha=0.50/0.40/0.05/0.05` for CLEME2.0 Table 5 (1 − x for Wrong / Under / Over, as the base).",
           _heuo_correlation(lambda name: name != "hit", TABLE12_ALPHA)),
    Switch("alpha-grid=with-zeros",
           "CLEME2.0 Table 11: the 1771 α of the 0.05 grid with α_i ≥ 0 (`nonnegative_grid`) instead of the 969 "
           "with 0 < α_i < 1 (the paper's constraint on α).",
           _alpha_grid(positive=False)),
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


# --------------------------------------------------------------------------------------------- external scores

def sn8gec_published_m2(data_dir: str, references: str) -> dict[str, float]:
    """M² system scores of `SN-8GEC/metric_scores` for one reference set (`source` → INPUT)."""
    column = {"official": "NUCLE", "official-pt-m2": "NUCLE", "bn-10gec": "BN15", "e-minimal": "E-minimal",
              "e-fluency": "E-fluency", "ne-minimal": "NE-minimal", "ne-fluency": "NE-fluency"}[references]
    scores = {}
    for line in (Path(data_dir) / "SN-8GEC" / "metric_scores").read_text(encoding="utf-8").splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[0] == "M2" and parts[1] == column:
            scores["INPUT" if parts[2] == "source" else parts[2]] = float(parts[3])
    if len(scores) != 13:
        raise ValueError(f"SN-8GEC/metric_scores: expected 13 M2 {column} scores, found {len(scores)}")
    return scores


def lattice_gold(sources: Sequence[str], references: Sequence[Sequence[str]], max_unchanged_words: int = 0):
    """Gold M2 whose edits are, per reference (one annotator each), the M² lattice's shortest path from the source
    without gold guidance: what CLEME's `MaxMatch` extracts from a reference that comes without edits."""
    from gecscore.common.m2io import M2Edit, M2Sentence
    from gecscore.pt_m2.lattice import Lattice

    gold = []
    for source, refs in zip(sources, references):
        block = M2Sentence(source)
        # A shared dummy first token keeps insertions at the sentence start at offset 0 (our lattice reproduces
        # m2scorer 3.2's first-row offsets (j-1, j-1), which are not valid gold edits; CLEME's code uses (0, 0)).
        tokens = ["<s>"] + source.split()
        for annotator, ref in enumerate(refs):
            seq = Lattice(tokens, ["<s>"] + ref.split(), max_unchanged_words).edit_sequence(())
            if not seq:
                block.edits.append(M2Edit(-1, -1, "noop", ("",), annotator))
            for e in reversed(seq):
                block.edits.append(M2Edit(e.start - 1, e.end - 1, "LEV", (e.corr,), annotator))
        gold.append(block)
    return gold


def _m2_file_edits(block, annotator: int) -> list[tuple[int, int, str]]:
    return [(e.o_start, e.o_end, e.correction) for e in block.edits_of(annotator)
            if not e.is_noop and e.type != "UNK"]


def m2_reference_edits(block) -> list[list[tuple[int, int, str]]]:
    """(start, end, correction) edits of each annotator of an M2 block, in annotator order."""
    return [_m2_file_edits(block, a) for a in block.annotators]


def sentence_errant_from_edits(hyps: Sequence[Sequence[tuple]], refs: Sequence[Sequence[Sequence[tuple]]],
                               beta: float = 0.5) -> float:
    """Mean sentence F_β with PT-M2's `errant_score.py` rules, from (start, end, correction) edit tuples.

    Per sentence and reference: c = matched edits, P = c/proposed (1 when none proposed), R = c/gold (1 when no gold
    edits), F_β (0 when the denominator is 0); the reference with the highest F, then more matches, then fewer
    proposed + β²·gold edits is chosen.
    """
    from gecscore.common.fbeta import m2_prf

    total = 0.0
    for hyp, candidates in zip(hyps, refs):
        h = set(hyp)
        best: tuple | None = None
        for ref in candidates or [[]]:
            c, p, g = len(h & set(ref)), len(hyp), len(ref)
            f = m2_prf(c, p, g, beta)[2]
            key = (f, c, -(p + beta ** 2 * g))
            if best is None or key > best[0]:
                best = (key, f)
        total += best[1] if best else 0.0
    return total / len(hyps)


def cleme_m2_file_scores(data_dir: str, row: Row, ref_m2: Path | None = None) -> dict[str, float]:
    """System scores of one GJG15 row from CLEME's CoNLL-2014 ERRANT M2 files (switch `cleme-errant-m2`): the 13
    systems' `conll14-<SYS>.errant` against `ref_m2` (default CLEME's `conll14.errant`)."""
    from gecscore.meta_eval.data import GJG15_SYSTEMS

    folder = Path(data_dir) / "CoNLL-2014" / "CLEME" / "demo" / "examples"
    return m2_file_scores(row, {s: folder / f"conll14-{s}.errant" for s in GJG15_SYSTEMS},
                          ref_m2 or folder / "conll14.errant")


def m2_file_scores(row: Row, hyp_m2: dict[str, Path], ref_m2: Path) -> dict[str, float]:
    """System scores of one row from M2 files: each system's edits (`hyp_m2[system]`, annotator 0) against the
    reference edits of `ref_m2`, scored by our own code (see `cleme-errant-m2`)."""
    from gecscore.common.edits import Edit
    from gecscore.common.errant_scoring import FScore, errant_counts
    from gecscore.common.m2io import read_m2

    if row.label:  # a CLEME variant
        from gecscore.cleme2.metric import cleme_score

        settings = {"variant": row.metric, "level": "corpus", **row.options}
        return {s: cleme_score(hyp_m2=path, ref_m2=ref_m2, **settings)["score"] for s, path in hyp_m2.items()}
    refs = [m2_reference_edits(b) for b in read_m2(ref_m2)]
    out = {}
    for system, path in hyp_m2.items():
        hyps = [_m2_file_edits(b, 0) for b in read_m2(path)]
        if row.metric == "senterrant":
            out[system] = sentence_errant_from_edits(hyps, refs)
        elif row.metric == "errant":
            def edit(t: tuple) -> Edit:
                return Edit(t[0], t[1], "", -1, -1, t[2], "")

            fscore = FScore()
            counts = errant_counts([[edit(t) for t in h] for h in hyps], [[[edit(t) for t in r] for r in rs]
                                                                          for rs in refs])
            out[system] = fscore.prf(fscore.aggregate(counts).corpus).f
        else:
            raise ValueError(f"the ERRANT M2 file switches do not apply to {row.metric}")
    return out


def legacy_reference_m2(ev: "Evaluator", row: Row) -> Path:
    """ERRANT 2.3.3's M2 of the row's CoNLL-2014 reference set (`legacy_errant`), kept beside the score cache;
    with `exclude_unchanged`, only the references that change the source (CLEME2.0's ♣)."""
    from gecscore.common.m2io import format_m2, read_m2

    legacy_errant = _legacy_errant_module()
    data = ev.dataset(replace(row, exclude_unchanged=False))
    counts = {len(refs) for refs in data.references}
    if len(counts) != 1:
        raise ValueError(f"{row.references}: every sentence needs the same number of references for errant_parallel")
    reference_major = [[refs[k] for refs in data.references] for k in range(counts.pop())]
    path = legacy_errant.extract_m2(data.sources, reference_major, _legacy_cache_dir(ev))
    if not row.exclude_unchanged:
        return path
    changed = path.with_suffix(".changed.m2")
    if not changed.is_file():
        changed.write_text(format_m2(legacy_errant.changed_only(read_m2(path))), encoding="utf-8")
    return changed


def legacy_system_m2(ev: "Evaluator", system: str, data) -> Path:
    """ERRANT 2.3.3's M2 of one system's output in `data` (one annotator), kept beside the score cache."""
    return _legacy_errant_module().extract_m2(data.sources, [data.hypotheses[system]], _legacy_cache_dir(ev))


def _legacy_errant_module():
    here = str(Path(__file__).resolve().parent)
    if here not in sys.path:
        sys.path.insert(0, here)
    import legacy_errant

    return legacy_errant


def _legacy_cache_dir(ev: "Evaluator") -> Path:
    from gecscore.meta_eval import default_cache_dir

    return (ev.cache.directory if ev.cache is not None else default_cache_dir()) / "legacy-errant"


# --------------------------------------------------------------------------------------------- evaluation

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
        from gecscore.meta_eval import register_metric
        from gecscore.meta_eval.cleme_length import LengthWeightedCleme

        register_metric("cleme-length", LengthWeightedCleme)

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
            data = self.dataset(Row(*CLEME_T12, "cleme2", "gjg15", "official-pt-m2", "all", "default", "",
                                    (None, None)))
            key = score_key("cleme2-counts", {"fields": FIELDS}, data.sources, data.hypotheses[system], data.references)
            path = Path(self.cache.directory) / "cleme2-counts" / f"{key}.json"
            if path.exists():
                stored = json.loads(path.read_text(encoding="utf-8"))
            else:
                started = time.time()
                counts = reference_counts(data.sources, data.hypotheses[system], data.references)
                stored = {a: [[[getattr(c, f) for f in FIELDS] for c in refs] for refs in per]
                          for a, per in counts.items()}
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(json.dumps(stored), encoding="utf-8")
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


def run_name(row: Row) -> str:
    """A readable identifier of a row's configuration."""
    options = ",".join(f"{k}={v}" for k, v in sorted(row.options.items()))
    excl = "-changed" if row.exclude_unchanged else ""
    return (f"{row.metric}({options}) {row.dataset} {row.references}{excl} {row.system_set} {row.aggregation}")


def evaluate_rows(all_rows: Sequence[Row], ev: Evaluator) -> list[dict]:
    """Base values and every listed switch's values of each row (JSON-ready)."""
    out = []
    for row in all_rows:
        base = ev.values(row)
        switch_values = {}
        for name in row.switches:
            switch_values[name] = SWITCHES[name].compute(row, ev)
        out.append({"row": row_to_dict(row), "ours": list(base) if base else None,
                    "switches": {k: list(v) if v else None for k, v in switch_values.items()}})
    return out


def evaluate_listings(items: Sequence[Listing], ev: Evaluator) -> list[dict]:
    """Base values and every listed switch's values of each listing (JSON-ready)."""
    out = []
    for item in items:
        switch_values = {name: SWITCHES[name].compute(item, ev) for name in item.switches}
        out.append({"listing": listing_to_dict(item), "ours": LISTING_COMPUTE[item.compute](item, ev),
                    "switches": switch_values})
    return out


def listing_to_dict(item: Listing) -> dict:
    data = asdict(item)
    for key in ("columns", "stats", "published", "switches"):
        data[key] = list(data[key])
    return data


def listing_from_dict(data: dict) -> Listing:
    data = dict(data)
    for key in ("columns", "stats", "published", "switches"):
        data[key] = tuple(data[key])
    return Listing(**data)


def row_to_dict(row: Row) -> dict:
    data = asdict(row)
    data["published"] = list(row.published)
    data["switches"] = list(row.switches)
    return data


def row_from_dict(data: dict) -> Row:
    data = dict(data)
    data["published"] = tuple(data["published"])
    data["switches"] = tuple(data["switches"])
    return Row(**data)


# --------------------------------------------------------------------------------------------- cells

def same_3dp(a: float | None, b: float | None) -> bool:
    """Equal when both are printed with 3 decimals."""
    if a is None or b is None or math.isnan(a) or math.isnan(b):
        return False
    return round(a, 3) == round(b, 3)


def printed_equal(printed: str, value: str | float | None) -> bool:
    """Equal to the printed text: the same name, or the same number at the printed number of decimals."""
    if value is None or isinstance(value, str):
        return printed == value
    if isinstance(value, float) and math.isnan(value):
        return False
    decimals = len(printed.split(".", 1)[1]) if "." in printed else 0
    return abs(round(float(value), decimals) - float(printed)) < 1e-9


def cell_equal(published: str | float | None, value: str | float | None) -> bool:
    """A cell's equality: `printed_equal` for listing cells (printed text), `same_3dp` for correlation cells."""
    return printed_equal(published, value) if isinstance(published, str) else same_3dp(published, value)


def judged_cell(head: dict, published: str | float, value: str | float | None, tried: dict, fmt: Callable,
                tried_key: str, tail: dict, no_base: Sequence[str] = ()) -> dict:
    """One cell's entry: equal (`cell_equal`), else the first switch that reproduces it, else 'unexplained' with
    every switch's value (`fmt`) and what was tried. `head` and `tail` are the cell's identity fields."""
    equal = cell_equal(published, value)
    switch = None if equal else next((name for name, v in tried.items() if cell_equal(published, v)), None)
    parts = [*no_base, *(f"{name} → {fmt(v)}" for name, v in tried.items())]
    if equal:
        status, note, short = "equal", "", ""
    elif switch:
        status, note, short = "switch", switch, switch
    else:
        status = "unexplained"
        note = "unexplained: " + "; ".join(parts + [TRIED.get(tried_key, "")]).strip("; ")
        link = [f"tried: [{tried_key}](#tried-{tried_key})"] if tried_key else []
        short = "unexplained: " + "; ".join(parts + link)
    return {**head, "published": published, "ours": value, "equal": equal, "status": status, "switch": switch,
            "switch_value": tried.get(switch) if switch else None, "note": note, "tried": tried,
            "tried_key": tried_key if status == "unexplained" else "", "short_note": short, **tail}


def cells_from_listings(evaluated: Iterable[dict]) -> list[dict]:
    """One entry per printed listing cell, in the same form as `cells_from_rows`'s."""
    cells = []
    for entry in evaluated:
        item = listing_from_dict(entry["listing"])
        for k, (column, stat, published) in enumerate(zip(item.columns, item.stats, item.published)):
            head = {"paper": item.paper, "table": item.table, "row": item.name, "column": column, "stat": stat}
            tried = {name: (vals[k] if vals else None) for name, vals in entry["switches"].items()}
            cells.append(judged_cell(head, published, entry["ours"][k] if entry["ours"] else None, tried,
                                     lambda v, p=published: _fmt_like(p, v), item.tried,
                                     {"config": item.config, "human": ""}))
    return cells


def all_cells(payload: dict) -> list[dict]:
    """The cells of a results.json payload's rows, then of its listings."""
    return cells_from_rows(payload["rows"]) + cells_from_listings(payload.get("listings", []))


def cells_from_rows(evaluated: Iterable[dict]) -> list[dict]:
    """One entry per published cell: published, ours, equal, and the switch or the 'unexplained' note."""
    cells = []
    for item in evaluated:
        row = row_from_dict(item["row"]) if isinstance(item["row"], dict) else item["row"]
        ours = item["ours"]
        for k, stat in enumerate(row.stats):
            published = row.published[k]
            if published is None:
                continue
            head = {"paper": row.paper, "table": row.table, "row": row.name, "column": row.column, "stat": stat}
            tried = {name: (vals[k] if vals else None) for name, vals in item["switches"].items()}
            cells.append(judged_cell(head, published, ours[k] if ours else None, tried, _fmt, row.tried,
                                     {"config": run_name(row), "human": row.human},
                                     () if ours else ("no base value (data not on disk)",)))
    return cells


def summarize(cells: Sequence[dict]) -> list[dict]:
    """Counts per (paper, table), in cells, then the total."""
    groups: dict[tuple[str, str], list[dict]] = {}
    for cell in cells:
        groups.setdefault((cell["paper"], cell["table"]), []).append(cell)
    out = []
    for (paper, table), items in list(groups.items()) + [(("all", ""), list(cells))]:
        out.append({"paper": paper, "table": table, "cells": len(items),
                    "equal": sum(c["status"] == "equal" for c in items),
                    "switch": sum(c["status"] == "switch" for c in items),
                    "unexplained": sum(c["status"] == "unexplained" for c in items)})
    return out


def switch_summary(cells: Sequence[dict]) -> list[dict]:
    """Per switch: on how many cells it was tried and how many unequal cells it reproduces."""
    out = []
    for name, switch in SWITCHES.items():
        tried = [c for c in cells if name in c["tried"]]
        if not tried:
            continue
        unequal = [c for c in tried if not c["equal"]]
        out.append({"switch": name, "tried_on": len(tried), "unequal_tried_on": len(unequal),
                    "reproduces": sum(c["switch"] == name for c in cells),
                    "equal_also_under_switch": sum(cell_equal(c["published"], c["tried"][name]) for c in tried)})
    return out


def _fmt(value: str | float | None) -> str:
    if isinstance(value, str):
        return value
    return "—" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.3f}"


def _fmt_like(printed: str, value: str | float | None) -> str:
    """`value` with as many decimals as the printed text (a name as it is)."""
    if value is None or isinstance(value, str) or (isinstance(value, float) and math.isnan(value)):
        return _fmt(value)
    decimals = len(printed.split(".", 1)[1]) if "." in printed else 0
    return f"{value:.{decimals}f}"


HEADER = """# Meta-evaluation: the papers' model-free cells, recomputed one by one

Produced by `benchmarks/meta_eval/run.py` (command in `README.md`). One line per **cell**: one printed number (system
level: Pearson r or Spearman ρ; sentence level: accuracy or Kendall τ; in PT-M2 Table 6 and CLEME2.0 Tables 5, 11,
12 also a system name at a rank, a rank difference Δ, a count or a score). `published` is the paper's value, `ours`
our value under the row's base protocol (its `config`), `=` marks equality at 3 decimals (listing cells: the same
name, or the same number at the printed number of decimals, e.g. 2 for CLEME2.0 Table 12's "0.45"). An unequal cell is either
**switch** — a named, documented protocol change (section "Switches") whose value equals the published one at 3
decimals — or **unexplained**, with every switch tried on it (and its value) and what else was tried. A switch that
reproduces one cell of a row but not the next is reported per cell, as it is.

Base protocol: GJG15 uses all 13 systems (INPUT included) and Chollampatt & Ng (2018)'s human files (`EW`, `TS` =
`ew_nusnlp`, `ts_nusnlp`); M² on CoNLL-2014 reads the official M2; ERRANT/CLEME on CoNLL-2014 use PT-M2's raw
references (`official-pt-m2`); SN-8GEC references go in as raw text (M² builds its gold M2 with our ERRANT, one
annotator per reference); `*` = unchanged references excluded (CLEME2.0's ♣); SEEDA: 391-sentence subset, Base (12
systems), gec-metrics' references (CLEME rows: PT-M2's, as on CoNLL-2014); CLEME (v1) = 2023 release, length
weighting; CLEME2.0 = unweighted.
CLEME2.0 Tables 5, 11, 12 (CoNLL-2014, unweighted CLEME2.0): per-sentence chunk counts against each reference from
our errant 3.0.2 edits on PT-M2's references, computed once per system and reused for every α
(`gecscore.meta_eval.heuo`); α = the paper's (0.45, 0.35, 0.15, 0.05) corpus / (0.35, 0.25, 0.20, 0.20) sentence
factors. PT-M2 Table 6's Δ: Σ over ranks of |metric rank − EW rank|.
UOT-ERRANT Table 1's CLEME row: CLEME (v1) independent with the sentence scorer and UOT-ERRANT's length weights
(TP α=10 [2.5, 10], FP α=10 [0.25, 1], FN α=2 [0.75, 1.25]; `gecscore.meta_eval.cleme_length`), TrueSkill
aggregation, like its ERRANT row; the paper's Japanese version prints the same ERRANT and CLEME cells (Official,
E-Fluency, NE-Fluency). IMPARA-GED Table 2 (ERRANT only): SEEDA Base, Official, TrueSkill aggregation.
Not covered: BN-10GEC columns other than M² (data not on disk), model-based rows (UOT-ERRANT, PT-M², PT-ERRANT,
CLEME2.0-sim, IMPARA, SOME, ...), GLEU/GoToScorer/Scribendi (not metrics of this library).
"""


def to_markdown(cells: Sequence[dict]) -> str:
    """Counts, then one table per paper and table, then the switches."""
    lines = [HEADER]
    total = summarize(cells)
    lines += ["## Counts (cells)", "", "| paper | table | cells | equal | switch | unexplained |",
              "|---|---|---|---|---|---|"]
    for s in total:
        name = "**all**" if s["paper"] == "all" else s["paper"]
        lines.append(f"| {name} | {s['table']} | {s['cells']} | {s['equal']} | {s['switch']} | {s['unexplained']} |")
    lines.append("")
    groups: dict[tuple[str, str], list[dict]] = {}
    for cell in cells:
        groups.setdefault((cell["paper"], cell["table"]), []).append(cell)
    for (paper, table), items in groups.items():
        lines += [f"## {paper} {table}", "", "| row | column | stat | published | ours | = | switch / note | config |",
                  "|---|---|---|---|---|---|---|---|"]
        for c in items:
            mark = "✓" if c["equal"] else ""
            if c["status"] == "switch":
                value = _fmt_like(c["published"], c["switch_value"]) if isinstance(c["published"], str) else \
                    _fmt(c["switch_value"])
                note = f"**{c['switch']}** → {value}"
            else:
                note = c["short_note"]
            ours = _fmt_like(c["published"], c["ours"]) if isinstance(c["published"], str) else _fmt(c["ours"])
            lines.append(f"| {c['row']} | {c['column']} | {c['stat']} | {_fmt(c['published'])} | {ours} | "
                         f"{mark} | {note} | `{c['config']}` |")
        lines.append("")
    lines += ["## Switches", "", "| switch | tried on cells | of them unequal | reproduces | what it changes |",
              "|---|---|---|---|---|"]
    for s in switch_summary(cells):
        lines.append(f"| `{s['switch']}` | {s['tried_on']} | {s['unequal_tried_on']} | {s['reproduces']} | "
                     f"{SWITCHES[s['switch']].description} |")
    lines.append("")
    used = {c["tried_key"] for c in cells if c["tried_key"]}
    if used:
        lines += ["## What was tried (unexplained cells)", "",
                  "Each unexplained cell links here; its JSON `note` has the same text in full. These entries say what "
                  "was computed and what it gave, not what the cause is. The numbers come from `probes.py` "
                  "(`probes.md`) unless stated.", ""]
        for key in TRIED:
            if key in used:
                n = sum(c["tried_key"] == key for c in cells)
                lines += [f'<a id="tried-{key}"></a>**{key}** ({n} cells): {TRIED[key]}', ""]
    return "\n".join(lines).rstrip() + "\n"


# --------------------------------------------------------------------------------------------- main

def selected(items: Sequence, only: Sequence[str] | None) -> list:
    """The rows or listings whose "paper table" contains one of `only` (all of them when `only` is empty)."""
    return [x for x in items if not only or any(t in f"{x.paper} {x.table}" for t in only)]


def main(argv: list[str] | None = None) -> int:
    """Evaluate every row and its switches; write results.md and results.json."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", help="data directory laid out like ../shared/data")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent)
    parser.add_argument("--cache-dir", type=Path, default=None)
    parser.add_argument("--from-json", type=Path, default=None,
                        help="rebuild results.md/results.json from a previous results.json (no scoring)")
    parser.add_argument("--progress", action="store_true")
    parser.add_argument("--only", action="append", default=None, metavar="TEXT",
                        help="evaluate only the tables whose 'paper table' contains TEXT (repeatable; for "
                             "development: write to another --out)")
    args = parser.parse_args(argv)
    started = time.time()
    if args.from_json:
        previous = json.loads(args.from_json.read_text(encoding="utf-8"))
        evaluated, metric_scores = previous["rows"], previous.get("metric_scores", {})
        listed = previous.get("listings", [])
    else:
        if not args.data:
            parser.error("--data is required unless --from-json is given")
        from gecscore.meta_eval import ScoreCache, default_cache_dir

        ev = Evaluator(args.data, ScoreCache(args.cache_dir or default_cache_dir()), args.progress)
        evaluated = evaluate_rows(selected(rows(), args.only), ev)
        listed = evaluate_listings(selected(listings(), args.only), ev)
        metric_scores = ev.metric_scores
    payload = {"rows": evaluated, "listings": listed}
    cells = all_cells(payload)
    payload = {"summary": summarize(cells), "switches": switch_summary(cells), "cells": cells, **payload,
               "metric_scores": metric_scores}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "results.json").write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    (args.out / "results.md").write_text(to_markdown(cells), encoding="utf-8")
    for s in payload["summary"]:
        print(f"{s['paper']} {s['table']}: {s['cells']} cells, {s['equal']} equal, {s['switch']} switch, "
              f"{s['unexplained']} unexplained")
    print(f"wall time {time.time() - started:.0f}s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
