"""``nki.jit``, ``nki.simulate`` and SPMD launch ``kernel[grid](...)``.

A launch wraps each numpy argument into an HBM tensor, runs the kernel body once per program of the
grid (``nl.program_id`` tells which), and returns the kernel's ``shared_hbm`` outputs as numpy arrays of
their own dtypes. Inputs the kernel wrote are updated in place, as the official simulator does.
"""
from __future__ import annotations

import functools
import inspect
import math

import numpy as np

from ..core.collector import launch_scope
from ..core.errors import ConstraintError
from . import args as _args
from . import spec as _spec
from . import lnc as _lnc
from . import runtime as _runtime
from .runtime import Run, activate
from .tensor import MemoryRegion, NkiTensor, dtype_of

_last: Run | None = None
MAX_PROGRAMS = 1 << 16      # an SPMD grid's total programs (npusim's limit: each runs the kernel body once)


def last_run() -> Run | None:
    """The Run of the latest launch: ``.trace``, ``.timeline`` (core 0's), ``.timelines`` (one per
    physical core: two for LNC2), ``.peak`` (allocator high-water marks)."""
    return _last


def _grid(g) -> tuple:
    g = g if isinstance(g, tuple) else (g,)
    if not g or not all(_args.is_int(n) for n in g):
        raise ConstraintError("nki.jit", "grid", "ints (not bools or floats)", g)
    g = tuple(int(n) for n in g)
    if any(n < 1 for n in g):
        raise ConstraintError("nki.jit", "grid", "positive sizes", g)
    if math.prod(g) > MAX_PROGRAMS:
        raise ConstraintError("nki.jit", "grid", f"at most {MAX_PROGRAMS} programs (npusim runs each one)", g)
    return g


class Kernel:
    """A kernel function with its launch grid (None: launched without one, ``nl.program_ndim() == 0``)."""

    def __init__(self, fn, grid: tuple | None = None, target: str | None = None):
        self.fn = fn
        self.grid = grid
        self.target = target
        functools.update_wrapper(self, fn)

    def __getitem__(self, grid) -> "Kernel":
        return Kernel(self.fn, _grid(grid), self.target)

    def __call__(self, *args, **kwargs):
        if _runtime._current is not None and any(isinstance(a, NkiTensor) for a in (*args, *kwargs.values())):
            # A jitted kernel called from inside a kernel with its tensors is traced into the caller, as NKI
            # does (nki-library's moe_cte calls the @nki.jit bwmm_shard_on_block): same launch, same grid.
            return self.fn(*args, **kwargs)
        return launch(self, args, kwargs, self.target)


def jit(fn=None, platform_target: str | None = None, **options):
    """``@nki.jit`` (or ``@nki.jit(...)``). ``platform_target="trn1" | "trn2" | "trn3"`` (older SDKs' option)
    picks the chip the kernel runs on unless ``nki.simulate(..., target=)`` names one; other options
    such as ``mode`` are accepted and ignored."""
    if platform_target is not None:
        _spec.chip(platform_target)         # an unknown target fails here, at decoration
    if fn is None:
        return lambda f: Kernel(f, target=platform_target)
    if isinstance(fn, Kernel):
        return fn
    return Kernel(fn, target=platform_target)


def simulate(kernel, target: str | None = None):
    """``nki.simulate(kernel, target=...)(*numpy_args)``: numpy in, numpy out.
    ``target`` "trn1" | "trn2" | "trn3"; None honours NEURON_PLATFORM_TARGET_OVERRIDE, else trn2."""
    k = kernel if isinstance(kernel, Kernel) else Kernel(kernel)

    def run(*args, **kwargs):
        return launch(k, args, kwargs, target if target is not None else k.target)
    run.kernel = k
    return run


def _to_tensor(run: Run, value, name: str):
    if isinstance(value, NkiTensor) or not isinstance(value, np.ndarray):
        return value
    dt = dtype_of(value.dtype, "nki.simulate", name)
    # "wraps each numpy argument into an NkiTensor with buffer=nl.hbm (or shared_hbm for LNC2)"
    # (nki_simulator.rst): a grid's programs share their inputs, and may return them.
    buffer = MemoryRegion.shared_hbm if int(np.prod(run.grid)) > 1 else MemoryRegion.private_hbm
    t = run.hbm_tensor(value.shape if value.ndim else (1,), dt, buffer, name)
    t.tv.memory.kernel_argument = True      # a kernel may return an argument it wrote (nki-library's out=)
    if value.flags.c_contiguous and value.flags.writeable and value.size and dt.name != "bool":
        # Zero-copy: the HBM tensor is the caller's array (so kernel writes land in it, in place).
        t.tv.memory.data = value.reshape(-1).view(np.uint8)
        t.full = True
        t.tv.memory.wrapped = True
    else:
        t.write(value.reshape(t.shape))
    return t


def _outputs(value, api="nki.simulate"):
    if isinstance(value, NkiTensor):
        if value.buffer is not MemoryRegion.shared_hbm and not getattr(value.tv.memory, "kernel_argument", False):
            raise ConstraintError(api, "return", "kernel outputs are allocated with buffer=nl.shared_hbm",
                                  value.buffer)
        if value.root is None:
            # A whole shared_hbm allocation owns its Memory, which nothing touches after the launch:
            # hand its bytes out without a copy (a 64 MB output copy was ~15% of the tiled add).
            return value.read("nki.simulate")
        return value.numpy()
    if isinstance(value, (tuple, list)):
        return type(value)(_outputs(v, api) for v in value)
    if isinstance(value, dict):
        return {k: _outputs(v, api) for k, v in value.items()}
    return value


def launch(kernel: Kernel, args, kwargs, target=None):
    global _last
    run = Run(_spec.chip(target), kernel.grid or (1,))
    run.grid_ndim = len(kernel.grid) if kernel.grid else 0
    _last = run
    try:
        params = list(inspect.signature(kernel.fn).parameters)
    except (TypeError, ValueError):
        params = []
    targs = [_to_tensor(run, a, params[i] if i < len(params) else f"arg{i}") for i, a in enumerate(args)]
    tkwargs = {k: _to_tensor(run, v, k) for k, v in kwargs.items()}
    result = None
    try:
        with activate(run), launch_scope():
            # One program after another; a program may wait in sendrecv / core_barrier for another (lnc.py).
            result = _lnc.run_programs(run, kernel.fn, targs, tkwargs)
    finally:
        run.release()           # SBUF/PSUM serve the next launch on this chip (runtime._POOL)
    # Inputs the kernel wrote come back in place.
    for a, t in list(zip(args, targs)) + [(kwargs[k], tkwargs[k]) for k in kwargs]:
        if (isinstance(t, NkiTensor) and isinstance(a, np.ndarray) and t.tv.memory.written and a.flags.writeable
                and not getattr(t.tv.memory, "wrapped", False)):
            np.copyto(a, t.numpy().reshape(a.shape).astype(a.dtype, copy=False))
    return _outputs(result)
