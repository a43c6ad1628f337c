"""Batched random cases of the part-two element-wise functions (issue 4 items 1-3), as oracle programs.

Each case picks a shape, a start NPU and, per operand, NULL or explicit strides (stride-0 broadcasting
on sources where the function allows strides), places every operand in its own 64 KiB slot of each
NPU (sometimes only 4-byte aligned), fills what it reads with a value mix that includes the edge values
(±0, subnormals, ±FLT_MIN/MAX, ±inf, NaNs, int min/max), calls the function and reads back the whole
per-NPU span of each destination plus a 128-byte margin, on every NPU the operand touches. Many cases
go into one program (:func:`build_batch`), so thousands cost a few pipe round trips.

``SPECS`` maps each function to a builder ``f(ctx) -> args``; :class:`Ctx` hands out operands.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import okk_part_two as _p2
from ..bdc_fixed_point import VALID_OP_TYPES
from .programs import EDGE_BITS, Builder, aligned_strides, fp32_mix, local_span, npus_touched

SLOT = 0x10000                  # bytes per operand slot on each NPU (8 slots: 512 KiB)
MARGIN = 128                    # destination bytes read back past the tensor's span
INT_EDGES = np.array([0, 1, -1, 2**31 - 1, -2**31, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 31, 32, -32, 33],
                     np.int64).astype(np.uint32)
F_CONSTS = [1.5, -0.0, 0.0, 1e-40, -1e-40, float("inf"), float("-inf"), float("nan"), -3.25e-3, 3.4e38, 1.0]


def _words(rng, size, kind):
    """``size`` 32-bit words of a value kind: "f" fp32 mix, "i" int32 mix, "b" random bytes."""
    if kind == "f":
        return fp32_mix(rng, size, -8.0, 8.0).view(np.uint32)
    v = rng.integers(0, 1 << 32, size, dtype=np.uint64).astype(np.uint32)
    if kind == "i":
        small = rng.random(size) < 0.5
        v[small] = rng.integers(-70, 70, int(small.sum())).astype(np.int64).astype(np.uint32)
        e = rng.random(size) < 0.15
        v[e] = rng.choice(INT_EDGES, int(e.sum()))
    elif kind == "b":
        e = rng.random(size) < 0.1    # int8/int16 extremes in some words
        v[e] = rng.choice(np.array([0x7F7F8080, 0x80007FFF, 0xFFFF0000, 0x00FF7F80], np.uint32), int(e.sum()))
    return v


class Ctx:
    """One case: shape, start NPU, operands (slot, offset, span), what to write and read back."""

    def __init__(self, rng, packed: int = 1, max_n: int = 3):
        self.rng = rng
        self.q = int(rng.integers(0, 64))
        self.packed = packed    # elements per 32-bit word along N (4N / 2N packing; 1 for 32-bit data)
        n = int(rng.integers(1, max_n * packed + 1))
        self.shape = (n, int(rng.integers(1, 140)), int(rng.integers(1, 5)), int(rng.integers(1, 20)))
        self.unaligned = rng.random() < 0.25
        self.slots = 0
        self.writes: list[tuple[int, int, str, str]] = []   # (offset, span, kind, role)
        self.reads: list[tuple[int, int, str]] = []
        self.base = self.q * 0x80000

    @property
    def words_shape(self):
        n, c, h, w = self.shape
        return (-(-n // self.packed), c, h, w)

    def strides(self, src: bool, allow=True):
        """None (the aligned layout) or explicit word strides with gaps, broadcasting zeros on sources."""
        if not allow or self.rng.random() < 0.4:
            return None
        rng = self.rng
        n, c, h, w = self.words_shape
        rows = -(-(self.q + c) // 64)
        hs = w + int(rng.integers(0, 3))
        cs = h * hs + int(rng.integers(0, 3))
        ns = rows * cs + int(rng.integers(0, 3))
        if src and rng.random() < 0.3:
            k = rng.random()
            if k < 0.4:
                return (ns, cs, 0, 0)              # per-channel broadcast
            if k < 0.7:
                return (0, cs, hs, 1)              # broadcast along N
            return (ns, 0, hs, 1)                  # the same plane for every channel
        return (ns, cs, hs, 1)

    def tensor(self, role: str, kind: str, stride=None, fixed_span: int | None = None, align128=False,
               same_as=None):
        """An operand's local address; ``role`` "src" (written), "dst" (written, then read back) or
        "work" (written only). ``same_as``: reuse another source's data in part (equal pairs)."""
        st = stride
        span = fixed_span if fixed_span is not None else local_span(
            self.q, self.words_shape, aligned_strides(self.q, self.words_shape) if st is None else st)
        off = self.slots * SLOT
        if self.unaligned and not align128:
            off += 4 * int(self.rng.integers(1, 8))
        self.slots += 1
        if span + MARGIN + 64 > SLOT:
            raise _TooBig()
        self.writes.append((off, span + (MARGIN if role == "dst" else 0), kind, same_as))
        if role == "dst":
            self.reads.append((off, span + MARGIN, role))
        return self.base + off


class _TooBig(Exception):
    """The random case does not fit a slot: draw another."""


def _f32_c(rng):
    return float(np.float32(F_CONSTS[int(rng.integers(0, len(F_CONSTS)))] if rng.random() < 0.5
                            else rng.standard_normal() * 4))


def _x32(rng):
    return int(rng.choice(np.concatenate([EDGE_BITS, INT_EDGES]))) if rng.random() < 0.5 else int(rng.integers(0, 2**32))


def _int_c(rng):
    k = rng.random()
    if k < 0.4:
        return int(rng.integers(-70, 70))
    if k < 0.6:
        return int(rng.choice([0, 1, -1, 2**31 - 1, -2**31, 127, -128, 255, 32767, -32768, 65535]))
    return int(rng.integers(-2**31, 2**31))


def _s3(kind="f", equal=False):
    def f(c: Ctx):
        sd, s0 = c.strides(False), c.strides(True)
        s1 = s0 if equal else c.strides(True)
        d = c.tensor("dst", "b", sd)
        a = c.tensor("src", kind, s0)
        b = c.tensor("src", kind, s1, same_as=a if equal else None)
        return d, a, b, c.shape, sd, s0, s1
    return f


def _sc(const):
    def f(c: Ctx):
        sd, s0 = c.strides(False), c.strides(True)
        d = c.tensor("dst", "b", sd)
        a = c.tensor("src", "i" if const is not _f32_c else "f", s0)
        return d, a, const(c.rng), c.shape, sd, s0
    return f


def _s2(kind="f"):
    def f(c: Ctx):
        sd, s0 = c.strides(False), c.strides(True)
        return c.tensor("dst", "b", sd), c.tensor("src", kind, s0), c.shape, sd, s0
    return f


def _select_value(equal):
    def f(c: Ctx):
        d, a, b, sh, sd, s0, s1 = _s3("f", equal)(c)
        return d, a, b, _x32(c.rng), sh, sd, s0, s1
    return f


def _c_select_value(c: Ctx):
    sd, s0 = c.strides(False), c.strides(True)
    d = c.tensor("dst", "b", sd)
    a = c.tensor("src", "f", s0)
    return d, a, _f32_c(c.rng), _x32(c.rng), c.shape, sd, s0


def _select(equal):
    """greater_select / equal_select: every operand kind (tensor or constant) of the four operands;
    equal_select only with same-kind sources (docs/okk.md, part two: the C-model's one-constant bug)."""
    def f(c: Ctx):
        c.unaligned = False
        kinds = c.rng.integers(0, 2, 4)
        if equal:
            kinds[1] = kinds[0]
        d = c.tensor("dst", "b", None)
        a = c.tensor("src", "f", None) if kinds[0] else None
        b = c.tensor("src", "f", None, same_as=a) if kinds[1] else None
        s0 = c.tensor("src", "i", None) if kinds[2] else None
        s1 = c.tensor("src", "i", None) if kinds[3] else None
        cv = _f32_c(c.rng)
        A = _p2.fp32_or_addr_t(True, a) if a is not None else _p2.fp32_or_addr_t(False, cv)
        B = _p2.fp32_or_addr_t(True, b) if b is not None else _p2.fp32_or_addr_t(
            False, cv if c.rng.random() < 0.5 else _f32_c(c.rng))
        S0 = _p2.x32_or_addr_t(True, s0) if s0 is not None else _p2.x32_or_addr_t(False, _x32(c.rng))
        S1 = _p2.x32_or_addr_t(True, s1) if s1 is not None else _p2.x32_or_addr_t(False, _x32(c.rng))
        return d, A, B, S0, S1, c.shape
    return f


def _fixed_layout(kind):
    def f(c: Ctx):
        c.unaligned = False
        return c.tensor("dst", "b", None), c.tensor("src", kind, None), c.shape
    return f


def _set_c(c: Ctx):
    sd = c.strides(False)
    return c.tensor("dst", "b", sd), _x32(c.rng), c.shape, sd


def _per_channel(c: Ctx, role="src"):
    rows = -(-(c.q + c.shape[1]) // 64)
    return c.tensor(role, "f", fixed_span=4 * rows)


def _linear(which):
    def f(c: Ctx):
        sd, s0 = c.strides(False), c.strides(True)
        d = c.tensor("dst", "b", sd)
        a = c.tensor("src", "f", s0)
        extra = [_per_channel(c)] if which != "scale_bias" else [_per_channel(c), _per_channel(c)]
        return (d, a, *extra, c.shape, sd, s0)
    return f


def _int8_to_fp32(four_n):
    def f(c: Ctx):
        c.unaligned = False
        n, cc, h, w = c.shape
        rows = -(-(c.q + cc) // 64)
        dst_span = n * rows * -(-(h * w) // 32) * 128
        src_span = (-(-n // 4) * rows * -(-(h * w) // 32) * 128) if four_n else n * rows * -(-(h * w) // 128) * 128
        d = c.tensor("dst", "b", fixed_span=dst_span)
        s = c.tensor("src", "b", fixed_span=src_span)
        wk = c.tensor("work", "b", fixed_span=dst_span)
        return d, s, wk, c.shape, int(c.rng.integers(0, 2)), int(c.rng.integers(0, 2))
    return f


# ---- fixed point (packed); every packed operand is sized as 2N words, a superset of 4N ----

def _op_type(c: Ctx, name, only=None):
    """A random op type the C-model computes for ``name``; ``only``: restricted to those (the
    sign-change sweep draws from the four unsigned-source, signed-destination enumerators)."""
    base = name.replace("_C", "").replace("C_", "")
    if base in ("max", "min"):
        ok = [t for t in VALID_OP_TYPES if bool(t & 2) == bool(t & 4) and not (t & 1 and not t & 8)]
    elif base in ("mul", "mac"):
        ok = [t for t in VALID_OP_TYPES if t & 1]      # 17, 25 (u8 sources, signed dst) too
    else:
        ok = sorted(VALID_OP_TYPES)                    # 16, 17, 24, 25 too
    if only is not None:
        ok = [t for t in ok if t in only]
    return int(c.rng.choice(sorted(ok)))


def _fx(name, only=None):
    with_c = "C" in name.split("_")
    has_r = not name.startswith(("max", "min"))

    def f(c: Ctx):
        sd, s0 = c.strides(False), c.strides(True)
        d = c.tensor("dst", "b", sd)
        a = c.tensor("src", "b", s0)
        ot = _op_type(c, name, only)
        r = [int(c.rng.integers(0, 12))] if has_r else []
        if with_c:
            return (d, a, _int_c(c.rng), c.shape, sd, s0, ot, *r)
        s1 = c.strides(True)
        b = c.tensor("src", "b", s1)
        return (d, a, b, c.shape, sd, s0, s1, ot, *r)
    return f


def _fx_mac(with_c, only=None):
    def f(c: Ctx):
        sd, s0 = c.strides(False), c.strides(True)
        d = c.tensor("dst", "b", sd)      # the accumulator: random bytes, read and written
        a = c.tensor("src", "b", s0)
        tail = (int(c.rng.integers(0, 2)), _op_type(c, "mac", only), int(c.rng.integers(0, 9)), int(c.rng.integers(0, 12)))
        if with_c:
            return (d, a, _int_c(c.rng), c.shape, sd, s0, *tail)
        s1 = c.strides(True)
        return (d, a, c.tensor("src", "b", s1), c.shape, sd, s0, s1, *tail)
    return f


def _fx_shift(form):
    def f(c: Ctx):
        sd, s0 = c.strides(False), c.strides(True)
        d = c.tensor("dst", "b", sd)
        a = c.tensor("src", "b", s0)
        if form == "_C":
            return d, a, _int_c(c.rng), c.shape, sd, s0
        s1 = c.strides(True)
        return d, a, c.tensor("src", "i", s1), c.shape, sd, s0, s1
    return f


def _split(which):
    def f(c: Ctx):
        sd, s0 = c.strides(False), c.strides(True)
        d = c.tensor("dst", "b", sd)
        a = c.tensor("src", "b", s0)
        if which == "high":
            return d, a, c.shape, sd, s0
        sw = c.strides(False)
        wk = c.tensor("dst", "b", sw)      # split_low's work tensor is compared too
        return d, a, wk, c.shape, sd, s0, sw
    return f


def _mul_8bit(c: Ctx):
    st = [c.strides(k > 0) for k in range(4)]
    d = c.tensor("dst", "b", st[0])
    hi = c.tensor("src", "b", st[1])
    lo = c.tensor("src", "b", st[2])
    s1 = c.tensor("src", "b", st[3])
    return (d, hi, lo, s1, c.shape, *st, int(c.rng.choice([7, 6, 0, 5])), int(c.rng.integers(0, 20)))


def _s16_mul_u8(c: Ctx):
    st = [c.strides(k in (1, 2)) for k in range(6)]
    d = c.tensor("dst", "b", st[0])
    a = c.tensor("src", "b", st[1])
    b = c.tensor("src", "b", st[2])
    works = [c.tensor("dst", "b", s) for s in st[3:]]
    return (d, a, b, *works, c.shape, *st, int(c.rng.integers(0, 20)))


B = "okk_bdc_"
FX = "okk_bdc_fixed_point_packed_"
# function -> (args builder, packing along N)
SPECS: dict = {}
for _op in ("add", "sub", "mul", "div", "max", "min", "mac"):
    SPECS[B + _op] = (_s3(), 1)
for _op in ("add_C", "sub_C", "C_sub", "mul_C", "div_C", "C_div", "max_C", "min_C", "mac_C"):
    SPECS[B + _op] = (_sc(_f32_c), 1)
SPECS.update({
    B + "relu": (_s2(), 1),
    B + "greater_select_value": (_select_value(False), 1),
    B + "equal_select_value": (_select_value(True), 1),
    B + "greater_C_select_value": (_c_select_value, 1),
    B + "C_greater_select_value": (_c_select_value, 1),
    B + "equal_C_select_value": (_c_select_value, 1),
    B + "greater_select": (_select(False), 1),
    B + "equal_select": (_select(True), 1),
    B + "32bit_cpy": (_s2("i"), 1),
    B + "32bit_set_C": (_set_c, 1),
    B + "fp32_to_int32": (_fixed_layout("f"), 1),
    B + "lookup_int32_to_fp32": (_fixed_layout("i"), 1),
    B + "int8_to_fp32": (_int8_to_fp32(False), 1),
    B + "4N_int8_to_fp32": (_int8_to_fp32(True), 1),
    B + "bias": (_linear("bias"), 1),
    B + "scale": (_linear("scale"), 1),
    B + "scale_bias": (_linear("scale_bias"), 1),
})
for _op in ("and", "or", "xor", "arithmetic_shift", "logical_shift"):
    SPECS[B + "32bit_" + _op] = (_s3("i"), 1)
for _op in ("and_C", "or_C", "xor_C", "C_logical_shift"):
    SPECS[B + "32bit_" + _op] = (_sc(_x32), 1)
for _op in ("arithmetic_shift_C", "logical_shift_C", "C_arithmetic_shift"):
    SPECS[B + "32bit_" + _op] = (_sc(_int_c), 1)
for _op in ("add", "sub", "mul", "max", "min", "add_C", "sub_C", "C_sub", "mul_C", "max_C", "min_C"):
    SPECS[FX + _op] = (_fx(_op), 2)
SPECS[FX + "mac"] = (_fx_mac(False), 2)
SPECS[FX + "mac_C"] = (_fx_mac(True), 2)
for _op in ("arithmetic_shift", "logical_shift"):
    SPECS[FX + "16bit_" + _op] = (_fx_shift(""), 2)
    SPECS[FX + "16bit_" + _op + "_C"] = (_fx_shift("_C"), 2)
SPECS[FX + "16bit_split_high_8bit"] = (_split("high"), 2)
SPECS[FX + "16bit_split_low_8bit"] = (_split("low"), 2)
SPECS[FX + "16bit_mul_8bit"] = (_mul_8bit, 2)
SPECS[FX + "s16_mul_u8_to_s16"] = (_s16_mul_u8, 2)

# the same fixed-point functions restricted to op types 16, 17, 24, 25 (u8/u16 sources, signed
# destination; mul/mac: 17, 25), which the docs' examples leave out (issue 4 audit)
SIGN_CHANGE = (16, 17, 24, 25)
SIGN_CHANGE_SPECS: dict = {}
for _op in ("add", "sub", "mul", "add_C", "sub_C", "C_sub", "mul_C"):
    SIGN_CHANGE_SPECS[FX + _op] = (_fx(_op, SIGN_CHANGE), 2)
SIGN_CHANGE_SPECS[FX + "mac"] = (_fx_mac(False, SIGN_CHANGE), 2)
SIGN_CHANGE_SPECS[FX + "mac_C"] = (_fx_mac(True, SIGN_CHANGE), 2)


def add_case(b: Builder, rng, func: str, tag: str, specs: dict = SPECS) -> tuple:
    """Append one random call of ``func`` with its set-up and read-back; return its arguments."""
    make, packed = specs[func]
    while True:
        c = Ctx(rng, packed)
        try:
            args = make(c)
            break
        except _TooBig:
            continue
    npus = npus_touched(c.q, c.shape[1])
    data = {}
    for off, span, kind, same_as in c.writes:
        words = -(-span // 4)
        v = _words(rng, len(npus) * words, kind).reshape(len(npus), words)
        if same_as is not None and (same_as - c.base) in data:
            other = data[same_as - c.base]
            k = min(other.shape[1], words)
            m = rng.random((len(npus), k)) < 0.4      # equal pairs for the equality functions
            v[:, :k][m] = other[:, :k][m]
        data[off] = v
        b.write_local_span(c.q, off, span, npus, v.view(np.uint8)[:, :span])
    b.call(func, *args)
    for off, span, role in c.reads:
        b.read_local_span(off, span, npus, f"{tag} {func}{args} {role}")
    return args


def build_batch(rng, func: str, cases: int, tag: str = "", specs: dict = SPECS) -> Builder:
    b = Builder()
    b.call("okk_initialize")
    for i in range(cases):
        add_case(b, rng, func, f"[{tag} case {i}]", specs)
    b.call("okk_poll")
    return b


@dataclass(frozen=True)
class Batches:
    """``build_batch`` for :func:`differential.run_batches` that pickles as plain data (the specs table by
    its name in this module), so a local process pool can run the batches: batch k of ``func`` holds
    ``sizes[k]`` cases from a generator seeded by (seed_tag, func, k)."""
    seed_tag: str
    func: str
    sizes: tuple
    specs: str = "SPECS"          # or "SIGN_CHANGE_SPECS"

    def __call__(self, k: int) -> Builder:
        from .differential import seeded
        return build_batch(seeded(self.seed_tag, self.func, k), self.func, self.sizes[k], f"batch {k}",
                           globals()[self.specs])
