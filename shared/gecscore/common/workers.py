"""How many processes gecscore's CPU stages may use, and the worker processes that run them.

ERRANT's edit extraction (spaCy's parse, then ERRANT's alignment and classification) is most of the CPU time of
ERRANT, UOT-ERRANT, PT-ERRANT, CLEME and LLM-E, and the M² lattice most of M²'s beyond it; both run sentence by
sentence, each sentence on its own. With more than one worker, a large stage is split into pieces that worker
processes run (`WorkerPool`): each is a spawned Python that loads what a piece needs once (a spaCy pipeline) and
keeps it, so the results are the same as in one process, item for item, and the scores and signatures do not depend
on the number of workers.

The number comes from `set_workers(n)` (or the `using_workers(n)` block), else from `$GECSCORE_WORKERS`, else every
core this process may use (`available_cores`: its CPU affinity, a cgroup CPU quota, and its share of a `torchrun`
node), provided worker processes can start safely (`can_start_workers`): a spawned worker imports the script that
started it again, so a script whose work is not under `if __name__ == "__main__":` keeps to one process rather
than running itself again. `0` means every available core.

A number the user chose is the cores gecscore may use, the encoder's included: an encoder's CPU forward runs with
at most that many torch threads (`capped_torch_threads`), so `--workers 8` on a shared 64-core node uses 8 cores,
not 8 processes beside 64 torch threads. With the default, torch keeps its own setting.
"""

from __future__ import annotations

import ast
import atexit
import math
import os
import sys
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence

from gecscore.common.sharing import LRU

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

WORKERS_ENV = "GECSCORE_WORKERS"
#: Where the cgroup (v2) CPU quota of this process is read: "<quota> <period>" or "max <period>".
CGROUP_CPU_MAX = Path("/sys/fs/cgroup/cpu.max")
_CHOSEN: int | None = None


def available_cores() -> int:
    """The cores this process may use: its CPU affinity, at most its cgroup CPU quota (rounded up), divided among
    the processes a launcher such as `torchrun` started on this node (`$LOCAL_WORLD_SIZE`); at least 1."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    quota = cgroup_quota(CGROUP_CPU_MAX)
    if quota is not None:
        cores = min(cores, quota)
    local = os.environ.get("LOCAL_WORLD_SIZE", "")
    if local.strip().isdigit() and int(local) > 1:
        cores //= int(local)
    return max(1, cores)


def cgroup_quota(path: Path) -> int | None:
    """The whole cores a cgroup v2 `cpu.max` file allows (quota / period, rounded up), None for no limit or no
    file."""
    try:
        quota, period = path.read_text().split()[:2]
        return None if quota == "max" else max(1, math.ceil(int(quota) / int(period)))
    except (OSError, ValueError):
        return None


def check_workers(value: object, name: str = "workers") -> int:
    """A number of workers: an int >= 0 (0: every available core), or its decimal text; an error names `name`."""
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"`{name}` must be a whole number of processes >= 1 (0: every available core), got "
                         f"{value!r}")
    return available_cores() if value == 0 else value


def set_workers(n: int | None) -> None:
    """Use `n` processes for the CPU stages from now on in this process (None: back to `$GECSCORE_WORKERS`, else
    the default)."""
    global _CHOSEN
    _CHOSEN = None if n is None else check_workers(n)


def cpu_workers() -> int:
    """The number of processes the CPU stages may use now: the user's (`set_workers`, `$GECSCORE_WORKERS`), else
    every available core where workers can start safely (`can_start_workers`), else 1."""
    if _CHOSEN is not None:
        return _CHOSEN
    value = os.environ.get(WORKERS_ENV)
    if value is not None and value.strip():
        return check_workers(value, WORKERS_ENV)
    cores = available_cores()
    return cores if cores > 1 and can_start_workers() else 1


def user_chose_workers() -> bool:
    """Whether the number of workers is the user's (`set_workers`, `$GECSCORE_WORKERS`) rather than the default."""
    return _CHOSEN is not None or bool(os.environ.get(WORKERS_ENV, "").strip())


@contextmanager
def using_workers(n: int) -> Iterator[None]:
    """Inside the block, the CPU stages use `n` processes."""
    global _CHOSEN
    before = _CHOSEN
    set_workers(n)
    try:
        yield
    finally:
        _CHOSEN = before


@contextmanager
def capped_torch_threads(device: str) -> Iterator[None]:
    """Inside the block, torch's CPU threads are at most the number of workers the user chose (`set_workers`,
    `$GECSCORE_WORKERS`, `--workers`), restored after, on an error too. A GPU forward, the default number of
    workers and a cap at or above torch's own setting leave torch as it is. torch's setting is per process: a
    forward in another thread meanwhile shares the cap."""
    if str(device).split(":")[0] != "cpu" or not user_chose_workers():
        yield
        return
    import torch

    before, cap = torch.get_num_threads(), cpu_workers()
    if cap >= before:
        yield
        return
    torch.set_num_threads(cap)
    try:
        yield
    finally:
        torch.set_num_threads(before)


# ---------------------------------------------------------------------------------------------------
# Can worker processes start here?


def can_start_workers() -> bool:
    """Whether spawned workers can start from here without running the user's script again: this is the main
    process (not a worker, nor a `datasets`/`multiprocessing` child), and the main module either has no file a
    worker would import again (an interactive session, `python -c`, a notebook) or calls gecscore from inside its
    `if __name__ == "__main__":` block (the line its top level is running now; a call from another thread, whose
    stack does not show it, counts as unguarded)."""
    import multiprocessing  # noqa: F401  (so that `in_child_process` can read this process's record)

    if in_child_process():
        return False
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if main is None or path is None:
        return True
    frame = sys._getframe(1)
    while frame is not None and not (frame.f_globals is main.__dict__ and frame.f_code.co_name == "<module>"):
        frame = frame.f_back
    return frame is not None and frame.f_lineno in guarded_lines(str(path))


def in_child_process() -> bool:
    """Whether this process was started by `multiprocessing` (a worker, a DataLoader worker) or by `multiprocess`
    (`datasets`' `map(num_proc=...)`, whose forked children inherit `multiprocessing`'s record of the parent)."""
    for name in ("multiprocessing", "multiprocess"):
        module = sys.modules.get(name)
        if module is not None and (module.parent_process() is not None
                                   or module.current_process().name != "MainProcess"):
            return True
    return False


@lru_cache(maxsize=8)
def guarded_lines(path: str) -> frozenset[int]:
    """The lines of a script's top-level `if __name__ == "__main__":` blocks (empty if it cannot be read)."""
    try:
        tree = ast.parse(Path(path).read_bytes())
    except (OSError, SyntaxError, ValueError):
        return frozenset()
    lines: set[int] = set()
    for node in tree.body:
        if isinstance(node, ast.If) and _is_main_test(node.test):
            for statement in node.body:
                lines.update(range(statement.lineno, (statement.end_lineno or statement.lineno) + 1))
    return frozenset(lines)


def _is_main_test(test: ast.expr) -> bool:
    """`__name__ == "__main__"`, either way round."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = [test.left, test.comparators[0]]
    names = [s for s in sides if isinstance(s, ast.Name) and s.id == "__name__"]
    texts = [s for s in sides if isinstance(s, ast.Constant) and s.value == "__main__"]
    return len(names) == 1 and len(texts) == 1


# ---------------------------------------------------------------------------------------------------
# The worker processes

#: Work that a stage keeps in its workers between pieces (a spaCy pipeline and its parses), by name; filled in each
#: worker by the functions its pieces run.
WORKER_STATE: dict[str, Any] = {}
_POOLS: dict[int, WorkerPool] = {}


class WorkerPool:
    """`workers` spawned processes, each its own single-process executor so that a piece can be sent to a chosen
    worker (`affinity`: which worker each key, e.g. a source sentence, went to last, so its parse is reused)."""

    def __init__(self, workers: int, affinity_size: int = 0) -> None:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        context = multiprocessing.get_context("spawn")
        self.executors: list[ProcessPoolExecutor] = [ProcessPoolExecutor(1, mp_context=context)
                                                     for _ in range(workers)]
        self.affinity: LRU[str, int] = LRU(affinity_size)

    def run(self, function: Callable[..., list[Any]], shares: Sequence[Sequence[Any]], *args: Any,
            pieces: int = 4, on_done: Callable[[int], None] | None = None) -> list[list[Any]]:
        """`function(*args, items)` over each worker's share of items, in up to `pieces` pieces per worker (so that
        results stream back); each share's results in its order. `on_done(n)` after each piece of n items."""
        from concurrent.futures import as_completed

        futures = {}
        for w, (executor, share) in enumerate(zip(self.executors, shares)):
            size = max(1, -(-len(share) // pieces))
            for start in range(0, len(share), size):
                futures[executor.submit(function, *args, list(share[start:start + size]))] = (w, start)
        out: list[list[Any]] = [[None] * len(share) for share in shares]
        for future in as_completed(futures):
            w, start = futures[future]
            found = future.result()
            out[w][start:start + len(found)] = found
            if on_done is not None:
                on_done(len(found))
        return out

    def run_queued(self, function: Callable[..., list[Any]], items: Sequence[Any], *args: Any, pieces: int = 8,
                   on_done: Callable[[int], None] | None = None) -> list[Any]:
        """`function(*args, piece)` over consecutive pieces of `items` (about `pieces` per worker), each piece
        going to whichever worker finishes first (two in flight per worker, so none waits for its next); the
        results in the order of `items`. For work that keeps nothing in a worker between pieces (the M² lattice):
        with fixed shares, one worker could sit idle while the other finished a slow share."""
        from concurrent.futures import FIRST_COMPLETED, wait

        size = max(1, -(-len(items) // (pieces * len(self.executors))))
        starts = iter(range(0, len(items), size))
        running: dict[Any, tuple[int, int]] = {}

        def submit(w: int) -> None:
            start = next(starts, None)
            if start is not None:
                running[self.executors[w].submit(function, *args, list(items[start:start + size]))] = (w, start)

        for w in range(len(self.executors)):
            submit(w)
            submit(w)
        out: list[Any] = [None] * len(items)
        while running:
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                w, start = running.pop(future)
                found = future.result()
                out[start:start + len(found)] = found
                if on_done is not None:
                    on_done(len(found))
                submit(w)
        return out

    def shutdown(self, wait: bool = False) -> None:
        """Stop every worker process."""
        for executor in self.executors:
            executor.shutdown(wait=wait, cancel_futures=True)


def worker_pool(workers: int) -> WorkerPool:
    """This process's pool of `workers` processes, started on first use and kept for the process's lifetime."""
    pool = _POOLS.get(workers)
    if pool is None:
        if not _POOLS:
            atexit.register(_stop_pools)
        pool = _POOLS[workers] = WorkerPool(workers, affinity_size=100_000)
    return pool


def _stop_pools() -> None:
    """At exit: stop the workers while the interpreter is whole (left to the garbage collector, their executors'
    clean-up runs after modules are gone and prints errors)."""
    while _POOLS:
        _POOLS.popitem()[1].shutdown(wait=True)


def pool_running(workers: int) -> bool:
    """Whether this process has started its pool of `workers` processes."""
    return workers in _POOLS


def broken_pool(workers: int, stage: str, error: BaseException) -> RuntimeError:
    """Forget a pool whose processes stopped, and the error that says why that usually happens."""
    pool = _POOLS.pop(workers, None)
    if pool is not None:
        pool.shutdown()
    return RuntimeError(
        f"{stage}'s {workers} worker processes stopped before they finished (workers={workers}: `set_workers`, "
        f"`--workers` or ${WORKERS_ENV}). Each worker is a fresh Python that imports the script that started it "
        "again, so a script that uses more than one worker must start its work under "
        "`if __name__ == \"__main__\":`; or use one worker")


def balanced_shares(groups: Sequence[tuple[str, Sequence[int]]], count: int, affinity: LRU[str, int],
                    slack: float) -> list[list[int]]:
    """Positions grouped by key (each group kept on one worker) divided among `count` workers: a group goes to the
    worker its key went to before while that worker's load stays within `slack` times an even share, else to the
    least loaded (the first of equals); `affinity` is updated. Positions ascending in each share."""
    cap = slack * sum(len(g) for _, g in groups) / count
    load = [0] * count
    shares: list[list[int]] = [[] for _ in range(count)]
    for key, group in groups:
        worker = affinity.get(key)
        if worker is None or worker >= count or load[worker] + len(group) > cap:
            worker = load.index(min(load))
        load[worker] += len(group)
        shares[worker].extend(group)
        affinity.put(key, worker)
    return [sorted(share) for share in shares]
