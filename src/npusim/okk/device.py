"""The BM1684 device: 64 NPU local memories, system memory, two engines, and Sophgo's schedule.

``with okk.Device() as dev:`` makes ``dev`` the device the ``okk_*`` calls act on, the way the C API acts
on its globals. Outside any ``with`` a lazily created default device is used.

Schedule (okkernel_cycles.md §2, verified on Sophgo's libbackend): outside a parallel region every
instruction waits for all earlier ones on both engines; inside ``okk_parallel_start/_end`` BDC and
GDMA are two serial streams that start where the region started, and ``okk_parallel_end`` joins them.
``total_cycles`` counts in Sophgo's single cycle unit (its ``API_END total_cycle``); the timeline shows
nanoseconds with each engine's own clock (BDC 550 MHz, GDMA 575 MHz).
"""
from __future__ import annotations

import numpy as np

from ..core.errors import ConstraintError
from ..core.memory import Memory
from ..core.timeline import Timeline
from ..core.trace import Trace
from . import args, spec
from .layout import LocalTensor, SystemTensor

CMD_IDS = 1 << 16               # the C-model's 16-bit BDC / GDMA command ids per section
PARALLEL_FLUSH = 30000          # after a parallel region with more ids than this the C-model flushes

BDC, GDMA = "BDC", "GDMA"


class Device:
    def __init__(self, global_mem_bytes: int = spec.GLOBAL_MEM_SIZE, trace: Trace | None = None):
        # LMEM with 4 KiB pages: every tensor touches a few KiB of each of its 512 KiB lanes, where a
        # huge page is 4 lanes (core.memory.zeroed). DDR keeps numpy's huge pages: kernels move dense
        # ranges there (a 13 MB depthwise output faulted in ~10 % faster than with 4 KiB pages).
        self.local = Memory("LMEM", spec.LOCAL_MEM_SIZE, spec.NPU_NUM, base=0, small_pages=True)
        self.system = Memory("DDR", global_mem_bytes, base=spec.GLOBAL_MEM_START)
        self.l2sram = Memory("L2SRAM", spec.L2_SRAM_SIZE, base=spec.L2_SRAM_START)
        self.timeline = Timeline({BDC: spec.BDC_FREQ_HZ, GDMA: spec.GDMA_FREQ_HZ}, core="BM1684", trace=trace)
        self.parallel = False
        self._cycles = 0            # Sophgo cycle_count of this okk_initialize..okk_poll section
        self._stream_end = {BDC: 0, GDMA: 0}
        self.bdc_instructions = 0
        self.gdma_instructions = 0
        self._section_ids = [0, 0]      # BDC, GDMA instructions since okk_initialize (C-model command ids)
        self.flush_cycles: list[int] = []   # total_cycles at each parallel-region flush of this section
        self._tensors: dict = {}     # operand cache: kernels loop over the same few buffers
        self._calls: dict = {}       # validated BDC call signatures -> (operands, blocks, elements, run shape)

    # ---- operands (validated once per distinct address/shape/stride, then reused) ----

    def local_tensor(self, api, param, addr, shape, strides, dtype, esize):
        addr = args.local_addr(api, param, addr)
        if strides is not None:
            strides = args.stride_arg(api, param.replace("_addr", "_stride"), strides)
        key = ("L", addr, shape.n, shape.c, shape.h, shape.w,
               None if strides is None else (strides.n, strides.c, strides.h, strides.w), dtype, esize)
        t = self._tensors.get(key)
        if t is None:
            t = LocalTensor(self.local, api, param, addr, shape, strides, dtype, esize)
            self._cache(key, t)
        return t

    def system_tensor(self, api, param, addr, shape, strides, dtype, esize):
        addr = args.system_addr(api, param, addr)
        if strides is not None:
            strides = args.stride_arg(api, param.replace("_addr", "_stride"), strides)
        key = ("S", addr, shape.n, shape.c, shape.h, shape.w,
               None if strides is None else (strides.n, strides.c, strides.h, strides.w), dtype, esize)
        t = self._tensors.get(key)
        if t is None:
            t = SystemTensor(self, api, param, addr, shape, strides, dtype, esize)
            self._cache(key, t)
        return t

    def _cache(self, key, t) -> None:
        if len(self._tensors) >= 4096:
            self._tensors.clear()
        self._tensors[key] = t

    # ---- context: the device okk_* calls act on ----

    def __enter__(self) -> "Device":
        _stack.append(self)
        return self

    def __exit__(self, *exc) -> None:
        _stack.remove(self)

    # ---- host side (bm_memcpy_s2d / bm_memcpy_d2s) ----

    def system_memory(self, addr: int, api: str = "Device.write_system", param: str = "addr") -> tuple[Memory, int]:
        """The memory holding system address ``addr`` and the offset in it."""
        for mem in (self.system, self.l2sram):
            if mem.base <= addr < mem.base + mem.size:
                return mem, addr - mem.base
        raise ConstraintError(api, param, f"a system address in global memory [{self.system.base:#x}, "
                              f"{self.system.base + self.system.size:#x}) or L2 SRAM", hex(addr))

    def write_system(self, addr: int, array) -> None:
        """Upload the raw bytes of ``array`` to system address ``addr`` (bm_memcpy_s2d)."""
        mem, off = self.system_memory(addr, api="Device.write_system")
        mem.write_bytes(off, np.ascontiguousarray(array), api="Device.write_system")

    def read_system(self, addr: int, shape, dtype=np.float32) -> np.ndarray:
        """Download ``shape`` elements of ``dtype`` from system address ``addr`` (bm_memcpy_d2s)."""
        dt = np.dtype(dtype)
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        nbytes = int(np.prod(shape, dtype=np.int64)) * dt.itemsize
        mem, off = self.system_memory(addr, api="Device.read_system")
        return mem.read_bytes(off, nbytes, api="Device.read_system").view(dt).reshape(shape)

    def write_local(self, npu: int, offset: int, array) -> None:
        """Test/debug helper: raw bytes into one NPU's local memory."""
        self.local.write_bytes(npu * spec.LOCAL_MEM_SIZE + offset, np.ascontiguousarray(array))

    def read_local(self, npu: int, offset: int, nbytes: int) -> np.ndarray:
        return self.local.read_bytes(npu * spec.LOCAL_MEM_SIZE + offset, nbytes)

    # ---- the schedule ----

    @property
    def total_cycles(self) -> int:
        """Modelled elapsed cycles since okk_initialize (Sophgo's cycle_count / API_END total_cycle)."""
        if self.parallel:
            return max(self._stream_end.values())
        return self._cycles

    @property
    def total_ns(self) -> float:
        return self.timeline.now_ns

    @property
    def events(self):
        return self.timeline.trace.events

    def issue(self, engine: str, api: str, instr: str, cycles: int, reads=(), writes=(), nbytes: int = 0,
              elements: int = 0, **extra):
        """Place one hardware instruction: Sophgo's start cycle, and an event on the timeline."""
        cycles = int(cycles)
        if self.parallel:
            start = self._stream_end[engine]
            self._stream_end[engine] = start + cycles
            order, not_before = "sync", 0.0
        else:
            start = self._cycles
            self._cycles = start + cycles
            order, not_before = "none", self.timeline.now_ns
        ids = self._section_ids
        if engine == BDC:
            if ids[0] >= CMD_IDS or ids[1] >= CMD_IDS:
                # the C-model asserts bd_cmd_id < 2^16 and gdma_cmd_id < 2^16 when it issues a BDC command
                # (contest sweep: matmul case 0 of three top solutions); the result is already written
                raise ConstraintError(api, "okk_initialize", "at most 65536 BDC instructions in a section, and "
                                      "none after 65536 GDMA instructions (16-bit command ids; C-model)",
                                      f"BDC {ids[0]}, GDMA {ids[1]} since okk_initialize")
            ids[0] += 1
            self.bdc_instructions += 1
        else:
            ids[1] += 1
            self.gdma_instructions += 1
        args = {"cycles": cycles, "instruction": instr, "start_cycle": start}
        if extra:
            args.update(extra)
        ev = self.timeline.place(engine, api, cycles, reads=reads, writes=writes, order=order,
                                 not_before_ns=not_before, nbytes=nbytes, elements=elements, args=args)
        if not self.parallel:
            # Serial: nothing starts before this ends, on either engine (lets the timeline forget
            # accesses that can no longer matter).
            for e in self.timeline.engines.values():
                if e.free_ns < ev.end_ns:
                    e.free_ns = ev.end_ns
        return ev

    def begin_parallel(self, api: str) -> None:
        if self.parallel:
            raise ConstraintError(api, "state", "okk_parallel_start is not nested (the C-model exits)",
                                  "already in parallel mode")
        self.timeline.barrier()
        self.parallel = True
        self._stream_end = {BDC: self._cycles, GDMA: self._cycles}

    def end_parallel(self, api: str) -> None:
        if not self.parallel:
            raise ConstraintError(api, "state", "okk_parallel_end follows okk_parallel_start "
                                  "(the C-model exits)", "not in parallel mode")
        self._cycles = max(self._stream_end.values())
        self.parallel = False
        if max(self._section_ids) > PARALLEL_FLUSH:
            # the C-model flushes here (its dump starts a new section; the ids start again): 65537 BDC in
            # parallel regions of one section pass there as sections of 30001, 30001, 5535 (probe which 8)
            self._section_ids = [0, 0]
            self.flush_cycles.append(self._cycles)     # the C route splits r.sections here (c/bridge.py)
        self.timeline.barrier()

    def initialize(self) -> None:
        """okk_initialize: a new section; command ids and cycle_count start again from zero."""
        self.parallel = False
        self.timeline.barrier()
        self._section_ids = [0, 0]
        self.flush_cycles = []
        self._cycles = 0
        self._stream_end = {BDC: 0, GDMA: 0}

    def poll(self, api: str) -> None:
        if self.parallel:
            raise ConstraintError(api, "state", "okk_poll is not called inside a parallel region "
                                  "(the C-model exits)", "in parallel mode")
        self.timeline.barrier()


_stack: list[Device] = []
_default: list[Device] = []


def current() -> Device:
    """The device okk_* calls act on: the innermost ``with dev:``, else a default device."""
    if _stack:
        return _stack[-1]
    if not _default:
        _default.append(Device())
    return _default[0]
