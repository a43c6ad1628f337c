"""Element operators (seed 003, ベクトル要素の処理): insertion sort and 32-bit element / record access.
Writers rewrite the target in place; readers leave it alone and write their scalar variable."""
from __future__ import annotations

import numpy as np

from ..core.errors import ConstraintError
from . import spec
from .types import wrap_int32

EMPTY = 0xFFFFFFFF      # init_ins_sort's empty slot: key 0xFFFF (sorts last), payload 0xFFFF


def words(t, row) -> np.ndarray:
    """The target as 32-bit units (the seed: "32ビット単位の要素番号")."""
    if t.nbytes % 4:
        raise ConstraintError(row.name, "target", "the vector is a whole number of 32-bit units",
                              f"{t.name}: {t.nbytes} B")
    return t.a.view(np.uint32)


def _index(row, param: str, i: int, n: int) -> int:
    if not 0 <= i < n:
        raise ConstraintError(row.name, param, f"0 <= {param} < {n} (32-bit units in the vector)", i)
    return i


def _fixed(row, t) -> None:
    if not t.allocated:
        raise ConstraintError(row.name, "target", "the insertion-sort list stays in the vector registers for "
                              "the whole sort: allocate it with alloc_vector() (seed: 固定アロケートする必要があります)",
                              t.name)


def init_ins_sort(m, row, t):
    _fixed(row, t)
    words(t, row)[...] = EMPTY


def ins_sort(m, row, t, value, start, ret):
    """Insert a 32-bit value (key = low 16 bits, unsigned; payload = high 16 bits) into the ascending
    list starting at ``start``; after equal keys (stable). ``ret`` = one past the last data element;
    above the vector length it says the last element fell off the end."""
    _fixed(row, t)
    w = words(t, row)
    n = w.size
    if not 0 <= start <= n:
        raise ConstraintError(row.name, "start", f"0 <= start <= {n} (32-bit units in the vector)", start)
    v = int(value) & 0xFFFFFFFF
    tail = w[start:]
    used = int(np.count_nonzero(tail != EMPTY))
    keys = tail[:used] & 0xFFFF
    p = start + int(np.searchsorted(keys, v & 0xFFFF, side="right"))
    if p < n:
        w[p + 1:] = w[p:n - 1].copy()
        w[p] = v
    ret.value = start + used + 1


def get_element(m, row, t, index, out):
    w = words(t, row)
    out.value = wrap_int32(int(w[_index(row, "index", index, w.size)]))


def set_element(m, row, t, index, value):
    w = words(t, row)
    w[_index(row, "index", index, w.size)] = int(value) & 0xFFFFFFFF


def _record_slot(row, t, rec, elem) -> tuple[np.ndarray, int]:
    w = words(t, row)
    nrec = w.size // spec.RECORD_INTS
    if not 0 <= rec < nrec:
        raise ConstraintError(row.name, "record", f"0 <= record < {nrec} (records of {spec.RECORD_INTS} "
                              f"integers in the vector)", rec)
    if not 0 <= elem < spec.RECORD_INTS:
        raise ConstraintError(row.name, "element", f"0 <= element < {spec.RECORD_INTS} (integers per record)", elem)
    return w, rec * spec.RECORD_INTS + elem


def get_record(m, row, t, rec, elem, out):
    w, i = _record_slot(row, t, rec, elem)
    out.value = wrap_int32(int(w[i]))


def set_record(m, row, t, rec, elem, value):
    w, i = _record_slot(row, t, rec, elem)
    w[i] = int(value) & 0xFFFFFFFF
