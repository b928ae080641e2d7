"""Protocol probes behind the notes of results.md's missed cells: what was tried, with the numbers it gave.

    .venv/bin/python benchmarks/meta_eval/probes.py --data ../shared/data --out benchmarks/meta_eval

writes `probes.md` and `probes.json`. Every probe goes through the meta-evaluation runner and its cache (the same
`--cache-dir` as run.py). A probe that reproduces published cells is promoted to a switch (`SWITCHES` in switches.py);
the others stay here as the record of what was tried.

Sections:
1. SN-8GEC M² (CLEME2.0 Table 1): which gold M2 / line set gives the published M² cells, and which gives the published
   2016 system scores of `SN-8GEC/metric_scores`.
2. Reference edit counts against CLEME2.0 Table 7 (do our ERRANT edits of the references equal CLEME2.0's?).
3. CLEME2.0 Table 2 (SEEDA): human score, system set, aggregation, reference set, sentence set.
4. SentERRANT on CoNLL-2014 (PT-M2 Table 5, CLEME2.0 Table 1): CLEME's ERRANT M2 files, sentence-F variants, rounding.
5. SN-8GEC M² / SentM² with CLEME 2025's PRF aggregation (4-decimal rounding, its tie-breaks) over our M² counts.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cells import same_3dp  # noqa: E402  (the benchmark's sibling modules)
from evaluator import Evaluator  # noqa: E402
from external import (lattice_gold, legacy_errant_scores, legacy_reference_m2, m2_file_edits,  # noqa: E402
                      m2_reference_edits, sentence_errant_from_edits, sn8gec_published_m2)
from published import Row, table_cells, variants as cleme_variants  # noqa: E402

GJG = ("ew_nusnlp", "ts_nusnlp")
SN8 = ("e-minimal", "e-fluency", "ne-minimal", "ne-fluency")  # the SN-8GEC reference sets on disk
CLEME2 = "CLEME2.0 (ACL 2025)"
# CLEME2.0 Table 1 M² and SentM² cells: refs → (EW r, EW ρ, TS r, TS ρ).
M2_PUBLISHED = table_cells(CLEME2, "Table 1", lambda r: r.references, lambda r: r.name == "m2")
SENTM2_PUBLISHED = table_cells(CLEME2, "Table 1", lambda r: r.references, lambda r: r.name == "sentm2")
# CLEME2.0 Table 2's CLEME rows: label → (SEEDA-S r, ρ, SEEDA-E r, ρ).
CLEME_T2 = table_cells(CLEME2, "Table 2", lambda r: r.label, lambda r: bool(r.label))
# CLEME2.0 Table 7: ERRANT edits of each reference set (both annotators together).
TABLE7_EDITS = {"official-pt-m2": 5937, "e-minimal": 4500, "e-fluency": 8373, "ne-minimal": 4964, "ne-fluency": 11033}


def merged_lines(data_dir: str) -> list[int]:
    """0-based indices of the 34 lines SN-8GEC's experts merged (`annotations/merged_ids`, 1-based, as shipped)."""
    text = (Path(data_dir) / "SN-8GEC" / "annotations" / "merged_ids").read_text(encoding="utf-8")
    return [int(x) - 1 for x in text.split()]


def errant_gold(sources, references):
    from gecscore.pt_m2.metric import gold_from_references

    return gold_from_references(sources, references)[0]


def correlations(metric_scores: dict[str, float], data, humans=GJG, system_set: str = "all") -> tuple[float, ...]:
    from gecscore.meta_eval.correlate import correlate_systems

    out: list[float] = []
    for human in humans:
        corr = correlate_systems(metric_scores, data.human[human], data.system_set(system_set))
        out += [corr.pearson, corr.spearman]
    return tuple(out)


def fmt(values) -> str:
    return " / ".join("—" if v is None else f"{v:.3f}" for v in values)


def n_equal(values, published) -> int:
    return sum(same_3dp(p, v) for p, v in zip(published, values))


def sn8gec_m2(data_dir: str, cache) -> tuple[list[str], dict]:
    """Section 1: M² and SentM² on SN-8GEC under several gold M2 constructions and line sets."""
    from gecscore.meta_eval import get_metric, load_dataset, meta_evaluate

    skip = set(merged_lines(data_dir))
    lines = ["## 1. SN-8GEC M² (CLEME2.0 Table 1)", "",
             "Values: EW r / EW ρ / TS r / TS ρ (GJG15, 13 systems, Chollampatt & Ng's human files). `=` counts the "
             "cells equal to the published ones at 3 decimals. 'max |ΔF| vs 2016' compares the 13 system scores with "
             "`SN-8GEC/metric_scores` (Sakaguchi et al. 2016, M², 34 merged lines skipped).", "",
             "| reference set | metric | gold M2 / lines | values | = published | max \\|ΔF\\| vs 2016 |",
             "|---|---|---|---|---|---|"]
    record: dict = {}
    for refs in ("official",) + SN8:
        published_scores = sn8gec_published_m2(data_dir, refs)
        base = load_dataset("gjg15", data_dir, references=refs)
        values = correlations(published_scores, base)
        lines.append(f"| {refs} | M² | published 2016 scores (`sn8gec-published-m2`) | {fmt(values)} | "
                     f"{n_equal(values, M2_PUBLISHED[refs])}/4 | 0 |")
        record[f"{refs} published-2016"] = values
        for metric in ("m2", "sentm2"):
            # SentM² is starred (unchanged references excluded) on E-Minimal and NE-Minimal in Table 1.
            starred = metric == "sentm2" and refs in ("e-minimal", "ne-minimal")
            data = load_dataset("gjg15", data_dir, references=refs, exclude_unchanged=starred)
            keep = [i for i in range(len(data.sources)) if i not in skip]
            if refs == "official":
                golds = {"official M2": data.gold_m2}
            else:
                golds = {"ERRANT (base)": errant_gold(data.sources, data.references),
                         "M² lattice (`m2-gold=lattice`)": lattice_gold(data.sources, data.references)}
                if refs == "e-minimal" and metric == "m2":
                    for k, who in enumerate("AB"):
                        golds[f"ERRANT, annotator {who} only"] = errant_gold(data.sources,
                                                                            [[r[k]] for r in data.references])
            published = (M2_PUBLISHED if metric == "m2" else SENTM2_PUBLISHED)[refs]
            for gold_name, gold in golds.items():
                line_sets = (("all 1312 lines", None), ("34 merged lines skipped", keep)) if metric == "m2" \
                    else (("all 1312 lines", None),)
                for line_set, selected in line_sets:
                    variant = replace(data, gold_m2=gold, reference_set=f"{data.reference_set}:{gold_name}")
                    if selected is not None:
                        variant = variant.select(selected)
                    result = meta_evaluate(get_metric(metric), variant, system_set="all", cache=cache)
                    values = correlations(result.metric_scores, data)
                    gap = max(abs(result.metric_scores[s] - published_scores[s]) for s in data.systems) \
                        if metric == "m2" else None
                    name = "M²" if metric == "m2" else "SentM²" + ("*" if starred else "")
                    lines.append(f"| {refs} | {name} | {gold_name}; {line_set} | {fmt(values)} | "
                                 f"{n_equal(values, published)}/4 | {'—' if gap is None else f'{gap:.4f}'} |")
                    record[f"{refs} {metric} {gold_name} {line_set}"] = {"values": values,
                                                                        "scores": result.metric_scores}
        print(f"SN-8GEC M² {refs} done", file=sys.stderr, flush=True)
    lines += ["", "Published (CLEME2.0 Table 1): " + "; ".join(
        f"{refs} M² {fmt(v)}" for refs, v in M2_PUBLISHED.items()), ""]
    return lines, record


def reference_edit_counts(data_dir: str, cache_dir: Path) -> tuple[list[str], dict]:
    """Section 2: our and ERRANT 2.3.3's edits of each reference set (both annotators) against CLEME2.0 Table 7."""
    import legacy_errant
    from gecscore.common.edits import get_extractor
    from gecscore.common.m2io import read_m2
    from gecscore.meta_eval.data import conll_references, read_conll_m2

    gold = read_conll_m2(data_dir)
    sources = [b.source for b in gold]
    extractor = get_extractor()
    cleme_file = read_m2(Path(data_dir) / "CoNLL-2014" / "CLEME" / "demo" / "examples" / "conll14.errant")
    in_file = sum(1 for b in cleme_file for e in b.edits if not e.is_noop)
    lines = ["## 2. ERRANT edits of the references vs CLEME2.0 Table 7", "",
             "| reference set | Table 7 | ours (errant 3.0.2) | ERRANT 2.3.3 (`legacy_errant.py`) "
             "| CLEME's `conll14.errant` |", "|---|---|---|---|---|"]
    record = {}
    for refs, printed in TABLE7_EDITS.items():
        reference_major = conll_references(data_dir, refs, gold=gold)
        ours = sum(len(e) for ref in reference_major for e in extractor.extract(sources, ref))
        legacy = read_m2(legacy_errant.extract_m2(sources, reference_major, cache_dir / "legacy-errant"))
        old = sum(1 for b in legacy for e in b.edits if not e.is_noop)
        record[refs] = {"ours": ours, "errant-2.3.3": old}
        if refs == "official-pt-m2":
            differing = sum(1 for a, b in zip(legacy, cleme_file)
                            if m2_reference_edits(a) != m2_reference_edits(b))
            record[refs]["sentences whose edits differ from conll14.errant"] = differing
        lines.append(f"| {refs} | {printed} | {ours} | {old} | {in_file if refs == 'official-pt-m2' else '—'} |")
    differing = record["official-pt-m2"]["sentences whose edits differ from conll14.errant"]
    off = {who: max(abs(record[refs][who] - TABLE7_EDITS[refs]) for refs in SN8)
           for who in ("ours", "errant-2.3.3")}
    lines += ["", "CLEME's shipped CoNLL-2014 M2 file has exactly Table 7's count; ours does not. ERRANT 2.3.3 (the "
              "version CLEME's README names; spaCy 2.3.9 with `en_core_web_sm` 2.2.5, as CLEME's spaCy 2.3 model is "
              f"not on PyPI) gives {record['official-pt-m2']['errant-2.3.3']}, with the edits (span, correction) of "
              f"{differing} of the 1312 sentences differing from the file's. On the SN-8GEC sets its counts are "
              f"within {off['errant-2.3.3']} of Table 7's, ours within {off['ours']}: switch `errant-2.3.3` uses "
              "these edits.", ""]
    return lines, record


def seeda_full(data_dir: str, references: str):
    """SEEDA on all 1312 CoNLL-2014 sentences (`outputs/all`), with the same human scores (no sentence judgments)."""
    from gecscore.meta_eval.data import (CONLL_SIZE, SEEDA_SYSTEMS, conll_references, load_seeda, per_sentence,
                                         read_conll_m2, read_lines)

    subset = load_seeda(data_dir, references)
    outputs = Path(data_dir) / "SEEDA" / "outputs" / "all"
    hypotheses = {s: read_lines(outputs / f"{s}.txt", CONLL_SIZE) for s in SEEDA_SYSTEMS}
    gold = read_conll_m2(data_dir)
    refs = per_sentence(conll_references(data_dir, references, gold=gold))
    return replace(subset, sources=hypotheses["INPUT"], hypotheses=hypotheses, references=refs, judgments={},
                   gold_m2=gold, reference_set=f"{references} (full 1312)")


def seeda_cleme(data_dir: str, cache) -> tuple[list[str], dict]:
    """Section 3: CLEME2.0 Table 2 (SEEDA) CLEME rows under other protocols."""
    from gecscore.meta_eval import get_metric, load_dataset, meta_evaluate

    probes = [
        ("base protocol: PT-M2 refs, subset, Base, default agg., TS", "official-pt-m2", "subset", "base", "default",
         ("ts_sent", "ts_edit")),
        ("human Expected Wins", "official-pt-m2", "subset", "base", "default", ("ew_sent", "ew_edit")),
        ("aggregation expected_wins", "official-pt-m2", "subset", "base", "expected_wins", ("ts_sent", "ts_edit")),
        ("system set +input (13)", "official-pt-m2", "subset", "+input", "default", ("ts_sent", "ts_edit")),
        ("system set +fluency (14)", "official-pt-m2", "subset", "+fluency", "default", ("ts_sent", "ts_edit")),
        ("system set all (15)", "official-pt-m2", "subset", "all", "default", ("ts_sent", "ts_edit")),
        ("full 1312-sentence test set (SEEDA README)", "official-pt-m2", "full", "base", "default",
         ("ts_sent", "ts_edit")),
        ("SN-8GEC E-Minimal refs (annotator B)", "e-minimal", "subset", "base", "default", ("ts_sent", "ts_edit")),
        ("SN-8GEC NE-Minimal refs", "ne-minimal", "subset", "base", "default", ("ts_sent", "ts_edit")),
    ]
    lines = ["## 3. CLEME2.0 Table 2 (SEEDA): CLEME / CLEME2.0 rows under other protocols", "",
             "Values: SEEDA-S r / ρ, SEEDA-E r / ρ (for the Expected Wins probe: EW_sent, EW_edit). `=` counts cells "
             "equal to the published ones (out of 4 per row, 32 per probe).", ""]
    record: dict = {}
    datasets: dict = {}
    header = "| probe | " + " | ".join(CLEME_T2) + " | = (of 32) |"
    lines += [header, "|" + "---|" * (len(CLEME_T2) + 2)]
    for name, refs, sentences, system_set, aggregation, humans in probes:
        key = (refs, sentences)
        if key not in datasets:
            datasets[key] = seeda_full(data_dir, refs) if sentences == "full" else \
                load_dataset("seeda", data_dir, references=refs)
        data = datasets[key]
        cells, equal = [], 0
        for label, published in CLEME_T2.items():
            metric, options = cleme_variants()[label]
            started = time.time()
            result = meta_evaluate(get_metric(metric, **options), data, system_set=system_set,
                                   aggregation=aggregation, cache=cache)
            values = []
            for human in humans:
                values += [result.system[human].pearson, result.system[human].spearman]
            equal += n_equal(values, published)
            cells.append(fmt(values))
            record[f"{name} {label}"] = values
            print(f"SEEDA probe {name} {label}: {time.time() - started:.0f}s", file=sys.stderr, flush=True)
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {equal} |")
    base = datasets[("official-pt-m2", "subset")]
    changed = load_dataset("seeda", data_dir, references="official-pt-m2", exclude_unchanged=True)
    legacy = seeda_legacy_scores(data_dir, cache)
    variants = (
        ("unchanged references excluded (♣, as CLEME2.0 does on E-/NE-Minimal)",
         lambda label, metric, options: meta_evaluate(get_metric(metric, **options), changed, system_set="base",
                                                      cache=cache).metric_scores),
        ("CLEME's 2025 code (`release=2025`; CLEME2.0 has one code generation, so its rows repeat the base)",
         lambda label, metric, options: meta_evaluate(
             get_metric(metric, **{**options, **({"release": "2025"} if metric == "cleme" else {})}), base,
             system_set="base", cache=cache).metric_scores),
        ("ERRANT 2.3.3 edits of the references and the systems (`legacy_errant.py`)",
         lambda label, metric, options: legacy[label]),
    )
    for name, scores_of in variants:
        cells, equal = [], 0
        for label, published in CLEME_T2.items():
            metric, options = cleme_variants()[label]
            values = correlations(scores_of(label, metric, options), base, ("ts_sent", "ts_edit"), "base")
            equal += n_equal(values, published)
            cells.append(fmt(values))
            record[f"{name} {label}"] = values
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {equal} |")
    lines += ["", "Published: " + "; ".join(f"{k} {fmt(v)}" for k, v in CLEME_T2.items()), ""]
    return lines, record


def seeda_legacy_scores(data_dir: str, cache) -> dict[str, dict[str, float]]:
    """Each CLEME row's Base system scores from ERRANT 2.3.3's M2 files of PT-M2's references and of the systems."""
    ev = Evaluator(data_dir, cache)
    out = {}
    for label in CLEME_T2:
        metric, options = cleme_variants()[label]
        row = Row("", "", metric, "seeda", "official-pt-m2", "base", "default", "ts_sent", (None, None),
                  options=options, label=label)
        out[label] = legacy_errant_scores(ev, row)
    return out


def senterrant_conll(data_dir: str) -> tuple[list[str], dict]:
    """Section 4: SentERRANT on CoNLL-2014 from CLEME's ERRANT M2 files, with system scores rounded."""
    from gecscore.common.m2io import read_m2
    from gecscore.meta_eval import load_dataset
    from gecscore.meta_eval.correlate import system_correlation

    folder = Path(data_dir) / "CoNLL-2014" / "CLEME" / "demo" / "examples"
    data = load_dataset("gjg15", data_dir, references="official-pt-m2")
    refs = [m2_reference_edits(b) for b in read_m2(folder / "conll14.errant")]
    scores = {s: sentence_errant_from_edits([m2_file_edits(b, 0) for b in
                                                  read_m2(folder / f"conll14-{s}.errant")], refs)
              for s in data.systems}
    published = (0.870, 0.742, 0.846, 0.747)
    lines = ["## 4. SentERRANT on CoNLL-2014 (PT-M2 Table 5, CLEME2.0 Table 1)", "",
             "CLEME's ERRANT M2 files, PT-M2 `errant_score.py` sentence rules; system scores rounded before "
             "correlating. Published: " + fmt(published) + ".", "",
             "| system scores | EW r / ρ, TS r / ρ | = published |", "|---|---|---|"]
    record = {}
    for digits in (None, 4, 3, 2):
        values: list[float] = []
        for human in GJG:
            x = [scores[s] if digits is None else round(scores[s], digits) for s in data.systems]
            corr = system_correlation(x, [data.human[human][s] for s in data.systems])
            values += [corr.pearson, corr.spearman]
        name = "unrounded" if digits is None else f"rounded to {digits} decimals"
        lines.append(f"| {name} | {fmt(values)} | {n_equal(values, published)}/4 |")
        record[name] = values
    # PT-M2's evaluate.py reads `<reference>.m2` for its ERRANT bases: the official CoNLL-2014 M2, not ERRANT edits.
    official = [m2_reference_edits(b)
                for b in read_m2(Path(data_dir) / "CoNLL-2014" / "PT-M2" / "data" / "reference.m2")]
    scores = {s: sentence_errant_from_edits([m2_file_edits(b, 0) for b in
                                                  read_m2(folder / f"conll14-{s}.errant")], official)
              for s in data.systems}
    values = []
    for human in GJG:
        corr = system_correlation([scores[s] for s in data.systems], [data.human[human][s] for s in data.systems])
        values += [corr.pearson, corr.spearman]
    name = "unrounded, official M2 (`PT-M2/data/reference.m2`) as the reference edits"
    lines.append(f"| {name} | {fmt(values)} | {n_equal(values, published)}/4 |")
    record[name] = values
    lines.append("")
    return lines, record


def _rounded_prf(tp: float, fp: float, fn: float, beta: float = 0.5) -> tuple[float, float, float]:
    """P, R, F rounded to 4 decimals, empty denominators giving 1 (CLEME 2025's `compute_prf`)."""
    from gecscore.common.fbeta import prf

    p, r, f = prf(tp, fp, fn, beta, "denominator")
    return round(p, 4), round(r, 4), round(f, 4)


def cleme_prf_corpus(per_sentence: list[list[tuple[float, float, float]]]) -> float:
    """Corpus F: per sentence the reference whose (F of the running totals, TP, −FP, −FN) is greatest, F rounded."""
    total = (0.0, 0.0, 0.0)
    for candidates in per_sentence:
        best, chosen = (-1.0, 0.0, 0.0, 0.0), (0.0, 0.0, 0.0)
        for tp, fp, fn in candidates:
            key = (_rounded_prf(total[0] + tp, total[1] + fp, total[2] + fn)[2], tp, -fp, -fn)
            if key > best:
                best, chosen = key, (tp, fp, fn)
        total = tuple(a + b for a, b in zip(total, chosen))
    return _rounded_prf(*total)[2]


def cleme_prf_sentence(per_sentence: list[list[tuple[float, float, float]]]) -> float:
    """Mean over sentences of the rounded F of the reference whose rounded (F, P, R, accuracy) is greatest."""
    best_fs = []
    for candidates in per_sentence:
        best = (-1.0, -1.0, -1.0, -1.0)
        for tp, fp, fn in candidates:
            p, r, f = _rounded_prf(tp, fp, fn)
            best = max(best, (f, p, r, round(tp / (tp + fp + fn), 4) if tp + fp + fn else 0.0))
        best_fs.append(best[0])
    return sum(best_fs) / len(best_fs)


def sn8gec_cleme_prf(data_dir: str, cache) -> tuple[list[str], dict]:
    """Section 5: SN-8GEC M² / SentM² counts from our lattice, aggregated by CLEME 2025's PRF scorer."""
    from gecscore.common.m2io import read_m2
    from gecscore.meta_eval import load_dataset
    from gecscore.pt_m2.metric import score_m2

    ev = Evaluator(data_dir, cache)  # legacy_reference_m2 keeps ERRANT 2.3.3's M2 files beside the cache
    lines = ["## 5. SN-8GEC M² / SentM² with CLEME 2025's PRF aggregation", "",
             "Our M² lattice's per-sentence, per-reference (TP, FP, FN), aggregated as CLEME's 2025 code "
             "(`PRFEditScorer`) does: P, R, F rounded to 4 decimals; corpus: the reference with the greatest (F of "
             "the running totals, TP, −FP, −FN) per sentence; sentence: the mean of each sentence's best rounded F "
             "by (F, P, R, accuracy). Golds: ERRANT 3.0.2 (base), ERRANT 2.3.3 (`errant-2.3.3`), the M² lattice "
             "(`m2-gold=lattice`). Values: EW r / EW ρ / TS r / TS ρ.", "",
             "| reference set | metric | gold | values | = published |", "|---|---|---|---|---|"]
    record = {}
    for refs in SN8:
        for metric, published in (("m2", M2_PUBLISHED[refs]), ("sentm2", SENTM2_PUBLISHED[refs])):
            starred = metric == "sentm2" and refs in ("e-minimal", "ne-minimal")
            data = load_dataset("gjg15", data_dir, references=refs, exclude_unchanged=starred)
            row = Row("", "", metric, "gjg15", refs, "all", "default", "ew_nusnlp", (None, None),
                      exclude_unchanged=starred)
            golds = {"ERRANT 3.0.2": errant_gold(data.sources, data.references),
                     "ERRANT 2.3.3": read_m2(legacy_reference_m2(ev, row)),
                     "M² lattice": lattice_gold(data.sources, data.references)}
            for name, gold in golds.items():
                scores = {}
                for system in data.systems:
                    result = score_m2(data.sources, data.hypotheses[system], gold, variant="m2")
                    per = [[(c.counts[0], c.counts[1] - c.counts[0], c.counts[2] - c.counts[0])
                            for c in sentence.candidates] for sentence in result.sentences]
                    scores[system] = cleme_prf_corpus(per) if metric == "m2" else cleme_prf_sentence(per)
                values = correlations(scores, data)
                star = "*" if starred else ""
                lines.append(f"| {refs}{star} | {'M²' if metric == 'm2' else 'SentM²'} | {name} | {fmt(values)} | "
                             f"{n_equal(values, published)}/4 |")
                record[f"{refs}{star} {metric} {name}"] = values
            print(f"CLEME PRF {refs} {metric} done", file=sys.stderr, flush=True)
    lines.append("")
    return lines, record


def write(out: Path, lines: list[str], record: dict) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "probes.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (out / "probes.json").write_text(json.dumps(record, indent=1, default=str) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", required=True)
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent)
    parser.add_argument("--cache-dir", type=Path, default=None)
    parser.add_argument("--only", choices=("sn8gec", "edits", "seeda", "senterrant", "cleme-prf"), action="append")
    args = parser.parse_args(argv)
    from gecscore.meta_eval import ScoreCache, default_cache_dir

    cache = ScoreCache(args.cache_dir or default_cache_dir())
    started = time.time()
    sections = args.only or ["sn8gec", "edits", "seeda", "senterrant", "cleme-prf"]
    lines = ["# Protocol probes (benchmarks/meta_eval/probes.py)", "",
             "What was tried for the cells results.md marks as misses (explained or unexplained), with the values each "
             "probe gives. A probe that reproduces published cells is a switch in run.py; these did not (or only "
             "partly, as stated).", ""]
    record = {}
    for section, function in (("sn8gec", lambda: sn8gec_m2(args.data, cache)),
                              ("edits", lambda: reference_edit_counts(args.data, cache.directory)),
                              ("seeda", lambda: seeda_cleme(args.data, cache)),
                              ("senterrant", lambda: senterrant_conll(args.data)),
                              ("cleme-prf", lambda: sn8gec_cleme_prf(args.data, cache))):
        if section in sections:
            text, values = function()
            lines += text
            record[section] = values
            write(args.out, lines + [f"Wall time of this run: {time.time() - started:.0f} s."], record)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
