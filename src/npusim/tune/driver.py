"""``npusim.sweep``: run a kernel over a parameter space, one row per configuration, on any executor."""
from __future__ import annotations

import functools
from typing import Callable

from . import executors
from .result import SweepResult
from .row import Row, run_row
from .space import expand, parameters


def sweep(run: Callable, space, *, check: Callable | None = None, executor=None,
          progress: bool = True) -> SweepResult:
    """Run ``run(**config)`` for every configuration of ``space`` and tabulate what each cost.

    ``space``: a dict of value lists (their cartesian product) or a list of config dicts.
    ``check(output, **config)``: given ``run``'s return value, returns False or raises to fail the row.
    ``executor``: None (a process pool over the cores), a worker count, ``"inline"``, any
    concurrent.futures.Executor, a dask.distributed.Client or a scheduler address (see
    :mod:`npusim.tune.executors`). For process pools ``run`` and ``check`` must be picklable:
    module-level functions (or :class:`npusim.tune.KernelFile`), not lambdas or closures.
    ``progress``: a rich progress bar on stderr while rows complete.

    Each row holds the config, simulated ns and cycles, per-engine busy ns and utilisation, the
    instruction count, pass/fail, the error (a bad config is a row, the sweep goes on) and wall time.
    """
    configs = expand(space)
    fn = functools.partial(run_row, run, check)
    items = list(enumerate(configs))
    rows: list[Row] = []
    where = executors.describe(executor)
    if progress:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
        bar = Progress(TextColumn("[bold]sweep[/] {task.description}"), BarColumn(), MofNCompleteColumn(),
                       TextColumn("{task.fields[failed]} failed"), TimeElapsedColumn(),
                       console=Console(stderr=True), transient=False,
                       auto_refresh=False)    # no refresh thread alive when the process pool forks
        with bar:
            task = bar.add_task(where, total=len(items), failed=0)
            bar.refresh()
            for row in executors.map_unordered(fn, items, executor):
                rows.append(row)
                bar.update(task, advance=1, failed=sum(not r.passed for r in rows), refresh=True)
    else:
        rows = list(executors.map_unordered(fn, items, executor))
    rows.sort(key=lambda r: r.index)
    return SweepResult(rows, parameters(configs), where)
