"""The GEN.2 core a VPPL process runs on: mode, vector-register width, memories, image buffers, timeline.

One ``Machine`` is current at a time (``machine()``); Python-created vectors and ``run()`` use it.
"""
from __future__ import annotations

import itertools
import os
from contextlib import contextmanager

import numpy as np

from ..core.allocator import Allocator
from ..core.errors import ConstraintError
from ..core.memory import Memory
from ..core.timeline import Timeline
from . import spec
from .readings import DEFAULT, Readings

MODES = ("gen2", "extended")


class ImageBuffer:
    """Image buffer A or B: 8-bit pixels, row-major, as the compiler's --PINA/--PINB load them."""

    def __init__(self, name: str, pixels: np.ndarray):
        self.name = name
        self.height, self.width = pixels.shape
        self.step = self.width                      # bytes per row (the pointer's step width)
        self.memory = Memory(f"image{name}", max(self.height * self.width, 1))
        self.memory.write_bytes(0, np.ascontiguousarray(pixels, np.uint8))

    def array(self) -> np.ndarray:
        return self.memory.data[: self.height * self.width].reshape(self.height, self.width)


def load_image(src) -> np.ndarray:
    """A 2-D uint8 array from a numpy array or a PNG path (grey; RGB is averaged to grey)."""
    if isinstance(src, (str, os.PathLike)):
        import matplotlib.image as mpimg
        img = mpimg.imread(os.fspath(src))
        if img.dtype != np.uint8:                    # PNG decodes to floats in [0, 1]
            img = np.rint(np.asarray(img, np.float64) * 255.0).astype(np.uint8)
        if img.ndim == 3:
            img = np.rint(img[..., :3].astype(np.float64).mean(axis=2)).astype(np.uint8)
        return img
    a = np.asarray(src)
    if a.ndim != 2:
        raise ConstraintError("use_image", "image", "an image buffer is a 2-D array of 8-bit pixels", a.shape)
    if a.dtype != np.uint8:
        if a.size and (a.min() < 0 or a.max() > 255):
            raise ConstraintError("use_image", "image", "pixels are 8-bit (0..255)", (a.min(), a.max()))
        a = a.astype(np.uint8)
    return a


class Machine:
    """mode: "gen2" (default; suffixes outside the GEN.2 instruction set are errors, as --G2 warns)
    or "extended" (every suffix runs). reg_bits: the SIMD vector-register width (cost model,
    filter_sub's margin). readings: the choices for the seed's ambiguous points (readings.py)."""

    def __init__(self, mode: str = "gen2", reg_bits: int = spec.REG_BITS, freq_hz: float = spec.FREQ_HZ,
                 dm_bytes: int = spec.DM_BYTES, readings: Readings = DEFAULT, name: str | None = None):
        if not isinstance(mode, str) or mode not in MODES:
            raise ConstraintError("Machine", "mode", f"one of {', '.join(MODES)}", mode)
        from .args import integer, name as name_arg
        reg_bits = integer("Machine", "reg_bits", reg_bits, 8, 1 << 16, "a register width in bits, a multiple of 8 in [8, 65536]")
        if reg_bits % 8:
            raise ConstraintError("Machine", "reg_bits", "a register width in bits, a multiple of 8", reg_bits)
        dm_bytes = integer("Machine", "dm_bytes", dm_bytes, 1, 1 << 31, "a data memory size in [1, 2^31] bytes")
        if isinstance(freq_hz, (bool, np.bool_)) or not isinstance(freq_hz, (int, float, np.integer, np.floating)) \
                or not np.isfinite(freq_hz) or freq_hz <= 0:
            raise ConstraintError("Machine", "freq_hz", "a positive finite clock in Hz", freq_hz)
        if not isinstance(readings, Readings):
            raise ConstraintError("Machine", "readings", "a vppl.Readings", readings)
        name = name_arg("Machine", name)
        self.mode = mode
        self.readings = readings
        self.reg_bits = int(reg_bits)
        self.reg_bytes = self.reg_bits // 8
        self.freq_hz = freq_hz
        self.dm = Memory("DM", dm_bytes)            # data memory for pointer variables
        self.dm_blocks = Allocator("DM", dm_bytes, align=spec.DM_ALIGN)
        self.images: dict[str, ImageBuffer] = {}
        # the default core label is the same for every run (determinism: two runs, identical traces);
        # give machines that share one trace their own names
        self.name = name or "gen2-core0"
        self._vector_names = itertools.count()      # v0, v1, ... per machine (per run), not per process
        self.timeline = Timeline({"simd": freq_hz, "scalar": freq_hz}, core=self.name)
        self.simd_engine = self.timeline.engines["simd"]
        self.scalar_engine = self.timeline.engines["scalar"]

    def vector_name(self) -> str:
        """The next default vector name of this machine: v0, v1, ... (per run, so traces repeat)."""
        return f"v{next(self._vector_names)}"

    @property
    def extended(self) -> bool:
        return self.mode == "extended"

    def set_image(self, which: str, src) -> ImageBuffer:
        which = which.upper()
        if which not in ("A", "B"):
            raise ConstraintError("use_image", "buffer", "image buffers are A and B", which)
        buf = self.images[which] = ImageBuffer(which, load_image(src))
        return buf

    def dm_store(self, values, name: str = "") -> "Pointer":
        """Place an array in data memory (32-byte aligned, capacity checked); a pointer to it."""
        from .pointer import Pointer
        a = np.ascontiguousarray(values)
        block = self.dm_blocks.alloc(max(a.nbytes, 1), name, api="dm_store")
        self.dm.write_bytes(block.offset, a, api="dm_store")
        return Pointer(self.dm, block.offset, 0, name)

    def image_pointer(self, which: str, name: str = "") -> "Pointer":
        """``use_image(p, A)``: a pointer to image buffer A or B carrying its row step."""
        from .pointer import Pointer
        which = which.upper()
        if which not in self.images:
            raise ConstraintError("use_image", "buffer", f"image buffer {which} is loaded (the compiler's "
                                  f"--PIN{which}; images={{'{which}': ...}} in Python)", which)
        buf = self.images[which]
        return Pointer(buf.memory, 0, buf.step, name or f"image{which}")

    @property
    def cycles(self) -> float:
        return sum(e.busy_ns for e in self.timeline.engines.values()) * self.freq_hz / 1e9


_current = [Machine()]


def machine() -> Machine:
    """The current machine."""
    return _current[0]


def reset(mode: str = "gen2", **kw) -> Machine:
    """Start a fresh current machine (new timeline, memories)."""
    _current[0] = Machine(mode, **kw)
    return _current[0]


@contextmanager
def using(m: Machine):
    """Make ``m`` current inside the block."""
    old = _current[0]
    _current[0] = m
    try:
        yield m
    finally:
        _current[0] = old


@contextmanager
def mode(name: str, **kw):
    """``with vppl.mode("extended"):`` a fresh machine in that mode for the block."""
    with using(Machine(name, **kw)) as m:
        yield m
