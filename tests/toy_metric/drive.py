"""Drive the toy metric through every generic entry point in a process that knows it only by its entry point, and
print what each gave as JSON (tests/test_toy_metric.py checks it). argv[1]: a repository-like folder holding the
toy's card, `metrics/toy/README.md`; the generated script and Space app are written beside it. argv[2]: gecscore's
repository (its documentation hook)."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import os
import sys
from pathlib import Path

import gecscore
from gecscore import cards, generate, registry, sharding
from gecscore.cli import main as cli
from gecscore.rewards import reward_function
from gecscore.spaces.loading import METRIC_PATH_ENV

ROOT = Path(sys.argv[1])
REPO = Path(sys.argv[2])
SOURCES = ["He go home .", "She like tea .", "It are red ."]
A = ["He goes home .", "She like tea .", "It is red ."]
B = ["He goes home .", "She likes tea .", "it is red ."]
REFERENCES = [["He goes home ."], ["She likes tea ."], ["It's red .", "It is red ."]]


def module_at(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def lines(name: str, texts: list[str]) -> str:
    path = ROOT / name
    path.write_text("\n".join(texts) + "\n", encoding="utf-8")
    return str(path)


out: dict = {"registered": list(registry.SPECS)}

# The files `make generate` writes for a metric: its evaluate script, its card's option table, its Space app.
metric_dir, space_dir = ROOT / "metrics" / "toy", ROOT / "spaces" / "toy"
(metric_dir / "toy.py").write_text(generate.script("toy"), encoding="utf-8")
card = metric_dir / "README.md"
card.write_text(cards.render(card.read_text(encoding="utf-8"), "toy"), encoding="utf-8")
space_dir.mkdir(parents=True)
(space_dir / "app.py").write_text(generate.space_app("toy"), encoding="utf-8")

# The CLI, one system and a leaderboard of two.
files = {"sources": lines("src.txt", SOURCES), "a": lines("a.txt", A), "b": lines("b.txt", B),
         "r0": lines("r0.txt", [r[0] for r in REFERENCES]), "r1": lines("r1.txt", [r[-1] for r in REFERENCES])}
for key, extra in (("cli", [files["a"]]), ("cli_leaderboard", [files["a"], files["b"]])):
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        code = cli(["score", "toy", "--sources", files["sources"], "--predictions", *extra,
                    "--references", files["r0"], files["r1"], "--format", "json"])
    out[key] = {"code": code, "printed": json.loads(printed.getvalue())}

# The evaluate script.
import evaluate  # noqa: E402

module = evaluate.load(str(metric_dir))
out["evaluate"] = module.compute(sources=SOURCES, predictions=B, references=REFERENCES, case_sensitive=False)

# The Space: its two endpoints, called as Gradio calls them.
os.environ[METRIC_PATH_ENV] = str(ROOT / "metrics")
demo = module_at(space_dir / "app.py", "toy_app").build_demo()
endpoints = {fn.api_name: fn.fn for fn in demo.fns.values()}
out["space_sentence"] = endpoints["score_sentence"](SOURCES[0], A[0], "\n".join(REFERENCES[0]), True)[2]["exact"]
out["space_corpus"] = endpoints["score_corpus"](files["sources"], files["a"], [files["r0"], files["r1"]], True)[1]

# The leaderboard with bootstrap intervals, shards, rewards.
board = gecscore.compare("toy", SOURCES, {"A": A, "B": B}, REFERENCES, n_samples=200, case_sensitive=False)
out["leaderboard"] = [row.as_dict() for row in board.rows]
out["shards"] = [sharding.run_in_shards("toy", SOURCES, A, REFERENCES, shards=k).score for k in (1, 2, 3)]
reward = reward_function("toy", tokenize=False)
out["rewards"] = reward(prompts=SOURCES, completions=A, source=SOURCES, references=REFERENCES)

# The documentation site's pages (the mkdocs hook that builds one page per metric from its card).
hook = module_at(REPO / "docs" / "_hooks" / "metric_pages.py", "metric_pages")
out["docs_page"] = hook.card_page("toy", ROOT)
out["docs_index"] = hook.index_page()
print("RESULT " + json.dumps(out, default=str))
