"""Bootstrap intervals stay within a bounded metric's range: the interval shown is the percentile bootstrap (the
2.5th and 97.5th percentiles of the resampled corpus scores), named in every output, on corpora where sacrebleu's
mean ± half-width leaves [0, 1] (a near-perfect system, three sentences)."""

import json
import re

import numpy as np
import pytest

from conftest import DATA
from gecscore.cli import main
from gecscore.common.bootstrap import DEFAULT_SAMPLES, DEFAULT_SEED, confidence_interval
from gecscore.leaderboard import compare
from gecscore.registry import run

SEEDA = DATA / "SEEDA"
# Model-free metrics whose corpus scores lie in [0, 1] by construction.
BOUNDED = {"errant": {}, "sentm2": {}, "m2": {}, "cleme": {}, "cleme2": {"weighting": "none"}}


def lines(rel: str) -> list[str]:
    return (SEEDA / rel).read_text(encoding="utf-8").splitlines()


def near_perfect() -> tuple[list[str], list[str], list[list[str]]]:
    """40 SEEDA sentences corrected as REF0 corrects them, except sentence 3, left unchanged."""
    sources, ref0, ref1 = lines("outputs/subset/INPUT.txt")[:40], lines("derived/REF0.txt"), lines("derived/REF1.txt")
    predictions = [sources[i] if i == 3 else ref0[i] for i in range(40)]
    return sources, predictions, [[a, b] for a, b in zip(ref0[:40], ref1)]


def three_sentences() -> tuple[list[str], list[str], list[list[str]]]:
    """T5's output on SEEDA sentences 42-44 (0-based): a tiny corpus that scores high."""
    window = slice(42, 45)
    sources, t5 = lines("outputs/subset/INPUT.txt")[window], lines("outputs/subset/T5.txt")[window]
    return sources, t5, [list(refs) for refs in zip(lines("derived/REF0.txt")[window], lines("derived/REF1.txt")[window])]


CORPORA = {"near-perfect": near_perfect, "three sentences": three_sentences}
CASES = [(metric, corpus) for metric in BOUNDED for corpus in CORPORA
         if (metric, corpus) != ("m2", "three sentences")]  # M² keeps mean ± ci inside [0, 1] there: no case


@pytest.mark.parametrize("metric, corpus", CASES)
def test_interval_is_the_percentile_of_the_resamples_and_stays_in_range(metric, corpus):
    sources, predictions, references = CORPORA[corpus]()
    result = run(metric, sources, predictions, references, **BOUNDED[metric])
    interval = confidence_interval(result.statistic, result.n)
    # the resamples drawn as sacrebleu draws them, each scored alone by the metric's corpus rule
    rows = np.random.default_rng(DEFAULT_SEED).choice(result.n, size=(DEFAULT_SAMPLES, result.n), replace=True)
    resampled = [result.statistic(row) for row in rows]
    assert (interval.low, interval.high) == tuple(np.percentile(resampled, [2.5, 97.5]))
    assert 0 <= interval.low <= interval.high <= 1 and interval.method == "percentile"
    # an informative case: sacrebleu's mean ± half-width (still available) leaves the range here
    assert not 0 <= interval.mean - interval.ci <= interval.mean + interval.ci <= 1


def test_leaderboard_shows_the_percentile_interval_and_names_it():
    sources, predictions, references = near_perfect()
    board = compare("sentm2", sources, {"near": predictions, "input": sources}, references, baseline="input")
    near = board.row("near").interval
    assert near.high <= 1 < near.mean + near.ci
    text = board.render("text")
    assert f"[{near.low:.4f}, {near.high:.4f}]" in text and "95% CI (percentile)" in text
    assert "95% CI: percentile bootstrap, 1000 resamples (seed 12345)" in text
    shown = json.loads(board.render("json"))["systems"][0]["interval"]
    assert shown == {**near.as_dict(), "method": "percentile"}
    # sacrebleu's two numbers are named for what they are: no `mean ± ci` to misread as the interval
    assert not {"mean", "ci"} & set(shown)
    assert (shown["sacrebleu_mean"], shown["sacrebleu_half_width"]) == (near.mean, near.ci)


@pytest.mark.parametrize("corpus", CORPORA)
def test_cli_prints_the_percentile_interval_in_range(corpus, tmp_path, capsys):
    sources, predictions, references = CORPORA[corpus]()
    files = {}
    for name, text in (("src", sources), ("hyp", predictions), *((f"ref{k}", [r[k] for r in references])
                                                                 for k in range(2))):
        files[name] = tmp_path / f"{name}.txt"
        files[name].write_text("\n".join(text) + "\n", encoding="utf-8")
    args = ["score", "errant", "--sources", str(files["src"]), "--predictions", str(files["hyp"]), "--references",
            str(files["ref0"]), str(files["ref1"]), "--bootstrap", str(DEFAULT_SAMPLES)]
    assert main(args) == 0
    printed = re.search(r"^f0\.5\t\S+ \(95% CI \[(\S+), (\S+)\], percentile bootstrap\)$", capsys.readouterr().out,
                        re.M)
    interval = confidence_interval(run("errant", sources, predictions, references).statistic, len(sources))
    assert printed is not None and printed.groups() == (f"{interval.low:.4f}", f"{interval.high:.4f}")
    assert 0 <= float(printed.group(1)) <= float(printed.group(2)) <= 1
    assert main([*args, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)["bootstrap"]
    assert (shown["low"], shown["high"], shown["method"]) == (interval.low, interval.high, "percentile")
