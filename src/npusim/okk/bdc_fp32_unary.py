"""FP32 unary BDC functions (seed 000), as the C-model composes them from hardware instructions.

Each composite call is the C-model's instruction sequence, each instruction reading and writing local
memory (so in-place calls reproduce the C-model's quirks: ``okk_bdc_exp_tunable(x, x, w)`` yields
``EXP[i8(trunc(x))]``, reference §4.4) and each placing one event with Sophgo's cost (cycles §3).
"""
from __future__ import annotations

import functools

import numpy as np

from ..core.options import options
from . import args, cost, fp32, initmap, rules, spec
from .device import BDC, current
from .fp32 import F32
from .layout import LANE, LocalTensor


def _api(fn):
    """IEEE specials (inf, NaN, underflow) are results here, not warnings: one errstate per call."""
    @functools.wraps(fn)
    def call(*args, **kwargs):
        with np.errstate(all="ignore"):
            return fn(*args, **kwargs)
    return call


class _Call:
    """One okk_bdc_* call: its operands and the instructions it emits."""
    __slots__ = ("api", "dev", "shape", "blocks", "elements")

    def __init__(self, api: str, shape):
        self.api = api
        self.dev = current()
        self.shape = args.dim4_arg(api, "shape", shape)

    def operands(self, align: int, strides: dict | None = None, **addrs) -> list[LocalTensor]:
        """Validate (once per distinct call signature; kernels repeat theirs) and build the operands."""
        api, s, dev = self.api, self.shape, self.dev
        for name, a in addrs.items():
            if type(a) is not int:                     # plain ints pass; the rest is normalised (or refused)
                addrs[name] = args.local_addr(api, name, a)
        if strides:
            strides = {name: v if v is None else args.stride_arg(api, name.replace("_addr", "_stride"), v)
                       for name, v in strides.items()}
        st = None if not strides else tuple(None if v is None else (v.n, v.c, v.h, v.w) for v in strides.values())
        key = (api, tuple(addrs.values()), s.n, s.c, s.h, s.w, st)
        hit = dev._calls.get(key)
        if hit is not None:
            ts, self.blocks, self.elements, self.shape = hit
            return ts
        # c > 4095 with every stride given: the C-model computes it right (contest sweep; with a NULL stride
        # it asserts c < 4096), so only the documented rule
        explicit = bool(strides) and all(v is not None for v in strides.values())
        rules.shape_bdc(api, s, check_work=False, c_documented_only=explicit)
        for name, a in addrs.items():
            rules.local_addr(api, name, a)
            rules.aligned(api, name, a, align, f"{name} is divisible by {align}" if align == 128 else
                          f"{name} is divisible by 4 (and preferred by 128)")
        rules.same_npu(api, **addrs)
        strides = strides or {}
        # elementwise: a dimension every operand strides by 0 is computed once (O(footprint)); the
        # cost model still counts the whole shape
        run = args.collapse(s, [strides.get(name) for name in addrs])
        args.work(api, run.n * run.c * run.h * run.w, args.BDC_WORK_LIMIT)
        ts = [dev.local_tensor(api, name, a, run, strides.get(name), F32, 4) for name, a in addrs.items()]
        q = next(iter(addrs.values())) // LANE
        self.blocks = cost.bdc_blocks(q, s.n, s.c, s.h, s.w)
        self.elements = s.n * s.c * s.h * s.w
        self.shape = run
        if len(dev._calls) >= 4096:
            dev._calls.clear()
        dev._calls[key] = (ts, self.blocks, self.elements, run)
        return ts

    def emit(self, instr: str, factor: int, reads, writes) -> None:
        self.dev.issue(BDC, self.api, instr, self.blocks * factor,
                       reads=[fp for t in reads for fp in t.footprints],
                       writes=[fp for t in writes for fp in t.footprints], elements=self.elements)


def _f(t: LocalTensor) -> np.ndarray:
    """An fp32 operand as the BDC reads it: a DAZ'd copy."""
    return fp32.daz(t.read())


def _i(t: LocalTensor) -> np.ndarray:
    """An int32 operand (the same bits read as int32)."""
    return np.array(t.read()).view(np.int32)


def _put_int(t: LocalTensor, values: np.ndarray) -> None:
    t.write(values.astype(np.int32, copy=False).view(F32))


def _exp_chain(call: _Call, out: LocalTensor, x: LocalTensor, tmp: LocalTensor, n: int,
               frac: LocalTensor, ints: LocalTensor) -> None:
    """The seven-instruction exp of the C-model (§4.4): the integer part in ``ints``, the fraction in
    ``frac``; ``out`` receives e^x. okk_bdc_exp_tunable uses ints=out=dst, frac=work."""
    if _fusable(call, x, frac, ints):
        _exp_chain_fused(call, out, x, n, frac, ints)
        return
    _put_int(ints, fp32.fp32_to_int32(_f(x)))                       # MD_SFU: i = trunc_sat(x)
    call.emit(cost.MD_SFU, cost.SFU_SIMPLE, [x], [ints])
    ints.write(fp32.lookup_int8(_i(ints)))                          # TABLE_LOOKUP: fi = (float) i8(i)
    call.emit(cost.TABLE_LOOKUP, cost.LOOKUP, [ints], [ints])
    frac.write(fp32.sub(_f(x), _f(ints)))                           # MD_SCALAR: frac = x - fi
    call.emit(cost.MD_SCALAR, cost.SCALAR_SIMPLE, [x, ints], [frac])
    _put_int(ints, fp32.fp32_to_int32(_f(ints)))                    # MD_SFU: trunc(fi)
    call.emit(cost.MD_SFU, cost.SFU_SIMPLE, [ints], [ints])
    ints.write(fp32.lookup_exp(_i(ints)))                           # TABLE_LOOKUP: e = EXP[i8(.)]
    call.emit(cost.TABLE_LOOKUP, cost.LOOKUP, [ints], [ints])
    frac.write(fp32.taylor_sum(_f(frac), n).reshape(call.shape.tuple()))   # MD_SFU Taylor: s
    call.emit(cost.MD_SFU, cost.sfu_taylor(n), [frac], [frac])
    e = _f(ints)
    out.write(fp32.add(e, fp32.mul(e, _f(frac))))                  # MD_SCALAR mac: y = e + e*s
    call.emit(cost.MD_SCALAR, cost.SCALAR_SIMPLE, [ints, frac], [out])


def _disjoint(a: LocalTensor, b: LocalTensor) -> bool:
    return not any(fa.overlaps(fb) for fa in a.footprints for fb in b.footprints)


def _fusable(call: _Call, x: LocalTensor, frac: LocalTensor, ints: LocalTensor) -> bool:
    """Can the chain run on values instead of through memory with the same final memory, events and
    reports? Yes when ``ints`` shares no byte box with ``x`` or ``frac`` (then x is read unchanged at
    steps 1 and 3, and frac unchanged at step 6; x is never read after frac is written, and out is
    written last, so any other overlap ends the same), the source is known fully written (so the two
    reads of x report nothing), and the device is serial (no event can raise a race between steps)."""
    return (not call.dev.parallel and _disjoint(ints, x) and _disjoint(ints, frac)
            and (not options().track_init or initmap.is_written(x)))


def _exp_chain_fused(call: _Call, out: LocalTensor, x: LocalTensor, n: int, frac: LocalTensor,
                     ints: LocalTensor) -> None:
    """``_exp_chain`` computed on arrays (see ``_fusable``), every step's value as the slow path reads
    it back: i = trunc_sat(x); fi = INT8[i & 0xFF] (integers, never subnormal, so DAZ is the identity
    and trunc(fi) = fi exactly); frac = x - fi; EXP[i8(trunc(fi)) & 0xFF] = EXP[i & 0xFF]; frac and
    the Taylor sum are already flushed, so only e needs its DAZ."""
    xv = _f(x)
    low = fp32.fp32_to_int32(xv).view(np.uint32) & np.uint32(0xFF)
    fr = fp32.sub(xv, fp32.INT8_TABLE[low])
    table = fp32.EXP_TABLE[low]                     # as stored in ints (subnormals kept)
    e = fp32.daz(table)
    s = fp32.taylor_sum(fr, n).reshape(call.shape.tuple())
    y = fp32.add(e, fp32.mul(e, s))
    if ints is not out:
        ints.write(table)
    frac.write(s)
    out.write(y)
    for instr, factor, reads, writes in ((cost.MD_SFU, cost.SFU_SIMPLE, [x], [ints]),
                                         (cost.TABLE_LOOKUP, cost.LOOKUP, [ints], [ints]),
                                         (cost.MD_SCALAR, cost.SCALAR_SIMPLE, [x, ints], [frac]),
                                         (cost.MD_SFU, cost.SFU_SIMPLE, [ints], [ints]),
                                         (cost.TABLE_LOOKUP, cost.LOOKUP, [ints], [ints]),
                                         (cost.MD_SFU, cost.sfu_taylor(n), [frac], [frac]),
                                         (cost.MD_SCALAR, cost.SCALAR_SIMPLE, [ints, frac], [out])):
        call.emit(instr, factor, reads, writes)


def _range(call: _Call, t: LocalTensor, param: str = "src_addr") -> None:
    lo, hi = spec.EXP_RANGE
    rules.data_range(call.api, param, t.read(), lo, hi, "the elements of the source tensor are in [-103.0, 88.0]")


# ---- fixed 128-byte aligned layout, no work tensor ----

@_api
def okk_bdc_rsqrt(dst_addr, src_addr, shape) -> None:
    """dst = 1/sqrt(src): fast inverse square root with three Newton steps (MD_SFU x27)."""
    c = _Call("okk_bdc_rsqrt", shape)
    dst, src = c.operands(128, dst_addr=dst_addr, src_addr=src_addr)
    dst.write(fp32.rsqrt_nr(np.array(src.read())))
    c.emit(cost.MD_SFU, cost.SFU_RSQRT, [src], [dst])


@_api
def okk_bdc_sqrt(dst_addr, src_addr, shape) -> None:
    """dst = sqrt(src) = reciprocal(rsqrt(src)) (MD_SFU x27, MD_SCALAR div x30)."""
    c = _Call("okk_bdc_sqrt", shape)
    dst, src = c.operands(128, dst_addr=dst_addr, src_addr=src_addr)
    dst.write(fp32.rsqrt_nr(np.array(src.read())))
    c.emit(cost.MD_SFU, cost.SFU_RSQRT, [src], [dst])
    dst.write(fp32.div_fnc(F32(1.0), np.array(dst.read())))
    c.emit(cost.MD_SCALAR, cost.SCALAR_DIV, [dst], [dst])


@_api
def okk_bdc_taylor_exp(dst_addr, src_addr, shape, num_series) -> None:
    """dst = 1 + sum_{k=1..num_series} src^k/k! (MD_SFU Taylor, then MD_SCALAR +1)."""
    c = _Call("okk_bdc_taylor_exp", shape)
    rules.num_series(c.api, num_series)
    dst, src = c.operands(128, dst_addr=dst_addr, src_addr=src_addr)
    dst.write(fp32.taylor_sum(_f(src), num_series).reshape(c.shape.tuple()))
    c.emit(cost.MD_SFU, cost.sfu_taylor(num_series), [src], [dst])
    dst.write(fp32.add(_f(dst), F32(1.0)))
    c.emit(cost.MD_SCALAR, cost.SCALAR_SIMPLE, [dst], [dst])


@_api
def okk_bdc_lookup_exp(dst_addr, src_addr, shape) -> None:
    """dst(fp32) = EXP[i8(src(int32))]: the 256-entry table, index wraps (TABLE_LOOKUP x24)."""
    c = _Call("okk_bdc_lookup_exp", shape)
    dst, src = c.operands(128, dst_addr=dst_addr, src_addr=src_addr)
    si = _i(src)
    rules.data_range(c.api, "src_addr", si, -103, 88, "the elements of the source tensor are in [-103, 88]")
    dst.write(fp32.lookup_exp(si))
    c.emit(cost.TABLE_LOOKUP, cost.LOOKUP, [src], [dst])


# ---- with a work tensor ----

def _with_work(api, dst_addr, src_addr, work_addr, shape, num_series):
    c = _Call(api, shape)
    rules.num_series(api, num_series)
    dst, src, work = c.operands(128, dst_addr=dst_addr, src_addr=src_addr, work_addr=work_addr)
    rules.work_distinct(api, work_addr, dst_addr, src_addr)
    _range(c, src)
    return c, dst, src, work


@_api
def okk_bdc_exp_tunable(dst_addr, src_addr, work_addr, shape, num_series) -> None:
    """dst = e^src: table for the integer part, Taylor (num_series terms) for the fraction."""
    c, dst, src, work = _with_work("okk_bdc_exp_tunable", dst_addr, src_addr, work_addr, shape, num_series)
    _exp_chain(c, dst, src, work, num_series, frac=work, ints=dst)


@_api
def okk_bdc_exp(dst_addr, src_addr, work_addr, shape) -> None:
    """okk_bdc_exp_tunable with num_series = 32."""
    c, dst, src, work = _with_work("okk_bdc_exp", dst_addr, src_addr, work_addr, shape, spec.DEFAULT_NUM_SERIES)
    _exp_chain(c, dst, src, work, spec.DEFAULT_NUM_SERIES, frac=work, ints=dst)


def _sigmoid(api, dst_addr, src_addr, work_addr, shape, n) -> None:
    c, dst, src, work = _with_work(api, dst_addr, src_addr, work_addr, shape, n)
    work.write(fp32.sub(F32(0.0), _f(src)))                         # MD_SCALAR: -x
    c.emit(cost.MD_SCALAR, cost.SCALAR_SIMPLE, [src], [work])
    _exp_chain(c, work, work, dst, n, frac=work, ints=dst)         # e^-x in work
    work.write(fp32.add(_f(work), F32(1.0)))                        # MD_SCALAR: 1 + e^-x (in work)
    c.emit(cost.MD_SCALAR, cost.SCALAR_SIMPLE, [work], [work])
    dst.write(fp32.div_fnc(F32(1.0), np.array(work.read())))       # MD_SCALAR div: 1 / (1 + e^-x)
    c.emit(cost.MD_SCALAR, cost.SCALAR_DIV, [work], [dst])


@_api
def okk_bdc_sigmoid_tunable(dst_addr, src_addr, work_addr, shape, num_series) -> None:
    """dst = 1 / (1 + e^-src), e^-src by the exp chain with num_series Taylor terms."""
    _sigmoid("okk_bdc_sigmoid_tunable", dst_addr, src_addr, work_addr, shape, num_series)


@_api
def okk_bdc_sigmoid(dst_addr, src_addr, work_addr, shape) -> None:
    """okk_bdc_sigmoid_tunable with num_series = 32."""
    _sigmoid("okk_bdc_sigmoid", dst_addr, src_addr, work_addr, shape, spec.DEFAULT_NUM_SERIES)


def _tanh(api, dst_addr, src_addr, work_addr, shape, n) -> None:
    c, dst, src, work = _with_work(api, dst_addr, src_addr, work_addr, shape, n)
    _exp_chain(c, dst, src, work, n, frac=work, ints=dst)           # e = e^x in dst
    work.write(fp32.div_fnc(F32(1.0), np.array(dst.read())))       # r = 1/e
    c.emit(cost.MD_SCALAR, cost.SCALAR_DIV, [dst], [work])
    dst.write(fp32.add(_f(dst), _f(work)))                          # e + r
    c.emit(cost.MD_SCALAR, cost.SCALAR_SIMPLE, [dst, work], [dst])
    work.write(fp32.div_fnc(np.array(work.read()), np.array(dst.read())))  # q = r / (e + r), in work
    c.emit(cost.MD_SCALAR, cost.SCALAR_DIV, [work, dst], [work])
    dst.write(fp32.add(fp32.mul(_f(work), F32(-2.0)), F32(1.0)))    # MD_LINEAR: 1 - 2q
    c.emit(cost.MD_LINEAR, cost.LINEAR, [work], [dst])


@_api
def okk_bdc_tanh_tunable(dst_addr, src_addr, work_addr, shape, num_series) -> None:
    """dst = tanh(src) = 1 - 2 r/(e + r), e = e^src, r = 1/e."""
    _tanh("okk_bdc_tanh_tunable", dst_addr, src_addr, work_addr, shape, num_series)


@_api
def okk_bdc_tanh(dst_addr, src_addr, work_addr, shape) -> None:
    """okk_bdc_tanh_tunable with num_series = 32."""
    _tanh("okk_bdc_tanh", dst_addr, src_addr, work_addr, shape, spec.DEFAULT_NUM_SERIES)


# ---- strided ----

def _strided(api, dst_addr, src_addr, shape, dst_stride, src_stride):
    c = _Call(api, shape)
    dst, src = c.operands(4, strides={"dst_addr": dst_stride, "src_addr": src_stride},
                          dst_addr=dst_addr, src_addr=src_addr)
    # The C-model emits the cheap MD_SCALAR form only for the 128-byte aligned layout: NULL strides and
    # 128-byte aligned addresses; anything else is a TENSOR_ARITH instruction (checked on libbackend).
    plain = dst_stride is None and src_stride is None and dst_addr % 128 == 0 and src_addr % 128 == 0
    return c, dst, src, plain


@_api
def okk_bdc_reciprocal(dst_addr, src_addr, shape, dst_stride=None, src_stride=None) -> None:
    """dst = 1/src by the BDC division (C_div(1, x)); 30 cycles per block either way."""
    c, dst, src, plain = _strided("okk_bdc_reciprocal", dst_addr, src_addr, shape, dst_stride, src_stride)
    dst.write(fp32.div_fnc(F32(1.0), np.array(src.read())))
    c.emit(cost.MD_SCALAR if plain else cost.TENSOR_ARITH, cost.SCALAR_DIV, [src], [dst])


@_api
def okk_bdc_neg(dst_addr, src_addr, shape, dst_stride=None, src_stride=None) -> None:
    """dst = 0 - src (C_sub(0, x)): +0 for +-0 and subnormals. MD_SCALAR x1, or TENSOR_ARITH x2 when
    any stride pointer is given."""
    c, dst, src, plain = _strided("okk_bdc_neg", dst_addr, src_addr, shape, dst_stride, src_stride)
    dst.write(fp32.neg_from_zero(src.read()))
    if plain:
        c.emit(cost.MD_SCALAR, cost.SCALAR_SIMPLE, [src], [dst])
    else:
        c.emit(cost.TENSOR_ARITH, cost.ARITH_SIMPLE, [src], [dst])
