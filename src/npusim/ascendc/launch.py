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

from ..core.errors import ConstraintError
from ..core.memory import Memory
from ..core.options import options
from ..core.trace import Trace
from . import context
from .context import CoreContext, current
from .soc import SocSpec, get_soc
from .tensor import GM_ADDR

_ALIGN = 512


@dataclass
class LaunchResult:
    trace: Trace
    soc: SocSpec
    block_num: int
    end_ns: float

    @property
    def cycles(self) -> float:
        return self.end_ns * self.soc.freq_hz / 1e9

    @property
    def us(self) -> float:
        return self.end_ns / 1e3


def launch(kernel, block_num: int, *args, soc: str | SocSpec | None = None, trace: Trace | None = None,
           check_pipe_v: bool = True) -> LaunchResult:
    """Run ``kernel(*args)`` as ``block_num`` SPMD blocks. ``check_pipe_v=False`` stops reporting a PIPE_V
    read-after-write without PipeBarrier<PIPE_V> (for code that relies on the compiler's auto-sync)."""
    spec = get_soc(soc)
    block_num = int(block_num)
    if not 1 <= block_num <= 65535:
        raise ConstraintError("launch", "block_num", "1 <= numBlocks <= 65535", block_num)
    offsets, total = [], 0
    for a in args:
        if isinstance(a, np.ndarray):
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
        gm.write_bytes(off, np.ascontiguousarray(a))
        gm_args.append(GM_ADDR(gm, off, off, off + a.nbytes, None, f"arg{i}"))
    trace = trace if trace is not None else Trace()
    cores = min(block_num, spec.aiv)
    core_free = [0.0] * cores
    end = 0.0
    for b in range(block_num):
        p = b % cores
        ctx = CoreContext(spec, b, block_num, gm, trace, active_cores=cores, core_name=f"aiv{p}",
                          float_overflow=options().float_overflow, check_pipe_v=check_pipe_v)
        for e in ctx.timeline.engines.values():
            e.free_ns = core_free[p]
        context.push(ctx)
        try:
            kernel(*gm_args)
        finally:
            context.pop()
        core_free[p] = ctx.timeline.now_ns
        end = max(end, core_free[p])
    for a, off in zip(args, offsets):
        if off is not None and a.nbytes:
            flat = a.reshape(-1) if a.flags.c_contiguous else None
            raw = gm.data[off:off + a.nbytes]
            if flat is not None:
                flat.view(np.uint8)[:] = raw
            else:
                a[...] = raw.view(a.dtype).reshape(a.shape)
    return LaunchResult(trace, spec, block_num, end)


@contextlib.contextmanager
def core_context(soc: str | SocSpec | None = None, gm_bytes: int = 1 << 20, trace: Trace | None = None,
                 check_pipe_v: bool = True):
    """Run Ascend C calls outside a kernel, on one fresh vector core (interactive use, tests):
    ``with asc.core_context("Ascend910B1") as ctx: ...``. Yields the CoreContext."""
    spec = get_soc(soc)
    ctx = CoreContext(spec, 0, 1, Memory("GM", gm_bytes), trace if trace is not None else Trace(),
                      core_name="aiv0", float_overflow=options().float_overflow, check_pipe_v=check_pipe_v)
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
    ctx.deq_scale = float(np.float16(scale))
    ctx.place("PIPE_V", "SetDeqScale", 1)
