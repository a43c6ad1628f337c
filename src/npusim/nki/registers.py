"""Engine-sequencer registers: ``nisa.register_alloc / register_move / register_load / register_store`` and
``nl.dynamic_range`` (loops whose bounds are registers).

The kernel runs eagerly here, so a ``VirtualRegister`` holds a Python int: ``register_load`` reads the
one-element tensor when it is issued, and a dynamic loop iterates ``range(start, stop, step)`` with the
registers' values at loop entry. Each register value is a 32-bit integer ("64x 32-bit registers per engine
sequencer"): loads and moves wrap to int32.

Cost (not published; npusim's choice, docs/nki.md): register_move is free (an immediate in the
sequencer); register_load / register_store are one small DMA-like access, placed on the Sync engine's
queue (``sync``) at ``REGISTER_ACCESS_NS``, ordered after the tile's writer / before its next reader.
"""
from __future__ import annotations

import numpy as np

from ..core.errors import ConstraintError
from . import scope as _scope
from .runtime import current
from .tensor import NkiTensor

REGISTER_ACCESS_NS = 64.0      # one scalar access by a sequencer (assumed: an initiation interval at ~1 GHz)


class VirtualRegister:
    """``nki.isa.VirtualRegister``: a sequencer register holding a 32-bit integer (or nothing yet)."""
    __slots__ = ("value",)

    def __init__(self, value=None):
        self.value = value

    def get(self, api: str) -> int:
        if self.value is None:
            raise ConstraintError(api, "register", "a register holds a value (register_alloc(x), register_move "
                                  "or register_load) before it is read", "uninitialized register")
        return self.value

    def __index__(self) -> int:
        return self.get("VirtualRegister")

    def __bool__(self) -> bool:         # ``while reg:`` (the parser frontend's dynamic while loop)
        return bool(self.get("VirtualRegister"))

    def __repr__(self) -> str:
        return f"VirtualRegister({self.value})"


def _int32(v) -> int:
    return int(np.array(v, dtype=np.int64).astype(np.int32))


def register_alloc(x=None) -> VirtualRegister:
    api = "nisa.register_alloc"
    if x is not None and not isinstance(x, (int, np.integer)):
        raise ConstraintError(api, "x", "None or an int immediate", x)
    return VirtualRegister(None if x is None else _int32(x))


def register_move(dst, src) -> None:
    api = "nisa.register_move"
    _reg(api, "dst", dst)
    if isinstance(src, VirtualRegister):
        dst.value = src.get(api)
    elif isinstance(src, (int, np.integer)) and not isinstance(src, bool):
        dst.value = _int32(src)
    else:
        raise ConstraintError(api, "src", "a compile-time int or a VirtualRegister", src)


def _reg(api, param, r):
    if not isinstance(r, VirtualRegister):
        raise ConstraintError(api, param, "a VirtualRegister (from nisa.register_alloc)", type(r).__name__)


def _scalar_tile(api, param, t):
    if not isinstance(t, NkiTensor):
        raise ConstraintError(api, param, "an NKI tensor", type(t).__name__)
    if t.in_psum:
        raise ConstraintError(api, param, "a tensor in HBM or SBUF", t.buffer)
    if t.size != 1:
        raise ConstraintError(api, param, "exactly one element (shape [1] or [1, 1])", t.shape)
    if t.itemsize > 4:
        raise ConstraintError(api, param, "a value of up to 32 bits", t.tv.dtype)


def register_load(dst, src):
    """Load the one-element tensor ``src`` (HBM or SBUF) into the register ``dst``."""
    api = "nisa.register_load"
    run = current(api)
    _reg(api, "dst", dst)
    _scalar_tile(api, "src", src)
    v = src.read(api).reshape(-1)[0]
    dst.value = _int32(v) if src.tv.dtype.kind in "iub" else _int32(np.trunc(np.float64(v)))
    return run.issue(api, "sync", REGISTER_ACCESS_NS, reads=[src], writes=[])


def register_store(dst, src):
    """Store the register ``src`` into the one-element tensor ``dst`` (cast to its dtype)."""
    api = "nisa.register_store"
    run = current(api)
    _reg(api, "src", src)
    _scalar_tile(api, "dst", dst)
    dst.write(np.array(src.get(api)).astype(dst.tv.dtype.np).reshape(dst.shape))
    return run.issue(api, "sync", REGISTER_ACCESS_NS, reads=[], writes=[dst])


def _bound(api, param, x) -> int:
    if isinstance(x, VirtualRegister):
        return x.get(api)
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        return int(x)
    raise ConstraintError(api, param, "an int or a VirtualRegister", x)


def dynamic_range(start, stop=None, step=1):
    """``nl.dynamic_range(start, stop=None, step=1)``: a loop run by the sequencers with register bounds.

    ``step`` is a compile-time positive int (its docstring); bounds are read once, at loop entry. Each
    iteration scopes its tiles as the other NKI loops do."""
    api = "nl.dynamic_range"
    if stop is None:
        start, stop = 0, start
    if not isinstance(step, (int, np.integer)) or isinstance(step, bool) or step < 1:
        raise ConstraintError(api, "step", "a compile-time positive int (not a VirtualRegister)", step)
    r = range(_bound(api, "start", start), _bound(api, "stop", stop), int(step))
    from . import runtime as _runtime
    run = _runtime._current
    return r if run is None else _scope.iterate(run, r, api, True)   # a compiled loop: tiles do not outlive it
