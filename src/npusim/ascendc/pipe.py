"""TPipe, TQue and TBuf: UB allocation and the queues whose EnQue/DeQue carry the implicit events.

A VECIN queue (GM->UB) is filled by PIPE_MTE2 and drained by PIPE_V: EnQue is SetFlag<MTE2_V>, DeQue
WaitFlag<MTE2_V>, FreeTensor SetFlag<V_MTE2> and the next AllocTensor of that buffer waits on it. A VECOUT
queue is the same with V (producer) and MTE3 (consumer). (ascendc.md §4.2, kernel_event.h GetQueEvt.)
The queue events touch no memory, so they go straight to ``Timeline.place`` in sync order (what
``CoreContext.place`` does for an event without footprints) without the extra call frame.
"""
from __future__ import annotations

from collections import deque

from ..core.errors import ConstraintError
from . import cost
from .context import current
from .dtypes import as_dtype
from .tensor import LocalTensor, TPosition
from . import args as _args

_VECTOR_POSITIONS = (TPosition.VECIN, TPosition.VECOUT, TPosition.VECCALC)
# position -> (producer pipe, consumer pipe)
_QUE_PIPES = {TPosition.VECIN: ("PIPE_MTE2", "PIPE_V"), TPosition.VECOUT: ("PIPE_V", "PIPE_MTE3"),
              TPosition.VECCALC: ("PIPE_V", "PIPE_V")}


def _round32(n: int, api: str = "InitBuffer", param: str = "len") -> int:
    return (_args.as_int(api, param, n, 1, 1 << 32, f"0 < {param} <= 4 GiB") + 31) // 32 * 32


class _Buffer:
    __slots__ = ("addr", "nbytes", "state", "free_token", "handles")

    def __init__(self, addr: int, nbytes: int):
        self.addr, self.nbytes, self.state, self.free_token = addr, nbytes, "free", None
        self.handles: dict = {}      # dtype name -> the LocalTensor AllocTensor returns copies of


class TQueBind:
    """``TQue<pos, depth>`` is ``TQueBind(pos, depth)``; the vendor's two-position form
    ``TQueBind<src, dst, depth>`` is ``TQueBind(src, dst, depth)``: filled by src's producer, drained by dst's
    consumer (VECIN -> VECOUT: MTE2 copies in, MTE3 copies out, no vector step)."""

    def __init__(self, position: TPosition = TPosition.VECIN, depth: int = 1, *rest):
        dst = None
        if isinstance(depth, TPosition):                 # TQueBind(src, dst, depth)
            dst, depth = depth, (rest[0] if rest else 1)
        position = _args.position("TQue", position)
        if dst is not None:
            dst = _args.position("TQue", dst)
        for name, pos in (("position", position), ("dst", dst)):
            if pos is not None and pos not in _VECTOR_POSITIONS:
                raise ConstraintError("TQue", name, "supported positions are VECIN / VECCALC / VECOUT (the "
                                      "vector APIs' operand positions; npusim models the vector core)", pos.name)
        self.position, self.depth = position, _args.as_int("TQue", "depth", depth, 1, 1 << 16)
        # (producer, consumer): looked up once, used per call
        self._pipe_pair = _QUE_PIPES[position] if dst is None else (_QUE_PIPES[position][0], _QUE_PIPES[dst][1])
        self.buffers: list[_Buffer] = []
        self.queue: deque = deque()
        self._next = 0

    def _pipes(self):
        return self._pipe_pair

    def AllocTensor(self, dtype) -> LocalTensor:
        ctx = current()
        if not self.buffers:
            raise ConstraintError("AllocTensor", "queue", "pipe.InitBuffer(que, num, len) was called first", None)
        n = len(self.buffers)
        for k in range(n):
            b = self.buffers[(self._next + k) % n]
            if b.state == "free":
                self._next = (self._next + k + 1) % n
                break
        else:
            raise ConstraintError("AllocTensor", "queue", f"a buffer is free: all {n} buffer(s) of this "
                                  f"{self.position.name} queue are allocated; FreeTensor one first (the NPU hangs "
                                  "here, the CPU debug mode aborts)", n)
        # All queues of one TPosition share the limit on tensors allocated at once (AllocTensor.md, FAQ).
        live, limit = self.pipe.allocated[self.position], ctx.soc.max_que_buffers
        if live >= limit:
            raise ConstraintError("AllocTensor", "queue", f"max buffer number in same queue position is {limit}: "
                                  f"at most {limit} tensors allocated at once over all {self.position.name} "
                                  f"queues on {ctx.soc.name}; FreeTensor one first", live + 1)
        self.pipe.allocated[self.position] = live + 1
        producer, consumer = self._pipes()
        if b.free_token is not None and producer != consumer:
            ctx.timeline.wait(producer, b.free_token)          # WaitFlag<consumer_producer>
            ctx.timeline.place(producer, "AllocTensor", cost.FLAG_CYCLES, order="sync")
        b.state = "alloc"
        d = _args.dtype("AllocTensor", "T", dtype)
        t = b.handles.get(d.name)
        if t is None:
            t = b.handles[d.name] = LocalTensor(ctx, b.addr, d, b.nbytes // d.itemsize, self.position, b)
        return t.copy()              # a fresh handle each time, as before, without re-deriving its fields

    def EnQue(self, tensor: LocalTensor) -> bool:
        ctx = current()
        b = self._own(tensor, "EnQue")
        if b.state != "alloc":
            raise ConstraintError("EnQue", "tensor", "an allocated tensor not yet enqueued", b.state)
        if len(self.queue) >= self.depth:
            raise ConstraintError("EnQue", "tensor", f"at most depth = {self.depth} tensors wait in the queue",
                                  len(self.queue) + 1)
        producer, consumer = self._pipes()
        token = None
        if producer != consumer:
            if producer == "PIPE_V":
                ctx.drain_v()                            # the SetFlag drains PIPE_V
            ctx.timeline.place(producer, "EnQue", cost.FLAG_CYCLES, order="sync")      # SetFlag<producer_consumer>
            token = ctx.timeline.signal(producer)
        b.state = "queued"
        self.queue.append((tensor, token))
        return True

    def DeQue(self, dtype=None) -> LocalTensor:
        ctx = current()
        if not self.queue:
            raise ConstraintError("DeQue", "queue", "a tensor was enqueued before DeQue (the NPU hangs here)", 0)
        tensor, token = self.queue.popleft()
        producer, consumer = self._pipes()
        if token is not None:
            ctx.timeline.wait(consumer, token)
            ctx.timeline.place(consumer, "DeQue", cost.FLAG_CYCLES, order="sync")      # WaitFlag<producer_consumer>
        tensor.buffer.state = "alloc"
        if dtype is None:
            return tensor
        d = _args.dtype("DeQue", "T", dtype)
        return tensor.copy() if d is tensor.dtype else tensor.ReinterpretCast(d)

    def FreeTensor(self, tensor: LocalTensor) -> None:
        ctx = current()
        b = self._own(tensor, "FreeTensor")
        if b.state != "alloc":
            raise ConstraintError("FreeTensor", "tensor", "an allocated (dequeued) tensor", b.state)
        producer, consumer = self._pipes()
        if producer != consumer:
            if consumer == "PIPE_V":
                ctx.drain_v()
            ctx.timeline.place(consumer, "FreeTensor", cost.FLAG_CYCLES, order="sync")  # SetFlag<consumer_producer>
            b.free_token = ctx.timeline.signal(consumer)
        b.state = "free"
        self.pipe.allocated[self.position] -= 1

    def VacantInQue(self) -> bool:
        return len(self.queue) < self.depth

    def HasTensorInQue(self) -> bool:
        return bool(self.queue)

    def _own(self, tensor: LocalTensor, api: str) -> _Buffer:
        b = getattr(tensor, "buffer", None)
        if b is None or b not in self.buffers:          # _Buffer has no __eq__: identity
            raise ConstraintError(api, "tensor", "a tensor allocated from this queue", tensor)
        return b


TQue = TQueBind


class TBuf:
    """Scratch UB with no queue semantics (``TBuf<TPosition::VECCALC>``)."""

    def __init__(self, position: TPosition = TPosition.VECCALC):
        position = _args.position("TBuf", position)
        if position not in _VECTOR_POSITIONS:
            raise ConstraintError("TBuf", "position", "supported positions are VECIN / VECCALC / VECOUT (the "
                                  "vector APIs' operand positions; npusim models the vector core)", position.name)
        self.position = position
        self.addr = None
        self.nbytes = 0

    def Get(self, dtype, len: int | None = None) -> LocalTensor:  # noqa: A002 - vendor name
        d = _args.dtype("TBuf.Get", "T", dtype)
        if self.addr is None and not len:
            # The device hands out the buffer's (zero) length: an empty tensor, an error only once it is used
            # with a count (tanh.cpp takes one on a path that never touches it).
            return LocalTensor(current(), 0, d, 0, self.position)
        self._need("TBuf.Get")
        n = self.nbytes // d.itemsize if len is None else _args.as_int("TBuf.Get", "len", len)
        if n < 0 or n * d.itemsize > self.nbytes:
            raise ConstraintError("TBuf.Get", "len", f"len * sizeof(T) <= the buffer's {self.nbytes} bytes", n)
        return LocalTensor(current(), self.addr, d, n, self.position)

    def GetWithOffset(self, dtype, size: int, bufOffset: int) -> LocalTensor:
        d = _args.dtype("TBuf.GetWithOffset", "T", dtype)
        size = _args.as_int("TBuf.GetWithOffset", "size", size)
        bufOffset = _args.as_int("TBuf.GetWithOffset", "bufOffset", bufOffset)
        self._need("TBuf.GetWithOffset")
        if bufOffset % 32:
            raise ConstraintError("TBuf.GetWithOffset", "bufOffset", "a multiple of 32 bytes", bufOffset)
        if bufOffset < 0 or size < 0 or bufOffset + size * d.itemsize > self.nbytes:
            raise ConstraintError("TBuf.GetWithOffset", "size", f"bufOffset + size * sizeof(T) <= the buffer's "
                                  f"{self.nbytes} bytes", (size, bufOffset))
        return LocalTensor(current(), self.addr + bufOffset, d, size, self.position)

    def _need(self, api):
        if self.addr is None:
            raise ConstraintError(api, "buffer", "pipe.InitBuffer(buf, len) was called first", None)


class TPipe:
    def __init__(self):
        self.ctx = current()
        self.ctx.pipes.append(self)
        self.allocated = dict.fromkeys(_VECTOR_POSITIONS, 0)     # live AllocTensor results per position

    def InitBuffer(self, que, num, len: int | None = None) -> bool:  # noqa: A002 - vendor name
        ctx = self.ctx
        if isinstance(que, TBuf):
            if len is not None:
                raise ConstraintError("InitBuffer", "num", "InitBuffer(TBuf, len) takes no buffer count", num)
            nbytes = _round32(num)
            que.addr, que.nbytes = self._take(nbytes, "len"), nbytes
            return True
        if not isinstance(que, TQueBind):
            raise ConstraintError("InitBuffer", "que", "a TQue or a TBuf", type(que).__name__)
        if que.buffers:
            raise ConstraintError("InitBuffer", "que", "each queue is initialised once", que)
        num = _args.as_int("InitBuffer", "num", num)
        limit = ctx.soc.max_que_buffers
        if not 1 <= num <= limit:
            raise ConstraintError("InitBuffer", "num", f"1 <= num <= {limit} buffers per queue position on "
                                  f"{ctx.soc.name}", num)
        if not _args.is_int(len) or len <= 0:
            raise ConstraintError("InitBuffer", "len", "len > 0 bytes (an integer)", len)
        nbytes = _round32(len)
        base = self._take(num * nbytes, "len")
        que.buffers = [_Buffer(base + i * nbytes, nbytes) for i in range(num)]
        que.pipe = self
        return True

    def _take(self, nbytes: int, param: str) -> int:
        ctx = self.ctx
        if ctx.ub_used + nbytes > ctx.soc.ub_bytes:
            raise ConstraintError("InitBuffer", param, f"the buffers fit in the {ctx.soc.ub_bytes}-byte UB of "
                                  f"{ctx.soc.name} ({ctx.ub_used} bytes already taken)", nbytes)
        addr = ctx.ub_used
        ctx.ub_used += nbytes
        return addr

    def Reset(self) -> None:
        self.ctx.ub_used = 0

    def Destroy(self) -> None:
        pass
