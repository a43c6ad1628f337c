"""Where rows run: in this process, a local process pool, any concurrent.futures executor, or Dask.

``executor`` (the same argument everywhere: npusim.sweep, the okk C-model differential sweep):

- ``None``: a ``ProcessPoolExecutor`` over the machine's cores, started and shut down here;
- an ``int`` n: a ``ProcessPoolExecutor`` of n worker processes;
- ``"inline"``: one after the other in this process (no pickling; what a debugger wants);
- a ``concurrent.futures.Executor``: used as given, left running;
- a ``dask.distributed.Client``: ``client.map`` over its cluster, left running;
- any other string: a Dask scheduler address (``"tcp://host:8786"``); a Client is opened and closed here.

The function and its items cross process boundaries: for process pools they must pickle (module-level
functions, plain data); Dask pickles with cloudpickle, so lambdas and closures work there too.
"""
from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
from typing import Callable, Iterable, Iterator

from ..core.errors import ConstraintError

INLINE = "inline"
DASK_EXTRA = "npusim[dask]"


def describe(executor) -> str:
    """A short human name for the executor (progress bars, CLI output)."""
    if executor is None:
        return f"local pool, {os.cpu_count()} processes"
    if isinstance(executor, int):
        return f"local pool, {executor} process{'es' if executor != 1 else ''}"
    if executor == INLINE:
        return "inline (this process)"
    if _is_dask_client(executor):
        return f"dask {executor.scheduler.address}" if getattr(executor, "scheduler", None) else "dask"
    if isinstance(executor, str):
        return f"dask {executor}"
    return type(executor).__name__


def _os_threads() -> int:
    """Threads of this process as the OS counts them (C libraries' threads too, e.g. Sophgo's C-model)."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 0          # unknown: treat as threaded


def _start_method() -> dict:
    """fork while this process has one thread (cheap; workers inherit everything). With other threads
    running (a Dask client, the C-model's workers, NKI's LNC2 programs) a forked child can inherit a held
    lock and hang, so the pool starts from a forkserver instead and each worker first imports the kernel
    files this process loaded (their functions pickle by those module names)."""
    if _os_threads() == 1:
        return {"mp_context": multiprocessing.get_context("fork")}
    from .kernel_file import _LOADED
    return {"mp_context": multiprocessing.get_context("forkserver"), "initializer": _preload,
            "initargs": (sorted(_LOADED),)}


def _preload(paths) -> None:
    from .kernel_file import load_module
    for path in paths:
        load_module(path)


def map_unordered(fn: Callable, items: Iterable, executor=None) -> Iterator:
    """Yield ``fn(item)`` for every item, in completion order (the caller sorts)."""
    items = list(items)
    if executor == INLINE:
        for item in items:
            yield fn(item)
        return
    if executor is None or (isinstance(executor, int) and not isinstance(executor, bool)):
        workers = (os.cpu_count() or 1) if executor is None else executor
        if workers < 1:
            raise ConstraintError("npusim.sweep", "executor", "a process count is at least 1 "
                                  "(\"inline\" runs in this process)", executor)
        with cf.ProcessPoolExecutor(max_workers=min(workers, max(len(items), 1)), **_start_method()) as pool:
            yield from _futures(pool, fn, items)
        return
    if isinstance(executor, cf.Executor):
        yield from _futures(executor, fn, items)
        return
    if _is_dask_client(executor):
        yield from _dask(executor, fn, items)
        return
    if isinstance(executor, str):
        distributed = import_distributed()
        with distributed.Client(executor) as client:
            yield from _dask(client, fn, items)
        return
    raise ConstraintError("npusim.sweep", "executor", "None, a worker count, \"inline\", a "
                          "concurrent.futures.Executor, a dask.distributed.Client or a scheduler address",
                          executor)


def import_distributed():
    """``dask.distributed``, or an ImportError naming the extra that installs it."""
    try:
        import distributed
    except ImportError as exc:
        raise ImportError(f"running on Dask needs dask.distributed: pip install '{DASK_EXTRA}' "
                          f"(the local process pool needs nothing extra)") from exc
    return distributed


def _futures(pool: cf.Executor, fn, items) -> Iterator:
    futures = [pool.submit(fn, item) for item in items]
    try:
        for fut in cf.as_completed(futures):
            yield fut.result()
    finally:
        for fut in futures:
            fut.cancel()


def _dask(client, fn, items) -> Iterator:
    from distributed import as_completed
    futures = client.map(fn, items, pure=False)
    try:
        for fut in as_completed(futures):
            yield fut.result()
    finally:
        client.cancel(futures)


def _is_dask_client(obj) -> bool:
    return type(obj).__name__ == "Client" and type(obj).__module__.startswith("distributed")
