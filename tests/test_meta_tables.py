"""The non-correlation tables of benchmarks/meta_eval: rank differences, printed-precision equality, α grids."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from gecscore.cleme2.chunks import samples_from_m2
from gecscore.cleme2.metric import ChunkCounts
from gecscore.meta_eval.cleme_length import LengthWeightedCleme
from gecscore.meta_eval.heuo import com_grid, disentangled, indicator_grid, indicators_of, reference_counts_m2
from gecscore.meta_eval.search import simplex_grid

BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "meta_eval"

# PT-M2 Table 6, as printed: the two model-based columns and the two human rankings.
BERTSCORE = "INPUT UFC IITB RAC SJTU PKU AMU POST CUUI UMC IPN CAMB NTHU".split()
PT_M2 = "AMU CUUI CAMB RAC POST PKU UFC SJTU IITB NTHU INPUT UMC IPN".split()
EW = "AMU RAC CAMB CUUI POST UFC PKU UMC IITB SJTU INPUT NTHU IPN".split()
TS = "AMU CAMB RAC CUUI POST PKU UMC UFC IITB INPUT SJTU NTHU IPN".split()


def test_rank_differences_by_hand(bench):
    rank_differences = bench.listing_values.rank_differences
    assert rank_differences(["b", "a", "c"], [["a", "b", "c"]]) == [1, 1, 0]
    # nearer of two human rankings: "c" is 2 away in the first, 0 in the second; "a" and "b" 1 away in both
    assert rank_differences(["c", "a", "b"], [["a", "b", "c"], ["c", "b", "a"]]) == [0, 1, 1]
    assert rank_differences(["c", "b", "a"], [["a", "b", "c"], ["b", "a", "c"]]) == [2, 0, 1]


def test_nearer_human_rank_gives_the_printed_delta_of_the_model_based_columns(bench):
    """PT-M2 Table 6 prints Δ 53 (BERTScore) and 12 (PT-M²) and per-rank arrows from the same rule."""
    rank_differences = bench.listing_values.rank_differences
    assert sum(rank_differences(BERTSCORE, [EW, TS])) == 53
    assert sum(rank_differences(PT_M2, [EW, TS])) == 12
    assert rank_differences(PT_M2, [EW, TS])[6] == 1  # UFC at 7, between EW 6 and TS 8: printed ↓1
    assert sum(rank_differences(PT_M2, [EW])) != 12 and sum(rank_differences(PT_M2, [TS])) != 12


def test_ranking_orders_by_score(bench):
    assert bench.listing_values.ranking({"a": 0.1, "b": 0.3, "c": 0.2}) == ["b", "c", "a"]


def test_printed_equal_uses_the_printed_decimals(bench):
    printed_equal = bench.cells.printed_equal
    assert printed_equal("0.45", 0.4504) and not printed_equal("0.45", 0.456)
    assert printed_equal("0.0866", 0.08664) and not printed_equal("0.0866", 0.0867)
    assert printed_equal("380", 380.0) and not printed_equal("380", 381.0)
    assert printed_equal("-0.444", -0.4444) and not printed_equal("0.444", -0.444)
    assert printed_equal("CAMB", "CAMB") and not printed_equal("CAMB", "AMU")
    assert not printed_equal("0.45", None) and not printed_equal("0.45", float("nan"))


def test_nonnegative_grid(bench):
    grid = bench.listing_values.nonnegative_grid(0.05)
    assert len(grid) == 1771 and len(set(grid)) == 1771
    assert all(abs(sum(p) - 1) < 1e-9 and min(p) >= 0 for p in grid)
    assert (1.0, 0.0, 0.0, 0.0) in grid and (0.25, 0.25, 0.25, 0.25) in grid
    assert len(simplex_grid(0.05)) == 969 and set(simplex_grid(0.05)) < set(grid)


def test_com_by_hand():
    # tp 1, fp_ne 1, fp_un 0, fn 2: ne 4, hit .25, err .25, und .5, ove 0 → com .25·(.25 + .75 + .5 + 1) = .625
    counts = [[ChunkCounts(tp=1, fp=1, fp_ne=1, fp_un=0, fn=2)]]
    for level in ("corpus", "sentence"):
        assert com_grid(counts, np.array([(0.25, 0.25, 0.25, 0.25)]), level)[0] == pytest.approx(0.625)
        assert com_grid(counts, np.array([(1.0, 0.0, 0.0, 0.0)]), level)[0] == pytest.approx(0.25)


def test_com_grid_makes_the_reference_choice_per_alpha():
    """Two references: one favours hit, the other low under-correction; the chosen one depends on α."""
    a = ChunkCounts(tp=2, fp=0, fn=6)       # hit .25, und .75
    b = ChunkCounts(tp=0, fp=0, fn=1)       # hit 0, und 1 — but a lone FN
    c = ChunkCounts(tp=1, fp=1, fp_un=1, fn=0)
    per_ref = [[a, b], [b, a], [c, a], [a, c]]
    alphas = np.array([(0.7, 0.1, 0.1, 0.1), (0.05, 0.05, 0.85, 0.05), (0.25, 0.25, 0.25, 0.25), (0.1, 0.1, 0.1, 0.7)])
    for level in ("corpus", "sentence"):
        grid = com_grid(per_ref, alphas, level)
        one_by_one = [disentangled(per_ref, tuple(alpha), level)["com"] for alpha in alphas]
        assert grid == pytest.approx(one_by_one, abs=1e-12)
    # sentence level, α = (.7, .1, .1, .1): reference a (hit .25) beats b in each of the first two sentences
    first = com_grid(per_ref[:1], alphas[:1], "sentence")[0]
    assert first == pytest.approx(0.7 * 0.25 + 0.1 * 1 + 0.1 * 0.25 + 0.1 * 1)


def test_grid_average_by_hand(bench):
    human = {"x": 1.0, "y": 2.0, "z": 3.0}
    per_system = {"x": [1.0, 3.0], "y": [2.0, 2.0 + 1e-9], "z": [3.0, 1.0]}  # r = 1 at point 0, -1 at point 1
    r, rho = bench.listing_values.grid_average(per_system, human, ["x", "y", "z"])
    assert r == pytest.approx(0.0, abs=1e-6) and rho == pytest.approx(0.0)


def test_listings_are_well_formed(bench):
    for item in bench.published.listings():
        assert len(item.columns) == len(item.stats) == len(item.published), item.name
        assert item.compute in bench.listing_values.LISTING_COMPUTE
        assert set(item.switches) <= set(bench.switches.SWITCHES), item
        assert not item.tried or item.tried in bench.switches.TRIED, item


def test_listing_cells_statuses(bench):
    item = bench.published.Listing("P", "T", "row", ("a", "b", "c"), ("count",) * 3, ("3", "0.45", "X"), "heuo-table",
                                   "cfg", switches=("alpha-grid=with-zeros",), tried="alpha-grid")
    entry = {"listing": bench.published.listing_to_dict(item), "ours": [3.0, 0.40, "Y"],
             "switches": {"alpha-grid=with-zeros": [4.0, 0.451, "Z"]}}
    cells = bench.cells.cells_from_listings([entry])
    assert [c["status"] for c in cells] == ["reproduced", "unexplained", "unexplained"]
    assert cells[1]["explored_equal"] == ["alpha-grid=with-zeros"]  # explored, not counted
    assert cells[2]["note"].startswith("unexplained: alpha-grid=with-zeros → Z; ")
    declared = bench.cells.cells_from_listings([{**entry, "listing": {**entry["listing"],
                                                                      "declared": "alpha-grid=with-zeros"}}])
    assert [c["status"] for c in declared] == ["unexplained", "reproduced", "unexplained"]  # hits and misses
    assert declared[1]["value"] == pytest.approx(0.451) and declared[0]["explored_equal"] == []


def test_indicators_of_by_hand():
    # tp 1, fp_ne 1, fp_un 2, fn 2: ne 4 → hit .25, err .25, und .5; ove = 2 / (1 + 1 + 2) = .5; empty → all 0
    values = indicators_of(np.array([[1, 3, 1, 2, 2, 0], [0, 0, 0, 0, 0, 5]], dtype=float))
    assert [values[k][0] for k in ("hit", "err", "und", "ove")] == pytest.approx([0.25, 0.25, 0.5, 0.5])
    assert [values[k][1] for k in ("hit", "err", "und", "ove")] == [0.0, 0.0, 0.0, 0.0]


def test_indicator_grid_equals_heuo_per_alpha():
    a, b = ChunkCounts(tp=2, fp=1, fp_ne=1, fn=6), ChunkCounts(tp=0, fp=2, fp_un=2, fn=1)
    c = ChunkCounts(tp=1, fp=1, fp_un=1, fn=0)
    per_ref = [[a, b], [b, a], [c, a], [a, c]]
    alphas = np.array([(0.7, 0.1, 0.1, 0.1), (0.05, 0.05, 0.85, 0.05), (0.0, 0.0, 0.0, 1.0)])
    for level in ("corpus", "sentence"):
        grid = indicator_grid(per_ref, alphas, level)
        for k, alpha in enumerate(alphas):
            one = disentangled(per_ref, tuple(alpha), level)
            assert {n: grid[n][k] for n in grid} == pytest.approx({n: one[n] for n in grid}, abs=1e-12)


HYP_M2 = ("S a b c d e\nA 0 1|||R:OTHER|||x y z|||REQUIRED|||-NONE-|||0\n\n"
          "S f g\nA -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n")
REF_M2 = ("S a b c d e\nA 0 1|||R:OTHER|||x y z|||REQUIRED|||-NONE-|||0\n"
          "A 3 4|||R:OTHER|||q|||REQUIRED|||-NONE-|||0\n\n"
          "S f g\nA 1 2|||R:OTHER|||h|||REQUIRED|||-NONE-|||0\nA -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||1\n")


def test_reference_counts_m2_by_hand():
    counts = reference_counts_m2(HYP_M2, REF_M2)
    for assumption in ("dependent", "independent"):
        first = counts[assumption][0]
        assert (first[0].tp, first[0].fp, first[0].fn) == (1, 0, 1)  # a→x y z matched, d→q missed
    # sentence 2: the hypothesis keeps "g"; reference 1 has g→h, reference 2 keeps it. Dependent: an FN against
    # reference 1 only; independent: "g" agrees with reference 2, so no FN against either.
    assert [(c.tp, c.fp, c.fn) for c in counts["dependent"][1]] == [(0, 0, 1), (0, 0, 0)]
    assert [(c.tp, c.fp, c.fn) for c in counts["independent"][1]] == [(0, 0, 0), (0, 0, 0)]


def test_custom_fn_sigmoid_by_hand():
    """Reference chunks of length 3 and 1 (bias 2); the hypothesis hits the first, misses the second.

    TP: 10 / (1 + 9·e^(2−3)) = 2.32 → clipped to 2.5. FN (length 1): α=2 gives 2 / (1 + e^(2−1)) = .538 → .75,
    the published α=10 [1, 1] gives 1. P = 1; R = 2.5 / 3.25 (resp. 2.5 / 3.5); F0.5 = .9434 (resp. .9259).
    """
    samples = samples_from_m2(HYP_M2.split("\n\n")[0] + "\n", REF_M2.split("\n\n")[0] + "\n")
    custom = LengthWeightedCleme()
    assert custom.weighted_counts(samples)[0][0].fn == pytest.approx(0.75)
    assert custom.weighted_counts(samples)[0][0].tp == pytest.approx(2.5)
    assert custom.score_samples(samples).sentence == [0.9434]
    assert LengthWeightedCleme(fn=(10.0, 1.0, 1.0)).score_samples(samples).sentence == [0.9259]


def test_custom_weights_change_the_cache_key():
    assert LengthWeightedCleme().settings() != LengthWeightedCleme(fn=(10.0, 1.0, 1.0)).settings()
    assert LengthWeightedCleme().settings() != LengthWeightedCleme(robust=True).settings()


def test_cleme_prf_aggregation_probe_by_hand():
    """probes.py §5: CLEME 2025's PRF rules (running-total F per reference; mean of rounded sentence F)."""
    spec = importlib.util.spec_from_file_location("meta_eval_probes", BENCH / "probes.py")
    probes = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(probes)
    # After (1, 0, 0), (TP, FP, FN) = (0, 1, 0) gives F .5556 and (0, 0, 1) gives .8333 on the running totals.
    assert probes.cleme_prf_corpus([[(1, 0, 0)], [(0, 1, 0), (0, 0, 1)]]) == 0.8333
    # Sentence F: (1, 1, 0) → P .5, R 1, F .5556; an empty hypothesis against an empty reference → 1.
    assert probes.cleme_prf_sentence([[(1, 1, 0)], [(0, 1, 0), (0, 0, 0)]]) == (0.5556 + 1.0) / 2
