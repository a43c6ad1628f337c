"""Sweeps and tuning: a kernel over a parameter space, one profiled row per configuration, run in this
process, a local process pool or a Dask cluster (docs/sweep.md). ``npusim.sweep`` is :func:`sweep`."""
from .driver import sweep
from .executors import INLINE, map_unordered
from .kernel_file import KernelFile
from .result import SweepResult
from .row import Row, run_row
from .space import expand

__all__ = ["sweep", "SweepResult", "Row", "KernelFile", "expand", "run_row", "map_unordered", "INLINE"]
