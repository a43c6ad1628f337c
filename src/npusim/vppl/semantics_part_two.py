"""Part two of THE VPPL semantics table: the image, BLAS-like and DNN dot operators (seed 003,
画像操作向け演算子 / BLAS類似演算子 / DNN向け演算子). Rows are ``semantics.OpRow``s appended to the
same table, so the Python methods, the interpreter, the docs and the table-driven tests see them.

Argument kinds: ``PTR`` is anything holding an address (pointer variable, External global, byName
argument; seed: "メモリアドレスを指している変数であれば…"), ``WORK`` an allocated vector, ``INT`` a
parameter or immediate ("パラメータまたは即値")."""
from __future__ import annotations

from . import cost_part_two as C
from . import ops_blas as BL, ops_image as I
from .semantics import BASES, BY_PYNAME, INT, TABLE, WORK, OpRow

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

# ---------------------------------------------------------------- BLAS-like
_FPBL_ARITH = dict(overflow="products and sums exact (int64); Y saturates to F16",
                   rounding="one right shift by q, round half up (+2^(q-1))")
_FPBL_NOTE = ("Y = sat16((mA.X + (B << q) + 2^(q-1)) >> q), ReLU after saturation (reference A7.15); "
              "memory holds the padded sizes ceil8(u) x ceil32(v) (pad_fpbl = the vendor's padding tool); "
              "Y gets ceil8(u) elements")
_row("FPBLmAvX_uB_L", "blas",
     [("q", INT), ("u", INT), ("v", INT), ("X vector 0", WORK), ("X vector 1", WORK), ("X vector 2", WORK),
      ("X vector 3", WORK), ("B vector", WORK), ("X pointer", PTR), ("Y pointer", PTR), ("B pointer", PTR),
      ("mA pointer", PTR), ("relu", INT)], BL.FPBLmAvX_uB_L, C.fpbl, **_FPBL_ARITH,
     side="Y := mA.X + B (F16Qq, ceil8(u) elements); X vector k := X[256k:256k+256]; B vector := last 8 of B",
     source="seed 003: q in {8,10,12}, v <= 1024, u memory-limited, v in 32s, u in 8s, zero padding, relu 0/1",
     note=_FPBL_NOTE + "; each of the 4 X vectors holds 256 elements of X (4 x 256 = the 1024 limit)",
     target="work area (alloc_vector, >= 8 F16): ends holding the last 8 results")
_row("FPBLmAvX_uB", "blas",
     [("q", INT), ("u", INT), ("v", INT), ("X vector", WORK), ("B vector", WORK), ("X pointer", PTR),
      ("Y pointer", PTR), ("B pointer", PTR), ("mA pointer", PTR)], BL.FPBLmAvX_uB, C.fpbl, **_FPBL_ARITH,
     side="Y := mA.X + B (F16Qq, ceil8(u) elements); X vector := X; B vector := B",
     source="seed 003: q in {8,10,12}, v <= 256, u <= 128",
     note=_FPBL_NOTE + "; no ReLU argument; the X vector holds ceil32(v), the B vector ceil8(u) elements",
     target="work area (alloc_vector, >= ceil8(u) F16): ends holding Y")


def register() -> None:
    """Make the rows callable by name (interpreter, Python methods) without adding them to part one's
    ROWS (whose table-driven tests and docs/vppl.md cover the general/element/reduction operators);
    PART_TWO drives docs/vppl_part_two.md and the part-two tests."""
    for r in PART_TWO:
        TABLE[r.name] = r
        BY_PYNAME[r.pyname] = r
        BASES.setdefault(r.base, [])
        if r not in BASES[r.base]:
            BASES[r.base].append(r)


def attach() -> None:
    from .execute import _method
    from .vector import Vector
    for r in PART_TWO:
        setattr(Vector, r.pyname, _method(r))


register()
