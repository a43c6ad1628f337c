"""okk_global_mem_addr, okk_local_mem_addr, okk_l2_sram_addr and okk_dtcm_addr for C kernels: real
pointers into npusim's memories (the numpy buffers' addresses).

Bytes a kernel writes through such a pointer must count as written. C stores cannot be seen, so npusim
watches a window after the pointer: when the getter returns, it copies the window and puts a canary byte
(0xA5) into the window's never-written bytes; before the kernel's next okk call (and when the run ends)
the span from the first to the last byte that differs from the copy is marked written (a store of the
canary value inside the span is a store too) and the canaries outside it go back to 0. So a store of
exactly the canary value at either end of what a kernel wrote is missed (it reads as never written),
bytes between two separate stores count as written, and stores beyond the window are not marked. A
pointer that falls inside a window already watched (before the next okk call) reuses that window. Window: to the end of the NPU's local memory for
``okk_local_mem_addr``, ``WINDOW`` bytes (clipped to the memory) for the others.

The DTCM (no okk instruction reads it) is a plain per-device buffer of ``okk_dtcm_size()`` bytes.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.errors import ConstraintError
from ...core.memory import Memory
from .. import spec
from ..device import current

WINDOW = 4 << 20
CANARY = 0xA5
LOCAL_ADDR_MASK = 0x7FFFFFF       # okk_local_mem_addr masks the address like the C-model


@dataclass
class Watch:
    mem: Memory
    lo: int
    hi: int
    before: np.ndarray
    fresh: np.ndarray         # bool: never-written bytes that hold the canary


_watches: list[Watch] = []


def pending() -> bool:
    return bool(_watches)


def settle() -> None:
    """Mark the bytes the kernel stored through its pointers as written (call before each okk call)."""
    while _watches:
        w = _watches.pop()
        now = w.mem.data[w.lo:w.hi]
        changed = now != w.before
        hit = np.flatnonzero(changed)
        if hit.size:
            lo, hi = int(hit[0]), int(hit[-1]) + 1
            changed[lo:hi] = True          # the span: a canary-valued byte inside it was stored too
            w.mem.init[w.lo + lo:w.lo + hi] = 1
        untouched = w.fresh & ~changed
        if untouched.any():
            now[untouched] = 0


def _watch(mem: Memory, lo: int, hi: int) -> int:
    for w in _watches:
        if w.mem is mem and w.lo <= lo < w.hi:      # a pointer inside a watched window: no second copy
            return mem.data[lo:].ctypes.data        # (a kernel may ask for one pointer per element)
    data = mem.data[lo:hi]
    fresh = mem.init[lo:hi] == 0
    if fresh.any():
        data[fresh] = CANARY
    _watches.append(Watch(mem, lo, hi, data.copy(), fresh))
    return data.ctypes.data


def _pointer(api: str, mem: Memory, offset: int, limit: int) -> int:
    if not 0 <= offset < limit:
        raise ConstraintError(api, "addr", f"an address inside {mem.name}", hex(offset + mem.base))
    return _watch(mem, offset, min(limit, offset + WINDOW))


def okk_global_mem_addr(addr: int) -> int:
    mem = current().system
    return _pointer("okk_global_mem_addr", mem, int(addr) - mem.base, mem.size)


def okk_l2_sram_addr(addr: int) -> int:
    mem = current().l2sram
    return _pointer("okk_l2_sram_addr", mem, int(addr) - mem.base, mem.size)


def okk_local_mem_addr(idx: int, addr: int) -> int:
    api = "okk_local_mem_addr"
    if not 0 <= int(idx) < spec.NPU_NUM:
        raise ConstraintError(api, "idx", f"an NPU index in [0, {spec.NPU_NUM})", idx)
    mem = current().local
    start = int(idx) * spec.LOCAL_MEM_SIZE + (int(addr) & LOCAL_ADDR_MASK)
    end = (int(idx) + 1) * spec.LOCAL_MEM_SIZE
    if not start < end:
        raise ConstraintError(api, "addr", "an offset inside the NPU's local memory", hex(int(addr)))
    return _watch(mem, start, end)


def dtcm(dev) -> Memory:
    """The device's DTCM buffer (created on first use)."""
    mem = getattr(dev, "_c_dtcm", None)
    if mem is None:
        mem = dev._c_dtcm = Memory("DTCM", spec.DTCM_SIZE, base=spec.DTCM_START)
    return mem


def okk_dtcm_addr(addr: int) -> int:
    mem = dtcm(current())
    return _pointer("okk_dtcm_addr", mem, int(addr) - mem.base, mem.size)
