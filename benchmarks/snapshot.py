"""Every metric's numbers on real data, written once before a refactoring and compared after it.

A snapshot holds, for each configuration below and each system, what the registry's `run_systems` returns: the
corpus scores, every sentence record (score, chosen reference, statistics), the details (per-type tables,
degenerate sentences, chosen references) and the signature. Data: the SEEDA subset (all 15 outputs, references
REF0 and REF1) and CoNLL-2014 (AMU, CAMB, CUUI, from CLEME's M2 files of their
outputs, against the same two annotators). Model-weighted configurations use
all-MiniLM-L6-v2 (`minilm`, layer 6) and the embedded IMPARA-GED estimator.

    python benchmarks/snapshot.py --data ../shared/data --write /tmp/before.json.gz
    python benchmarks/snapshot.py --data ../shared/data --write /tmp/after.json.gz --compare /tmp/before.json.gz

`--compare` lists every value that differs: on one machine every configuration is deterministic, so "numbers do
not move" means no line at all (set GECSCORE_EMBEDDING_CACHE for both runs to skip the second encoding; cached
vectors are the computed ones, bit for bit). Snapshots are large and stay outside the repository.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import sys
import time
import warnings
from pathlib import Path
from typing import Any, Iterator

MINILM = {"model": "minilm", "layer": 6}
#: label → (registry name, options). Per-type tables where the metric has them.
CONFIGS: dict[str, tuple[str, dict[str, Any]]] = {
    "errant": ("errant", {"return_types": 3}),
    "errant-compare": ("errant", {"convention": "errant_compare", "return_types": 2}),
    "errant-tokenize-robust": ("errant", {"tokenize": True, "robust": True}),
    "m2": ("m2", {"return_types": 2}),
    "sentm2": ("sentm2", {}),
    "senterrant": ("senterrant", {}),
    "cleme-dep": ("cleme", {}),
    "cleme-ind-sent-2025": ("cleme", {"assumption": "independent", "level": "sentence", "release": "2025"}),
    "cleme2-none": ("cleme2", {"weighting": "none"}),
    "cleme2-none-ind-sent": ("cleme2", {"weighting": "none", "assumption": "independent", "level": "sentence"}),
    "uot": ("uot_errant", {"model": "minilm", "return_types": 2}),
    "uot-robust": ("uot_errant", {"model": "minilm", "robust": True}),
    "uot-cosine-uniform": ("uot_errant", {"model": "minilm", "cost": "cosine", "mass": "uniform"}),
    "pt-sentm2": ("pt_m2", {"variant": "sentm2", **MINILM, "return_types": 2}),
    "pt-m2": ("pt_m2", {"variant": "m2", **MINILM}),
    "pt-errant": ("pt_m2", {"variant": "errant", **MINILM}),
    "pt-senterrant": ("pt_m2", {"variant": "senterrant", **MINILM, "robust": True}),
    "cleme2-sim": ("cleme2", MINILM),
    "cleme2-sim-sent": ("cleme2", {**MINILM, "level": "sentence", "assumption": "independent"}),
    "impara-ged": ("impara_ged", {"model": "embedded"}),
    "cleme2-none-tokenize-robust": ("cleme2", {"weighting": "none", "tokenize": True, "robust": True}),
    "gleu": ("gleu", {}),
    "gleu-gec-metrics-tokenize": ("gleu", {"variant": "gec-metrics", "tokenize": True}),
    "sentgleu": ("sentgleu", {}),
    "green": ("green", {}),
    "gotoscorer": ("gotoscorer", {}),
    "bertscore": ("bertscore", {**MINILM, "rescale_with_baseline": False}),
}


def read_lines(path: Path) -> list[str]:
    from gecscore.common.inputs import split_lines

    return split_lines(path.read_text(encoding="utf-8"))


def datasets(data: Path) -> Iterator[tuple[str, list[str], dict[str, list[str]], list[list[str]]]]:
    """(name, sources, systems, references) of the SEEDA subset and of CoNLL-2014."""
    subset = data / "SEEDA" / "outputs" / "subset"
    refs = [read_lines(data / "SEEDA" / "derived" / f"REF{i}.txt") for i in (0, 1)]
    yield ("seeda", read_lines(subset / "INPUT.txt"),
           {p.stem: read_lines(p) for p in sorted(subset.glob("*.txt")) if p.stem != "INPUT"},
           [list(pair) for pair in zip(*refs)])
    conll = data / "CoNLL-2014"
    refs = [read_lines(conll / "derived" / f"REF{i}.txt") for i in (0, 1)]
    yield ("conll14", read_lines(conll / "derived" / "INPUT.txt"),
           {name: system_output(conll / "CLEME" / "demo" / "examples" / f"conll14-{name}.errant")
            for name in ("AMU", "CAMB", "CUUI")},
           [list(pair) for pair in zip(*refs)])


def system_output(m2: Path) -> list[str]:
    """A system's corrected sentences from its M2 file (one annotator: the system)."""
    from gecscore.common.m2io import m2_references, read_m2_input

    return [corrections[0] for corrections in m2_references(read_m2_input(str(m2), "system M2"))]


def plain(value: Any) -> Any:
    """JSON-safe with floats kept exact (repr round-trips); tuples as lists, other objects by repr."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (bool, str)) or value is None:
        return value
    if isinstance(value, int):
        return int(value)
    if hasattr(value, "tolist"):
        return plain(value.tolist())
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    return repr(value)


def take(data: Path, only: list[str] | None, write: Path) -> dict[str, Any]:
    """Every configuration on every data set, as plain data, written to `write` after each configuration."""
    from gecscore import registry

    out: dict[str, Any] = {}
    for label, (name, options) in CONFIGS.items():
        if only and label not in only:
            continue
        start = time.perf_counter()
        for corpus, sources, systems, references in datasets(data):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                results = registry.run_systems(name, sources, systems,
                                               None if registry.spec(name).reference_free else references,
                                               **options)
            out[f"{label}/{corpus}"] = {system: plain({"scores": r.scores, "sentences": r.sentences,
                                                       "details": r.details, "signature": r.signature})
                                        for system, r in results.items()}
        with gzip.open(write, "wt", encoding="utf-8") as f:
            json.dump(out, f)
        print(f"{label}: {time.perf_counter() - start:.1f} s", flush=True)
    return out


def differences(before: Any, after: Any, where: str = "") -> Iterator[str]:
    """Every place where two plain values are not identical."""
    if isinstance(before, dict) and isinstance(after, dict):
        for key in sorted(set(before) | set(after)):
            if key not in after or key not in before:
                yield f"{where}/{key}: only in {'before' if key in before else 'after'}"
            else:
                yield from differences(before[key], after[key], f"{where}/{key}")
    elif isinstance(before, list) and isinstance(after, list):
        if len(before) != len(after):
            yield f"{where}: {len(before)} items before, {len(after)} after"
        for i, (b, a) in enumerate(zip(before, after)):
            yield from differences(b, a, f"{where}[{i}]")
    elif before != after or type(before) is not type(after):
        yield f"{where}: {before!r} -> {after!r}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="a folder laid out like ../shared/data")
    parser.add_argument("--write", type=Path, required=True, help="the snapshot (.json.gz)")
    parser.add_argument("--compare", type=Path, help="an earlier snapshot to compare with")
    parser.add_argument("--only", nargs="*", choices=list(CONFIGS), help="these configurations only")
    parser.add_argument("--new-keys", nargs="*", default=[], metavar="KEY",
                        help="keys a change added on purpose: present only in the new snapshot, counted apart")
    args = parser.parse_args()
    snapshot = take(args.data, args.only, args.write)
    if not args.compare:
        return 0
    with gzip.open(args.compare, "rt", encoding="utf-8") as f:
        before = json.load(f)
    if args.only:
        before = {k: v for k, v in before.items() if k.split("/")[0] in args.only}
    found = list(differences(before, snapshot))
    added = [line for line in found if line.endswith(": only in after") and
             line.rsplit("/", 1)[-1].split(":")[0] in args.new_keys]
    skip = set(added)
    found = [line for line in found if line not in skip]
    if added:
        print(f"{len(added)} entries gained only the new keys {args.new_keys}")
    for line in found[:200]:
        print(line)
    print(f"{len(found)} differences in {len(snapshot)} configuration × corpus entries")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
