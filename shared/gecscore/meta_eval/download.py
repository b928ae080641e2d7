"""Fetch the public meta-evaluation sources into the layout `gecscore.meta_eval.data` reads (needs internet).

    python -m gecscore.meta_eval.download DIR

Sources (the same ones gec-metrics' `prepare_meta_eval.sh` and gotutiyan/uot-errant use):
- SEEDA: `git clone https://github.com/tmu-nlp/SEEDA` → `DIR/SEEDA/{outputs,scores,data}`.
- CoNLL-2014 test data (NUS): `conll14st-test-data.tar.gz`, `noalt/official-2014.combined.m2`
  → `DIR/CoNLL-2014/PT-M2/data/reference.m2` (the official combined M2, 1312 sentences).
- CoNLL-2014 official submissions (NUS): `official_submissions.tar.gz`
  → `DIR/GJG15/data/original/official_submissions/`
  (INPUT is written from the M2's `S` lines, as gec-metrics does).
- GJG15 judgments: `grammatical/evaluation` `data/judgments.xml` → `DIR/GJG15/data/judgments.xml`.
- GJG15 human scores as Chollampatt & Ng (2018) ship them: `git clone https://github.com/nusnlp/gecmetrics`
  `scores/` → `DIR/GJG15/nusnlp-gecmetrics/scores/` (PT-M2 and CLEME2.0 correlate with these).
- SN-8GEC: `git clone https://github.com/keisks/reassess-gec` → `DIR/SN-8GEC/annotations/`.
- GMEG-Data: `git clone https://github.com/grammarly/GMEG` → `DIR/GMEG-Data/data/`.
None of these carries a license statement except where noted upstream; check their terms before redistributing.
Nothing in the test suite calls this module.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
from pathlib import Path

SEEDA_REPO = "https://github.com/tmu-nlp/SEEDA.git"
SN8_REPO = "https://github.com/keisks/reassess-gec.git"
GMEG_REPO = "https://github.com/grammarly/GMEG.git"
NUSNLP_REPO = "https://github.com/nusnlp/gecmetrics.git"
CONLL_TEST_URL = "https://www.comp.nus.edu.sg/~nlp/conll14st/conll14st-test-data.tar.gz"
CONLL_SUBMISSIONS_URL = "https://www.comp.nus.edu.sg/~nlp/conll14st/official_submissions.tar.gz"
GJG15_JUDGMENTS_URL = "https://github.com/grammatical/evaluation/raw/refs/heads/master/data/judgments.xml"
TEAMS = ("AMU", "CAMB", "CUUI", "IITB", "IPN", "NTHU", "PKU", "POST", "RAC", "SJTU", "UFC", "UMC")


def _clone(url: str, into: Path) -> Path:
    subprocess.run(["git", "clone", "--depth", "1", url, str(into)], check=True)
    return into


def _fetch(url: str, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with urllib.request.urlopen(url) as response, path.open("wb") as out:  # noqa: S310 (fixed https URLs)
        shutil.copyfileobj(response, out)
    return path


def _copy_tree(src: Path, dst: Path) -> None:
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(src, dst)


def _member(archive: tarfile.TarFile, suffix: str) -> tarfile.TarInfo:
    for member in archive.getmembers():
        if member.isfile() and member.name.endswith(suffix):
            return member
    raise FileNotFoundError(f"no member ending in {suffix!r} in {archive.name}")


def download_all(data_dir: str | Path) -> Path:
    """Download every source into `data_dir` (existing copies of these folders are replaced)."""
    root = Path(data_dir)
    root.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        seeda = _clone(SEEDA_REPO, tmp / "SEEDA")
        for part in ("outputs", "scores", "data"):
            _copy_tree(seeda / part, root / "SEEDA" / part)

        with tarfile.open(_fetch(CONLL_TEST_URL, tmp / "conll14st-test-data.tar.gz")) as archive:
            m2 = archive.extractfile(_member(archive, "noalt/official-2014.combined.m2")).read()
        target = root / "CoNLL-2014" / "PT-M2" / "data" / "reference.m2"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(m2)

        submissions = root / "GJG15" / "data" / "original" / "official_submissions"
        submissions.mkdir(parents=True, exist_ok=True)
        with tarfile.open(_fetch(CONLL_SUBMISSIONS_URL, tmp / "official_submissions.tar.gz")) as archive:
            for team in TEAMS:
                member = _member(archive, f"official_submissions/{team}")
                (submissions / team).write_bytes(archive.extractfile(member).read())
        sources = [line[2:] for line in m2.decode("utf-8").split("\n") if line.startswith("S ")]
        (submissions / "INPUT").write_text("\n".join(sources) + "\n", encoding="utf-8")
        _fetch(GJG15_JUDGMENTS_URL, root / "GJG15" / "data" / "judgments.xml")
        _copy_tree(_clone(NUSNLP_REPO, tmp / "gecmetrics") / "scores", root / "GJG15" / "nusnlp-gecmetrics" / "scores")

        _copy_tree(_clone(SN8_REPO, tmp / "reassess-gec") / "annotations", root / "SN-8GEC" / "annotations")
        _copy_tree(_clone(GMEG_REPO, tmp / "GMEG") / "data", root / "GMEG-Data" / "data")
    return root


def main(argv: list[str] | None = None) -> int:
    """Command-line entry: `python -m gecscore.meta_eval.download DIR`."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("directory", type=Path, help="where to put SEEDA/, CoNLL-2014/, GJG15/, SN-8GEC/, GMEG-Data/")
    args = parser.parse_args(argv)
    print(download_all(args.directory))
    return 0


if __name__ == "__main__":
    sys.exit(main())
