"""Fixed-point packed BDC functions (OKKernel docs, refined/fixed_point_{binary,unary}): 8-bit data in
4N mode, 16-bit data in 2N mode (reference §2.5), ``op_type_t`` naming the widths and signs.

``op_type`` bits (okk.h): 0 src 8-bit, 1 src0 signed, 2 src1 signed, 3 dst 8-bit, 4 dst signed.
A packed tensor of shape (N, C, H, W) is the 32-bit tensor (ceil(N/k), C, H, W), k = 4 (8-bit) or
2 (16-bit), strides in those 32-bit units (NULL: 128-byte aligned); element n is lane n % k of word
n // k. The dummies of a partial last word are never written.

Numerics (docs' formulas, checked against the C-model): the exact integer result of the operation,
then, when rshift > 0, ``(v + 2^(rshift-1)) >> rshift`` (arithmetic), then saturation to the
destination type. max/min keep the sources' width and sign whatever op_type names (16-bit sources with
an 8-bit destination: the results' byte stream, ``bytes_of_16bit``; 8-bit sources with a 16-bit
destination: rejected, the C-model writes heap bytes there). An N stride of 0 broadcasts element 0 for
the instruction's first operand and the whole word for the others (docs/okk.md, part two).
"""
from __future__ import annotations

import numpy as np

from ..core.errors import ConstraintError
from . import cost, rules
from .device import BDC, current
from .layout import LANE, LocalTensor
from .types import as_dim4, dim4

_LANES = {8: 4, 16: 2}
_NP = {(8, True): np.int8, (8, False): np.uint8, (16, True): np.int16, (16, False): np.uint16}
VALID_OP_TYPES = {31, 23, 27, 19, 29, 21, 25, 17, 9, 1, 30, 22, 26, 18, 28, 20, 24, 16, 8, 0}


# the docs' examples name these for add/sub/mul (the destination signed iff a source is); the C-model
# computes every op_type_t enumerator for add/sub (16, 17, 24, 25 too: u8/u16 sources, signed destination)
# and every 8-bit-source one for mul (17, 25 too), and every one for mac (a 16-bit one runs as its
# 8-bit twin), so DOC_OP_TYPES is documentation, not a rule
DOC_OP_TYPES = {31, 23, 27, 19, 29, 21, 9, 1, 30, 22, 26, 18, 28, 20, 8, 0}
# unsigned sources, signed destination: okk.h enumerators the docs' examples leave out (issue 4 audit)
SIGN_CHANGE_OP_TYPES = {25, 17, 24, 16}


def decode_op_type(api: str, op_type) -> tuple:
    """((src bits, src0 signed), (src bits, src1 signed), (dst bits, dst signed))."""
    if not isinstance(op_type, (int, np.integer)) or int(op_type) not in VALID_OP_TYPES:
        raise ConstraintError(api, "op_type", "an op_type_t value (S8_OP_S8_TO_S8 ... U16_OP_U16_TO_U16)", op_type)
    t = int(op_type)
    sb = 8 if t & 1 else 16
    db = 8 if t & 8 else 16
    return (sb, bool(t & 2)), (sb, bool(t & 4)), (db, bool(t & 16))


class Packed:
    """One packed operand: read as int64 (N, C, H, W), write with saturation, never touching dummies."""

    def __init__(self, dev, api, param, addr, shape: dim4, stride, bits: int, signed: bool, opd0: bool = False):
        """``opd0``: the instruction's first operand, whose N stride 0 broadcasts element 0 (lane 0 of
        word 0); the other operands' N stride 0 broadcasts the whole word (C-model probes)."""
        self.bits, self.signed, self.opd0 = bits, signed, opd0
        self.k = _LANES[bits]
        self.n = shape.n
        self.words = dim4(-(-shape.n // self.k), shape.c, shape.h, shape.w)
        self.t = LocalTensor(dev.local, api, param, addr, self.words, stride, np.uint32, 4)
        self.footprints = self.t.footprints

    def _raw(self) -> np.ndarray:
        t = self.t
        n, c, h, w = t.shape
        parts = [v.array().reshape(n, hi - lo, h, w) for lo, hi, v in t.pieces]
        return np.ascontiguousarray(parts[0] if len(parts) == 1 else np.concatenate(parts, axis=1))

    def read(self) -> np.ndarray:
        raw = self.t.read() if self.n % self.k == 0 else self._raw()
        wn, c, h, w = self.words.tuple()
        lanes = np.ascontiguousarray(raw).view(_NP[(self.bits, self.signed)]).reshape(wn, c, h, w, self.k)
        if self.opd0 and self.t.strides[0] == 0:
            return np.broadcast_to(lanes[:1, ..., 0], (self.n, c, h, w)).astype(np.int64)
        return lanes.transpose(0, 4, 1, 2, 3).reshape(wn * self.k, c, h, w)[:self.n].astype(np.int64)

    def write(self, v: np.ndarray, wrap: bool = False) -> None:
        """Saturate (or, with wrap, keep the low bits of) the int64 results and store them."""
        dt = _NP[(self.bits, self.signed)]
        info = np.iinfo(dt)
        v = v.astype(dt) if wrap else np.clip(v, info.min, info.max).astype(dt)
        wn, c, h, w = self.words.tuple()
        full = self._raw().view(dt).reshape(wn, c, h, w, self.k).transpose(0, 4, 1, 2, 3).reshape(wn * self.k, c, h, w)
        full = full.copy()
        full[:self.n] = v
        words = full.reshape(wn, self.k, c, h, w).transpose(0, 2, 3, 4, 1).copy().view(np.uint32).reshape(wn, c, h, w)
        self.t.write(words)


FIX8B = "TENSARITH_FIX8B"


# per-block factor by (operation, source bits, destination bits), fit on the backend library's records
FIX8B_FACTOR = {
    ("add", 8, 8): 2, ("add", 8, 16): 2, ("add", 16, 16): 3, ("add", 16, 8): 4,
    ("sub", 8, 8): 2, ("sub", 8, 16): 2, ("sub", 16, 16): 3, ("sub", 16, 8): 3,
    ("mul", 8, 8): 3, ("mul", 8, 16): 2,
    ("max", 8, 8): 1, ("max", 16, 16): 3, ("min", 8, 8): 1, ("min", 16, 16): 2,
    ("max", 16, 8): 1, ("min", 16, 8): 1,     # 16-bit sources, 8-bit destination: C-model probes
}


def fix8b_cycles(op: str, q: int, s: dim4, src_bits: int, dst_bits: int) -> int:
    """Sophgo's fixed-point tensor-arith cost: ceil(N/4) * ceil((q + C)/64) * ceil(H*W/16) * factor."""
    return cost.bdc_blocks(q, -(-s.n // 4), s.c, s.h, s.w) * FIX8B_FACTOR[(op, src_bits, dst_bits)]


def round_shift(v: np.ndarray, rshift: int) -> np.ndarray:
    if rshift > 0:
        return (v + (1 << (rshift - 1))) >> rshift
    return v


def _rshift(api, r):
    if not (isinstance(r, (int, np.integer)) and 0 <= r <= 31):
        raise ConstraintError(api, "rshift", "rshift is in [0, 31]", r)
    return int(r)


def _narrow_c(k: int, spec) -> int:
    """C as the C-model uses it: narrowed (wrapping) to the type of the operand it stands for."""
    bits, signed = spec
    return int(np.array([k], np.int64).astype(_NP[(bits, signed)])[0])


def _int_c(api, C):
    """The int C as a 32-bit int (the C-model does not narrow it to the source type)."""
    if not isinstance(C, (int, np.integer)) or isinstance(C, bool):
        raise ConstraintError(api, "C", "an int", C)
    return int(np.array([int(C) & 0xFFFFFFFF], np.uint32).view(np.int32)[0])


def _check_kind(api, kind, a, b, d, op_type):
    """Only the C-model's assertions: add/sub/mac take any op_type_t value, mul 8-bit sources."""
    if kind == "mul" and a[0] != 8:
        raise ConstraintError(api, "op_type", "the sources are 8-bit (C-model assertion Int8[0]==1 && "
                              "Int8[1]==1)", op_type)
    if kind == "minmax" and a[1] != b[1]:
        raise ConstraintError(api, "op_type", "both sources have the same signedness (C-model assertion "
                              "Sign[0]==Sign[1])", op_type)
    if kind == "minmax" and a[0] == 8 and d[0] == 16:
        raise ConstraintError(api, "op_type", "an 8-bit-source max/min writes an 8-bit destination (with a 16-bit "
                              "one the C-model reads 2N bytes from its N-byte result buffer: heap garbage)", op_type)


def _call(api, shape, operands, dst_spec, compute, strides, wrap=False, first_is_opd0=True):
    """operands: list of (param, addr, (bits, signed)); dst_spec: (param, addr, (bits, signed)).
    ``first_is_opd0``: operands[0] is the instruction's first operand (not so for C_ forms)."""
    dev = current()
    s = as_dim4(api, "shape", shape)
    rules.shape_bdc(api, s)
    addrs = {dst_spec[0]: dst_spec[1], **{p: a for p, a, _ in operands}}
    for name, a in addrs.items():
        rules.local_addr(api, name, a)
        rules.aligned(api, name, a, 4, f"{name} is divisible by 4 (and preferred by 128)")
    rules.same_npu(api, **addrs)
    ins = [Packed(dev, api, p, a, s, strides.get(p), b, sg, opd0=(i == 0 and first_is_opd0))
           for i, (p, a, (b, sg)) in enumerate(operands)]
    out = Packed(dev, api, dst_spec[0], dst_spec[1], s, strides.get(dst_spec[0]), *dst_spec[2])
    out.write(compute(*[t.read() for t in ins]), wrap)
    q = int(dst_spec[1]) // LANE
    op = api.split("packed_")[1].replace("C_sub", "sub").replace("_C_", "_").replace("_C", "")
    dev.issue(BDC, api, FIX8B, fix8b_cycles(op, q, s, ins[0].bits, out.bits),
              reads=[f for t in ins for f in t.footprints], writes=out.footprints, elements=s.n * s.c * s.h * s.w)


def bytes_of_16bit(v: np.ndarray, signed: bool) -> np.ndarray:
    """What a 16-bit-source max/min with an 8-bit destination writes (C-model probes, docs/okk.md): the
    16-bit results of the whole (N, C, H, W) tensor, flattened in (n, c, h, w) order, as one byte stream,
    whose first N*C*H*W bytes become the destination's 8-bit elements in the same order."""
    flat = np.ascontiguousarray(v.astype(_NP[(16, signed)])).reshape(-1).view(np.uint8)
    return flat[:v.size].reshape(v.shape).astype(np.int64)


def _minmax_types(a, d):
    """(destination spec, result transform) of a max/min op type: the result keeps the sources' width and
    sign (wrapping), except that an 8-bit destination of 16-bit sources receives the results' bytes."""
    if a[0] == 16 and d[0] == 8:
        return (8, False), (lambda v: bytes_of_16bit(v, a[1]))
    return a, (lambda v: v)


def _dst_sign(kind, a, b, d):
    """The destination spec the C-model computes with: op_type's bit 4 (destination signed) is not read
    for add/mul/mac, whose result is signed exactly when a source is (so U8_OP_U8_TO_S8 and its kin
    saturate to the unsigned range); a difference saturates to the signed range even for unsigned
    types (C-model sweeps of every op_type_t value, docs/okk.md)."""
    if kind == "sub":
        return (d[0], True)
    if kind in ("arith", "mul"):
        return (d[0], a[1] or b[1])
    return d


def _binary(name, op, with_rshift=True, kind="arith"):
    api = f"okk_bdc_fixed_point_packed_{name}"

    def f(dst_addr, src0_addr, src1_addr, shape, dst_stride, src0_stride, src1_stride, op_type, rshift=0):
        a, b, d = decode_op_type(api, op_type)
        _check_kind(api, kind, a, b, d, op_type)
        post = (lambda v: v)
        if kind == "minmax":
            d, post = _minmax_types(a, d)
        d = _dst_sign(kind, a, b, d)
        r = _rshift(api, rshift) if with_rshift else 0
        _call(api, shape, [("src0_addr", src0_addr, a), ("src1_addr", src1_addr, b)], ("dst_addr", dst_addr, d),
              lambda x, y: post(round_shift(op(x, y), r)),
              {"dst_addr": dst_stride, "src0_addr": src0_stride, "src1_addr": src1_stride}, wrap=kind == "minmax")
    if not with_rshift:
        def g(dst_addr, src0_addr, src1_addr, shape, dst_stride, src0_stride, src1_stride, op_type):
            return f(dst_addr, src0_addr, src1_addr, shape, dst_stride, src0_stride, src1_stride, op_type)
        g.__name__ = g.__qualname__ = api
        return g
    f.__name__ = f.__qualname__ = api
    return f


def _with_c(name, op, swap=False, with_rshift=True, kind="arith"):
    api = f"okk_bdc_fixed_point_packed_{name}"

    def f(dst_addr, src_addr, C, shape, dst_stride, src_stride, op_type, rshift=0):
        a, b, d = decode_op_type(api, op_type)
        _check_kind(api, kind, a, b, d, op_type)
        post = (lambda v: v)
        if kind == "minmax":
            d, post = _minmax_types(a, d)
        d = _dst_sign(kind, a, b, d)
        k = _narrow_c(_int_c(api, C), (a if swap else b))
        r = _rshift(api, rshift) if with_rshift else 0
        _call(api, shape, [("src_addr", src_addr, b if swap else a)], ("dst_addr", dst_addr, d),
              (lambda x: post(round_shift(op(np.int64(k), x), r))) if swap
              else (lambda x: post(round_shift(op(x, np.int64(k)), r))),
              {"dst_addr": dst_stride, "src_addr": src_stride}, wrap=kind == "minmax", first_is_opd0=not swap)
    if not with_rshift:
        def g(dst_addr, src_addr, C, shape, dst_stride, src_stride, op_type):
            return f(dst_addr, src_addr, C, shape, dst_stride, src_stride, op_type)
        g.__name__ = g.__qualname__ = api
        return g
    f.__name__ = f.__qualname__ = api
    return f


okk_bdc_fixed_point_packed_add = _binary("add", np.add)
okk_bdc_fixed_point_packed_sub = _binary("sub", np.subtract, kind="sub")
okk_bdc_fixed_point_packed_mul = _binary("mul", np.multiply, kind="mul")
okk_bdc_fixed_point_packed_max = _binary("max", np.maximum, with_rshift=False, kind="minmax")
okk_bdc_fixed_point_packed_min = _binary("min", np.minimum, with_rshift=False, kind="minmax")
okk_bdc_fixed_point_packed_add_C = _with_c("add_C", np.add)
okk_bdc_fixed_point_packed_sub_C = _with_c("sub_C", np.subtract, kind="sub")
okk_bdc_fixed_point_packed_C_sub = _with_c("C_sub", np.subtract, swap=True, kind="sub")
okk_bdc_fixed_point_packed_mul_C = _with_c("mul_C", np.multiply, kind="mul")
okk_bdc_fixed_point_packed_max_C = _with_c("max_C", np.maximum, with_rshift=False, kind="minmax")
okk_bdc_fixed_point_packed_min_C = _with_c("min_C", np.minimum, with_rshift=False, kind="minmax")




# ---- mac ----

def _mac_sources(a, b):
    """The sources a mac computes with: always 8-bit, op_type's sign bits kept. The C-model gives a
    16-bit-source op type t exactly what it gives t | 1 (240 random probes, docs/okk.md), so the
    'U16'/'S16' in its name does not make the sources 2N."""
    return (8, a[1]), (8, b[1])


def _mac(name, with_c):
    """dst (a 16-bit 2N accumulator for every op type) = ((dst << lshift) + src0*src1 + round) >> rshift,
    saturated to 16 bits; the sources are 8-bit 4N even for 16-bit-source op types; the accumulator is
    read and written with the sign a source has."""
    api = f"okk_bdc_fixed_point_packed_{name}"

    def body(dst_addr, src_addr, other, shape, dst_stride, src_stride, other_stride, is_origin_dst_signed,
             op_type, lshift, rshift):
        a, b, d = decode_op_type(api, op_type)
        # op_type's bit 0 (sources 8-bit) is not read: a 16-bit-source op type runs as its 8-bit twin
        # (op_type | 1): 4N 8-bit sources, the same 16-bit accumulator, bytes and cycles (C-model probes)
        a, b = _mac_sources(a, b)
        d = _dst_sign("mul", a, b, d)
        r = _rshift(api, rshift)
        if not (isinstance(lshift, (int, np.integer)) and 0 <= lshift <= 31):
            raise ConstraintError(api, "lshift", "lshift is in [0, 31]", lshift)
        if not isinstance(is_origin_dst_signed, (bool, int, np.integer, np.bool_)):
            raise ConstraintError(api, "is_origin_dst_signed", "a bool", is_origin_dst_signed)
        dev = current()
        s = as_dim4(api, "shape", shape)
        # the C-model reads the accumulator with op_type's destination sign; is_origin_dst_signed changes
        # nothing there (differential probes)
        # the accumulator is read inside compute, i.e. after _call has validated shape and addresses
        # (reading it first made a huge shape hang before its check)
        def acc():
            return Packed(dev, api, "dst_addr", dst_addr, s, dst_stride, 16, d[1]).read()
        ops = [("src0_addr" if not with_c else "src_addr", src_addr, a)]
        if not with_c:
            ops.append(("src1_addr", other, b))
            comp = (lambda x, y: round_shift((acc() << int(lshift)) + x * y, r))
        else:
            k = _narrow_c(_int_c(api, other), b)
            comp = (lambda x: round_shift((acc() << int(lshift)) + x * np.int64(k), r))
        strides = {"dst_addr": dst_stride, ops[0][0]: src_stride}
        if not with_c:
            strides["src1_addr"] = other_stride
        _call(api, shape, ops, ("dst_addr", dst_addr, (16, d[1])), comp, strides)

    if with_c:
        def f(dst_addr, src_addr, C, shape, dst_stride, src_stride, is_origin_dst_signed, op_type, lshift, rshift):
            body(dst_addr, src_addr, C, shape, dst_stride, src_stride, None, is_origin_dst_signed, op_type, lshift, rshift)
    else:
        def f(dst_addr, src0_addr, src1_addr, shape, dst_stride, src0_stride, src1_stride, is_origin_dst_signed,
              op_type, lshift, rshift):
            body(dst_addr, src0_addr, src1_addr, shape, dst_stride, src0_stride, src1_stride, is_origin_dst_signed,
                 op_type, lshift, rshift)
    f.__name__ = f.__qualname__ = api
    return f


okk_bdc_fixed_point_packed_mac = _mac("mac", False)
okk_bdc_fixed_point_packed_mac_C = _mac("mac_C", True)
FIX8B_FACTOR.update({("mac", 8, 16): 4, ("mac", 8, 8): 4})


# ---- 16-bit shifts (2N mode) ----

def shift16(x: np.ndarray, s: np.ndarray, logical: bool) -> np.ndarray:
    """int16 values x (int64 array) shifted by n = the amount's low byte read as int8: n >= 0 left
    (low 16 bits kept, so n >= 16 gives 0), n < 0 right by -n (sign- or zero-filling)."""
    n = ((np.asarray(s, np.int64) & 0xFF) ^ 0x80) - 0x80
    xi = np.asarray(x, np.int64)
    base = (xi & 0xFFFF) if logical else xi
    left = xi << np.clip(n, 0, 40)
    right = base >> np.clip(-n, 0, 40)
    out = np.where(n >= 0, left, right)
    return ((out + 32768) & 0xFFFF) - 32768          # keep the low 16 bits, as int16


def _c_form_quirk(api: str) -> None:
    """The C-model asserts (opd0_is_constant == 0) on every C_ shift; strict mode says so."""
    from ..core.options import options
    if options().strict:
        raise ConstraintError(api, "C", "a constant first operand (the C-model asserts opd0_is_constant == 0 "
                              "and exits)", "C_ form")


def _shift16(name, logical, form):
    api = f"okk_bdc_fixed_point_packed_16bit_{name}"
    s16 = (16, True)

    if form == "tensor":
        def f(dst_addr, src0_addr, src1_addr, shape, dst_stride=None, src0_stride=None, src1_stride=None):
            _call(api, shape, [("src0_addr", src0_addr, s16), ("src1_addr", src1_addr, s16)], ("dst_addr", dst_addr, s16),
                  lambda x, y: shift16(x, y, logical),
                  {"dst_addr": dst_stride, "src0_addr": src0_stride, "src1_addr": src1_stride}, wrap=True)
    else:
        def f(dst_addr, src_addr, C, shape, dst_stride=None, src_stride=None):
            k = _narrow_c(_int_c(api, C), (16, not (logical and form == "C_")))
            if form == "C_":
                _c_form_quirk(api)
            if form == "_C":
                comp = (lambda x: shift16(x, np.int64(k), logical))
            else:
                comp = (lambda x: shift16(np.full(x.shape, k, np.int64), x, logical))
            _call(api, shape, [("src_addr", src_addr, s16)], ("dst_addr", dst_addr, s16), comp,
                  {"dst_addr": dst_stride, "src_addr": src_stride}, wrap=True, first_is_opd0=form != "C_")
    f.__name__ = f.__qualname__ = api
    return f


okk_bdc_fixed_point_packed_16bit_arithmetic_shift = _shift16("arithmetic_shift", False, "tensor")
okk_bdc_fixed_point_packed_16bit_logical_shift = _shift16("logical_shift", True, "tensor")
okk_bdc_fixed_point_packed_16bit_arithmetic_shift_C = _shift16("arithmetic_shift_C", False, "_C")
okk_bdc_fixed_point_packed_16bit_logical_shift_C = _shift16("logical_shift_C", True, "_C")
okk_bdc_fixed_point_packed_16bit_C_arithmetic_shift = _shift16("C_arithmetic_shift", False, "C_")
okk_bdc_fixed_point_packed_16bit_C_logical_shift = _shift16("C_logical_shift", True, "C_")
FIX8B_FACTOR.update({(k, 16, 16): 3 for k in ("16bit_arithmetic_shift", "16bit_logical_shift",
                                               "16bit_C_arithmetic_shift", "16bit_C_logical_shift")})

__all__ = [n for n in dir() if n.startswith("okk_")]
