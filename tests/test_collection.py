"""Full garbage collections made rare during a metric's work, and the collector's settings restored after."""

import gc
import threading

import pytest

from gecscore import registry
from gecscore.common import collection
from gecscore.common.collection import FULL_EVERY, rare_full_collections


@pytest.fixture
def default_thresholds():
    saved = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield
    gc.set_threshold(*saved)


def test_the_oldest_threshold_is_raised_within_and_restored_after(default_thresholds):
    with rare_full_collections():
        assert gc.get_threshold() == (700, 10, FULL_EVERY)
        with rare_full_collections():  # nested: one setting
            assert gc.get_threshold() == (700, 10, FULL_EVERY)
        assert gc.get_threshold() == (700, 10, FULL_EVERY)
    assert gc.get_threshold() == (700, 10, 10)


def test_restored_on_error_and_a_threshold_set_inside_is_kept(default_thresholds):
    with pytest.raises(RuntimeError), rare_full_collections():
        raise RuntimeError
    assert gc.get_threshold() == (700, 10, 10)
    with rare_full_collections():
        gc.set_threshold(500, 5, 5)  # the caller's own change wins
    assert gc.get_threshold() == (500, 5, 5)


def test_a_higher_threshold_is_left_alone(default_thresholds):
    gc.set_threshold(700, 10, 10 * FULL_EVERY)
    with rare_full_collections():
        assert gc.get_threshold() == (700, 10, 10 * FULL_EVERY)
    assert gc.get_threshold() == (700, 10, 10 * FULL_EVERY)


def test_threads_share_one_setting_until_the_last_leaves(default_thresholds):
    inside, release = threading.Event(), threading.Event()

    def hold():
        with rare_full_collections():
            inside.set()
            release.wait(10)

    thread = threading.Thread(target=hold)
    thread.start()
    inside.wait(10)
    with rare_full_collections():
        pass
    assert gc.get_threshold() == (700, 10, FULL_EVERY)  # the other thread is still inside
    release.set()
    thread.join(10)
    assert gc.get_threshold() == (700, 10, 10) and collection._DEPTH == 0


def test_a_metric_runs_its_statistics_and_score_with_rare_full_collections(default_thresholds, monkeypatch):
    module = registry.runner("gleu")
    seen = []
    for name in ("statistics_systems", "score"):
        original = getattr(module, name)

        def spy(*args, _original=original, **kwargs):
            seen.append(gc.get_threshold()[2])
            return _original(*args, **kwargs)

        monkeypatch.setattr(module, name, spy)
    result = registry.run("gleu", ["He go home ."], ["He goes home ."], [["He goes home ."]])
    assert 0 <= result.score <= 1
    assert seen == [FULL_EVERY, FULL_EVERY] and gc.get_threshold() == (700, 10, 10)
