"""GM_ADDR, GlobalTensor and LocalTensor.

A LocalTensor is a typed window on its core's Unified Buffer (UB) with a TPosition; a GlobalTensor is a
typed window on global memory (GM), which launch() backs with the user's numpy arrays.
"""
from __future__ import annotations

import enum

import numpy as np

from ..core.dtypes import RoundMode, cast
from ..core.errors import ConstraintError, OutOfBoundsError
from ..core.memory import Memory
from ..core.view import TensorView
from . import cost
from .context import current
from .dtypes import as_dtype, asc_name
from . import args as _args


def scalar_to(value, dtype) -> np.ndarray:
    """A C++ scalar assignment ``T x = value``: floats round to nearest even into float types and
    truncate toward zero into integer types; integers wrap into integer types (two's complement)."""
    a = np.asarray([value])
    if dtype.is_int and a.dtype.kind in "iub":
        return cast(a.astype(np.int64), dtype, saturate=False)
    return cast(a.astype(np.float64), dtype, round=RoundMode.TRUNC if dtype.is_int else RoundMode.RINT)


class TPosition(enum.IntEnum):
    GM = 0
    A1 = 1
    A2 = 2
    B1 = 3
    B2 = 4
    C1 = 5
    C2 = 6
    CO1 = 7
    CO2 = 8
    VECIN = 9
    VECOUT = 10
    VECCALC = 11
    SPM = 12
    TSCM = 13
    C2PIPE2GM = 14
    C2PIPE2LOCAL = 15
    LCM = 11          # alias of VECCALC
    SHM = 12          # alias of SPM


class GM_ADDR:
    """A kernel's global-memory argument: a byte pointer into GM (``uint8_t*``), or a typed one after
    ``cast`` (C++ ``(__gm__ half*)x``). ``+ n`` moves n bytes (untyped) or n elements (typed).
    ``[lo, hi)`` is the argument's data, ``cap`` the end of its GM allocation (``hi`` rounded up to the
    allocation granule by ``launch``): accesses are checked against ``[lo, cap)``, as the device faults
    only outside the allocation."""

    __slots__ = ("memory", "offset", "lo", "hi", "dtype", "name", "cap")

    def __init__(self, memory: Memory, offset: int, lo: int, hi: int, dtype=None, name: str = "gm",
                 cap: int | None = None):
        self.memory, self.offset, self.lo, self.hi, self.dtype, self.name = memory, offset, lo, hi, dtype, name
        self.cap = hi if cap is None else cap

    def cast(self, dtype) -> "GM_ADDR":
        return GM_ADDR(self.memory, self.offset, self.lo, self.hi, _args.dtype("GM_ADDR.cast", "T", dtype), self.name,
                       self.cap)

    def __add__(self, n: int) -> "GM_ADDR":
        step = self.dtype.itemsize if self.dtype is not None else 1
        n = _args.as_int("GM_ADDR +", "n", n, -(1 << 40), 1 << 40)
        return GM_ADDR(self.memory, self.offset + n * step, self.lo, self.hi, self.dtype, self.name, self.cap)

    def __repr__(self) -> str:
        return f"GM_ADDR({self.name}+{self.offset - self.lo})"


class GlobalTensor:
    def __init__(self, dtype):
        self.dtype = _args.dtype("GlobalTensor", "T", dtype)
        self.addr: GM_ADDR | None = None
        self.size = 0

    def SetGlobalBuffer(self, buffer: GM_ADDR, bufferSize: int | None = None) -> None:
        if not isinstance(buffer, GM_ADDR):
            raise ConstraintError("SetGlobalBuffer", "buffer", "a GM_ADDR kernel argument (or one offset "
                                  "from it)", type(buffer).__name__)
        item = self.dtype.itemsize
        if bufferSize is None:
            bufferSize = (buffer.hi - buffer.offset) // item
        bufferSize = _args.as_int("SetGlobalBuffer", "bufferSize", bufferSize)
        if bufferSize < 0:
            raise ConstraintError("SetGlobalBuffer", "bufferSize", ">= 0", bufferSize)
        # Only the start address must lie in the argument's allocation: on the device SetGlobalBuffer only sets
        # a pointer and a size, so a size past the allocation (a tail core's nominal block) is no fault until
        # an access reaches past it (GlobalTensor.view, DataCopy check every access).
        if not buffer.lo <= buffer.offset <= buffer.cap:
            m = buffer.memory
            raise OutOfBoundsError(m.name, (buffer.offset, buffer.offset + bufferSize * item),
                                   (buffer.lo, buffer.cap), what=f"bytes of argument {buffer.name}'s allocation",
                                   api="SetGlobalBuffer")
        self.addr = GM_ADDR(buffer.memory, buffer.offset, buffer.lo, buffer.hi, self.dtype, buffer.name, buffer.cap)
        self.size = int(bufferSize)

    def _need(self, api: str) -> None:
        if self.addr is None:
            raise ConstraintError(api, "GlobalTensor", "SetGlobalBuffer was called first", None)

    def GetSize(self) -> int:
        return self.size

    def GetPhyAddr(self, offset: int = 0) -> GM_ADDR:
        self._need("GetPhyAddr")
        return self.addr + offset

    def __getitem__(self, offset: int) -> "GlobalTensor":
        """``gm[offset]``: the same buffer from element ``offset`` on. As on the device this only moves the
        address: an offset past ``GetSize()`` is allowed while the address stays inside the argument's GM
        allocation (its padding included); accesses are checked against that allocation."""
        self._need("GlobalTensor[]")
        offset = _args.as_int("GlobalTensor[]", "offset", offset)
        a = self.addr
        new = a.offset + offset * self.dtype.itemsize
        if offset < 0 or new > a.cap:
            raise OutOfBoundsError(a.memory.name, (new, new), (a.lo, a.cap),
                                   what=f"bytes of argument {a.name}'s allocation", api="GlobalTensor[]")
        g = GlobalTensor.__new__(GlobalTensor)      # this tensor's dtype, already resolved (a per-tile call)
        g.dtype, g.addr, g.size = self.dtype, a + offset, max(self.size - offset, 0)
        return g

    def alloc_elements(self) -> int:
        """Elements from this tensor's address to the end of its GM allocation (what an access may reach)."""
        return (self.addr.cap - self.addr.offset) // self.dtype.itemsize

    @property
    def byte_offset(self) -> int:
        return self.addr.offset

    def view(self, offset: int, n: int, api: str) -> TensorView:
        self._need(api)
        a = self.addr
        lo = a.offset + offset * self.dtype.itemsize
        hi = lo + n * self.dtype.itemsize
        if offset < 0 or n < 0 or lo < a.lo or hi > a.cap:
            raise OutOfBoundsError(a.memory.name, (lo, hi), (a.lo, a.cap),
                                   what=f"bytes of argument {a.name}'s allocation", api=api)
        return TensorView(a.memory, lo, (n,), None, self.dtype, api=api)

    def GetValue(self, offset: int):
        v = self.view(_args.as_int("GlobalTensor.GetValue", "offset", offset), 1, "GlobalTensor.GetValue")
        current().gm_accesses.append((v, False, "GetValue"))
        current().place("PIPE_S", "GetValue", cost.SCALAR_CYCLES, reads=[v.footprint])
        return v.read("GlobalTensor.GetValue")[0]

    def SetValue(self, offset: int, value) -> None:
        value = _args.scalar("GlobalTensor.SetValue", "value", value, self.dtype)
        v = self.view(_args.as_int("GlobalTensor.SetValue", "offset", offset), 1, "GlobalTensor.SetValue")
        current().gm_accesses.append((v, True, "SetValue"))
        current().place("PIPE_S", "SetValue", cost.SCALAR_CYCLES, writes=[v.footprint])
        v.write(scalar_to(value, self.dtype))

    def __repr__(self) -> str:
        return f"GlobalTensor<{asc_name(self.dtype)}>({self.addr}, size={self.size})"


class LocalTensor:
    """A typed window on UB: start byte ``addr``, ``size`` elements, a TPosition."""

    __slots__ = ("ctx", "addr", "dtype", "size", "position", "buffer", "key")

    def __init__(self, ctx, addr: int, dtype, size: int, position: TPosition, buffer=None):
        self.ctx, self.addr, self.dtype, self.size = ctx, int(addr), as_dtype(dtype), int(size)
        self.position, self.buffer = position, buffer
        self.key = (self.addr, self.size, self.dtype.name, int(position))   # what the call cache compares

    def __class_getitem__(cls, dtype):
        """``LocalTensor<T>(TPosition pos, uint32_t addr, uint32_t size)`` (a tensor at a UB byte address, no
        allocator): ``asc.LocalTensor[asc.float](asc.TPosition.VECIN, 0, n)``."""
        d = as_dtype(dtype)

        def make(pos, addr, tileSize):
            ctx = current()
            addr, n = int(addr), int(tileSize)
            if addr < 0 or n < 0 or addr + n * d.itemsize > ctx.soc.ub_bytes:
                raise ConstraintError("LocalTensor", "addr", f"the tensor lies in the {ctx.soc.ub_bytes}-byte UB",
                                      (addr, n))
            return cls(ctx, addr, d, n, TPosition(pos))
        return make

    def GetSize(self) -> int:
        return self.size

    def GetLength(self) -> int:
        return self.size * self.dtype.itemsize

    def GetPhyAddr(self) -> int:
        return self.addr

    def GetPosition(self) -> TPosition:
        return self.position

    def __getitem__(self, offset: int) -> "LocalTensor":
        offset = _args.as_int("LocalTensor[]", "offset", offset)
        if not 0 <= offset <= self.size:
            raise ConstraintError("LocalTensor[]", "offset", f"0 <= offset <= GetSize() = {self.size}", offset)
        return LocalTensor(self.ctx, self.addr + offset * self.dtype.itemsize, self.dtype, self.size - offset,
                           self.position, self.buffer)

    def copy(self) -> "LocalTensor":
        """Another handle on the same window (what DeQue<T> returns for the tensor's own T): the fields are
        copied, not re-derived, because this is on every DeQue."""
        t = LocalTensor.__new__(LocalTensor)
        t.ctx, t.addr, t.dtype, t.size, t.position, t.buffer, t.key = (self.ctx, self.addr, self.dtype, self.size,
                                                                      self.position, self.buffer, self.key)
        return t

    def ReinterpretCast(self, dtype) -> "LocalTensor":
        d = _args.dtype("ReinterpretCast", "T", dtype)
        return LocalTensor(self.ctx, self.addr, d, self.GetLength() // d.itemsize, self.position, self.buffer)

    def view(self, offset: int, n: int, api: str) -> TensorView:
        if offset < 0 or n < 0 or offset + n > self.size:
            raise ConstraintError(api, "LocalTensor", f"the access [{offset}, {offset + n}) lies inside the "
                                  f"LocalTensor's {self.size} elements (check instr failed)", (offset, n))
        return TensorView(self.ctx.ub, self.addr + offset * self.dtype.itemsize, (n,), None, self.dtype, api=api)

    def GetValue(self, index: int):
        v = self.view(_args.as_int("LocalTensor.GetValue", "index", index), 1, "LocalTensor.GetValue")
        self.ctx.place("PIPE_S", "GetValue", cost.SCALAR_CYCLES, reads=[v.footprint])
        return v.read("LocalTensor.GetValue")[0]

    def SetValue(self, index: int, value) -> None:
        value = _args.scalar("LocalTensor.SetValue", "value", value, self.dtype)
        v = self.view(_args.as_int("LocalTensor.SetValue", "index", index), 1, "LocalTensor.SetValue")
        self.ctx.place("PIPE_S", "SetValue", cost.SCALAR_CYCLES, writes=[v.footprint])
        v.write(scalar_to(value, self.dtype))

    def load(self, values) -> "LocalTensor":
        """Host-side fill (a debugging aid, no event): write ``values`` (cast to the dtype) from element 0."""
        a = np.asarray(values).reshape(-1)
        if a.dtype != self.dtype.np:
            a = cast(a, self.dtype)
        self.view(0, a.size, "LocalTensor.load").write(a)
        return self

    def numpy(self) -> np.ndarray:
        """A copy of the tensor's current contents (for tests and debugging; no event)."""
        return self.view(0, self.size, "LocalTensor.numpy").array().copy()

    def __repr__(self) -> str:
        return (f"LocalTensor<{asc_name(self.dtype)}>(UB+{self.addr:#x}, size={self.size}, "
                f"{self.position.name})")
