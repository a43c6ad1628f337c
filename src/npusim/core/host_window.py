"""Writable host views of a Memory whose writes count as written.

A vendor pointer getter (okk's ``okk_global_mem_addr`` and friends) hands the kernel raw access to
simulated memory. ``host_window`` returns it as a ``HostWindow``: a numpy uint8 array over
``memory.data`` that marks, in ``memory.init``, exactly the bytes stored through it, so an instruction
that later reads them sees written data (not poison). Any array derived from a window (a slice, a
``.view(np.float32)``, a reshape) is a window too and marks the bytes it covers.

What counts as a store through a window: item assignment (``w[...] = v``), ``w.fill``, ``np.copyto``,
``np.put`` / ``np.place`` / ``np.putmask``, and any ufunc with the window as ``out``. Writing through a
plain ndarray taken from it with ``np.asarray`` / ``.base`` is not seen (documented in docs/core.md).
"""
from __future__ import annotations

import numpy as np

from .memory import Memory

_ONES = {1: (np.uint8, 0x01), 2: (np.uint16, 0x0101), 4: (np.uint32, 0x01010101),
         8: (np.uint64, 0x0101010101010101)}
_MARKING_FUNCTIONS = {np.copyto: 0, np.put: 0, np.place: 0, np.putmask: 0}


class HostWindow(np.ndarray):
    """An ndarray over ``memory.data`` that records every store in ``memory.init``."""

    _memory: Memory | None = None

    def __array_finalize__(self, obj) -> None:
        self._memory = getattr(obj, "_memory", None)

    def _mark(self, key=Ellipsis) -> None:
        """Mark the bytes of ``self[key]`` as written: the same index applied to a twin array of the same
        geometry over ``memory.init`` (one unsigned integer per element, all bytes 1)."""
        mem = self._memory
        if mem is None or self.size == 0:
            return
        start = self.__array_interface__["data"][0] - mem.data.__array_interface__["data"][0]
        if not 0 <= start < mem.size:
            return                       # not over this memory's bytes (a copy): nothing to mark
        item = self.dtype.itemsize
        if item in _ONES:
            twin = np.ndarray(self.shape, _ONES[item][0], buffer=mem.init, offset=start, strides=self.strides)
            twin[key] = _ONES[item][1]
        else:                            # an odd item size (complex128, longdouble): the whole window
            twin = np.ndarray(self.shape + (item,), np.uint8, buffer=mem.init, offset=start,
                              strides=self.strides + (1,))
            twin[...] = 1

    def __setitem__(self, key, value) -> None:
        np.ndarray.__setitem__(self, key, value)
        self._mark(key)

    def fill(self, value) -> None:
        np.ndarray.fill(self, value)
        self._mark()

    def __array_ufunc__(self, ufunc, method, *inputs, out=None, **kwargs):
        plain_inputs = tuple(np.asarray(x) if isinstance(x, HostWindow) else x for x in inputs)
        if out is not None:
            plain_out = tuple(np.asarray(o) if isinstance(o, HostWindow) else o for o in out)
            kwargs["out"] = plain_out
        result = getattr(ufunc, method)(*plain_inputs, **kwargs)
        if out is not None:
            for o in out:
                if isinstance(o, HostWindow):
                    o._mark()
            return out[0] if len(out) == 1 else out
        return result

    def __array_function__(self, func, types, args, kwargs):
        result = super().__array_function__(func, types, args, kwargs)
        position = _MARKING_FUNCTIONS.get(func)
        if position is not None:
            target = args[position] if len(args) > position else next(iter(kwargs.values()), None)
            if isinstance(target, HostWindow):
                target._mark()
        return result


def host_window(memory: Memory, start: int, stop: int) -> HostWindow:
    """Bytes [start, stop) of ``memory`` as a writable HostWindow (no copy)."""
    window = memory.data[start:stop].view(HostWindow)
    window._memory = memory
    return window
