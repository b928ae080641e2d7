"""Meta-evaluation: data loaders (traps of the spec), aggregation, correlations, cache, CLI, published anchors."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gecscore.common import aggregate as agg
from gecscore.meta_eval.correlate import (human_pairs, sentence_agreement, system_correlation,
                                          window_correlations)
from gecscore.meta_eval.data import (GJG15_SYSTEMS, SEEDA_SYSTEMS, RankingItem, collapsed_sentences,
                                     drop_unchanged, load_gjg15, load_gmeg, load_seeda, official_references,
                                     read_conll_m2, read_lines, seeda_subset_indices)
from gecscore.meta_eval.metrics import SystemScores


@pytest.fixture(scope="module")
def seeda(shared_data):
    return load_seeda(shared_data)


@pytest.fixture(scope="module")
def gold(shared_data):
    return read_conll_m2(shared_data)


# ------------------------------------------------------------------------------------------------ data


def test_seeda_subset_is_rebuilt_from_outputs(shared_data):
    derived = [int(x) for x in read_lines(shared_data / "SEEDA" / "derived" / "subset_indices.txt")]
    assert seeda_subset_indices(shared_data) == derived


def test_seeda_system_sets(seeda):
    assert seeda.systems == SEEDA_SYSTEMS
    assert len(seeda.system_set("base")) == 12 and "REF-M" in seeda.system_set("base")
    assert not {"INPUT", "REF-F", "GPT-3.5"} & set(seeda.system_set("base"))
    assert seeda.system_set("+fluency") == seeda.system_set("+REF-F_GPT-3.5")
    assert len(seeda.system_set("+fluency")) == 14 and "INPUT" not in seeda.system_set("+fluency")
    assert len(seeda.system_set("+input")) == 13 and len(seeda.system_set("all")) == 15
    with pytest.raises(ValueError, match="unknown system set"):
        seeda.system_set("everything")


def test_seeda_human_scores_are_the_files(seeda):
    assert seeda.human["ts_edit"]["BART"] == -0.231
    assert seeda.human["ts_sent"]["REF-F"] == 0.992
    assert seeda.human["ew_edit"]["TransGEC"] == 0.653
    assert seeda.human["ew_sent"]["INPUT"] == 0.068


@pytest.mark.parametrize("name,system_set,expected", [
    ("edit", "base", 7708), ("edit", "+fluency", 12172), ("sent", "base", 9381), ("sent", "+fluency", 15289),
    ("edit", "+input", 9640), ("sent", "+input", 11321), ("edit", "all", 14570), ("sent", "all", 17747),
])
def test_seeda_pair_counts(seeda, name, system_set, expected):
    assert sum(1 for _ in human_pairs(seeda.judgments[name], seeda.system_set(system_set))) == expected


def test_seeda_xml_ids_are_one_based(seeda, shared_data):
    # Item 1 of judgments_edit.xml is src-id 12 = CoNLL line 11, the first subset sentence.
    first = seeda.judgments["edit"][0]
    assert first.sentence == 0 and first.ranks["T5"] == first.ranks["Riken-Tohoku"] == 1
    assert len(seeda.judgments["edit"]) == len(seeda.judgments["sent"]) == 600
    assert len({item.sentence for item in seeda.judgments["edit"]}) == 391
    # Systems collapsed into one <translation> ("T5 Riken-Tohoku") have identical outputs at src-id - 1.
    assert seeda.hypotheses["T5"][0] == seeda.hypotheses["Riken-Tohoku"][0]


def test_official_references_match_gec_metrics_and_pt_m2(shared_data, gold):
    ref0, ref1 = official_references(gold)
    assert ref0 == read_lines(shared_data / "CoNLL-2014" / "derived" / "REF0.txt")
    assert ref1 == read_lines(shared_data / "CoNLL-2014" / "derived" / "REF1.txt")
    pt0, pt1 = official_references(gold, "official-pt-m2")
    assert pt0 == read_lines(shared_data / "CoNLL-2014" / "PT-M2" / "data" / "reference" / "ref0")
    assert pt1 == read_lines(shared_data / "CoNLL-2014" / "PT-M2" / "data" / "reference" / "ref1")


def test_88_collapsed_sentences(gold, seeda, shared_data):
    collapsed = collapsed_sentences(gold)
    assert len(collapsed) == 88
    subset = seeda_subset_indices(shared_data)
    in_subset = [j for j, i in enumerate(subset) if i in set(collapsed)]
    assert len(in_subset) == 22
    # gec-metrics convention: REF1 is the source there, REF0 is not.
    assert all(seeda.references[j][1] == seeda.sources[j] != seeda.references[j][0] for j in in_subset)
    pt = load_seeda(shared_data, "official-pt-m2")
    assert all(pt.references[j][1] == pt.references[j][0] for j in in_subset)
    assert seeda.gold_m2 is not None and len(seeda.gold_m2) == 391


def test_seeda_sn8_uses_annotator_b_only_for_expert_sets(shared_data, seeda):
    e_min = load_seeda(shared_data, "e-minimal")
    assert all(len(refs) == 1 for refs in e_min.references)
    # Annotator A is REF-M itself, so it must not be a reference.
    assert sum(refs[0] == h for refs, h in zip(e_min.references, seeda.hypotheses["REF-M"])) < 391
    assert all(len(refs) == 2 for refs in load_seeda(shared_data, "ne-fluency").references)
    assert e_min.gold_m2 is None


def test_exclude_unchanged_counts_of_cleme2(shared_data):
    full = 2 * 1312
    for name, removed in (("e-minimal", 470), ("ne-minimal", 612)):
        data = load_gjg15(shared_data, name, exclude_unchanged=True)
        assert full - sum(len(r) for r in data.references) == removed
    assert drop_unchanged(["a b"], [["a b", "a c"]]) == [["a c"]]
    assert drop_unchanged(["a b"], [["a b", "a b"]]) == [["a b"]]


def test_gjg15(shared_data):
    data = load_gjg15(shared_data)
    assert data.systems == GJG15_SYSTEMS and len(data.sources) == 1312
    assert data.sources == [s.source for s in data.gold_m2]  # trailing spaces stripped
    assert data.human["ew"]["AMU"] == 0.628 and data.human["ts"]["IPN"] == -0.358
    items = data.judgments["gjg15"]
    assert len(items) == 2319 and sum(1 for i in items if not i.ranks) == 13
    # src-id is 0-based: the first item (src-id 135) collapses IITB INPUT IPN NTHU RAC SJTU UFC, whose outputs
    # are identical at line 135.
    assert items[0].sentence == 135
    assert len({data.hypotheses[s][135] for s in ("IITB", "INPUT", "IPN", "NTHU", "RAC", "SJTU", "UFC")}) == 1
    assert data.system_set("-input") == tuple(s for s in GJG15_SYSTEMS if s != "INPUT")


def test_gjg15_human_scores_table3_and_nusnlp_files(shared_data):
    data = load_gjg15(shared_data)
    assert set(data.human) == {"ew", "ts", "ew_nusnlp", "ts_nusnlp"}
    for name in ("ew", "ts"):
        for system in GJG15_SYSTEMS:
            assert data.human[name][system] == pytest.approx(data.human[f"{name}_nusnlp"][system], abs=0.0025)
    assert data.human["ew_nusnlp"]["CUUI"] == 0.549 and data.human["ew"]["CUUI"] == 0.550


def test_gmeg(shared_data):
    data = load_gmeg(shared_data, "wiki")
    assert data.systems[-2:] == ("ref0", "source") and len(data.sources) == 992
    assert all(len(r) == 3 for r in data.references)
    assert data.human["score"]["ref0"] == pytest.approx(82.00431000971824)
    assert load_gmeg(shared_data, "fce").human["score"]["amu"] == pytest.approx(71.23, abs=0.01)
    with pytest.raises(ValueError, match="yahoo"):
        load_gmeg(shared_data, "yahoo")


def test_missing_data_dir_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="SEEDA"):
        load_seeda(tmp_path)


# ------------------------------------------------------------------------------------------------ aggregation


def test_pairwise_outcomes_strict_comparison():
    out = agg.pairwise_outcomes([[1.0, 0.5], [1.0, 0.7], [0.0, 0.7]])
    assert out[0].tolist() == [[0, 0, 1], [0, 0, 1], [-1, -1, 0]]
    assert out[1].tolist() == [[0, -1, -1], [1, 0, 0], [1, 0, 0]]


def test_trueskill_has_no_global_side_effects():
    import trueskill

    before = trueskill.global_env()
    settings = (before.mu, before.sigma, before.beta, before.tau, before.draw_probability)
    scores = agg.trueskill_scores([[0.9, 0.8, 0.7], [0.5, 0.5, 0.9], [0.1, 0.5, 0.2]])
    after = trueskill.global_env()
    assert after is before and (after.mu, after.sigma, after.beta, after.tau, after.draw_probability) == settings
    assert trueskill.Rating().mu == 25.0
    assert scores[0] > scores[1] > scores[2]


def test_trueskill_matches_a_hand_run_of_the_reference_procedure():
    import itertools

    import trueskill

    scores = [[0.3, 0.9, 0.1, 0.5], [0.3, 0.2, 0.4, 0.5], [0.7, 0.2, 0.0, 0.6]]
    env = trueskill.TrueSkill(mu=0.0, sigma=0.5, beta=0.25, tau=0.0, draw_probability=0.25)
    players = [env.create_rating() for _ in scores]
    for k in range(4):
        for i, j in itertools.combinations(range(3), 2):
            a, b = scores[i][k], scores[j][k]
            ranks = (0, 1) if a > b else (1, 0) if a < b else (0, 0)
            (players[i],), (players[j],) = env.rate([(players[i],), (players[j],)], ranks=ranks)
    assert agg.trueskill_scores(scores) == [p.mu for p in players]
    assert agg.trueskill_scores(scores)[0] != agg.trueskill_scores([scores[0][::-1], scores[1][::-1],
                                                                    scores[2][::-1]])[0]  # order matters


def _package_trueskill(scores):
    """gec-metrics' procedure with the trueskill package's own `rate`, match by match."""
    import itertools

    import trueskill

    env = trueskill.TrueSkill(**agg.TRUESKILL_SETTINGS)
    players = [env.create_rating() for _ in scores]
    for k in range(len(scores[0])):
        for i, j in itertools.combinations(range(len(scores)), 2):
            a, b = scores[i][k], scores[j][k]
            ranks = (0, 1) if a > b else (1, 0) if a < b else (0, 0)
            (players[i],), (players[j],) = env.rate([(players[i],), (players[j],)], ranks=ranks)
    return [p.mu for p in players]


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 6).flatmap(lambda n: st.integers(1, 30).flatmap(lambda m: st.lists(
    st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0, 2.0]), min_size=m, max_size=m), min_size=n, max_size=n))))
def test_trueskill_is_the_packages_rate_bit_for_bit(scores):
    """`rate_1vs1` stands in for `trueskill.TrueSkill.rate`: every final mean equal as a float, wins, losses and
    draws mixed (few score levels: many draws; a system that always wins: long streaks, far-apart ratings)."""
    assert agg.trueskill_scores(scores) == _package_trueskill(scores)


def test_trueskill_long_streaks_and_a_late_upset_equal_the_package():
    """Thousands of straight wins (ratings far apart, sigmas small), then an upset: the same means as the package."""
    streak = [[1.0] * 300, [0.0] * 300, [0.0] * 150 + [1.0] * 150]
    assert agg.trueskill_scores(streak) == _package_trueskill(streak)
    upset = [[1.0] * 2000 + [0.0], [0.0] * 2000 + [1.0]]
    assert agg.trueskill_scores(upset) == _package_trueskill(upset)


def test_expected_wins():
    # A beats B on 2 of 3 decided sentences, A beats C always, B and C split.
    scores = [[1, 1, 0, 1], [0, 0, 1, 1], [0, 1, 0, 0]]
    a, b, c = agg.expected_wins(scores)
    assert a == pytest.approx((2 / 3 + 1) / 2)
    assert b == pytest.approx((1 / 3 + 2 / 3) / 2)  # B vs C: B wins sentences 2,3; C wins sentence 1
    assert c == pytest.approx((0 + 1 / 3) / 2)
    with pytest.raises(ValueError, match="'x' and 'y' tie on every sentence"):
        agg.expected_wins([[1, 1], [1, 1]], ["x", "y"])


def test_aggregate_rejects_bad_input():
    with pytest.raises(ValueError, match="unknown aggregation"):
        agg.aggregate_scores("median", [[1.0], [2.0]])
    with pytest.raises(ValueError, match="one score per sentence"):
        agg.trueskill_scores([[1.0, 2.0], [1.0]])
    with pytest.raises(ValueError, match=r"scores\[1\]\[0\] is NaN"):
        agg.pairwise_outcomes([[1.0], [math.nan]])


# ------------------------------------------------------------------------------------------------ correlations


def test_sentence_agreement_tie_rules():
    items = [
        RankingItem(0, "a", {"A": 1, "B": 2, "C": 2}),  # B-C tied for humans: skipped
        RankingItem(1, "a", {"A": 2, "B": 1}),           # C absent: only A-B
    ]
    scores = {"A": [0.5, 0.4], "B": [0.2, 0.4], "C": [0.9, 0.0]}
    # Sentence 0: A>B human +1, metric +1 agree; A>C human +1, metric -1 disagree.
    # Sentence 1: B better (human -1); metric tie counts as "second better" (-1): agree.
    result = sentence_agreement(items, scores, ["A", "B", "C"])
    assert (result.agree, result.disagree, result.total) == (2, 1, 3)
    assert result.accuracy == pytest.approx(2 / 3) and result.kendall == pytest.approx(1 / 3)
    assert sentence_agreement(items, scores, ["A", "C"]).total == 1  # systems outside the set are skipped


def test_window_correlations():
    human = {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0, "e": 0.0}
    metric = {"a": 1.0, "b": 2.0, "c": 3.0, "d": 4.0, "e": 10.0}
    windows = window_correlations(metric, human, list(human), 4)
    assert [(w.start, w.end) for w in windows] == [(0, 3), (1, 4)]
    assert windows[0].systems == ("a", "b", "c", "d") and windows[0].spearman == pytest.approx(-1.0)
    with pytest.raises(ValueError, match="window"):
        window_correlations(metric, human, list(human), 6)


def test_constant_metric_gives_nan_not_an_exception():
    corr = system_correlation([1.0, 1.0, 1.0], [0.1, 0.2, 0.3])
    assert math.isnan(corr.pearson) and math.isnan(corr.spearman)


# ------------------------------------------------------------------------------------------------ runner, cache, CLI


# A metric of the test's own, named by import path as a user names theirs (`--metric module:attribute`).
LENGTH = "test_meta_eval:_LengthMetric"


class _LengthMetric:
    """A toy metric (hypothesis length change) that counts its calls."""

    name = "test-length"
    calls = 0

    def settings(self):
        return {"version": 1}

    def score_system(self, sources, hypotheses, references, *, gold_m2=None, progress=False):
        type(self).calls += 1
        scores = [float(len(h.split()) - len(s.split())) + 0.001 * len(h) for s, h in zip(sources, hypotheses)]
        return SystemScores(scores)


@pytest.fixture
def length_metric():
    _LengthMetric.calls = 0
    return _LengthMetric


def test_data_select_reindexes_judgments(seeda):
    part = seeda.select([5, 0, 7])
    assert part.sources == [seeda.sources[i] for i in (5, 0, 7)]
    assert {item.sentence for item in part.judgments["edit"]} <= {0, 1, 2}
    assert len(part.judgments["edit"]) == sum(1 for it in seeda.judgments["edit"] if it.sentence in (5, 0, 7))
    assert part.gold_m2[0] is seeda.gold_m2[5]
    with pytest.raises(ValueError, match="distinct"):
        seeda.select([1, 1])


def test_cli_second_aggregation_does_not_call_the_metric(shared_data, tmp_path, length_metric, capsys):
    from gecscore.cli import main

    common = ["meta-eval", "--metric", LENGTH, "--dataset", "seeda", "--data", str(shared_data),
              "--cache-dir", str(tmp_path / "cache"), "--no-progress"]
    assert main(common + ["--aggregation", "default", "--out", str(tmp_path / "a.json")]) == 0
    assert length_metric.calls == 12  # one call per Base system
    assert main(common + ["--aggregation", "expected_wins", "--out", str(tmp_path / "b.json")]) == 0
    assert length_metric.calls == 12
    a, b = (json.loads((tmp_path / f"{x}.json").read_text()) for x in "ab")
    assert a["aggregation"] == "default" and b["aggregation"] == "expected_wins"
    assert a["sentence"] == b["sentence"] and a["sentence"]["edit"]["total"] == 7708
    assert set(a["system"]) == {"ew_edit", "ew_sent", "ts_edit", "ts_sent"}
    assert len(b["windows"]["ts_edit"]) == 12 - 4 + 1 and a["metric_scores"] != b["metric_scores"]
    assert b["signature"].startswith("test-length|gecscore:")
    out = capsys.readouterr().out
    assert "ts_edit" in out and "Pearson" in out
    # Another system set needs only the two new systems.
    assert main(common + ["--system-set", "+fluency"]) == 0
    assert length_metric.calls == 14


def test_cli_errors(shared_data, tmp_path, length_metric, capsys):
    from gecscore.cli import main

    base = ["meta-eval", "--dataset", "seeda", "--data", str(shared_data), "--no-cache"]
    assert main(base + ["--metric", "no-such-metric"]) == 2
    assert "unknown metric 'no-such-metric'" in capsys.readouterr().err
    assert main(base + ["--metric", "m2", "-o", "gamma=1"]) == 2
    assert "unknown option(s) ['gamma']" in capsys.readouterr().err
    assert main(base + ["--metric", LENGTH, "--references", "bn-10gec"]) == 2
    assert "unknown reference set 'bn-10gec'" in capsys.readouterr().err
    assert main(["meta-eval", "--metric", LENGTH, "--dataset", "seeda", "--data", str(tmp_path)]) == 2


def test_plots_are_png_files(tmp_path):
    from gecscore.meta_eval.plots import scatter_plot, window_plot

    human = {"a": 3.0, "b": 2.0, "c": 1.0, "d": 0.0}
    metric = {"a": 0.3, "b": 0.1, "c": 0.2, "d": 0.0}
    scatter = scatter_plot(tmp_path / "s.png", metric, human, list(human), title="t")
    windows = window_plot(tmp_path / "w.png", window_correlations(metric, human, list(human), 3))
    for path in (scatter, windows):
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_m2_slice_quick(shared_data):
    """M² and SentM² through the runner on 30 GJG15 sentences (seconds)."""
    from gecscore.meta_eval import get_metric, meta_evaluate

    pytest.importorskip("gecscore.pt_m2.lattice")
    data = load_gjg15(shared_data).select(range(30))
    m2 = meta_evaluate(get_metric("m2"), data, system_set="all", aggregation="default")
    sent = meta_evaluate(get_metric("sentm2"), data, system_set="all", aggregation="default")
    assert m2.metric_scores["INPUT"] == 0.0 and 0.0 < m2.metric_scores["AMU"] < 1.0
    assert sent.sentence["gjg15"].total == sum(1 for _ in human_pairs(data.judgments["gjg15"], data.systems))
    assert -1.0 <= m2.system["ew"].pearson <= 1.0


# ------------------------------------------------------------------------------------------------ published anchors


@pytest.fixture(scope="module")
def anchor_cache(run_dir):
    """The run's shared score cache (empty when the run starts; `tests/test_meta_cells.py`'s whole-table parts score
    into it too): each configuration is computed from scratch once per run, by whichever test needs it first."""
    from gecscore.meta_eval import ScoreCache

    return ScoreCache(run_dir / "meta_eval")


@pytest.mark.slow
def test_errant_seeda_e_base_official_trueskill_uot_errant_table1(shared_data, anchor_cache):
    """UOT-ERRANT paper Table 1, ERRANT row, Official: r .881, rho .895 (plus the gec-metrics-paper anchors)."""
    pytest.importorskip("gecscore.common.errant_scoring")
    from gecscore.meta_eval import get_metric, meta_evaluate

    data = load_seeda(shared_data)
    errant = get_metric("errant")
    ts = meta_evaluate(errant, data, system_set="base", aggregation="trueskill", cache=anchor_cache)
    assert round(ts.system["ts_edit"].pearson, 3) == 0.881
    assert round(ts.system["ts_edit"].spearman, 3) == 0.895
    assert round(ts.system["ts_sent"].spearman, 3) == 0.706  # "Rethinking…": ERRANT SEEDA-S Base, TrueSkill
    default = meta_evaluate(errant, data, system_set="base", aggregation="default", cache=anchor_cache)
    assert round(default.system["ts_sent"].spearman, 3) == 0.343  # … and default aggregation
    assert (round(default.sentence["sent"].accuracy, 3), round(default.sentence["sent"].kendall, 3)) == (0.594, 0.189)


@pytest.mark.slow
@pytest.mark.parametrize("metric,expected", [
    ("m2", {"ew_nusnlp": (0.623, 0.687), "ts_nusnlp": (0.672, 0.720)}),
    ("sentm2", {"ew_nusnlp": (0.871, 0.731), "ts_nusnlp": (0.864, 0.758)}),
])
def test_m2_gjg15_pt_m2_table5(shared_data, anchor_cache, metric, expected):
    """PT-M2 paper Table 5 (also CLEME2.0 Table 1, CoNLL-2014 column): official M2, 13 systems, the human
    scores of Chollampatt & Ng (2018)."""
    pytest.importorskip("gecscore.pt_m2.lattice")
    from gecscore.meta_eval import get_metric, meta_evaluate

    result = meta_evaluate(get_metric(metric), load_gjg15(shared_data), system_set="all", aggregation="default",
                           cache=anchor_cache)
    for name, (r, rho) in expected.items():
        assert (round(result.system[name].pearson, 3), round(result.system[name].spearman, 3)) == (r, rho)
    if metric == "m2":  # the official CoNLL-2014 F0.5 of each team
        assert round(result.metric_scores["AMU"], 4) == 0.3501 and round(result.metric_scores["CAMB"], 4) == 0.3733


def test_errant_adapter_sentence_and_corpus_rules(nlp):
    """Per sentence: best reference, ERRANT zero-division rules; corpus: greedy counts vs sentence mean."""
    pytest.importorskip("gecscore.common.errant_scoring")
    from gecscore.meta_eval import get_metric

    sources = ["He go to school .", "This is fine .", "She like apple ."]
    hypotheses = ["He goes to school .", "This is fine .", "She like apple ."]
    references = [["He went to school .", "He goes to school ."], ["This is fine ."], ["She likes apples ."]]
    errant = get_metric("errant").score_system(sources, hypotheses, references)
    sent = get_metric("senterrant").score_system(sources, hypotheses, references)
    assert errant.sentence == sent.sentence == [1.0, 1.0, 0.0]  # 2nd reference wins; nothing to do, nothing done
    assert sent.corpus == pytest.approx(2 / 3)
    assert errant.corpus == pytest.approx(1.25 * 1.0 * (1 / 3) / (0.25 * 1.0 + 1 / 3))  # TP 1, FP 0, FN 2


def _toy_data():
    from gecscore.meta_eval import MetaEvalData

    sources = ["he go to school .", "the cat are here .", "she buyed some apple ."]
    hypotheses = {
        "A": ["he goes to school .", "the cat is here .", "she bought some apples ."],
        "B": ["he go to school .", "the cat is here .", "she buyed some apple ."],
        "C": ["he went to school .", "the cats are here .", "she bought an apple ."],
    }
    return MetaEvalData(
        dataset="toy", reference_set="toy", systems=("A", "B", "C"), system_sets={"all": ("A", "B", "C")},
        sources=sources, hypotheses=hypotheses, references=[[h] for h in hypotheses["A"]],
        human={"score": {"A": 1.0, "B": 0.0, "C": 0.5}},
        judgments={"toy": [RankingItem(0, "x", {"A": 1, "B": 3, "C": 2}), RankingItem(2, "x", {"A": 1, "B": 2})]},
    )


def test_impara_adapter_is_lazy_and_cached(tiny_modernbert, tmp_path):
    """Our IMPARA-GED core plugs in by name; a cached run never loads the model."""
    pytest.importorskip("gecscore.impara_ged.metric")
    from gecscore.meta_eval import ScoreCache, get_metric, meta_evaluate

    data, cache = _toy_data(), ScoreCache(tmp_path)
    first = get_metric("impara_ged", model=str(tiny_modernbert))
    assert first.settings()["variant"] == "impara_ged" and first.settings()["model"] == str(tiny_modernbert)
    a = meta_evaluate(first, data, system_set="all", aggregation="default", cache=cache, window=None)
    second = get_metric("impara_ged", model=str(tiny_modernbert))
    b = meta_evaluate(second, data, system_set="all", aggregation="trueskill", cache=cache, window=None)
    assert a.sentence == b.sentence and a.sentence["toy"].total == 4
    assert all(0.0 < v < 1.0 for v in a.metric_scores.values())  # mean of sigmoids
    with pytest.raises(ValueError, match="`variant` must be one of"):
        get_metric("impara_ged", variant="bogus")


@pytest.mark.parametrize("name,module,options", [
    ("cleme2", "gecscore.cleme2.metric", {"weighting": "none"}),
    ("cleme2", "gecscore.cleme2.metric", {"weighting": "none", "level": "sentence", "assumption": "independent"}),
    ("cleme", "gecscore.cleme2.metric", {}),
    ("uot_errant", "gecscore.uot_errant.metric", {"model": "tiny_electra"}),
    ("pt_m2", "gecscore.pt_m2.metric", {"model": "tiny_bert", "layer": 2}),
    ("pt_m2", "gecscore.pt_m2.metric", {"model": "tiny_bert", "layer": 2, "variant": "errant"}),
])
def test_our_metrics_plug_in_by_name(request, name, module, options):
    """Each metric core runs through the meta-evaluation by name; a perfect system (A = the references) wins."""
    pytest.importorskip(module)
    from gecscore.meta_eval import get_metric, meta_evaluate

    options = {k: str(request.getfixturevalue(v)) if k == "model" else v for k, v in options.items()}
    metric = get_metric(name, **options)
    assert metric.name == name and all(metric.settings()[k] == v for k, v in options.items())
    result = meta_evaluate(metric, _toy_data(), system_set="all", aggregation="default", window=None)
    assert result.sentence["toy"].total == 4
    assert result.metric_scores["A"] == max(result.metric_scores.values())


@pytest.mark.slow
@pytest.mark.parametrize("references,system_set,expected", [
    ("e-minimal", "base", (0.864, 0.804)), ("ne-minimal", "base", (0.740, 0.720)),
    ("e-fluency", "+fluency", (-0.005, 0.424)), ("ne-fluency", "+fluency", (0.114, 0.508)),
])
def test_errant_uot_errant_table1_other_reference_sets(shared_data, anchor_cache, references, system_set, expected):
    """UOT-ERRANT Table 1, ERRANT row: SN-8GEC references (annotator B only for the expert sets), TrueSkill."""
    pytest.importorskip("gecscore.common.errant_scoring")
    from gecscore.meta_eval import get_metric, meta_evaluate

    result = meta_evaluate(get_metric("errant"), load_seeda(shared_data, references), system_set=system_set,
                           aggregation="trueskill", cache=anchor_cache)
    assert (round(result.system["ts_edit"].pearson, 3), round(result.system["ts_edit"].spearman, 3)) == expected


@pytest.mark.slow
def test_errant_gmeg_wiki_uot_errant_table1(shared_data, anchor_cache):
    """UOT-ERRANT Table 1, GMEG-Data column (wiki test, 8 systems, refs 1-3, TrueSkill): ERRANT .780 / .667."""
    pytest.importorskip("gecscore.common.errant_scoring")
    from gecscore.meta_eval import get_metric, meta_evaluate

    result = meta_evaluate(get_metric("errant"), load_gmeg(shared_data), system_set="all", aggregation="trueskill",
                           cache=anchor_cache)
    assert (round(result.system["score"].pearson, 3), round(result.system["score"].spearman, 3)) == (0.780, 0.667)


@pytest.mark.slow
@pytest.mark.parametrize("variant,options,expected", [
    ("cleme2", {"weighting": "none", "assumption": "dependent"}, (0.700, 0.665, 0.765, 0.736)),
    ("cleme2", {"weighting": "none", "assumption": "independent", "level": "sentence"}, (0.866, 0.709, 0.881, 0.720)),
    ("cleme", {"assumption": "dependent"}, (0.648, 0.709, 0.691, 0.742)),
])
def test_cleme_on_cleme_m2_files_cleme2_table1(shared_data, variant, options, expected):
    """CLEME2.0 Table 1, CoNLL-2014 column, from the ERRANT M2 files CLEME ships (the edits the paper used)."""
    cleme_eval = pytest.importorskip("gecscore.cleme2.metric")
    from gecscore.meta_eval import correlate_systems

    folder = shared_data / "CoNLL-2014" / "CLEME" / "demo" / "examples"
    data = load_gjg15(shared_data)
    scores = {s: cleme_eval.cleme_score(hyp_m2=folder / f"conll14-{s}.errant", ref_m2=folder / "conll14.errant",
                                        variant=variant, **options)["score"] for s in data.systems}
    got = []
    for human in ("ew_nusnlp", "ts_nusnlp"):
        corr = correlate_systems(scores, data.human[human], data.systems)
        got += [round(corr.pearson, 3), round(corr.spearman, 3)]
    assert tuple(got) == expected


def test_get_metric_names_registry_metrics_or_import_paths():
    from gecscore.meta_eval import available_metrics, get_metric

    assert {"uot_errant", "errant", "cleme-length"} <= set(available_metrics())
    assert get_metric(LENGTH).name == "test-length"
    with pytest.raises(ValueError, match="unknown metric 'erant'.*module:attribute"):
        get_metric("erant")
    with pytest.raises(ValueError, match="cannot import module 'no_such_module'"):
        get_metric("no_such_module:Metric")
    with pytest.raises(ValueError, match="no callable 'Nope'"):
        get_metric("test_meta_eval:Nope")
    with pytest.raises(TypeError, match="not a SentenceMetric"):
        get_metric("builtins:dict")


def test_sharing_work_defers_only_full_collections_and_restores_the_thresholds_it_found():
    """Inside `sharing_work` (nested too) the collector's oldest generation waits, the young ones keep their
    thresholds; the outermost block puts back the thresholds it found, after an error too."""
    import gc

    from gecscore.common.sharing import NO_FULL_COLLECTION
    from gecscore.meta_eval import sharing_work

    before = gc.get_threshold()
    gc.set_threshold(500, 7, 9)
    try:
        with sharing_work():
            assert gc.get_threshold() == (500, 7, NO_FULL_COLLECTION)
            with pytest.raises(RuntimeError), sharing_work():
                assert gc.get_threshold() == (500, 7, NO_FULL_COLLECTION)
                raise RuntimeError
            assert gc.get_threshold() == (500, 7, NO_FULL_COLLECTION)
        assert gc.get_threshold() == (500, 7, 9)
    finally:
        gc.set_threshold(*before)
