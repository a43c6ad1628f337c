"""Pointer variables, External globals, byName arguments and the data memory (DM) they address.

Seed 003 (get_array, FPBLmAvX, DNN_*): operators load their inputs "from the address a pointer variable
holds" and store results "as a side effect" where a pointer points. Any variable that holds an address
will do: a pointer variable, an ``External`` global, or a ``byName`` argument that refers to one; that
the variable really holds an address is the programmer's business (the seed: プログラマが担保).

* ``vppl.Pointer`` (part one, pointer.py) is an immutable address in a memory with a row step: what
  ``Machine.dm_store`` returns and what ``use_image()`` binds (the image width as the step).
* ``PointerVariable`` is a pointer *variable* of VPPL text (``p : pointer = 4096,``, ``External p :
  pointer,``): a mutable 32-bit integer holding an address (so ``p = p + 64;`` works), plus the memory
  it points into (None = the machine's DM) and a step.
* A plain ``Integer`` (or an ``External`` integer) holding an address points into DM with step 0.
* ``ByName(var)`` is a byName argument: it refers to the variable, and reading it reads the variable.

Accesses go through core TensorViews and are checked first: the whole access lies inside the memory, and the address has the alignment the
operator needs (32 bytes where the seed says so, the element size elsewhere); errors are
ConstraintErrors naming the operator and the argument.
"""
from __future__ import annotations

import numpy as np

from ..core.errors import ConstraintError
from ..core.view import TensorView
from . import args
from .machine import ImageBuffer, machine
from .pointer import Pointer
from .vector import Integer

ALIGN = 32          # seed 003, get_array: "取り扱うアドレスは32バイトアラインメントである必要があり"


class PointerVariable(Integer):
    """A VPPL pointer variable: ``address`` into ``space`` (None: the data memory), row pitch ``step``."""
    __slots__ = ("step", "space")

    def __init__(self, address: int = 0, step: int = 0, name: str | None = None, space=None):
        super().__init__(address, name or "pointer")
        self.step = args.integer("PointerVariable", "step", step, 0)
        self.space = space

    @property
    def address(self) -> int:
        return self.value

    def __repr__(self) -> str:
        where = "" if self.space is None else f" in {self.space.name}"
        return f"PointerVariable({self.name} = {self.value:#x}{where}, step {self.step})"


class ByName:
    """A byName argument: a reference to another variable (reads go through to it)."""
    __slots__ = ("var",)

    def __init__(self, var):
        self.var = var

    def __repr__(self) -> str:
        return f"ByName({self.var!r})"


def deref(api: str, param: str, p):
    """(memory, address, step) that a pointer-like argument designates."""
    while isinstance(p, ByName):
        p = p.var
    if isinstance(p, PointerVariable):
        return (p.space if p.space is not None else machine().dm), p.value, p.step
    if isinstance(p, Pointer):
        return p.memory, p.address, p.step
    if isinstance(p, ImageBuffer):
        return p.memory, 0, p.step
    if isinstance(p, Integer):
        return machine().dm, p.value, 0
    if isinstance(p, (int, np.integer)) and not isinstance(p, bool):
        return machine().dm, int(p), 0
    raise ConstraintError(api, param, "a pointer variable, an External global or a byName argument holding "
                          "an address", type(p).__name__)


def check_access(api: str, param: str, mem, addr: int, nbytes: int, align: int) -> None:
    if addr % align:
        raise ConstraintError(api, param, f"the address is a multiple of {align} bytes", addr)
    if addr < 0 or addr + nbytes > mem.size:
        raise ConstraintError(api, param, f"the {nbytes}-byte access lies inside {mem.name} "
                              f"(0..{mem.size:#x}): an address error on the hardware", f"{addr:#x}")


def load(api: str, param: str, p, dtype, count: int, align: int | None = None, offset: int = 0) -> np.ndarray:
    """``count`` elements of ``dtype`` at the pointer (+ offset bytes), read through a core TensorView
    (never-written bytes read as poison with a warning, or raise under uninitialized="error"): a copy."""
    mem, addr, _ = deref(api, param, p)
    dt = np.dtype(dtype)
    addr += offset
    check_access(api, param, mem, addr, int(count) * dt.itemsize, align or dt.itemsize)
    return TensorView(mem, addr, (int(count),), None, dt.name, api=api).read(api).copy()


def load_rows(api: str, param: str, mem, addr: int, rows: int, cols: int, step: int) -> np.ndarray:
    """A (rows, cols) byte window with row pitch ``step`` (a strided TensorView; bounds checked by the
    caller): a copy."""
    return TensorView(mem, addr, (rows, cols), (step, 1), "uint8", api=api).read(api).copy()


def store(api: str, param: str, p, values: np.ndarray, align: int | None = None, offset: int = 0) -> None:
    """Write ``values`` (their dtype) at the pointer (+ offset bytes) through a core TensorView."""
    mem, addr, _ = deref(api, param, p)
    v = np.ascontiguousarray(values)
    addr += offset
    check_access(api, param, mem, addr, v.nbytes, align or v.dtype.itemsize)
    TensorView(mem, addr, v.shape, None, v.dtype.name, api=api).write(v)


# ---- the host side: putting data into DM and reading results back (what vFile / the loader does) ----

def dm_alloc(nbytes: int, name: str | None = None, align: int = ALIGN, step: int = 0, m=None) -> PointerVariable:
    """A fresh DM block of ``nbytes`` (32-byte aligned by default) from the machine's DM allocator (the
    one ``Machine.dm_store`` uses, so blocks never overlap)."""
    m = m or machine()
    nbytes = args.integer("dm_alloc", "nbytes", nbytes, 0)
    align = args.integer("dm_alloc", "align", align, 1, 1 << 20, "an alignment in [1, 2^20] bytes")
    name = args.name("dm_alloc", name)
    block = m.dm_blocks.alloc(max(nbytes, 1), name or "", api="dm_alloc", align=align)
    return PointerVariable(block.offset, step, name)


def dm_put(values, name: str | None = None, align: int = ALIGN, step: int = 0, m=None) -> PointerVariable:
    """Allocate a DM block, write ``values`` (their dtype) into it, return a pointer to it."""
    v = _host_array("dm_put", values)
    p = dm_alloc(v.nbytes, name, align, step, m)
    (m or machine()).dm.write_bytes(p.value, v)
    return p


def dm_write(p, values) -> None:
    """Write ``values`` at a pointer or address (host side, unchecked alignment)."""
    mem, addr, _ = deref("dm_write", "pointer", p)
    v = _host_array("dm_write", values)
    check_access("dm_write", "pointer", mem, addr, v.nbytes, 1)
    mem.write_bytes(addr, v)


def dm_read(p, dtype, count: int, shape=None) -> np.ndarray:
    """``count`` elements of ``dtype`` at a pointer or address (host side): a copy."""
    mem, addr, _ = deref("dm_read", "pointer", p)
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise ConstraintError("dm_read", "dtype", "a numpy dtype", dtype) from None
    if dt.kind not in "iufb" or dt.itemsize == 0:
        raise ConstraintError("dm_read", "dtype", "a numeric dtype", str(dt))
    count = args.integer("dm_read", "count", count, 0)
    check_access("dm_read", "pointer", mem, addr, count * dt.itemsize, 1)
    out = mem.data[addr:addr + count * dt.itemsize].view(dt).copy()
    if shape is None:
        return out
    try:
        return out.reshape(shape)
    except (TypeError, ValueError):
        raise ConstraintError("dm_read", "shape", f"a shape of {count} elements", shape) from None


def _host_array(api: str, values) -> np.ndarray:
    """Host data for DM: a numeric array (its dtype's raw bytes)."""
    try:
        v = np.ascontiguousarray(values)
    except (TypeError, ValueError, OverflowError):
        raise ConstraintError(api, "values", "a numeric array", type(values).__name__) from None
    if v.dtype.kind not in "iufb":
        raise ConstraintError(api, "values", "a numeric array", str(v.dtype))
    return v
