"""THE VPPL semantics table: one row per dot operator and suffix.

Each row says what the operator does to which element type, whether results wrap or saturate, what
it does to the target and to its arguments, whether the GEN.2 instruction set has it, and which
reading was chosen where the seed is ambiguous. The Python methods, the interpreter, docs/vppl.md and
the table-driven tests all come from ``TABLE``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from . import cost, ops_element as E, ops_general as G, ops_reduction as R
from .types import SIZE_BITS, parse_xx, suffix_dtype

XX = ("UB", "UW", "UL", "IB", "IW", "IL")
X = ("B", "W", "L")

VEC, WORK, INT, OUT = "vector", "work vector", "scalar", "integer variable"


@dataclass(eq=False)
class OpRow:
    base: str                       # operator name without suffix: "min"
    suffix: str                     # "IW", "W", "UB2UW" or ""
    group: str                      # general | element | reduction
    params: tuple                   # ((name, kind), ...) in the seed's order
    impl: Callable
    cost: Callable
    dt: np.dtype | None             # the element type the instruction sees
    overflow: str                   # what happens outside the element range
    rounding: str
    target: str                     # what happens to the target vector
    side_effects: str               # what happens to the arguments
    gen2: bool                      # in the current (GEN.2) instruction set
    source: str                     # where the rule comes from
    note: str = ""                  # the reading chosen for an ambiguous point, and why
    src_dt: np.dtype | None = None  # convert: the source element type
    reads_target: bool = True

    def __post_init__(self):
        # precomputed: execute() reads these on every instruction
        self.name = f"{self.base}${self.suffix}" if self.suffix else self.base
        self.pyname = f"{self.base}_{self.suffix}" if self.suffix else self.base
        self.kinds = tuple(k for _, k in self.params)
        self.saturate = self.overflow.startswith("saturate")
        self.arith = self.base.removeprefix("e_")
        self.linear_cost = cost.linear(self) if self.cost is cost.elementwise else None


ROWS: list[OpRow] = []


def _add(base, suffixes, group, params, impl, costf, *, gen2, overflow, target="in place", side="none",
         source="seed 003", note="", rounding="none (integer)", kind="xx", reads_target=True):
    for s in suffixes:
        if kind == "xx":
            signed, bits = parse_xx(s)
            dt = suffix_dtype(signed, bits)
        elif kind in ("x", "xs"):           # size only: unsigned view, or signed where the op needs it
            dt = suffix_dtype(kind == "xs", SIZE_BITS[s])
        else:
            dt = None
        ov = overflow(s) if callable(overflow) else overflow
        ROWS.append(OpRow(base, s, group, tuple(params), impl, costf, dt, ov, rounding, target, side,
                          s in gen2 if gen2 is not True else True, source, note, None, reads_target))


def _sat_if_signed(s: str) -> str:
    return "saturate" if s[0] == "I" else "wrap"


ARITH_NOTE = ("seed: 'IWとUWの違いは飽和演算を行うか否か' -> I suffixes saturate to the signed range, "
              "U suffixes wrap modulo 2^bits")
E_NOTE = ("seed: 'ターゲットベクタの各要素にスカラー値を加算' + 'ワークベクタ1個を必要' -> target ⊕= scalar; "
          "the work vector receives the scalar broadcast (low bits of the element size), as the hardware "
          "needs the scalar in a vector register; this differs from reference A7.5(a), which the seed text "
          "does not support")

# ---------------------------------------------------------------- general
_add("zeros", [""], "general", [], G.zeros, cost.elementwise, gen2=True, overflow="-", kind="none",
     target="written: every element 0", reads_target=False)
_add("clear", [""], "general", [], G.zeros, cost.elementwise, gen2=True, overflow="-", kind="none",
     target="written: every element 0", reads_target=False, note="same instruction as zeros()")
_add("ones", X, "general", [], G.ones, cost.elementwise, gen2=True, overflow="-", kind="x",
     target="written: every element 1", reads_target=False)
_add("abs", X, "general", [], G.abs_, cost.elementwise, gen2=("B",), overflow="wrap", kind="xs",
     note="signed elements (abs is meaningless unsigned); abs(min) = min (two's complement, no "
          "saturation is stated): provisional; Readings.abs='saturate' gives max")
_add("bit_not", [""], "general", [], G.bit_not, cost.elementwise, gen2=True, overflow="-", kind="none")
_add("min", XX, "general", [("vector", VEC)], G.minimum, cost.elementwise, gen2=("UB", "IW"), overflow="exact")
_add("max", XX, "general", [("vector", VEC)], G.maximum, cost.elementwise, gen2=("UB", "IW"), overflow="exact")
_add("add", XX, "general", [("vector", VEC)], G.arith, cost.elementwise, gen2=("UW",), overflow=_sat_if_signed,
     note=ARITH_NOTE)
_add("e_add", XX, "general", [("work", WORK), ("scalar", INT)], G.e_arith, cost.elementwise, gen2=("UW",),
     overflow=_sat_if_signed, side="work vector := scalar broadcast", note=E_NOTE)
_add("sub", XX, "general", [("vector", VEC)], G.arith, cost.elementwise, gen2=("IW",), overflow=_sat_if_signed,
     note="seed: 'なおIWはサチュレートします'; other suffixes follow the add$ rule")
_add("e_sub", XX, "general", [("work", WORK), ("scalar", INT)], G.e_arith, cost.elementwise, gen2=("IW",),
     overflow=_sat_if_signed, side="work vector := scalar broadcast", note=E_NOTE)
_add("mul", XX, "general", [("vector", VEC)], G.arith, cost.elementwise, gen2=("IW",), overflow=_sat_if_signed,
     note="seed: 'なおIWはサチュレートします'; integer product clamped (reference A7.4 reading (a)); Readings.mul='q15' "
          "selects the fractional (a*b) >> 15 reading")
_add("e_mul", XX, "general", [("work", WORK), ("scalar", INT)], G.e_arith, cost.elementwise, gen2=("IW",),
     overflow=_sat_if_signed, side="work vector := scalar broadcast", note=E_NOTE)
_add("e_set", X, "general", [("scalar", INT)], G.e_set, cost.elementwise, gen2=True, kind="x",
     overflow="low bits of the scalar", target="written: every element = scalar", reads_target=False,
     source="seed 003: '要素サイズ分の下位ビット数を代入'")
_add("element_shift_left", X, "general", [("amount", INT)], G.element_shift_left, cost.elementwise,
     gen2=("W",), kind="x", overflow="bits shifted out are lost",
     note="logical; amount >= element bits gives 0 (reference A7.6); negative amount is an error")
_add("element_shift_right", X, "general", [("amount", INT)], G.element_shift_right, cost.elementwise,
     gen2=("B", "W"), kind="x", overflow="bits shifted out are lost",
     note="logical (seed: '右論理シフト'); amount >= element bits gives 0")
_add("shift_up", [""], "general", [("vector1", VEC), ("vector2", VEC), ("amount", INT)], G.shift_up,
     cost.elementwise, gen2=True, kind="none", overflow="bits shifted out are lost",
     target="written: (vector1:vector2) << amount, high half", reads_target=False,
     source="seed 003: 0~255 bits; vacated low part takes vector2's top element",
     note="the whole vector is one bit string, element 0 least significant (reference A7.7); all three "
          "vectors have the same byte length")
_add("shift_down", [""], "general", [("vector1", VEC), ("vector2", VEC), ("amount", INT)], G.shift_down,
     cost.elementwise, gen2=True, kind="none", overflow="bits shifted out are lost",
     target="written: (vector2:vector1) >> amount, low half", reads_target=False,
     source="seed 003: 0~255 bits; vacated high part takes vector2's bottom element",
     note="as shift_up, toward element 0")
for _s in ("UB", "IB", "UW", "IW", "UL", "IL"):
    for _d in ("UB", "IB", "UW", "IW", "UL", "IL"):
        if _s[1] == _d[1]:
            continue
        _src, _dst = suffix_dtype(*parse_xx(_s)), suffix_dtype(*parse_xx(_d))
        ROWS.append(OpRow("convert", f"{_s}2{_d}", "general", (("vector", VEC),), G.convert, cost.elementwise,
                          _dst, "exact (widening)" if _dst.itemsize > _src.itemsize else "saturate",
                          "none (integer)", "written: element i = converted vector element i",
                          "none", f"{_s}2{_d}" in ("UB2UW", "IW2IB"), "seed 003: UB2UW, IW2IB supported",
                          "widening extends by the source's signedness; narrowing saturates (reference "
                          "A7.13, DSP norm; the seed is silent; Readings.narrow='wrap' keeps low bits)", _src, False))
_add("filter_sub", [""], "general", [("vector", VEC), ("filter", INT)], G.filter_sub, cost.elementwise,
     gen2=True, kind="none", overflow="wrap",
     target="in place: target[:n] += vector * filter; last 2 registers = work space (left as they were)",
     source="seed 003: '引数のベクタ変数にフィルタ値を乗じた値をターゲットベクタに足し込み'; target 2 vector "
            "registers longer",
     note="provisional: the seed gives no offset, so the product adds to the first n elements; the two "
          "extra registers are read as work space (reference A7.8's background-subtraction reading "
          "contradicts the seed's 'multiply and add'); Readings.filter_sub='centre' adds one register in")

# ---------------------------------------------------------------- element
_add("init_ins_sort", [""], "element", [], E.init_ins_sort, cost.elementwise, gen2=True, kind="none",
     overflow="-", target="written: every 32-bit slot = 0xFFFFFFFF (empty); must come from alloc_vector()",
     reads_target=False, source="seed 003: the list is fixed-allocated in the vector registers during the sort",
     note="empty slot = key 0xFFFF: a real key 0xFFFF sorts after the empties and is lost (provisional)")
_add("ins_sort", [""], "element", [("value", INT), ("start", INT), ("end", OUT)], E.ins_sort, cost.sort,
     gen2=True, kind="none", overflow="-", target="in place: value inserted, the last slot may fall off; "
     "must come from alloc_vector()",
     side="end := one past the last data slot (> length: the last one was dropped)",
     source="seed 003: key = low 16 bits, payload = high 16 bits, ascending",
     note="seed fixes key = LOW 16 bits (reference A7.9 guessed high); keys unsigned; stable (after "
          "equal keys); the returned number is one past the end, so 'above the length' means dropped")
_add("get_element", [""], "element", [("index", INT), ("dest", OUT)], E.get_element, cost.scalar_access,
     gen2=True, kind="none", overflow="-", target="unchanged", side="dest := 32-bit unit [index] (signed)",
     source="seed 003: 32-bit units whatever the element type")
_add("set_element", [""], "element", [("index", INT), ("value", INT)], E.set_element, cost.scalar_access,
     gen2=True, kind="none", overflow="low 32 bits", target="in place: 32-bit unit [index] := value",
     source="seed 003: 32-bit units whatever the element type")
_add("get_record", [""], "element", [("record", INT), ("element", INT), ("dest", OUT)], E.get_record,
     cost.scalar_access, gen2=True, kind="none", overflow="-", target="unchanged",
     side="dest := 32-bit unit [8*record + element]",
     source="seed 003: records of 8 integers, 32-bit values",
     note="integers are 32-bit whatever the vector's element type (the seed says 32ビット; reference "
          "A7.10 guessed the element type)")
_add("set_record", [""], "element", [("record", INT), ("element", INT), ("value", INT)], E.set_record,
     cost.scalar_access, gen2=True, kind="none", overflow="low 32 bits",
     target="in place: 32-bit unit [8*record + element] := value", source="seed 003: records of 8 integers")

# ---------------------------------------------------------------- reduction
_WORK_T = "work area: must come from alloc_vector(); poison afterwards"
_SUM_NOTE = ("accumulated exactly, then to the 32-bit integer: I suffixes saturate, U suffixes wrap "
             "(reference A7.11 + the add$ rule)")
_add("sum", XX, "reduction", [("vector", VEC), ("result", OUT)], R.sum_, cost.reduction, gen2=("IW",),
     overflow=lambda s: "saturate to int32" if s[0] == "I" else "wrap to 32 bits", target=_WORK_T,
     side="result := sum of the elements", note=_SUM_NOTE, reads_target=False)
_add("prod", XX, "reduction", [("vector1", VEC), ("vector2", VEC), ("result", OUT)], R.prod, cost.reduction,
     gen2=("IW",), overflow=lambda s: "saturate to int32" if s[0] == "I" else "wrap to 32 bits",
     target=_WORK_T, side="result := sum of vector1[i] * vector2[i] (products exact)", note=_SUM_NOTE,
     reads_target=False)
_add("r_max", XX, "reduction", [("vector", VEC), ("result", OUT)], R.r_max, cost.reduction, gen2=("IW",),
     overflow="exact (UL above 2^31-1 reads negative in the integer)", target=_WORK_T,
     side="result := largest element", reads_target=False)
_add("r_min", XX, "reduction", [("vector", VEC), ("result", OUT)], R.r_min, cost.reduction, gen2=("IW",),
     overflow="exact", target=_WORK_T, side="result := smallest element", reads_target=False,
     note="the seed's text says '最大' (largest) but its example returns the minimum 10: a copy slip")
_add("countIf", X, "reduction", [("vector", VEC), ("value", INT), ("result", OUT)], R.count_if, cost.reduction,
     gen2=("W",), kind="x", overflow="-", target=_WORK_T, side="result := count of elements == value",
     note="value compared on the element size's low bits", reads_target=False)
_add("countOver", XX, "reduction", [("vector", VEC), ("value", INT), ("result", OUT)], R.count_over,
     cost.reduction, gen2=("UW",), overflow="-", target=_WORK_T, side="result := count of elements > value",
     note="strictly greater ('上回った'); value broadcast with the element size's low bits, compared with "
          "the suffix's signedness; Readings.compare='inclusive' counts >=", reads_target=False)
_add("countUnder", XX, "reduction", [("vector", VEC), ("value", INT), ("result", OUT)], R.count_under,
     cost.reduction, gen2=("UW",), overflow="-", target=_WORK_T, side="result := count of elements < value",
     note="strictly less ('下回った'); as countOver", reads_target=False)

TABLE: dict[str, OpRow] = {r.name: r for r in ROWS}
BY_PYNAME: dict[str, OpRow] = {r.pyname: r for r in ROWS}
BASES: dict[str, list[OpRow]] = {}
for _r in ROWS:
    BASES.setdefault(_r.base, []).append(_r)

from . import semantics_part_two  # noqa: E402,F401  (part two: image, BLAS-like, DNN rows)
