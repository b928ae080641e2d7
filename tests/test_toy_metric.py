"""Adding a metric touches its own folder and one registering line: a toy metric packaged outside gecscore
(`tests/toy_metric/`: a SPEC and a runner module, plus its card) is registered by one entry point, and the CLI (one
system and a leaderboard), the generated evaluate script, the generated Space, the leaderboard with bootstrap
intervals, scoring in shards, rewards and the documentation page all work for it with no other edit.

The toy runs in a fresh interpreter (`tests/toy_metric/drive.py`) that finds it only through the entry point; about
20 s, most of it importing evaluate, Gradio and torch there.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TOY = REPO / "tests" / "toy_metric"


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    """What the driver printed: the toy installed (package + dist-info with its entry point) on PYTHONPATH."""
    tmp = tmp_path_factory.mktemp("toy")
    site, root = tmp / "site", tmp / "root"
    shutil.copytree(TOY / "toy_metric", site / "toy_metric")
    info = site / "toy_metric-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-metric\nVersion: 0.1\n", encoding="utf-8")
    # The one registering line (in the toy's own packaging: `[project.entry-points."gecscore.metrics"]`).
    (info / "entry_points.txt").write_text("[gecscore.metrics]\ntoy = toy_metric\n", encoding="utf-8")
    (root / "metrics" / "toy").mkdir(parents=True)
    shutil.copyfile(TOY / "README.md", root / "metrics" / "toy" / "README.md")
    shutil.copyfile(TOY / "drive.py", tmp / "drive.py")
    env = {**os.environ, "PYTHONPATH": str(site), "HF_HUB_OFFLINE": "1", "HF_EVALUATE_OFFLINE": "1",
           "HF_DATASETS_OFFLINE": "1", "HF_HOME": str(tmp / "hf"), "GRADIO_ANALYTICS_ENABLED": "False"}
    done = subprocess.run([sys.executable, str(tmp / "drive.py"), str(root), str(REPO)], cwd=tmp, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-4000:]
    line = next(line for line in done.stdout.splitlines() if line.startswith("RESULT "))
    return json.loads(line.removeprefix("RESULT "))


def test_registered_by_its_entry_point_after_our_metrics(toy):
    assert toy["registered"][-1] == "toy" and "gleu" in toy["registered"]


def test_the_cli_scores_one_system_and_a_leaderboard(toy):
    assert toy["cli"]["code"] == 0 and toy["cli"]["printed"]["exact"] == pytest.approx(2 / 3)
    assert "case_sensitive:True" in toy["cli"]["printed"]["signature"]
    board = toy["cli_leaderboard"]
    assert board["code"] == 0 and [s["system"] for s in board["printed"]["systems"]] == ["a", "b"]
    assert all(s["interval"]["method"] == "percentile" for s in board["printed"]["systems"])


def test_the_generated_evaluate_script_takes_the_spec_options(toy):
    assert toy["evaluate"]["exact"] == 1.0
    assert "case_sensitive:False" in toy["evaluate"]["signature"]


def test_the_generated_space_scores_a_sentence_and_a_corpus(toy):
    assert toy["space_sentence"] == 1.0
    assert toy["space_corpus"]["exact"] == pytest.approx(2 / 3)


def test_the_leaderboard_ranks_with_bootstrap_intervals(toy):
    rows = {row["system"]: row for row in toy["leaderboard"]}
    assert rows["B"]["rank"] == 1 and rows["B"]["score"] == 1.0 and rows["A"]["score"] == pytest.approx(2 / 3)
    assert rows["A"]["interval"]["n_samples"] == 200 and rows["A"]["interval"]["low"] <= 2 / 3


def test_shards_merge_to_the_one_process_score(toy):
    assert toy["shards"] == [pytest.approx(2 / 3)] * 3


def test_rewards_score_each_completion(toy):
    assert toy["rewards"] == [1.0, 0.0, 1.0]


def test_the_documentation_page_is_its_card_with_the_generated_options(toy):
    assert "| `case_sensitive` | bool | `True` |" in toy["docs_page"]
    assert "generated from toy_metric.SPEC" in toy["docs_page"]
    assert "| Toy exact match |" in toy["docs_index"]
