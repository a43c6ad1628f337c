"""Part two of THE VPPL semantics table: the image, BLAS-like and DNN dot operators (seed 003,
画像操作向け演算子 / BLAS類似演算子 / DNN向け演算子). Rows are ``semantics.OpRow``s appended to the
same table, so the Python methods, the interpreter, the docs and the table-driven tests see them.

Argument kinds: ``PTR`` is anything holding an address (pointer variable, External global, byName
argument; seed: "メモリアドレスを指している変数であれば…"), ``WORK`` an allocated vector, ``INT`` a
parameter or immediate ("パラメータまたは即値")."""
from __future__ import annotations

from . import cost_part_two as C
from . import ops_image as I
from .semantics import BASES, BY_PYNAME, INT, ROWS, TABLE, WORK, OpRow

PTR = "pointer"
WORK_T = "work area (must come from alloc_vector): ends holding the last block it moved"
SRC = "seed 003"

PART_TWO: list[OpRow] = []


def _row(base, group, params, impl, costf, *, overflow, rounding, side, source=SRC, note="", target=WORK_T):
    PART_TWO.append(OpRow(base, "", group, tuple(params), impl, costf, None, overflow, rounding, target, side,
                          True, source, note, None, False))


# ---------------------------------------------------------------- image
_row("get_array", "image",
     [("destination", PTR), ("source", PTR), ("x", INT), ("y", INT), ("width", INT), ("height", INT),
      ("type", INT)], I.get_array, C.get_array,
     overflow="exact (p << (q-8) fits F16 for q <= 15)", rounding="none (lossless left shift)",
     side="destination := height rows x ceil32(width) elements (u8 or F16Qq), row pitch = rounded width",
     source="seed 003: widths 512 / 160, rounded up to 32; x and addresses multiples of 32; type 0 or q = 8..15",
     note="pixel p -> p << (q-8) (= p/256 in Qq, reference A6.2); the rounded width is read from the source "
          "row, so x + ceil32(width) must stay inside the row (step); destination rows are contiguous")


def register() -> None:
    for r in PART_TWO:
        if r.name in TABLE:
            continue
        ROWS.append(r)
        TABLE[r.name] = r
        BY_PYNAME[r.pyname] = r
        BASES.setdefault(r.base, []).append(r)


register()
