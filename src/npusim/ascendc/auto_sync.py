"""The synchronisation Ascend C's compiler inserts by default (auto-sync), as events on the timeline.

``launch(..., sync="auto")`` (the default): before an instruction that touches bytes another pipe
accessed with nothing ordering the two (a vector op reading what MTE2 copied in, a scalar GetValue of a
vector result, an MTE3 copy-out of a vector result, an MTE2 copy into a buffer the vector unit still
reads ...), one ``SetFlag<src_dst>`` / ``WaitFlag<src_dst>`` pair per such pipe is placed, and before a
vector instruction that reads what a recent vector instruction wrote, one ``PipeBarrier<PIPE_V>``.
They cost what the explicit calls cost and carry ``args={"auto": True}`` in the trace.

Placement [A]: the pair goes immediately before the consuming instruction (the latest point the compiler
can choose; the flag then fires when every earlier instruction of the source pipe has completed). The
event id is the first of the two ids reserved for the framework and auto-sync ([R] §4.4), so it never
meets a kernel's own SetFlag/WaitFlag.

``sync="manual"`` inserts nothing: each of these is a RaceError naming both instructions.
"""
from __future__ import annotations

from . import cost

_EVENT = {("PIPE_MTE2", "PIPE_V"): "MTE2_V", ("PIPE_V", "PIPE_MTE2"): "V_MTE2",
          ("PIPE_MTE3", "PIPE_V"): "MTE3_V", ("PIPE_V", "PIPE_MTE3"): "V_MTE3",
          ("PIPE_MTE3", "PIPE_MTE2"): "MTE3_MTE2", ("PIPE_MTE2", "PIPE_MTE3"): "MTE2_MTE3",
          ("PIPE_S", "PIPE_V"): "S_V", ("PIPE_V", "PIPE_S"): "V_S", ("PIPE_S", "PIPE_MTE2"): "S_MTE2",
          ("PIPE_MTE2", "PIPE_S"): "MTE2_S", ("PIPE_S", "PIPE_MTE3"): "S_MTE3", ("PIPE_MTE3", "PIPE_S"): "MTE3_S"}


def auto_flags(ctx, pipe: str, name: str, reads, writes) -> None:
    """Insert the flag pairs that order every unsynchronised conflicting access before ``name`` on ``pipe``."""
    sources = ctx.timeline.unordered(reads, writes, pipe)
    for src in sources:
        event = _EVENT[(src, pipe)]
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
