"""Meta-evaluation analyses: Williams' test, agreement per system pair and per human-rank pair, top-K correlation,
hyper-parameter searches."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from gecscore.meta_eval.agreement import pair_agreement, rank_pair_agreement, system_pair_agreement
from gecscore.meta_eval.correlate import Correlation, correlate_systems, sentence_agreement, system_correlation
from gecscore.meta_eval.data import MetaEvalData, RankingItem, load_gjg15, load_seeda
from gecscore.meta_eval.metrics import SystemScores
from gecscore.meta_eval.search import (cross_validated_search, grid_search, parse_values, rank_correlations,
                                       runner_scorer, simplex_grid)
from gecscore.meta_eval.topk import top_k_correlations
from gecscore.meta_eval.williams import compare_metrics, williams_test

# ------------------------------------------------------------------------------------------------ Williams' test


def test_williams_steiger_example_by_hand():
    """The correlations of Steiger (1980)'s example (quoted by psych::r.test), n = 103, worked out by hand."""
    from scipy.special import betainc

    k = 1 - 0.5 ** 2 - 0.4 ** 2 - 0.1 ** 2 + 2 * 0.5 * 0.4 * 0.1            # 1 - .25 - .16 - .01 + .04 = .62
    numerator = (0.5 - 0.4) * math.sqrt((103 - 1) * (1 + 0.1))                # .1 * sqrt(112.2) = 1.05925
    denominator = math.sqrt(2 * k * 102 / 100 + ((0.5 + 0.4) / 2) ** 2 * (1 - 0.1) ** 3)  # sqrt(1.2648 + .14762)
    assert k == pytest.approx(0.62) and denominator == pytest.approx(math.sqrt(1.4124225))
    result = williams_test(0.5, 0.4, 0.1, 103)
    assert result.t == pytest.approx(numerator / denominator) and round(result.t, 3) == 0.891
    # One-sided p of Student's t with 100 dof via the incomplete beta function: P(T > t) = I_{v/(v+t^2)}(v/2, 1/2) / 2.
    assert result.p == pytest.approx(0.5 * betainc(50, 0.5, 100 / (100 + result.t ** 2)))
    assert round(result.p, 3) == 0.187


def test_williams_mt_metrics_eval_example():
    """google-research/mt-metrics-eval's unit test of `WilliamsSigDiff`: p = 0.019, r1 = .999, r2 = .987."""
    systems = list("abcde")
    gold = dict(zip(systems, [1, 2, 3, 4, 5]))
    result = compare_metrics(gold, dict(zip(systems, [1.1, 2, 3.1, 4, 5.1])), dict(zip(systems, [1.5, 2, 3.1, 4, 5.5])),
                             systems)
    assert (round(result.r12, 3), round(result.r13, 3), round(result.p, 3)) == (0.999, 0.987, 0.019)
    # Two degrees of freedom: the t distribution's tail has the closed form 1/2 - t / (2 sqrt(2 + t^2)).
    assert result.n == 5 and result.p == pytest.approx(0.5 - result.t / (2 * math.sqrt(2 + result.t ** 2)))


def test_williams_properties_and_errors():
    assert (williams_test(0.6, 0.6, 0.3, 20).t, williams_test(0.6, 0.6, 0.3, 20).p) == (0.0, 0.5)
    a, b = williams_test(0.8, 0.6, 0.5, 20), williams_test(0.6, 0.8, 0.5, 20)
    assert b.t == pytest.approx(-a.t) and b.p == pytest.approx(1 - a.p)
    # Graham & Baldwin's point: the same difference is more significant when the two metrics agree more.
    ps = [williams_test(0.8, 0.7, r23, 20).p for r23 in (0.5, 0.7, 0.9)]
    assert ps[0] > ps[1] > ps[2]
    with pytest.raises(ValueError, match="n > 3"):
        williams_test(0.8, 0.6, 0.5, 3)
    with pytest.raises(ValueError, match="r23 must be a correlation"):
        williams_test(0.8, 0.6, 1.5, 10)
    with pytest.raises(ValueError, match="cannot all hold"):
        williams_test(0.9, -0.9, 0.9, 10)
    with pytest.raises(ValueError, match="non-constant"):
        compare_metrics({"a": 1, "b": 2, "c": 3, "d": 4}, {"a": 1, "b": 1, "c": 1, "d": 1},
                        {"a": 1, "b": 3, "c": 2, "d": 4}, list("abcd"))


# ------------------------------------------------------------------------------------------------ per-pair agreement


def test_pair_agreement_by_hand():
    items = [
        RankingItem(0, "x", {"A": 1, "B": 2, "C": 3}),
        RankingItem(1, "x", {"A": 2, "B": 1, "C": 1}),  # B-C tied for the humans: skipped
        RankingItem(1, "y", {"A": 1, "B": 2}),          # C not shown
    ]
    scores = {"A": [0.9, 0.5], "B": [0.5, 0.5], "C": [0.7, 0.1]}
    # A-B: s0 human A, metric A (agree); s1/x human B, metric tie → "B better" (agree); s1/y human A, tie → B (no).
    # A-C: s0 human A, metric A (agree); s1/x human C, metric A (no).   B-C: s0 human B, metric C (no).
    matrix = pair_agreement(items, scores, ["A", "B", "C"])
    assert matrix.agree.tolist() == [[0, 2, 1], [2, 0, 0], [1, 0, 0]]
    assert matrix.total.tolist() == [[0, 3, 2], [3, 0, 1], [2, 1, 0]]
    assert matrix.rates[0, 1] == pytest.approx(2 / 3) and np.isnan(matrix.rates[1, 1])
    overall = sentence_agreement(items, scores, ["A", "B", "C"])
    assert matrix.accuracy == pytest.approx(overall.accuracy) == pytest.approx(3 / 6)
    assert np.isnan(pair_agreement(items[2:], scores, ["A", "B", "C"]).rates[0, 2])  # never compared


@pytest.mark.parametrize("name,system_set,pairs", [("edit", "base", 7708), ("sent", "+fluency", 15289)])
def test_pair_agreement_on_seeda_adds_up_to_the_sentence_level(shared_data, name, system_set, pairs):
    data = load_seeda(shared_data)
    systems = data.system_set(system_set)
    scores = {s: [len(h) - len(src) for h, src in zip(data.hypotheses[s], data.sources)] for s in systems}
    matrix = pair_agreement(data.judgments[name], scores, systems)
    assert int(matrix.total.sum()) // 2 == pairs and (matrix.total == matrix.total.T).all()
    assert matrix.accuracy == pytest.approx(sentence_agreement(data.judgments[name], scores, systems).accuracy)
    assert (matrix.total[np.triu_indices(len(systems), 1)] > 0).all()  # SEEDA compares every pair


GOLDEN_RANK_PAIRS = Path(__file__).resolve().parent / "golden_rank_pairs" / "rank_pairs_golden.json"


def test_rank_pair_agreement_by_hand():
    # Sentence 0: A > B > C. Scores A .9, B .5, C .5: A-B (1, 2) agree, A-C (1, 3) agree, B-C (2, 3) metric tie: lost.
    items = [RankingItem(0, "x", {"A": 1, "B": 2, "C": 3}), RankingItem(1, "x", {"A": 2, "B": 1, "C": 2})]
    scores = {"A": [0.9, 0.1], "B": [0.5, 0.4], "C": [0.5, 0.2]}
    # Sentence 1: B first, A and C tied (skipped). A-B: B better, B's .4 > A's .1: agree; B-C (1, 2): agree.
    result = rank_pair_agreement(items, scores, ["A", "B", "C"])
    assert result.pairs == ((1, 2), (1, 3), (2, 3)) and result.total == (3, 1, 1)
    assert result.rates == [1.0, 1.0, 0.0] and result.accuracy == pytest.approx(4 / 5)
    with pytest.raises(ValueError, match="no non-tied human pairs"):
        rank_pair_agreement([RankingItem(0, "x", {"A": 1, "B": 1})], scores, ["A", "B"])


def test_rank_pair_agreement_matches_gec_metrics_pairwise_analysis():
    """gec-metrics 0.1.1's `pairwise_analysis` on a small case (tests/golden_rank_pairs/make_golden.py): the same
    rank pairs and the same accuracies, float for float; its keys are (−worse rank, −better rank)."""
    golden = json.loads(GOLDEN_RANK_PAIRS.read_text(encoding="utf-8"))
    items = [RankingItem(i["sentence"], i["annotator"], i["ranks"]) for i in golden["items"]]
    result = rank_pair_agreement(items, golden["scores"], golden["systems"])
    expected = {(-minus_better, -minus_worse): acc
                for (minus_worse, minus_better), acc in golden["pairwise_analysis"]}
    assert dict(zip(result.pairs, result.rates)) == expected
    assert result.accuracy == sentence_agreement(items, golden["scores"], golden["systems"]).accuracy


def test_system_pair_agreement():
    human = {"a": 3.0, "b": 2.0, "c": 1.0, "d": 1.0}
    metric = {"a": 0.1, "b": 0.3, "c": 0.2, "d": 0.2}
    result = system_pair_agreement(metric, human, list(human))
    # a-b no, a-c no, a-d no, b-c yes, b-d yes, c-d humans tie (skipped).
    assert (result.agree, result.total) == (2, 5) and result.accuracy == pytest.approx(0.4)
    assert result.matrix[1, 2] == result.matrix[2, 1] == 1 and result.matrix[0, 1] == -1 and result.matrix[2, 3] == 0
    assert system_pair_agreement({**metric, "b": 0.1}, human, list(human)).matrix[0, 1] == -1  # metric tie: no
    # Without ties the accuracy is (1 + Kendall's tau) / 2.
    from scipy.stats import kendalltau

    rng = np.random.default_rng(0)
    names = [f"s{i}" for i in range(9)]
    h, m = dict(zip(names, rng.normal(size=9))), dict(zip(names, rng.normal(size=9)))
    tau = kendalltau([m[s] for s in names], [h[s] for s in names])[0]
    assert system_pair_agreement(m, h, names).accuracy == pytest.approx((1 + tau) / 2)
    with pytest.raises(ValueError, match="tie on every pair"):
        system_pair_agreement(metric, {s: 1.0 for s in human}, list(human))


# ------------------------------------------------------------------------------------------------ top-K


def test_top_k_correlations():
    human = {"a": 6.0, "b": 5.0, "c": 4.0, "d": 3.0, "e": 2.0, "f": 1.0}
    metric = {"a": 0.9, "b": 0.8, "c": 0.7, "d": 0.6, "e": 0.95, "f": 0.0}  # wrong only about e
    systems = ["f", "e", "d", "c", "b", "a"]
    curve = top_k_correlations(metric, human, systems)
    assert [c.k for c in curve] == [6, 5, 4]
    assert curve[-1].systems == ("a", "b", "c", "d") and curve[-1].pearson == pytest.approx(1.0)
    assert curve[1].systems == ("a", "b", "c", "d", "e") and curve[1].spearman == pytest.approx(0.0)
    full = system_correlation([metric[s] for s in systems], [human[s] for s in systems])
    assert (curve[0].pearson, curve[0].spearman) == (full.pearson, full.spearman)
    assert [c.k for c in top_k_correlations(metric, human, systems, min_k=2)][-1] == 2
    with pytest.raises(ValueError, match="min_k"):
        top_k_correlations(metric, human, systems, min_k=7)


# ------------------------------------------------------------------------------------------------ searches


def test_simplex_grid_is_cleme2s_alpha_grid():
    grid = simplex_grid(0.05)
    assert len(grid) == 969  # compositions of 20 twentieths into 4 positive parts: C(19, 3)
    assert all(len(a) == 4 and min(a) >= 0.05 and sum(a) == pytest.approx(1.0) for a in grid)
    assert (0.45, 0.35, 0.15, 0.05) in grid and (0.35, 0.25, 0.2, 0.2) in grid  # the paper's two choices
    assert simplex_grid(0.25) == [(0.25, 0.25, 0.25, 0.25)]
    with pytest.raises(ValueError, match="step"):
        simplex_grid(0.3)


def test_parse_values():
    lambdas = parse_values("0.02:1:0.02")  # UOT-ERRANT's λ grid
    assert len(lambdas) == 50 and lambdas[0] == 0.02 and lambdas[4] == 0.1 and lambdas[-1] == 1.0
    assert parse_values("0.5,1,abc,null") == [0.5, 1, "abc", None]
    assert len(parse_values("simplex:0.1")) == 84
    with pytest.raises(ValueError, match="START:STOP:STEP"):
        parse_values("0:1:0.3")


def test_ranking_breaks_ties_by_the_other_correlation():
    corrs = [Correlation(0.9004, 0.5), Correlation(0.9001, 0.7), Correlation(0.8, 1.0), Correlation(math.nan, 1.0),
             Correlation(0.9001, 0.7)]
    assert rank_correlations(corrs) == [1, 4, 0, 2, 3]  # .900 ties on 3 decimals; Spearman decides; then position
    assert rank_correlations(corrs, decimals=6)[:2] == [0, 1]
    assert rank_correlations(corrs, "spearman")[:3] == [2, 3, 1]
    with pytest.raises(ValueError, match="key"):
        rank_correlations(corrs, "kendall")


SYSTEMS = ("A", "B", "C", "D", "E")


def _fold(name: str, human: dict[str, float]) -> MetaEvalData:
    return MetaEvalData(dataset="toy", reference_set=name, systems=SYSTEMS, system_sets={"all": SYSTEMS},
                        sources=["x"], hypotheses={s: ["x"] for s in SYSTEMS}, references=[["x"]],
                        human={"h": human, "g": {s: -v for s, v in human.items()}})


def _shifted_scorer(value: float, data: MetaEvalData, systems) -> dict[str, float]:
    """Metric = human score plus `value` times a fixed distortion."""
    noise = {"A": 1.0, "B": -2.0, "C": 0.5, "D": 2.0, "E": -1.0}
    return {s: data.human["h"][s] + value * noise[s] for s in systems}


def test_grid_search_with_a_synthetic_scorer():
    data = _fold("dev", {"A": 5.0, "B": 4.0, "C": 3.0, "D": 2.0, "E": 1.0})
    search = grid_search([2.0, 0.5, 0.0, 1.0], _shifted_scorer, data, system_set="all", humans=["h"], param="w")
    best = search.points[search.best].correlation
    assert search.best_value == 0.0 and (best.pearson, best.spearman) == pytest.approx((1.0, 1.0))
    expected = correlate_systems(_shifted_scorer(0.5, data, SYSTEMS), data.human["h"], SYSTEMS)
    assert search.points[1].correlation == expected and search.ranking[:2] == [2, 1]
    both = grid_search([0.0], _shifted_scorer, data, system_set="all")  # default: every human score, averaged
    assert (both.points[0].correlation.pearson, both.points[0].correlation.spearman) == pytest.approx((0, 0))  # g=-h
    with pytest.raises(ValueError, match="unknown human scores"):
        grid_search([0.0], _shifted_scorer, data, system_set="all", humans=["ts"])


def test_cross_validated_search_with_a_synthetic_scorer():
    preferred = {"r1": 0.0, "r2": 0.5, "r3": 1.5, "r4": 2.0}  # each fold's best value
    rng = np.random.default_rng(2)
    folds = {name: _fold(name, dict(zip(SYSTEMS, rng.normal(size=5)))) for name in preferred}
    offsets = {name: rng.normal(size=5) for name in folds}

    def scorer(value, data, systems):
        f = data.reference_set
        return {s: data.human["h"][s] + abs(value - preferred[f]) * offsets[f][i] for i, s in enumerate(systems)}

    values = [0.0, 0.5, 1.0, 1.5, 2.0]
    cv = cross_validated_search(values, scorer, folds, system_set="all", humans=["h"], param="v")
    table = {(v, f): correlate_systems(scorer(v, folds[f], SYSTEMS), folds[f].human["h"], SYSTEMS)
             for v in values for f in folds}
    assert cv.table[2][1] == table[1.0, "r2"] and cv.folds == list(preferred)
    for r in cv.rounds:  # brute force: the best mean Pearson on the other folds (3 decimals, then Spearman)
        train = {v: np.mean([table[v, f].pearson for f in folds if f != r.held_out]) for v in values}
        assert round(train[r.value], 3) == round(max(train.values()), 3)
        assert r.test == table[r.value, r.held_out]
    assert [r.value for r in cv.rounds] == [2.0, 1.5, 0.5, 0.5]  # the choice depends on the held-out fold
    assert cv.final == max(cv.rounds, key=lambda r: r.test.pearson).value == 0.5  # best held out: r3
    assert cv.mean_test.pearson == pytest.approx(np.mean([r.test.pearson for r in cv.rounds]))
    with pytest.raises(ValueError, match="two folds"):
        cross_validated_search(values, scorer, {"r1": folds["r1"]}, system_set="all")


# A metric of the test's own, named by import path as a user names theirs (`--metric module:attribute`).
WEIGHTED = "test_meta_analyses:_WeightedMetric"


class _WeightedMetric:
    """Sentence score: length change plus `weight` when the hypothesis changed the source; counts its calls."""

    name = "test-weighted"
    calls = 0

    def __init__(self, weight: float = 0.0) -> None:
        self.weight = weight

    def settings(self):
        return {"weight": self.weight}

    def score_system(self, sources, hypotheses, references, *, gold_m2=None, progress=False):
        type(self).calls += 1
        return SystemScores([len(h.split()) - len(s.split()) + self.weight * (h != s)
                             for s, h in zip(sources, hypotheses)])


@pytest.fixture
def weighted_metric():
    _WeightedMetric.calls = 0
    return _WeightedMetric


def test_runner_scorer_goes_through_the_cache(shared_data, weighted_metric, tmp_path):
    from gecscore.meta_eval import ScoreCache, get_metric, meta_evaluate

    data, cache = load_seeda(shared_data), ScoreCache(tmp_path)
    scorer = runner_scorer(WEIGHTED, {}, "weight", aggregation="expected_wins", cache=cache)
    search = grid_search([0.0, 1.0], scorer, data, system_set="base", humans=["ts_edit"], param="weight")
    assert weighted_metric.calls == 2 * 12
    again = grid_search([0.0, 1.0], scorer, data, system_set="base", humans=["ts_edit"], param="weight")
    assert weighted_metric.calls == 2 * 12 and again == search
    reference = meta_evaluate(get_metric(WEIGHTED, weight=1.0), data, system_set="base",
                              aggregation="expected_wins", cache=cache, window=None)
    assert search.points[1].correlation == reference.system["ts_edit"]


def test_cleme2_alpha_cross_validation_on_a_gjg15_slice(shared_data):
    """CLEME2.0 (unweighted, model-free) through the runner: 2 reference sets × 2 α on 15 sentences."""
    pytest.importorskip("gecscore.cleme2.metric")
    from gecscore.meta_eval import get_metric, meta_evaluate

    folds = {ref: load_gjg15(shared_data, ref).select(range(15)) for ref in ("official", "ne-minimal")}
    alphas = [(0.45, 0.35, 0.15, 0.05), (0.7, 0.1, 0.1, 0.1)]
    scorer = runner_scorer("cleme2", {"weighting": "none"}, "alpha")
    cv = cross_validated_search(alphas, scorer, folds, system_set="all", humans=["ew", "ts"], param="alpha")
    direct = meta_evaluate(get_metric("cleme2", weighting="none", alpha=alphas[1]), folds["ne-minimal"],
                           system_set="all", window=None)
    expected = [np.mean([getattr(direct.system[h], k) for h in ("ew", "ts")]) for k in ("pearson", "spearman")]
    assert (cv.table[1][1].pearson, cv.table[1][1].spearman) == pytest.approx(expected)
    assert {r.held_out for r in cv.rounds} == set(folds) and cv.final in alphas


# ------------------------------------------------------------------------------------------------ plots and CLI


def test_analysis_plots_write_png_and_svg(tmp_path):
    from gecscore.meta_eval.plots import (cross_validation_plot, pair_agreement_plot, rank_pair_plot, search_plot,
                                          system_pair_plot, top_k_plot)

    items = [RankingItem(0, "x", {"A": 1, "B": 2, "C": 3}), RankingItem(1, "x", {"A": 2, "B": 1})]
    scores = {"A": [0.9, 0.5], "B": [0.5, 0.6], "C": [0.7, 0.1]}
    matrix = pair_agreement(items, scores, ["A", "B", "C"])
    other = pair_agreement(items, {**scores, "A": [0.1, 0.9]}, ["A", "B", "C"])
    human = {"A": 3.0, "B": 2.0, "C": 1.0, "D": 0.0}
    metric = {"A": 0.2, "B": 0.3, "C": 0.1, "D": 0.0}
    data = _fold("dev", {"A": 5.0, "B": 4.0, "C": 3.0, "D": 2.0, "E": 1.0})
    folds = {n: _fold(n, {"A": 5.0, "B": 4.0, "C": 3.0, "D": 2.0, "E": float(i)}) for i, n in enumerate("xyz")}
    paths = [
        pair_agreement_plot(tmp_path / "pairs.png", matrix),
        pair_agreement_plot(tmp_path / "delta.png", matrix, baseline=other),
        rank_pair_plot(tmp_path / "ranks.png", rank_pair_agreement(items, scores, ["A", "B", "C"])),
        system_pair_plot(tmp_path / "system.png", system_pair_agreement(metric, human, list(human))),
        top_k_plot(tmp_path / "topk.png", {"m": top_k_correlations(metric, human, list(human), 2)}),
        search_plot(tmp_path / "search.png", grid_search([0.0, 1.0], _shifted_scorer, data, system_set="all")),
        search_plot(tmp_path / "alpha.png", grid_search([(1, 0), (0, 1)], lambda v, d, s: _shifted_scorer(v[0], d, s),
                                                        data, system_set="all")),
        cross_validation_plot(tmp_path / "cv.png", cross_validated_search([0.0, 1.0], _shifted_scorer, folds,
                                                                          system_set="all")),
    ]
    for path in paths:
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert path.with_suffix(".svg").read_text(encoding="utf-8").lstrip().startswith("<?xml")
    with pytest.raises(ValueError, match="systems differ"):
        pair_agreement_plot(tmp_path / "bad.png", matrix, baseline=pair_agreement(items, scores, ["A", "B"]))


def test_cli_analyses(shared_data, tmp_path, weighted_metric, capsys, monkeypatch):
    from gecscore.cli import main

    plots, out, written = tmp_path / "plots", tmp_path / "result.json", []

    def record(fig, ax, path, *args, svg=False, **kwargs):  # rendering is tested above; here only which files
        import matplotlib.pyplot as plt

        plt.close(fig)
        written.extend([Path(path).name] + ([Path(path).with_suffix(".svg").name] if svg else []))
        return Path(path)

    monkeypatch.setattr("gecscore.meta_eval.plots._finish", record)
    argv = ["meta-eval", "--metric", WEIGHTED, "-o", "weight=2", "--dataset", "seeda", "--data",
            str(shared_data), "--cache-dir", str(tmp_path / "cache"), "--no-progress", "--baseline", WEIGHTED,
            "--pairs", "--top-k", "4", "--search", "weight=0.0,1,2", "--search-human", "ts_edit", "--out", str(out),
            "--plots", str(plots)]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "Williams' test, test-weighted > test-weighted" in text and "best weight:" in text
    assert "agreement by system pair, judgments edit" in text and "top-K systems" in text
    result = json.loads(out.read_text())
    analyses = result["analyses"]
    assert set(analyses) == {"williams", "pairs", "baseline_pairs", "rank_pairs", "system_pairs", "top_k",
                             "baseline_top_k", "search"}
    assert sum(analyses["rank_pairs"]["edit"]["total"]) == 7708
    assert analyses["rank_pairs"]["edit"]["accuracy"] == pytest.approx(result["sentence"]["edit"]["accuracy"])
    assert set(analyses["williams"]) == {"ew_edit", "ew_sent", "ts_edit", "ts_sent"}
    assert sum(map(sum, analyses["pairs"]["edit"]["total"])) // 2 == 7708
    assert analyses["pairs"]["edit"]["accuracy"] == pytest.approx(result["sentence"]["edit"]["accuracy"])
    assert [c["k"] for c in analyses["top_k"]["ts_edit"]] == list(range(12, 3, -1))
    assert [p["value"] for p in analyses["search"]["points"]] == [0.0, 1, 2]
    assert analyses["search"]["best_value"] in (0.0, 1, 2)
    stem = "test-weighted_seeda_official_base_default"
    for kind in ("edit_pairs", "edit_pairs_vs_test-weighted", "edit_rank_pairs", "ts_edit_system_pairs",
                 "ts_edit_topk", "search_weight"):
        assert {f"{stem}_{kind}.png", f"{stem}_{kind}.svg"} <= set(written), kind
    assert f"{stem}_ts_edit_scatter.png" in written and len(written) == 4 + 4 + 2 * (2 + 2 + 2 + 4 + 4 + 1)
    assert weighted_metric.calls == 12 * 3  # weight 2 (metric), 0 (baseline), 1: every other run is cached

    cv = ["meta-eval", "--metric", WEIGHTED, "--dataset", "gjg15", "--data", str(shared_data), "--no-cache",
          "--no-progress", "--search", "weight=0,1", "--cv-references", "official,e-minimal", "--out", str(out)]
    assert main(cv) == 0
    rounds = json.loads(out.read_text())["analyses"]["cross_validation"]["rounds"]
    assert [r["held_out"] for r in rounds] == ["official", "e-minimal"]
    assert "cross-validated search over weight" in capsys.readouterr().out
    assert main(cv[:8] + ["--cv-references", "official"]) == 2
    assert "--cv-references needs --search" in capsys.readouterr().err
    assert main(cv[:8] + ["--search", "weight"]) == 2
    assert "OPTION=VALUES" in capsys.readouterr().err
