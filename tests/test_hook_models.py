"""The Trainer hook checks the models its metrics will load when it is built (offline: a missing model fails there,
with the error loading gives), and loads no weights doing so."""

from types import SimpleNamespace

import evaluate
import pytest

from conftest import REPO
from gecscore.common import encoders
from gecscore.common.encoders import cannot_load
from gecscore.integrations import seq2seq_compute_metrics

TOKENIZER = SimpleNamespace(pad_token_id=0)  # building the hook reads only the pad id
MISSING = "no-such-org/no-such-model"


def _loading_error(name, **options):
    """What loading `name` says, up to the cause."""
    return str(cannot_load(name, **options))


@pytest.mark.parametrize("metrics", [
    {"uot_errant": {"model": MISSING}},
    {"pt_m2": {"model": MISSING}},
    {"cleme2": {"model": MISSING}},
    {"errant": {}, "cleme2": {"weighting": "llm", "model": MISSING}},
])
def test_a_missing_model_fails_when_the_hook_is_built(metrics):
    from gecscore.cleme2.weights import LLM_ALTERNATIVE

    with pytest.raises(OSError) as error:
        seq2seq_compute_metrics(TOKENIZER, metrics)
    rater = metrics.get("cleme2", {}).get("weighting") == "llm"  # an LLM rater's alternative is no encoder
    assert str(error.value).startswith(_loading_error(MISSING, **({"alternative": LLM_ALTERNATIVE} if rater else {})))
    assert "cannot be loaded offline" in str(error.value)


def test_the_quality_estimators_are_checked(tmp_path):
    from gecscore.impara_ged.metric import QE_ALTERNATIVE

    with pytest.raises(OSError) as error:
        seq2seq_compute_metrics(TOKENIZER, {"impara_ged": {"model": MISSING}})
    assert str(error.value).startswith(_loading_error(MISSING, role="the quality estimator",
                                                      alternative=QE_ALTERNATIVE))
    with pytest.raises(OSError, match=rf"cannot load the similarity estimator \(se_model\) {MISSING!r}.*se_model="):
        seq2seq_compute_metrics(TOKENIZER, {"impara": {"model": "embedded", "se_model": MISSING}})
    with pytest.raises(OSError, match="no such directory"):
        seq2seq_compute_metrics(TOKENIZER, ["uot_errant"], model=str(tmp_path / "not" / "here"))


def test_a_loaded_module_of_ours_is_checked():
    module = evaluate.load(str(REPO / "metrics" / "uot_errant"), model=MISSING)
    with pytest.raises(OSError, match=f"cannot load model {MISSING!r}"):
        seq2seq_compute_metrics(TOKENIZER, [module])


def test_loadable_and_model_free_metrics_build_without_loading_weights(tiny_electra):
    encoders.release_models()
    seq2seq_compute_metrics(TOKENIZER, {"uot_errant": {"model": "minilm"}, "impara_ged": {"model": "embedded"},
                                        "pt_m2": {"model": str(tiny_electra), "layer": 1}, "errant": {},
                                        "cleme": {}, "m2": {}})
    assert encoders.loaded_models() == []
