"""launch(kernel, block_num, *arrays, soc=): run the SPMD blocks of a kernel on numpy arrays.

Every numpy array argument becomes a GM_ADDR into one global memory; after the last block the GM bytes
are copied back into the arrays (outputs are "written back"). Other arguments (tiling scalars) pass
through unchanged. Blocks run one after another; block i runs on vector core i % aiv of the SoC, after
the previous block on that core, so the timing of more blocks than cores comes out in waves.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass

import numpy as np

from ..core.errors import ConstraintError, RaceError
from ..core.memory import Memory
from ..core.options import options
from ..core.trace import Trace
from ..core.view import views_overlap
from . import context
from .context import CoreContext, current
from .soc import SocSpec, get_soc
from .tensor import GM_ADDR
from . import args as _args
from .dtypes import half as _HALF

_ALIGN = 512


@dataclass
class LaunchResult:
    trace: Trace
    soc: SocSpec
    block_num: int
    end_ns: float
    auto_syncs: int = 0       # flag pairs and PIPE_V barriers auto-sync inserted (all blocks)

    @property
    def cycles(self) -> float:
        return self.end_ns * self.soc.freq_hz / 1e9

    @property
    def us(self) -> float:
        return self.end_ns / 1e3


def launch(kernel, block_num: int, *args, soc: str | SocSpec | None = None, trace: Trace | None = None,
           check_pipe_v: bool = True, check_cores: bool = True, tiling=None, sync: str = "auto") -> LaunchResult:
    """Run ``kernel(*args)`` as ``block_num`` SPMD blocks. ``sync="auto"`` (default) inserts the flags and
    PipeBarrier<PIPE_V> the compiler's auto-sync would (as timeline events with their cost);
    ``sync="manual"`` reports each missing one as a RaceError. ``check_pipe_v=False`` stops reporting (or,
    under auto-sync, inserting a barrier for) a PIPE_V read-after-write; ``tiling`` is passed to the kernel
    as the keyword ``tiling`` (the C++ route's tiling struct);
    ``check_cores=False`` stops the cross-core GM overlap check (msSanitizer memcheck's "multi-core
    overlap": two blocks touch the same GM bytes, one writing, with no cross-core synchronisation)."""
    spec = get_soc(soc)
    if not callable(kernel):
        raise ConstraintError("launch", "kernel", "a callable kernel function", type(kernel).__name__)
    block_num = _args.as_int("launch", "block_num", block_num, 1, 65535, "1 <= numBlocks <= 65535")
    offsets, total = [], 0
    for i, a in enumerate(args):
        if isinstance(a, np.ndarray):
            if a.dtype.kind not in "biufV":
                raise ConstraintError("launch", f"arg{i}", "a numpy array of numbers (its bytes become GM)",
                                      str(a.dtype))
            offsets.append(total)
            total += -(-max(a.nbytes, 1) // _ALIGN) * _ALIGN
        else:
            offsets.append(None)
    gm = Memory("GM", max(total, _ALIGN))
    gm_args = []
    for i, (a, off) in enumerate(zip(args, offsets)):
        if off is None:
            gm_args.append(a)
            continue
        gm.write_bytes(off, np.ascontiguousarray(a).reshape(-1).view(np.uint8))   # bytes: ml_dtypes too
        cap = off + -(-max(a.nbytes, 1) // _ALIGN) * _ALIGN      # the allocation, its padding included
        gm_args.append(GM_ADDR(gm, off, off, off + a.nbytes, None, f"arg{i}", cap))
    trace = trace if trace is not None else Trace()
    cores = min(block_num, spec.aiv)
    core_free = [0.0] * cores
    end = 0.0
    accesses = []
    auto_syncs = 0
    for b in range(block_num):
        p = b % cores
        ctx = CoreContext(spec, b, block_num, gm, trace, active_cores=cores, core_name=f"aiv{p}",
                          float_overflow=options().float_overflow, check_pipe_v=check_pipe_v, sync=sync)
        for e in ctx.timeline.engines.values():
            e.free_ns = core_free[p]
        context.push(ctx)
        try:
            if tiling is None:
                kernel(*gm_args)
            else:
                kernel(*gm_args, tiling=tiling)
        finally:
            context.pop()
        core_free[p] = ctx.timeline.now_ns
        auto_syncs += ctx.auto_syncs
        end = max(end, core_free[p])
        if check_cores and options().check_races and block_num > 1:
            accesses.extend((v.footprint.lo, v.footprint.hi, b, w, v, api) for v, w, api in ctx.gm_accesses)
    if accesses:
        _check_cross_core(accesses)
    for a, off in zip(args, offsets):
        if off is not None and a.nbytes:
            flat = a.reshape(-1) if a.flags.c_contiguous else None
            raw = gm.data[off:off + a.nbytes]
            if flat is not None:
                flat.view(np.uint8)[:] = raw
            else:
                a[...] = raw.view(a.dtype).reshape(a.shape)
    return LaunchResult(trace, spec, block_num, end, auto_syncs)


def _check_cross_core(accesses) -> None:
    """Sweep the blocks' GM accesses in address order; a write that meets another block's access is a race."""
    accesses.sort(key=lambda a: a[0])
    active: list = []
    for acc in accesses:
        lo, hi, b, w, v, api = acc
        active = [a for a in active if a[1] > lo]
        for a in active:
            if a[2] != b and (w or a[3]) and views_overlap(v, a[4]):
                kind = "write-write" if w and a[3] else "read-write"
                raise RaceError(f"multi-core overlap ({kind}) on GM [{max(lo, a[0]):#x}, {min(hi, a[1]):#x}): "
                                f"{a[5]} of block {a[2]} and {api} of block {b} touch the same bytes and nothing "
                                f"synchronises the cores")
        active.append(acc)


@contextlib.contextmanager
def core_context(soc: str | SocSpec | None = None, gm_bytes: int = 1 << 20, trace: Trace | None = None,
                 check_pipe_v: bool = True, sync: str = "manual"):
    """Run Ascend C calls outside a kernel, on one fresh vector core (interactive use, tests):
    ``with asc.core_context("Ascend910B1") as ctx: ...``. Yields the CoreContext. Unlike ``launch`` the
    default is ``sync="manual"``: calls made one by one have no compiler to insert flags."""
    spec = get_soc(soc)
    gm_bytes = _args.as_int("core_context", "gm_bytes", gm_bytes, 1, 1 << 32, "1 <= gm_bytes <= 4 GiB")
    ctx = CoreContext(spec, 0, 1, Memory("GM", gm_bytes), trace if trace is not None else Trace(),
                      core_name="aiv0", float_overflow=options().float_overflow, check_pipe_v=check_pipe_v,
                      sync=sync)
    context.push(ctx)
    try:
        yield ctx
    finally:
        context.pop()


def GetBlockIdx() -> int:
    return current().block_idx


def GetBlockNum() -> int:
    return current().block_num


def GetSocSpec() -> SocSpec:
    return current().soc


def SetDeqScale(scale) -> None:
    """The scale AddDeqRelu and CastDeq multiply by (a half in the register)."""
    ctx = current()
    ctx.deq_scale = float(np.float16(_args.scalar("SetDeqScale", "scale", scale, _HALF)))
    ctx.place("PIPE_V", "SetDeqScale", 1)
