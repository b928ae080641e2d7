"""The tolerance rule of the parity tests (`tests/float_noise.py`, docs/tolerances.md) on a stand-in encoder."""

import numpy as np
import pytest

import float_noise


class FakeEncoder:
    """Deterministic vectors per text; a text of one repeated letter has an all-zero vector (an invisible edit)."""

    tokenizer = "the tokenizer"

    def _row(self, text):
        rng = np.random.default_rng(sum(map(ord, text)))
        return np.zeros(8, np.float32) if len(set(text)) == 1 else rng.standard_normal(8).astype(np.float32)

    def embed(self, texts, **options):
        return np.stack([self._row(t) for t in texts]) if texts else np.zeros((0, 8), np.float32)

    def token_states(self, texts, **options):
        return [np.stack([self._row(t + str(k)) for k in range(3)]) for t in texts]


def test_perturbation_is_of_the_stated_size_and_keeps_equal_texts_equal():
    plain, noisy = FakeEncoder(), float_noise.Perturbed(FakeEncoder(), seed=1)
    texts = ["a cat", "a dog", "a cat", "zzzz"]
    base, out = plain.embed(texts), noisy.embed(texts)
    assert np.array_equal(out[0], out[2])  # same text, same noise
    assert not out[3].any()  # a zero vector stays exactly zero
    order = np.random.default_rng(1).permutation(8)
    relative = np.abs(out[:2] - base[:2, order]) / np.sqrt(np.mean(base[:2] ** 2, axis=1, keepdims=True))
    assert 0 < relative.max() < 6 * float_noise.JITTER  # noise of the stated relative size, dimensions permuted
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), np.linalg.norm(base, axis=1), rtol=1e-4)
    assert not np.array_equal(out, float_noise.Perturbed(FakeEncoder(), seed=2).embed(texts))  # seeds differ
    assert noisy.tokenizer == "the tokenizer"  # everything else is the wrapped encoder's
    states = noisy.token_states(["a cat"])[0]
    assert states.shape == (3, 8) and not np.array_equal(states, plain.token_states(["a cat"])[0])
    assert noisy.embed([]).shape == (0, 8)


def test_bar_keeps_the_floor_for_values_that_do_not_move():
    spreads = float_noise.spread([0.5, 0.25], [[0.5, 0.25 + 1e-5], [0.5, 0.25 - 2e-5]])
    np.testing.assert_allclose(spreads, [0.0, 2e-5])
    np.testing.assert_allclose(float_noise.bar(spreads), [float_noise.FLOOR, float_noise.K * 2e-5])
    assert float_noise.bar([0.0], floor=5e-5)[0] == 5e-5


def test_check_names_the_value_its_bar_and_the_machine():
    float_noise.check([0.5, 0.25], [0.5 + 9e-6, 0.25], 1e-5, "fine")
    with pytest.raises(AssertionError) as failure:
        float_noise.check([0.5, 0.25], [0.5, 0.2501], [1e-5, 2e-5], "sentence 7", spreads=[0.0, 1e-6])
    message = str(failure.value)
    assert "sentence 7: 1 value(s) off: [1]" in message and "bar 2.00e-05, spread 1.00e-06" in message
    assert "CPU capability" in message and "numpy BLAS" in message
    with pytest.raises(AssertionError, match="nan"):  # a NaN is never within a bar
        float_noise.check([float("nan")], [0.5], 1.0, "nan")
