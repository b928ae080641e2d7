"""Scores from outside our own edit extraction, for the switches: Sakaguchi et al.'s published M² scores, a lattice
gold M2, CLEME's shipped ERRANT M2 files, and ERRANT 2.3.3's edits (`legacy_errant.py`).

Each function returns system scores (system → score) that `Evaluator.external` correlates with the row's human
scores, so a switch's value is computed the same way as the base's.
"""

from __future__ import annotations

import os

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

import legacy_errant
from published import Row

if TYPE_CHECKING:
    from evaluator import Evaluator


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


def m2_file_edits(block, annotator: int) -> list[tuple[int, int, str]]:
    """(start, end, correction) edits of one annotator of an M2 block, without noop and UNK edits."""
    return [(e.o_start, e.o_end, e.correction) for e in block.edits_of(annotator)
            if not e.is_noop and e.type != "UNK"]


def m2_reference_edits(block) -> list[list[tuple[int, int, str]]]:
    """(start, end, correction) edits of each annotator of an M2 block, in annotator order."""
    return [m2_file_edits(block, a) for a in block.annotators]


def sentence_errant_from_edits(hyps: Sequence[Sequence[tuple]], refs: Sequence[Sequence[Sequence[tuple]]],
                               beta: float = 0.5) -> float:
    """Mean sentence F_β with PT-M2's `errant_score.py` rules, from (start, end, correction) edit tuples.

    Per sentence and reference: c = matched edits, P = c/proposed (1 when none proposed), R = c/gold (1 when no gold
    edits), F_β (0 when the denominator is 0); the reference with the highest F, then more matches, then fewer
    proposed + β²·gold edits is chosen.
    """
    from gecscore.common.fbeta import beta_squared, m2_prf

    b2 = beta_squared(beta, "errant")  # Python's `beta ** 2`, as errant_score.py
    total = 0.0
    for hyp, candidates in zip(hyps, refs):
        h = set(hyp)
        best: tuple | None = None
        for ref in candidates or [[]]:
            c, p, g = len(h & set(ref)), len(hyp), len(ref)
            f = m2_prf(c, p, g, beta)[2]
            key = (f, c, -(p + b2 * g))
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


_SAMPLES: dict[tuple[str, str], list] = {}


def _m2_samples(hyp_m2: Path, ref_m2: Path) -> list:
    """CLEME's samples of a hypothesis and a reference M2 file (`samples_from_m2`), read once per process: many rows
    and switches score the same files (the files never change: CLEME's shipped ones, ERRANT 2.3.3's named by a hash
    of their inputs)."""
    from gecscore.cleme2.chunks import samples_from_m2

    key = (str(hyp_m2), str(ref_m2))
    if key not in _SAMPLES:
        _SAMPLES[key] = samples_from_m2(hyp_m2, ref_m2)
    return _SAMPLES[key]


def m2_file_scores(row: Row, hyp_m2: dict[str, Path], ref_m2: Path) -> dict[str, float]:
    """System scores of one row from M2 files: each system's edits (`hyp_m2[system]`, annotator 0) against the
    reference edits of `ref_m2`, scored by our own code (see `cleme-errant-m2`)."""
    from gecscore.common.edits import Edit
    from gecscore.common.errant_scoring import FScore, errant_counts
    from gecscore.common.m2io import read_m2

    if row.label:  # a CLEME variant: `cleme_score(hyp_m2=..., ref_m2=...)`, each pair of files read once
        from gecscore.cleme2.metric import ClemeConfig, evaluate_samples

        config = ClemeConfig(**{"variant": row.metric, "level": "corpus", **row.options})
        return {s: evaluate_samples(_m2_samples(path, ref_m2), config)["score"] for s, path in hyp_m2.items()}
    refs = [m2_reference_edits(b) for b in read_m2(ref_m2)]
    out = {}
    for system, path in hyp_m2.items():
        hyps = [m2_file_edits(b, 0) for b in read_m2(path)]
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


def legacy_reference_m2(ev: Evaluator, row: Row) -> Path:
    """ERRANT 2.3.3's M2 of the row's CoNLL-2014 reference set (`legacy_errant`), kept beside the score cache;
    with `exclude_unchanged`, only the references that change the source (CLEME2.0's ♣)."""
    from gecscore.common.m2io import format_m2, read_m2

    data = ev.dataset(replace(row, exclude_unchanged=False))
    counts = {len(refs) for refs in data.references}
    if len(counts) != 1:
        raise ValueError(f"{row.references}: every sentence needs the same number of references for errant_parallel")
    reference_major = [[refs[k] for refs in data.references] for k in range(counts.pop())]
    path = legacy_errant.extract_m2(data.sources, reference_major, legacy_cache_dir(ev))
    if not row.exclude_unchanged:
        return path
    changed = path.with_suffix(".changed.m2")
    if not changed.is_file():  # written whole, then renamed: processes sharing the cache never read half a file
        partial = changed.with_suffix(f".{os.getpid()}.tmp")
        partial.write_text(format_m2(legacy_errant.changed_only(read_m2(path))), encoding="utf-8")
        partial.replace(changed)
    return changed


def legacy_system_m2(ev: Evaluator, system: str, data) -> Path:
    """ERRANT 2.3.3's M2 of one system's output in `data` (one annotator), kept beside the score cache."""
    return legacy_errant.extract_m2(data.sources, [data.hypotheses[system]], legacy_cache_dir(ev))


def legacy_cache_dir(ev: Evaluator) -> Path:
    from gecscore.meta_eval import default_cache_dir

    return (ev.cache.directory if ev.cache is not None else default_cache_dir()) / "legacy-errant"


def legacy_errant_scores(ev: Evaluator, row: Row) -> dict[str, float]:
    """System scores of a row from ERRANT 2.3.3's reference edits (switch `errant-2.3.3`): the systems' edits are
    CLEME's `conll14-<SYS>.errant` on GJG15; no such files ship for SEEDA, so ERRANT 2.3.3 extracts them too."""
    ref_m2 = legacy_reference_m2(ev, row)
    if row.dataset == "gjg15":
        return cleme_m2_file_scores(ev.data_dir, row, ref_m2=ref_m2)
    data = ev.dataset(row)
    systems = data.system_set(row.system_set)
    return m2_file_scores(row, {s: legacy_system_m2(ev, s, data) for s in systems}, ref_m2)
