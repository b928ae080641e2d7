"""Training signals never lie (issue 39): a setup mistake is an error naming the option, column or row, raised
when the reward, reranker or dataset scorer is built where it can be known then; a row is refused only for what
is wrong with its own model output, and a refused candidate is never chosen. Each test here failed on the code
before that issue: the mistakes a new user makes became a batch of zeros, candidate 0, or a traceback."""

from __future__ import annotations

import json
import math
import warnings

import pytest

from gecscore import rerank
from gecscore.rewards import reward_function
from gecscore.sentence_scorer import SentenceScorer
from test_training_signals import tiny  # noqa: F401  (the fixture: every metric's options with tiny models)

SOURCE = "He go to school yesterday ."
CORRECTION = "He went to school yesterday ."
RAW_SOURCE, RAW_CORRECTION = "He go to school yesterday.", "He went to school yesterday."


def columns(n: int, references: list | None = None) -> dict[str, list]:
    return {"source": [SOURCE] * n, "references": references if references is not None else [[CORRECTION]] * n}


# ---------------------------------------------------------------------------------------------------
# Setup mistakes fail when the signal is built, naming the option


@pytest.mark.parametrize("build", [
    lambda model: reward_function("pt_m2", model=model),
    lambda model: SentenceScorer("pt_m2", model=model),
    lambda model: rerank([SOURCE], [[CORRECTION, SOURCE]], metric="pt_m2", model=model),
], ids=["reward", "scorer", "rerank"])
def test_a_model_without_a_default_layer_fails_at_build_naming_layer(build, tiny_bert):
    with pytest.raises(ValueError, match=r"pt_m2 cannot score a sentence with these options.*pass layer=<int>"):
        build(str(tiny_bert))


@pytest.mark.real_model
def test_minilm_without_layer_or_baseline_fails_at_build_with_the_option_to_pass():
    """The first thing a user tries: docs/training.md quotes PT-M2 and BERTScore speeds with MiniLM."""
    with pytest.raises(ValueError, match=r"no default BERTScore layer for 'minilm'; pass layer="):
        reward_function("pt_m2", model="minilm")
    with pytest.raises(ValueError, match=r"no baseline for 'minilm'.*baseline_path="):
        reward_function("bertscore", model="minilm", layer=6)
    reward = reward_function("pt_m2", model="minilm", layer=6)  # what the messages say to pass works
    assert reward(completions=[RAW_CORRECTION], **columns(1)) == [1.0]


def test_a_bad_beta_fails_at_build():
    for build in (lambda: reward_function("errant", beta=float("nan")),
                  lambda: rerank([SOURCE], [[CORRECTION]], metric="errant", beta=float("nan"))):
        with pytest.raises(ValueError, match=r"`beta` must be a number.*got nan"):
            build()


def test_every_row_refused_for_one_reason_is_an_error_not_a_batch_of_zeros():
    """Untokenised completions scored with tokenize=False: every row would be refused for the same reason."""
    reward = reward_function("errant", tokenize=False)
    completions = [RAW_CORRECTION, "He goes to school yesterday.", "He went to school, yesterday."]
    with pytest.raises(ValueError, match=r"every row of the batch \(3\) was refused for the same reason.*"
                                         r"does not look whitespace-tokenised"):
        reward(completions=completions, **columns(3))
    # one bad row among good ones is that row's problem
    values = reward(completions=[CORRECTION, "He \x00 went to school ."], **columns(2))
    assert values == [1.0, 0.0] and [r["index"] for r in reward.last_degenerate] == [1]


def test_a_row_the_metric_refuses_whatever_the_prediction_is_an_error_naming_the_row():
    """An untokenised source with tokenize=False is the data's fault: the call raises, naming the row."""
    reward = reward_function("errant", tokenize=False)
    with pytest.raises(ValueError, match=r"row 1: the metric refuses this row whatever the prediction.*"
                                         r"`sources\[0\]` does not look whitespace-tokenised"):
        reward(completions=[CORRECTION, CORRECTION], source=[SOURCE, RAW_SOURCE],
               references=[[CORRECTION], [CORRECTION]])


# ---------------------------------------------------------------------------------------------------
# Rerank reads raw text as the rewards do; a refused candidate is never chosen


def test_rerank_reads_raw_model_output_as_the_rewards_do():
    candidates = [[RAW_SOURCE, RAW_CORRECTION, "He goes to school yesterday."]]
    result = rerank([RAW_SOURCE], candidates, [[RAW_CORRECTION]], metric="errant", method="reference")
    assert result.choice == [1] and result.degenerate == []
    assert "tokenize:spacy" in result.signature and "robust:True" in result.signature
    reward = reward_function("errant")(completions=candidates[0], source=[RAW_SOURCE] * 3,
                                       references=[[RAW_CORRECTION]] * 3)
    assert result.scores[0] == reward


def test_cli_rerank_reads_raw_text(tmp_path, capsys):
    from gecscore.cli import main

    (tmp_path / "src.txt").write_text(RAW_SOURCE + "\n")
    (tmp_path / "ref.txt").write_text(RAW_CORRECTION + "\n")
    files = []
    for k, text in enumerate([RAW_SOURCE, RAW_CORRECTION]):
        files.append(str(tmp_path / f"cand{k}.txt"))
        (tmp_path / f"cand{k}.txt").write_text(text + "\n")
    assert main(["rerank", "errant", "--method", "reference", "--sources", str(tmp_path / "src.txt"),
                 "--references", str(tmp_path / "ref.txt"), "--candidates", *files, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["choice"] == [1] and out["degenerate"] == [] and "tokenize:spacy" in out["signature"]


@pytest.mark.parametrize("method", ["mbr", "reference", "reference_free"])
def test_a_refused_candidate_is_never_chosen(method, tiny):  # noqa: F811
    metric = "impara_ged" if method == "reference_free" else "errant"
    refs = [[CORRECTION]] if method == "reference" else None
    for group in (["He \x00 went to school .", CORRECTION], [None, CORRECTION], [CORRECTION + " \ud800", SOURCE]):
        result = rerank([SOURCE], [group], refs, metric=metric, method=method, **tiny[metric])
        assert result.choice == [1], (group, result.scores)
        assert all(isinstance(v, float) and math.isfinite(v) for v in result.scores[0])
        assert [r["candidate"] for r in result.degenerate if r["reason"] == "refused"] == [0]


def test_mbr_values_are_numbers_and_ties_go_to_the_earlier_candidate():
    result = rerank([SOURCE, SOURCE], [[CORRECTION], ["He goes to school yesterday .", CORRECTION]], metric="errant")
    assert result.scores[0] == [1.0]  # a lone candidate: its utility against itself
    assert result.scores[1] == [0.0, 0.0] and result.choice == [0, 0]  # equal values: the earlier one
    json.dumps(result.as_dict())


# ---------------------------------------------------------------------------------------------------
# Rows read as the user meant


@pytest.mark.parametrize("cell, message", [
    ({"text": CORRECTION}, r"`refs\[1\]` must be a string or a list of strings, got dict"),
    (7, r"`refs\[1\]` must be a string or a list of strings, got int"),
    ([[CORRECTION]], r"`refs\[1\]\[0\]` must be a string, got list"),
])
def test_a_references_cell_that_is_not_text_is_an_error_naming_column_and_row(cell, message):
    reward = reward_function("errant", references="refs")
    with pytest.raises(TypeError, match=message):
        reward(completions=[CORRECTION, CORRECTION], source=[SOURCE] * 2, refs=[[CORRECTION], cell])
    with pytest.raises(TypeError, match=message.replace("refs", "references")):
        rerank([SOURCE, SOURCE], [[CORRECTION]] * 2, [[CORRECTION], cell], metric="errant", method="reference")


def test_completions_of_the_wrong_type_are_refused_on_their_row():
    bad = [None, 7, [[{"role": "assistant", "content": CORRECTION}]], {"role": "user"}]
    completions = [CORRECTION, *bad, [{"role": "assistant", "content": CORRECTION}]]
    reward = reward_function("errant")
    logged: dict[str, float] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        values = reward(completions=completions, **columns(len(completions)), log_metric=logged.__setitem__)
    assert values == [1.0, 0.0, 0.0, 0.0, 0.0, 1.0]
    refused = {r["index"]: r["why"] for r in reward.last_degenerate if r["reason"] == "refused"}
    assert sorted(refused) == [1, 2, 3, 4]
    assert refused[1].startswith("completion 1 is not text: a completion must be a string")
    assert logged["gecscore/errant/refused"] == pytest.approx(4 / 6)


def test_score_dataset_refuses_a_struct_references_column_naming_column_and_row():
    """A `datasets` struct column gives dicts: read as their keys, a perfect prediction scored 0."""
    from datasets import Dataset

    from gecscore import score_dataset

    rows = {"source": [SOURCE, SOURCE], "prediction": [CORRECTION, CORRECTION],
            "refs": [{"text": CORRECTION}, {"text": CORRECTION}]}
    with pytest.raises(TypeError, match=r"`refs\[0\]` must be a string or a list of strings, "
                                        r"got dict"):
        score_dataset(Dataset.from_dict(rows), "errant", references="refs")
    with pytest.raises(TypeError, match=r"`refs\[0\]` must be a string or a list of strings, got int"):
        score_dataset(Dataset.from_dict({**rows, "refs": [5, 6]}), "errant", references="refs")
    lists_and_strings = {**rows, "refs": [[CORRECTION], [SOURCE]], "ref1": [SOURCE, CORRECTION]}
    scored = score_dataset(Dataset.from_dict(lists_and_strings), "errant", references=["refs", "ref1"])
    assert list(scored["errant"]) == [1.0, 1.0]  # list cells and string cells both read as meant


# ---------------------------------------------------------------------------------------------------
# Rewards that fluent nonsense cannot game


@pytest.mark.real_model
def test_the_recommended_rewards_cannot_be_gamed_on_seeda(shared_data, monkeypatch):
    """benchmarks/reward_sanity.py's protocol on its 20 SEEDA sources: under the combinations docs/training.md
    recommends, neither the unchanged source, the empty string nor an unrelated sentence beats the reference, and
    IMPARA-GED's reward is gated by default (unrelated text earns 0), which it was not before issue 39."""
    from conftest import REPO

    monkeypatch.syspath_prepend(str(REPO / "benchmarks"))
    import reward_sanity

    gated = "IMPARA-GED, gated (training default)"
    assert "variant" not in reward_sanity.REWARDS[gated][1]  # the gate comes from the rewards' default
    rewards = reward_sanity.measure(["ERRANT", "UOT-ERRANT (MiniLM)", gated], shared_data, 20)
    combined = reward_sanity.combine(rewards)
    assert sorted(combined) == sorted(reward_sanity.COMBINED)
    for name, values in combined.items():
        assert reward_sanity.games(values) == dict.fromkeys(reward_sanity.GAMES, 0), name
    assert max(rewards[gated]["unrelated"]) == 0.0


def test_a_model_saved_over_in_the_same_process_is_loaded_again(tmp_path):
    """A notebook retrains its estimator and saves it over the old one: the next score (and the next score_dataset,
    whose cache key changes with the files) must come from the new weights, not the model loaded before."""
    from conftest import build_tiny_model
    from gecscore import registry

    qe = build_tiny_model(tmp_path / "qe", "bert", num_labels=1)
    first = registry.run("impara_ged", [SOURCE], [CORRECTION], model=str(qe)).sentence_scores()
    again = registry.run("impara_ged", [SOURCE], [CORRECTION], model=str(qe)).sentence_scores()
    build_tiny_model(qe, "bert", seed=1, num_labels=1)
    second = registry.run("impara_ged", [SOURCE], [CORRECTION], model=str(qe)).sentence_scores()
    assert again == first and second != first


@pytest.mark.real_model
def test_with_minilm_every_reward_works_or_fails_at_build_with_the_option_to_pass():
    """The model gecscore ships, for every registry name that takes a `model`: a working reward that pays 1 for a
    perfect completion, or an error when it is built that spells the option to pass (`layer=`, `se_model=`...)."""
    from gecscore import registry

    for name in registry.NAMES:
        allowed = registry.allowed_options(name)
        if "model" not in allowed:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                reward = reward_function(name, model="minilm")
            except (ValueError, OSError) as error:
                options = [option.name for option in registry.spec(name).options]  # api_key is not a setting
                assert any(f"{option}=" in str(error) for option in options), f"{name}: {error}"
                continue
        assert reward(completions=[CORRECTION], **columns(1)) == [1.0], name
