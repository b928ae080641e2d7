"""`make hub-check`: publish the distributions to a local package index and use every Hub folder as the Hub would.

The driver builds the sdist and wheel of gecscore (and of `packages/gecscore-impara-minilm` when it is there) into a
temporary folder and serves that folder, and nothing else, with `pypiserver` on 127.0.0.1. Every other package
comes from the usual registries: pypiserver redirects a project it does not hold to pip's configured index
(`--fallback-url`; https://pypi.org/simple/ unless pip is configured otherwise), and pip keeps its configured
`find-links` and `extra-index-url` (only `--index-url` is replaced), so a `gecscore` can only come from the fresh
build (checked against the wheel's SHA-256 in pip's `--report`). It then builds the Hub folders (`make hub`) and, in
one fresh virtual environment outside the repository:

1. installs `torch==2.13.0` first, as the Space's base image would provide torch (a fresh environment has none, and
   the `torch>=2.1` that gecscore asks for would otherwise resolve to the newest CUDA build); it then satisfies
   gecscore's requirement, so nothing upgrades it and no constraints file is needed;
2. per folder, from inside it: `pip install -r requirements.txt` with the index pointed at the local one, nothing
   added to the requirements (`--no-compile` and `--report` change no resolution), and checks that torch is still
   2.13.0 and no CUDA package came in;
3. `evaluate.load(<folder>)` with the doctest of the card's first example (`evaluate.load("<org>/<name>")` read as
   the folder), then `python app.py` on a free port and one `gradio_client` call.

In a second fresh environment with `evaluate` but without gecscore, `evaluate.load(<folder>)` must stop with
evaluate's own message naming `gecscore` and the install command of the scripts' `# From: gecscore` hint. The index
and the apps are stopped by the driver on success and on failure. Each step prints its wall time. Probes run inside
the fresh environments as `python <copy of this file> --probe KIND ...` (stdlib imports only at the top).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Callable, Sequence

sys.path.insert(0, str(Path(__file__).resolve().parent))
from wheel_check import (  # noqa: E402  (stdlib only)
    Check, StepFailed, app_names, call_app, check_prebuilt, free_port, run_check, stop, wait_for,
)

REPO = Path(__file__).resolve().parent.parent
#: The separate distribution of the embedded IMPARA-GED model, built and served when the checkout has it.
EMBEDDED_PACKAGE = REPO / "packages" / "gecscore-impara-minilm"
#: The torch of the Space's base image (constraints.txt's pin; on this machine the CPU wheel in find-links).
TORCH = "torch==2.13.0"
ORG = "gecscore"
#: What evaluate's missing-dependency message must say (the scripts' `# From: gecscore` hint).
MISSING_MESSAGE = ("dependencies['gecscore']", "'pip install gecscore'")


# --- probes: run inside the fresh environments ------------------------------------------------------------------

def first_example(readme: str, org: str, name: str, folder: str) -> str:
    """The card's first ```python block, `evaluate.load("<org>/<name>"` replaced by the folder."""
    blocks = re.findall(r"^```python\n(.*?)^```", readme, flags=re.DOTALL | re.MULTILINE)
    if not blocks:
        raise AssertionError("the card has no ```python block")
    hub_id = f'evaluate.load("{org}/{name}"'
    if hub_id not in blocks[0] or "compute(" not in blocks[0]:
        raise AssertionError(f"the card's first example does not call {hub_id}...) and compute")
    return blocks[0].replace(hub_id, f"evaluate.load({folder!r}")


def probe_card(folder: str, name: str, org: str) -> None:
    """Run the card's first example (its doctest) against the folder; print how many examples passed."""
    import doctest

    readme = (Path(folder) / "README.md").read_text(encoding="utf-8")
    test = doctest.DocTestParser().get_doctest(first_example(readme, org, name, folder), {}, name, "README.md", 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    if runner.failures or not test.examples:
        raise AssertionError(f"{runner.failures} of {len(test.examples)} doctest examples failed")
    import evaluate
    import gecscore

    print(f"{len(test.examples)} examples passed (evaluate {evaluate.__version__}, gecscore {gecscore.__version__} "
          f"at {Path(gecscore.__file__).parent})")


def probe_app(name: str, url: str, folder: str) -> None:
    """One `/score_sentence` call through gradio_client with the first lines of the folder's example files."""
    examples = Path(folder) / "examples"
    first = {key: (examples / f"{key}.txt").read_text(encoding="utf-8").splitlines()[0]
             for key in ("source", "hypothesis", "ref0", "ref1")}
    call_app(name, url, first["source"], first["hypothesis"], [first["ref0"], first["ref1"]])


def probe_missing(folder: str) -> None:
    """Without gecscore, `evaluate.load(folder)` stops with evaluate's message naming gecscore and the hint."""
    import importlib.util

    import evaluate

    assert importlib.util.find_spec("gecscore") is None, "gecscore is installed in the environment without it"
    try:
        evaluate.load(folder)
    except ImportError as error:
        message = str(error)
    else:
        raise AssertionError("evaluate.load succeeded without gecscore")
    missing = [part for part in MISSING_MESSAGE if part not in message]
    assert not missing, f"evaluate's message lacks {missing}: {message}"
    print(message)


def probe_versions() -> None:
    """The installed distributions as JSON (name → version)."""
    from importlib.metadata import distributions

    print(json.dumps({d.metadata["Name"].lower().replace("_", "-"): d.version for d in distributions()}))


PROBES: dict[str, Callable[..., None]] = {"card": probe_card, "app": probe_app, "missing": probe_missing,
                                          "versions": probe_versions}


# --- the driver -------------------------------------------------------------------------------------------------

class HubCheck(Check):
    """The temporary folder of one check: the served distributions, the Hub folders, the two environments."""

    def __init__(self, root: Path, org: str) -> None:
        super().__init__(root)
        self.org = org
        self.index_dir, self.hub, self.reports = root / "index", root / "hub", root / "reports"
        self.bare = root / "venv-without-gecscore"
        self.probe = root / "probe" / Path(__file__).name
        self.index_url = ""
        self.built: dict[str, str] = {}  # wheel file name → SHA-256
        self.torch = ""  # the torch version installed before the requirements
        self.processes: list[subprocess.Popen] = []

    def prepare(self) -> None:
        """The folders and the probe copies (this file and the wheel check it imports)."""
        for folder in (self.work, self.probe.parent, self.hf_home, self.reports):
            folder.mkdir(parents=True)
        shutil.copy2(__file__, self.probe)
        shutil.copy2(Path(__file__).with_name("wheel_check.py"), self.probe.parent / "wheel_check.py")

    def probe_in(self, python: str, kind: str, *args: str, cwd: Path | None = None) -> str:
        """Run a probe of this file with `python`."""
        return self.run([python, str(self.probe), "--probe", kind, *args], cwd=cwd)

    def build(self, source: Path, prebuilt: Path | None = None) -> str:
        """sdist and, from it, the wheel of `source` into the index folder (or, with `prebuilt`, copies of that
        folder's two files of `source`: `make test` builds them once for this check and the wheel check); their
        names."""
        before = set(self.index_dir.glob("*")) if self.index_dir.exists() else set()
        if prebuilt is None:
            self.run([sys.executable, "-m", "build", "--outdir", str(self.index_dir), str(source)], cwd=REPO)
        else:
            project = "gecscore" if source == REPO else source.name
            self.index_dir.mkdir(parents=True, exist_ok=True)
            for file in prebuilt.iterdir():
                if file.name.split("-")[0].replace("_", "-") == project:
                    shutil.copy2(file, self.index_dir)
        new = sorted(set(self.index_dir.glob("*")) - before)
        wheels = [p for p in new if p.suffix == ".whl"]
        if len(wheels) != 1 or len(new) != 2:
            raise StepFailed(f"expected one sdist and one wheel from {source}, found {[p.name for p in new]}")
        self.built[wheels[0].name] = hashlib.sha256(wheels[0].read_bytes()).hexdigest()
        return ", ".join(p.name for p in new)

    def folders(self) -> str:
        """`make hub` into the temporary folder."""
        return self.run([sys.executable, "-m", "gecscore.spaces_build", "--org", self.org, "--out", str(self.hub),
                         "--constraints", str(REPO / "constraints.txt")], cwd=REPO)

    def serve(self) -> str:
        """pypiserver on a free port serving only the built distributions; falls back to pip's own index."""
        names = sorted(p.name for p in self.index_dir.iterdir())
        if not all(n.startswith(("gecscore-", "gecscore_")) for n in names):
            raise StepFailed(f"the index folder holds more than the gecscore distributions: {names}")
        port = free_port()
        log = self.root / "pypiserver.log"
        with log.open("w") as sink:
            process = subprocess.Popen(
                [sys.executable, "-m", "pypiserver", "run", "-i", "127.0.0.1", "-p", str(port), "-a", ".", "-P", ".",
                 "--fallback-url", fallback_index(), str(self.index_dir)],
                stdout=sink, stderr=subprocess.STDOUT, env=self.env())
        self.processes.append(process)
        wait_for(f"http://127.0.0.1:{port}/health", process, log, limit=60)
        self.index_url = f"http://127.0.0.1:{port}/simple/"
        with urllib.request.urlopen(f"{self.index_url}gecscore/", timeout=10) as response:
            page = response.read().decode()
        own = [n for n in names if re.match(r"gecscore-\d", n)]
        if not own or not all(n in page for n in own):
            raise StepFailed(f"{self.index_url}gecscore/ does not list the built files {own}:\n{page}")
        return f"{self.index_url} serves {', '.join(names)}; other projects → {fallback_index()}"

    def fresh_venv(self) -> str:
        """A fresh environment with the Space image's torch."""
        self.run([sys.executable, "-m", "venv", str(self.venv)])
        self.run([self.python, "-m", "pip", "install", "-q", "--no-compile", TORCH])
        self.torch = self.versions(self.python)["torch"]
        return f"torch {self.torch}"

    def versions(self, python: str) -> dict[str, str]:
        """Name → version of what `python`'s environment has installed."""
        return json.loads(self.probe_in(python, "versions").splitlines()[-1])

    def install(self, name: str) -> str:
        """`pip install -r requirements.txt` from inside the folder, the index pointed at the local one."""
        folder, report = self.hub / name, self.reports / f"{name}.json"
        self.run([self.python, "-m", "pip", "install", "-q", "--no-compile", "--index-url", self.index_url,
                  "--report", str(report), "-r", "requirements.txt"], cwd=folder)
        came = []
        for item in json.loads(report.read_text(encoding="utf-8")).get("install", []):
            info = item.get("download_info", {})
            file = info.get("url", "").rsplit("/", 1)[-1]
            if item["metadata"]["name"].lower().replace("_", "-").startswith("gecscore"):
                archive = info.get("archive_info", {})
                digest = archive.get("hashes", {}).get("sha256") or archive.get("hash", "").removeprefix("sha256=")
                if not info.get("url", "").startswith(self.index_url.removesuffix("simple/")) or \
                        self.built.get(file) != digest:
                    raise StepFailed(f"{file} did not come from the fresh build on the local index: {info}")
                came.append(file)
        installed = self.versions(self.python)
        if installed.get("torch") != self.torch or any(n.startswith("nvidia-") for n in installed):
            raise StepFailed(f"the requirements changed torch: torch {installed.get('torch')} (was {self.torch}), "
                             f"{sorted(n for n in installed if n.startswith('nvidia-'))}")
        return f"from the local index: {', '.join(came) or 'nothing new'}; torch {installed['torch']}"

    def app(self, name: str, app_file: str = "app.py") -> str:
        """`python app.py` inside the folder on a free port, one gradio_client call, stopped also on failure."""
        folder, port = self.hub / name, free_port()
        log = self.root / f"app_{name}.log"
        env = self.env(GRADIO_SERVER_NAME="127.0.0.1", GRADIO_SERVER_PORT=str(port))
        with log.open("w") as sink:
            process = subprocess.Popen([self.python, app_file], cwd=folder, env=env, stdout=sink, stderr=sink)
        self.processes.append(process)
        try:
            wait_for(f"http://127.0.0.1:{port}/gradio_api/info", process, log)
            return self.probe_in(self.python, "app", name, f"http://127.0.0.1:{port}/", str(folder))
        finally:
            stop(process)

    def without_gecscore(self) -> str:
        """A second fresh environment with the folders' evaluate but no gecscore."""
        pins = [line for line in (self.hub / app_names()[0] / "requirements.txt").read_text().split()
                if line.startswith("evaluate")]
        self.run([sys.executable, "-m", "venv", str(self.bare)])
        self.run([str(self.bare / "bin" / "python"), "-m", "pip", "install", "-q", "--no-compile", *pins])
        return " ".join(pins)

    def stop_all(self) -> None:
        """Stop the index and any app still running."""
        for process in self.processes:
            stop(process)


def fallback_index() -> str:
    """pip's configured index (`PIP_INDEX_URL`, `pip config`), else PyPI: where pypiserver sends other projects."""
    url = os.environ.get("PIP_INDEX_URL")
    if not url:
        listed = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True).stdout
        found = re.findall(r"^[\w:.-]*\.index-url='([^']+)'", listed, flags=re.MULTILINE)
        url = found[-1] if found else "https://pypi.org/simple/"
    return url.rstrip("/") + "/"


def check(root: Path, org: str, prebuilt: Path | None = None) -> list[tuple[str, float]]:
    """Every step of the check in `root` (the distributions built, or taken from `prebuilt`); the steps' wall
    times."""
    c = HubCheck(root, org)
    c.prepare()
    metrics = app_names()  # every metric whose Space the wheel check drives
    built = "build" if prebuilt is None else f"take the shared build of ({prebuilt})"
    try:
        c.step(f"{built} gecscore sdist + wheel", lambda: c.build(REPO, prebuilt))
        if (EMBEDDED_PACKAGE / "pyproject.toml").is_file():
            c.step(f"{built} {EMBEDDED_PACKAGE.name} sdist + wheel", lambda: c.build(EMBEDDED_PACKAGE, prebuilt))
        c.step(f"make hub ORG={org} ({len(metrics)} folders)", c.folders)
        c.step("start pypiserver on 127.0.0.1 (only the built distributions)", c.serve)
        c.step(f"fresh venv + pip install {TORCH} (the Space image's torch)", c.fresh_venv)
        for name in metrics:
            c.step(f"{name}: pip install -r requirements.txt --index-url <local>", lambda n=name: c.install(n))
            c.step(f"{name}: evaluate.load(<folder>) + the card's first example",
                   lambda n=name: c.probe_in(c.python, "card", str(c.hub / n), n, org, cwd=c.hub / n))
            c.step(f"{name}: python app.py + one gradio_client call", lambda n=name: c.app(n))
        c.step("second fresh venv without gecscore", c.without_gecscore)
        for name in metrics:
            c.step(f"{name}: evaluate.load(<folder>) without gecscore fails naming it",
                   lambda n=name: c.probe_in(str(c.bare / "bin" / "python"), "missing", str(c.hub / n)))
    finally:
        c.stop_all()
    return c.times


def main(argv: Sequence[str] | None = None) -> int:
    """Run the check (or, with --probe, one probe inside a fresh environment)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--org", default=ORG, help=f"the organisation the folders are built for (default {ORG})")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (printed)")
    parser.add_argument("--dist", type=Path, default=None,
                        help="take the sdists and wheels from this folder instead of building them")
    parser.add_argument("--probe", choices=PROBES, help=argparse.SUPPRESS)
    args, rest = parser.parse_known_args(argv)
    if args.probe:
        PROBES[args.probe](*rest)
        return 0
    if rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    prebuilt = check_prebuilt(parser, args.dist)
    return run_check("hub check", lambda root: check(root, args.org, prebuilt), keep=args.keep)


if __name__ == "__main__":
    sys.exit(main())
