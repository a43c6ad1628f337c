"""The synchronisation Ascend C's compiler inserts by default (cce-auto-sync), as events on the timeline.

Ascend C gets in-core synchronisation from two automatic sources (关键特性说明.md, "自动同步", asc-devkit
docs/zh/api/SIMD-API/基础API/同步控制/核内同步/):
* the TPipe/TQue framework: EnQue/DeQue and FreeTensor/AllocTensor carry MTE2<->V, V<->MTE3 and
  MTE2<->MTE3 flags (pipe.py models them; a tensor that skips its DeQue gets none: 反例2);
* the Bisheng compiler with ``--cce-auto-sync=on`` (the default of every build flow): on a 2201 AIV only
  PIPE_S <-> PIPE_V / PIPE_MTE2 / PIPE_MTE3 flags (both ways; the PIPE_S APIs being the scalar
  GetValue/SetValue and the reduce-result getters) and PIPE_V -> PIPE_V barriers (表3).

``launch(..., sync="auto")`` (the default) models the compiler's part: before an instruction that touches
bytes another pipe accessed with nothing ordering the two, one ``SetFlag<src_dst>`` / ``WaitFlag<src_dst>``
pair per such pipe when (src, dst) is in 表3, and before a vector instruction that reads what a recent
vector instruction wrote, one ``PipeBarrier<PIPE_V>``. They cost what the explicit calls cost and carry
``args={"auto": True}`` in the trace. A conflict outside 表3 (a DataCopy into a TBuf read by a vector op
with no queue or flag: 反例1; MTE2/MTE3 on overlapping GM) is still a RaceError naming both instructions.

Placement [A]: the pair goes immediately before the consuming instruction (the latest point the compiler
can choose; the flag then fires when every earlier instruction of the source pipe has completed). The
event id shown is the first of the two ids reserved for the framework and auto-sync ([R] §4.4), so it
never meets a kernel's own SetFlag/WaitFlag.

``sync="manual"`` (``--cce-auto-sync=off``) inserts nothing: each of these is a RaceError.
"""
from __future__ import annotations

from ..core.errors import RaceError
from ..core.options import options
from ..core.timeline import caller_source
from . import cost

# (source pipe, destination pipe) -> HardEvent name, for the pairs the compiler inserts on a 2201 AIV (表3)
_EVENT = {("PIPE_S", "PIPE_V"): "S_V", ("PIPE_V", "PIPE_S"): "V_S", ("PIPE_S", "PIPE_MTE2"): "S_MTE2",
          ("PIPE_MTE2", "PIPE_S"): "MTE2_S", ("PIPE_S", "PIPE_MTE3"): "S_MTE3", ("PIPE_MTE3", "PIPE_S"): "MTE3_S"}


def place_auto(ctx, pipe: str, name: str, cycles, reads, writes, **kw):
    """``Timeline.place`` in sync order, with the compiler's flags inserted first where needed. With race
    checks on, the timeline's own check finds the unordered accesses (no extra scan on the usual path: a
    RaceError before anything is recorded means "insert, then place again"); with them off, the scan runs
    every time so the timing still has the flags."""
    tl = ctx.timeline
    if options().check_races:
        try:
            return tl.place(pipe, name, cycles, reads=reads, writes=writes, order="sync", **kw)
        except RaceError:
            pass
    auto_flags(ctx, pipe, name, reads, writes)
    return tl.place(pipe, name, cycles, reads=reads, writes=writes, order="sync", **kw)


def auto_flags(ctx, pipe: str, name: str, reads, writes) -> None:
    """Insert the flag pairs that order every unsynchronised conflicting access before ``name`` on ``pipe``."""
    for acc in ctx.timeline.unordered(reads, writes, pipe):
        src = acc.engine
        event = _EVENT.get((src, pipe))
        if event is None:
            if not options().check_races:
                continue
            at = f" ({acc.event.source})" if acc.event.source else ""
            here = caller_source()
            here = f" ({here})" if here else ""
            raise RaceError(
                f"race on {acc.fp.describe()}: {name} on {pipe}{here} and {acc.event.name} on {src}{at} touch the same "
                f"bytes and nothing orders them; the compiler's auto-sync inserts only PIPE_S<->PIPE_V/MTE2/MTE3 "
                f"flags and PIPE_V barriers, so {src}->{pipe} needs a TQue EnQue/DeQue (or FreeTensor/"
                f"AllocTensor) or SetFlag/WaitFlag<HardEvent::{src[5:]}_{pipe[5:]}>")
        args = {"event": event, "id": ctx.soc.event_ids, "auto": True, "for": name}
        if src == "PIPE_V":
            ctx.drain_v()                    # the flag fires once every earlier vector instruction completed
        ctx.timeline.place(src, "SetFlag", cost.FLAG_CYCLES, order="sync", args=args)
        ctx.timeline.wait(pipe, ctx.timeline.signal(src))
        ctx.timeline.place(pipe, "WaitFlag", cost.FLAG_CYCLES, order="sync", args=args)
        ctx.auto_syncs += 1


def auto_barrier_v(ctx, name: str, producer: str) -> None:
    """``PipeBarrier<PIPE_V>()`` before vector instruction ``name``, which reads what ``producer`` wrote."""
    ctx.drain_v()
    ctx.timeline.place("PIPE_V", "PipeBarrier", cost.BARRIER_CYCLES, order="sync",
                       args={"pipe": "PIPE_V", "auto": True, "for": name, "after": producer})
    ctx.auto_syncs += 1
