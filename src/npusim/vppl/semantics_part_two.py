"""Part two of THE VPPL semantics table: the image, BLAS-like and DNN dot operators (seed 003,
画像操作向け演算子 / BLAS類似演算子 / DNN向け演算子). Rows are ``semantics.OpRow``s appended to the
same table, so the Python methods, the interpreter, the docs and the table-driven tests see them.

Argument kinds: ``PTR`` is anything holding an address (pointer variable, External global, byName
argument; seed: "メモリアドレスを指している変数であれば…"), ``WORK`` an allocated vector, ``INT`` a
parameter or immediate ("パラメータまたは即値")."""
from __future__ import annotations

from . import cost_part_two as C
from . import ops_blas as BL, ops_dnn as D, ops_image as I
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
_FPBL_NOTE = ("Y = sat16((mA.X + (B << q) + 2^(q-1)) >> q) (reference A7.15); "
              "memory holds the padded sizes ceil8(u) x ceil32(v) (pad_fpbl = the vendor's padding tool); "
              "Y gets ceil8(u) elements")
_row("FPBLmAvX_uB_L", "blas",
     [("q", INT), ("u", INT), ("v", INT), ("X vector 0", WORK), ("X vector 1", WORK), ("X vector 2", WORK),
      ("X vector 3", WORK), ("B vector", WORK), ("X pointer", PTR), ("Y pointer", PTR), ("B pointer", PTR),
      ("mA pointer", PTR), ("relu", INT)], BL.FPBLmAvX_uB_L, C.fpbl, **_FPBL_ARITH,
     side="Y := mA.X + B (F16Qq, ceil8(u) elements); X vector k := X[256k:256k+256]; B vector := last 8 of B",
     source="seed 003: q in {8,10,12}, v <= 1024, u memory-limited, v in 32s, u in 8s, zero padding, relu 0/1",
     note=_FPBL_NOTE + "; ReLU (relu = 1) after saturation; each of the 4 X vectors holds 256 elements of X (4 x 256 = "
          "the 1024 limit), so '_L' reads as 'large' (FPBLmAvX_uB: one X vector, v <= 256) rather than reference "
          "A7.15's 'with ReLU' guess; '_uB' is only a name: the seed gives F16Qq as the operand type of both",
     target="work area (alloc_vector, >= 8 F16): ends holding the last 8 results")
_row("FPBLmAvX_uB", "blas",
     [("q", INT), ("u", INT), ("v", INT), ("X vector", WORK), ("B vector", WORK), ("X pointer", PTR),
      ("Y pointer", PTR), ("B pointer", PTR), ("mA pointer", PTR)], BL.FPBLmAvX_uB, C.fpbl, **_FPBL_ARITH,
     side="Y := mA.X + B (F16Qq, ceil8(u) elements); X vector := X; B vector := B",
     source="seed 003: q in {8,10,12}, v <= 256, u <= 128",
     note=_FPBL_NOTE + "; no ReLU argument; the X vector holds ceil32(v), the B vector ceil8(u) elements",
     target="work area (alloc_vector, >= ceil8(u) F16): ends holding Y")

# ---------------------------------------------------------------- DNN
_SHAPE = [("kernel size", INT), ("stride", INT), ("input width", INT), ("input height", INT),
          ("output width", INT), ("output height", INT), ("work vector", WORK)]
_CONV = _SHAPE + [("input pointer", PTR), ("coefficient pointer", PTR), ("bias/previous pointer", PTR),
                  ("output pointer", PTR), ("phase", INT), ("q", INT)]
_CONV_ARITH = dict(overflow="products and sums exact; partial results saturate to F32Q24, outputs to F16Q12",
                   rounding="last channel: >> 12 rounding half up")
_PHASE = ("phase 0 (first input channel): out := bias (one F16Q12 at the bias pointer) + conv, as F32Q24; "
          "1 (middle): out := previous (F32Q24 at the bias/previous pointer) + conv, F32Q24; 2 (last): "
          "previous + conv, rounded to F16Q12")
_row("DNN_poolingLayer", "dnn", _SHAPE + [("input pointer", PTR), ("output pointer", PTR)],
     D.DNN_poolingLayer, C.pooling, overflow="exact (max)", rounding="none",
     side="output := max over each window (F16, any q); work vector := last input row",
     source="seed 003: kernel 2/3/5/7, stride 1/2, kernel 2 stride 2 without border",
     note="max pooling (the seed needs no q: a max is q-agnostic; average pooling would need a divide); "
          "border (k-1)//2 before and as needed after, never winning the max, so out = ceil(in/stride); "
          "kernel 2 stride 2: out = in // 2")
_row("DNN_convolutionLayer", "dnn", _CONV, D.DNN_convolutionLayer, C.convolution, **_CONV_ARITH,
     side=_PHASE, source="seed 003: kernel 3/5, stride 1/2, (k-1)/2 padding, phase 0/1/2, q = 12",
     note="coefficients k x k F16Q12 row-major; zero padding (k-1)/2 so out = ceil(in/stride); partial "
          "results between input channels are F32Q(2q) = F32Q24 so no precision is lost until the last "
          "channel (DNN_conv32to16(.., 24, 12) finishes a one-channel phase-0 result the same way)")
_row("DNN_convolutionLayerNPN", "dnn", _CONV, D.DNN_convolutionLayerNPN, C.convolution, **_CONV_ARITH,
     side=_PHASE, source="seed 003: kernel 5, stride 1, no padding (out = in - 4), q = 12",
     note="as DNN_convolutionLayer without padding")
_row("DNN_convolutionLayerNP1", "dnn", _CONV, D.DNN_convolutionLayerNP1, C.convolution,
     overflow="products and sums exact; output saturates to F16Q12", rounding=">> 12 rounding half up",
     side="output := bias + conv, F16Q12 at once ('即座に出力')",
     source="seed 003: one input channel, kernel 5, stride 1, no padding, q = 12",
     note="the bias pointer always points at the bias (one F16Q12); the phase is checked (0/1/2) but "
          "changes nothing: with one input channel every call is first and last")
_row("DNN_localContrastNormalizationLayer", "dnn",
     [("kernel size", INT), ("input width", INT), ("input height", INT), ("output width", INT),
      ("output height", INT), ("work vector", WORK), ("accumulation vector 1", WORK),
      ("accumulation vector 2", WORK), ("input pointer", PTR), ("output pointer", PTR), ("channels", INT),
      ("q", INT)], D.DNN_localContrastNormalizationLayer, C.lcn,
     overflow="window sums exact (int64); output saturates to F16Q12",
     rounding="mean and y round half up; variance and sqrt floor",
     side="output := (x - mean) / max(sigma, mean sigma) per element and channel; accumulation vectors := "
          "last row of the window sums",
     source="seed 003: kernel 5, several channels, two accumulation vectors, q = 12",
     note="Jarrett et al. 2009 (reference A7.18) with a uniform 5x5xC box (the seed gives no weights): "
          "mean over k*k*C cells with zero border, sigma = sqrt(window mean of (x-mean)^2), divisor "
          "max(sigma, mean of sigma over the map, 1 LSB); output size = input size")
_row("DNN_relu", "dnn", [("pointer", PTR), ("work vector", WORK), ("units", INT), ("q", INT)], D.DNN_relu,
     C.relu, overflow="exact", rounding="none", side="memory at the pointer := max(x, 0), units x 16 elements",
     source="seed 003: 4x4-element units, in place in memory, q = 12")
_row("DNN_softmaxN", "dnn", [("input pointer", PTR), ("output pointer", PTR), ("elements", INT), ("q", INT)],
     D.DNN_softmaxN, C.softmax, overflow="-", rounding="float64 exp, round to nearest into F32Q16",
     side="output := softmax(F16Q12 input) as F32Q16", source="seed 003: F16Q12 in, F32Q16 out, q = 12",
     note="reference A7.16: subtract the max, exp, normalise; the hardware's exp table is not published, "
          "so the documented bound is 1 LSB of Q16", target="work area (alloc_vector): ends holding the "
          "first outputs")
_row("DNN_softmax", "dnn", [("input pointer", PTR), ("output pointer", PTR), ("elements", INT), ("q", INT)],
     D.DNN_softmax, C.softmax, overflow="-", rounding="float64 exp, round to nearest into F32Q16",
     side="output := softmax(F16Q8 input) as F32Q16", source="seed 003: F16Q8 in, but the q argument is 12",
     note="as DNN_softmaxN with the input read as Q8", target="work area (alloc_vector): ends holding the "
          "first outputs")
_row("DNN_conv32to16", "dnn",
     [("input pointer", PTR), ("output pointer", PTR), ("work vector", WORK), ("units", INT), ("F32 q", INT),
      ("F16 q", INT)], D.DNN_conv32to16, C.conv32to16, overflow="saturate to F16",
     rounding="shift by q32 - q16, round half up (left shift if negative, exact)",
     side="output := units x 16 F16Qq16 values", source="seed 003: F32Qn -> F16Qm in 16-element units",
     note="reference A7.17: arithmetic shift, round half up, saturate")


def register() -> None:
    """Make the rows callable by name (interpreter, Python methods) without adding them to part one's
    ROWS (whose table-driven tests and docs/vppl.md cover the general/element/reduction operators);
    PART_TWO drives docs/vppl.md (part two) and the part-two tests."""
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


def info() -> dict:
    """Part two's entries in ``npusim info``."""
    from .ops_blas import V_MAX_L
    from .ops_image import MAX_WIDTH_BYTES, MAX_WIDTH_F16
    return {"image/BLAS/DNN operators (part two)": len(PART_TWO),
            "get_array max width (bytes / F16Qq)": f"{MAX_WIDTH_BYTES} / {MAX_WIDTH_F16}",
            "FPBLmAvX_uB_L max v": V_MAX_L, "DNN F16Qq q": 12}


register()
