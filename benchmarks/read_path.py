"""The read path of a metric: which of our files a reader must open to follow one `compute` to the number.

For each metric, the evaluate script in `metrics/<name>/` is loaded with `evaluate.load` and its `compute` is
called once on two SEEDA sentences (default variant; `model="minilm"` where the default encoder is not on
PyPI). A profile hook records every function of ours that runs during that call; a file counts when at least one
of its functions ran (code that only runs at import does not count). The files fall into three groups:

- **own**: the metric's folder (`gecscore/<package>/`) and its evaluate script;
- **door**: files every measured metric passes through (the evaluate glue, the registry, the input layer);
- **shared**: the rest (shared machinery some metrics use: ERRANT edits, encoders, the M² lattice, ...).

Counts are whole files (lines as `wc -l`), because a reader opens files, not functions.

    python benchmarks/read_path.py --data ../shared/data [--json out.json] [--list]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
#: registry name → (package folder, options for the evaluate script). MiniLM stands in for encoders not on PyPI.
METRICS: dict[str, tuple[str, dict[str, Any]]] = {
    "uot_errant": ("uot_errant", {"model": "minilm"}),
    "pt_m2": ("pt_m2", {"model": "minilm", "layer": 6}),
    "cleme2": ("cleme2", {"model": "minilm", "layer": 6}),
    "impara_ged": ("impara_ged", {"model": "embedded"}),
    "gleu": ("gleu", {}),
}


def sample(data: Path) -> tuple[list[str], list[str], list[list[str]]]:
    """Two SEEDA sentences, one system, two references (the read path does not depend on size)."""
    subset = data / "SEEDA" / "outputs" / "subset"

    def first_two(path: Path) -> list[str]:
        return path.read_text(encoding="utf-8").splitlines()[:2]

    refs = [first_two(data / "SEEDA" / "derived" / f"REF{i}.txt") for i in (0, 1)]
    system = sorted(p for p in subset.glob("*.txt") if p.stem != "INPUT")[0]
    return first_two(subset / "INPUT.txt"), first_two(system), [list(pair) for pair in zip(*refs)]


def traced_files(name: str, options: dict[str, Any], data: Path) -> set[Path]:
    """Our files with at least one function run during one `compute` of the metric's evaluate script."""
    import evaluate

    from gecscore import registry

    metric = evaluate.load(str(ROOT / "metrics" / name), **options)
    sources, predictions, references = sample(data)
    ours = (str(ROOT / "shared" / "gecscore"), str(ROOT / "metrics"))
    seen: set[str] = set()

    def hook(frame: Any, event: str, arg: Any) -> None:
        code = frame.f_code
        if event == "call" and code.co_name != "<module>" and code.co_filename.startswith(ours):
            seen.add(code.co_filename)

    sys.setprofile(hook)
    inputs = {"sources": sources, "predictions": predictions}
    if not registry.SPECS[name].reference_free:
        inputs["references"] = references
    try:
        metric.compute(**inputs)
    finally:
        sys.setprofile(None)
    # evaluate copies the script into its module cache; the script read is the one in metrics/<name>/.
    files = {Path(f) for f in seen}
    files.add(ROOT / "metrics" / name / f"{name}.py")
    return {f for f in files if f.is_relative_to(ROOT)}


def lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def measure(data: Path) -> dict[str, Any]:
    """Per metric: the files read, grouped into own, door and shared."""
    traced = {name: traced_files(name, options, data) for name, (_, options) in METRICS.items()}
    door = set.intersection(*traced.values())
    result: dict[str, Any] = {"door": sorted(str(f.relative_to(ROOT)) for f in door),
                              "door_lines": sum(lines(f) for f in door), "metrics": {}}
    for name, files in traced.items():
        package = ROOT / "shared" / "gecscore" / METRICS[name][0]
        own = {f for f in files if f.is_relative_to(package) or f.is_relative_to(ROOT / "metrics" / name)}
        shared = files - own - door
        result["metrics"][name] = {
            "files": len(files), "lines": sum(lines(f) for f in files),
            "own": sorted(str(f.relative_to(ROOT)) for f in own), "own_lines": sum(lines(f) for f in own),
            "shared": sorted(str(f.relative_to(ROOT)) for f in shared),
            "shared_lines": sum(lines(f) for f in shared),
        }
    return result


def table(result: dict[str, Any]) -> str:
    """The README's read-path table."""
    rows = ["| metric | files read (lines) | own folder | shared door | other shared |", "|---|---|---|---|---|"]
    door = f"{len(result['door'])} ({result['door_lines']})"
    for name, m in result["metrics"].items():
        rows.append(f"| {name} | {m['files']} ({m['lines']}) | {len(m['own'])} ({m['own_lines']}) | {door} | "
                    f"{len(m['shared'])} ({m['shared_lines']}) |")
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--json", type=Path, help="write the measurement here")
    parser.add_argument("--list", action="store_true", help="print every file read")
    args = parser.parse_args()
    result = measure(args.data)
    print(table(result))
    if args.list:
        print("door:", *result["door"], sep="\n  ")
        for name, m in result["metrics"].items():
            print(f"{name} own:", *m["own"], sep="\n  ")
            print(f"{name} shared:", *m["shared"], sep="\n  ")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
