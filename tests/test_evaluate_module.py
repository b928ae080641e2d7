"""The abstract evaluate base: loading, options, reference normalisation, input errors."""

import textwrap

import evaluate
import pytest

TOY = textwrap.dedent('''
    import evaluate
    from gecscore.evaluate_module import GECMetric
    from gecscore.evaluate_module import text_features


    class Toy(GECMetric):
        NAME = "cleme2"  # borrows CLEME2's option schema (`variant`, `beta`, `release`, `sentences`)

        def _info(self):
            return evaluate.MetricInfo(description="toy", citation="", inputs_description="",
                                       features=text_features())

        def _compute(self, sources, predictions, references, beta=0.5, release="2023", sentences=False, **kwargs):
            out = {"refs": references, "n": len(predictions), "beta": beta, "tag": release}
            return {**out, "per_sentence": [1.0] * len(predictions)} if sentences else out
''')


@pytest.fixture()
def toy_dir(tmp_path):
    d = tmp_path / "toy"
    d.mkdir()
    (d / "toy.py").write_text(TOY)
    return d


def test_loads_concrete_class_and_keeps_init_kwargs(toy_dir):
    metric = evaluate.load(str(toy_dir), variant="cleme", beta=2.0)
    assert type(metric).__name__ == "Toy"
    out = metric.compute(sources=["a"], predictions=["a"], references=["b"])
    assert out == {"refs": [["b"]], "n": 1, "beta": 2.0, "tag": "2023"}
    assert metric.compute(sources=["a"], predictions=["a"], references=[["b"]], release="2025")["tag"] == "2025"


def test_mixed_string_and_list_references_are_not_corrupted(toy_dir):
    metric = evaluate.load(str(toy_dir))
    metric.add_batch(sources=["s1"], predictions=["p1"], references=["r1"])
    metric.add_batch(sources=["s2", "s3"], predictions=["p2", "p3"], references=[["r2", "r2b"], "r3"])
    metric.add(source="s4", prediction="p4", reference=["r4", "r4b"])
    out = metric.compute()
    assert out["refs"] == [["r1"], ["r2", "r2b"], ["r3"], ["r4", "r4b"]]


def test_errors_name_argument_and_position(toy_dir):
    metric = evaluate.load(str(toy_dir))
    with pytest.raises(TypeError, match=r"`references\[0\]\[1\]` must be a string"):
        metric.compute(sources=["a"], predictions=["a"], references=[["b", 2]])
    with pytest.raises(ValueError, match="sources=2, predictions=1"):
        metric.compute(sources=["a", "b"], predictions=["a"], references=["b"])
    with pytest.raises(ValueError, match=r"`predictions\[0\]` is None"):
        metric.compute(sources=["a"], predictions=[None], references=["b"])
    with pytest.raises(TypeError, match=r"unknown option\(s\) \['betta'\]"):
        metric.compute(sources=["a"], predictions=["a"], references=["b"], betta=1)
    with pytest.raises(TypeError, match="unknown option"):
        evaluate.load(str(toy_dir), betta=1)
    with pytest.raises(ValueError, match="nothing to score"):
        metric.compute()


@pytest.mark.parametrize("name", ["return_sentence_scores", "sentence_scores", "sentences"])
def test_every_per_sentence_name_means_the_metrics_own_option(toy_dir, name):
    assert evaluate.load(str(toy_dir), **{name: True}).compute(
        sources=["a"], predictions=["a"], references=["b"])["per_sentence"] == [1.0]
    metric = evaluate.load(str(toy_dir))
    assert "per_sentence" in metric.compute(sources=["a"], predictions=["a"], references=["b"], **{name: True})
    with pytest.raises(TypeError, match="conflicting values for `sentences`"):
        metric.compute(sources=["a"], predictions=["a"], references=["b"], sentences=False,
                       **{"return_sentence_scores" if name == "sentences" else name: True})
