"""Framework helpers public kernels use: GetTPipePtr and the TPipe event-id pool, aliases, ASSERT.

* ``GetTPipePtr()`` -> the running core's TPipe (the last one constructed), as the C++ global pointer.
* ``pipe.AllocEventID(HardEvent)`` takes an id of that event out of the pool (ConstraintError when all
  ``soc.event_ids`` are taken), ``ReleaseEventID(HardEvent, id)`` returns it, ``FetchEventID(HardEvent)``
  returns a free id without taking it (TPipe.md: "获取可用的eventID"; none free is a ConstraintError).
  The queues' own flags use npusim's implicit events, not this pool [A].
* Aliases: ``QuePosition`` = ``TPosition``, ``float16_t`` = ``half``, ``float32_t`` = ``float``,
  ``TBuf.FreeTensor`` (a no-op: a TBuf has no queue state).
* ``ASSERT(cond, msg)``: a false condition raises ConstraintError (the CPU debug build aborts there).
"""
from __future__ import annotations

from ..core.errors import ConstraintError
from .context import current
from .pipe import TBuf, TPipe
from .sync import HardEvent


def GetTPipePtr() -> TPipe:
    ctx = current()
    if not ctx.pipes:
        raise ConstraintError("GetTPipePtr", "TPipe", "a TPipe was constructed in this kernel", None)
    return ctx.pipes[-1]


def _pool(pipe: TPipe, event) -> set:
    if not isinstance(event, HardEvent):
        raise ConstraintError("AllocEventID", "HardEvent", "a HardEvent", event)
    pools = pipe.__dict__.setdefault("event_ids", {})
    return pools.setdefault(event, set())


def _AllocEventID(self: TPipe, event) -> int:
    used = _pool(self, event)
    for i in range(self.ctx.soc.event_ids):
        if i not in used:
            used.add(i)
            return i
    raise ConstraintError("AllocEventID", "HardEvent", f"a free id of {event.name} (all {self.ctx.soc.event_ids} "
                          "are allocated; ReleaseEventID one first)", event.name)


def _ReleaseEventID(self: TPipe, event, id: int) -> None:  # noqa: A002 - vendor name
    used = _pool(self, event)
    if int(id) not in used:
        raise ConstraintError("ReleaseEventID", "id", f"an id AllocEventID<{event.name}> returned", id)
    used.discard(int(id))


def _FetchEventID(self: TPipe, event) -> int:
    used = _pool(self, event)
    for i in range(self.ctx.soc.event_ids):
        if i not in used:
            return i
    raise ConstraintError("FetchEventID", "HardEvent", f"a free id of {event.name}", event.name)


TPipe.AllocEventID = _AllocEventID
TPipe.ReleaseEventID = _ReleaseEventID
TPipe.FetchEventID = _FetchEventID
TBuf.FreeTensor = lambda self, tensor=None: None


def ASSERT(cond, msg: str = "") -> None:
    if not cond:
        raise ConstraintError("ASSERT", "condition", msg or "true", cond)


class Hardware:
    """``AscendC::Hardware``: the memory a LocalMemAllocator takes from (the vector core has only UB)."""
    UB = "UB"


class LocalMemAllocator:
    """``LocalMemAllocator<Hardware::UB>``: static tensors carved from the UB in order (``Alloc(T, n)`` =
    ``Alloc<T, n>()``), 32-byte aligned, position VECCALC; it shares the UB pointer with TPipe, so the two
    never hand out the same bytes [A]. There are no queues, so ordering is up to flags (and auto-sync)."""

    def __init__(self, hardware=Hardware.UB):
        if hardware != Hardware.UB:
            from ..core.errors import UnsupportedError
            raise UnsupportedError("LocalMemAllocator", f"Hardware::{hardware}", "the vector core has UB only")
        self.ctx = current()

    def Alloc(self, dtype, n: int):
        from .dtypes import as_dtype
        from .tensor import LocalTensor, TPosition
        ctx, d = self.ctx, as_dtype(dtype)
        nbytes = -(-int(n) * d.itemsize // 32) * 32
        if ctx.ub_used + nbytes > ctx.soc.ub_bytes:
            raise ConstraintError("LocalMemAllocator.Alloc", "n", f"the tensor fits in the {ctx.soc.ub_bytes}-byte UB "
                                  f"({ctx.ub_used} bytes already taken)", n)
        t = LocalTensor(ctx, ctx.ub_used, d, int(n), TPosition.VECCALC)
        ctx.ub_used += nbytes
        return t


def InitSocState() -> None:
    """No-op: npusim's core state is fresh for every block."""


def ascendc_assert(cond, msg: str = "") -> None:
    ASSERT(cond, msg)


def printf(fmt: str, *args) -> None:
    """``AscendC::printf``: C-style formatting to stdout."""
    if not isinstance(fmt, str):
        raise ConstraintError("printf", "fmt", "a format string", fmt)
    try:
        text = fmt % args if args else fmt
    except (TypeError, ValueError) as e:
        raise ConstraintError("printf", "args", f"arguments matching the format ({e})", args) from None
    print(text, end="")


event_t = int                      # ``event_t`` (an event id); EVENT_ID0 .. EVENT_ID7 as in kernel_event.h
EVENT_ID0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6, EVENT_ID7 = range(8)


KERNEL_TYPE_AIV_ONLY, KERNEL_TYPE_AIC_ONLY, KERNEL_TYPE_MIX_AIC_1_1, KERNEL_TYPE_MIX_AIC_1_2 = (
    "KERNEL_TYPE_AIV_ONLY", "KERNEL_TYPE_AIC_ONLY", "KERNEL_TYPE_MIX_AIC_1_1", "KERNEL_TYPE_MIX_AIC_1_2")


def KERNEL_TASK_TYPE_DEFAULT(kernel_type) -> None:
    """No-op for vector kernels; npusim runs AIV only, so a cube or mixed type is UnsupportedError."""
    if kernel_type != KERNEL_TYPE_AIV_ONLY:
        from ..core.errors import UnsupportedError
        raise UnsupportedError("KERNEL_TASK_TYPE_DEFAULT", str(kernel_type), "npusim models the vector core only")
