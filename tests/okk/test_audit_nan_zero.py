"""NaN payloads of NaN pairs and zero signs (audit findings 2 and 3). Expected bits are the C-model's
(tpu-mlir 1.30.2 libbackend_bm1684.so, measured through npusim.okk.oracle); the rule is x86's: when both
operands of an fp32 op are NaN, the first operand's NaN, quieted, is the result."""
import warnings

import numpy as np
import pytest

from npusim import okk
from npusim.okk.oracle.fetch import available

N = 64
SH = okk.dim4(1, 1, 1, N)
NEG_Q, POS_Q = 0xFFC00000, 0x7FC00000


def _run(words: dict, call, out=0x2000, n=N):
    """Write each {offset: uint32 value or list} on NPU 0 (a scalar repeated n times), run, read out."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with okk.Device() as dev:
            okk.okk_initialize()
            dev.write_local(0, 0, np.zeros(0x4000, np.uint8))
            for off, v in words.items():
                arr = np.array(v if isinstance(v, list) else [v] * n, np.uint32)
                dev.write_local(0, off, arr.view(np.uint8))
            call()
            return np.asarray(dev.read_local(0, out, 4 * n)).view(np.uint32).copy()


def _f(bits):
    return float(np.array([bits], np.uint32).view(np.float32)[0])


def test_add_C_keeps_the_tensor_nan_whatever_the_size():
    for n in (1, 64, 1000):
        got = _run({0: NEG_Q}, lambda: okk.okk_bdc_add_C(0x2000, 0, float("nan"), okk.dim4(1, 1, 1, n), None, None), n=n)
        assert (got == NEG_Q).all()


def test_mul_C_keeps_the_tensor_nan():
    got = _run({0: 0x7FC00001}, lambda: okk.okk_bdc_mul_C(0x2000, 0, _f(0xFFC00005), SH, None, None))
    assert (got == 0x7FC00001).all()


def test_mac_adds_the_product_first():
    # src0 = +qNaN, src1 = dst = -qNaN: the product (src0's NaN) wins the add with dst
    got = _run({0: POS_Q, 0x1000: NEG_Q, 0x2000: NEG_Q}, lambda: okk.okk_bdc_mac(0x2000, 0, 0x1000, SH, None, None, None))
    assert (got == POS_Q).all()


def test_mac_C_product_of_a_number_and_nan_C_beats_dst():
    got = _run({0: 0x3F800000, 0x2000: 0x7FC00007}, lambda: okk.okk_bdc_mac_C(0x2000, 0, _f(0xFFC00005), SH, None, None))
    assert (got == 0xFFC00005).all()


def test_div_of_two_nans_is_quiet_abs_divisor():
    got = _run({0: 0x7FC00007}, lambda: okk.okk_bdc_div_C(0x2000, 0, _f(0xFFC00005), SH, None, None))
    assert (got == 0x7FC00005).all()
    got = _run({0: 0x7FC00007}, lambda: okk.okk_bdc_C_div(0x2000, 0, _f(0xFFC00005), SH, None, None))
    assert (got == 0x7FC00007).all()
    got = _run({0: 0xFFC00000, 0x1000: 0xFFA00000}, lambda: okk.okk_bdc_div(0x2000, 0, 0x1000, SH, None, None, None))
    assert (got == 0x7FE00000).all()


def test_add_signalling_pair_keeps_src0_quieted():
    got = _run({0: 0xFF800001, 0x1000: 0x7F800001}, lambda: okk.okk_bdc_add(0x2000, 0, 0x1000, SH, None, None, None))
    assert (got == 0xFFC00001).all()


@pytest.mark.parametrize("fn", ["okk_bdc_bias", "okk_bdc_scale"])
@pytest.mark.parametrize("strided", [False, True])
def test_bias_scale_keep_the_tensor_nan(fn, strided):
    st = okk.dim4(N, N, N, 1) if strided else None
    got = _run({0: NEG_Q, 0x1000: [POS_Q]}, lambda: getattr(okk, fn)(0x2000, 0, 0x1000, SH, st, st))
    assert (got == NEG_Q).all()


def test_matmul_result_add_is_new_plus_old():
    # L = [inf, +qNaN], R = [0, 1]^T: acc_even = inf*0 = default NaN (-q), acc_odd = +q; old = +q
    def call():
        okk.okk_bdc_matmul(0x3000, 0, 0x1000, 0x2000, 1, 2, 1, 2, 1, False, True)
    got = _run({0: [0x7F800000, POS_Q], 0x1000: [0, 0x3F800000], 0x3000: [POS_Q]}, call, out=0x3000, n=1)
    assert got[0] == NEG_Q


def test_conv_lane_adds_the_odd_accumulator_first():
    # IC 1, kernel 1x2, x = [+inf, +qNaN], w = [0, 1]: tap 0 gives the default NaN, tap 1 wins
    def call():
        okk.okk_bdc_conv2d(0x1000, 0, 0x2000, 0x3000, okk.dim4(1, 1, 1, 2), 1, 1, 2, None, okk.dim4(1, 1, 1, 1),
                           False, False, None, None, None)
    got = _run({0: [0x7F800000, POS_Q], 0x2000: [0, 0, 0x3F800000, 0x3F800000]}, call, out=0x1000, n=1)
    assert got[0] == POS_Q


def _dw(x_bits, w_bits, kh, kw, pad=None):
    def call():
        okk.okk_bdc_depthwise2d(0x1000, 0, 0x2000, 0x3000, okk.dim4(1, 1, kh, kw) if pad is None else okk.dim4(1, 1, 1, 1),
                                kh, kw, False, pad, None, None)
    return _run({0: x_bits, 0x2000: w_bits, 0x1000: [0x12345678] * 4}, call, out=0x1000, n=2)


def test_depthwise_zero_signs():
    neg0, one, m1 = 0x80000000, 0x3F800000, 0xBF800000
    assert _dw([neg0], [one], 1, 1)[0] == neg0                     # one tap: the product itself
    assert _dw([neg0, neg0], [one, one], 1, 2)[0] == 0              # two taps: never -0
    assert _dw([neg0] * 3, [one] * 3, 1, 3)[0] == 0
    assert _dw([0x40A00000], [m1], 1, 1, okk.Padding(1, 0, 0, 0))[0] == neg0   # pad 0 * -1


def test_avg_pool_one_tap_keeps_negative_zero():
    got = _run({0: [0x80000000, 0x80011C4A]},                          # -0, -1e-40 (DAZ: -0)
               lambda: okk.okk_bdc_avg_pool2d(0x1000, 0, okk.dim4(1, 1, 1, 2), 1, 1, None, None), out=0x1000, n=2)
    assert list(got) == [0x80000000, 0x80000000]


def test_depthwise_nan_pair_even_accumulator_first():
    # taps 1 and 4 NaN (payloads 2 and 5): acc_even (tap 4) + acc_odd (tap 1) keeps tap 4's
    x = [0x3F800000, 0x7FC00002, 0x3F800000, 0x3F800000, 0x7FC00005]
    assert _dw(x, [0x3F800000] * 5, 1, 5)[0] == 0x7FC00005


@pytest.mark.skipif(not available(), reason="C-model libraries absent")
def test_nan_pairs_and_zero_signs_against_cmodel():
    """Every NaN/zero pairing of a value mix through the elementwise ops, bit for bit on both sides."""
    from npusim.okk.oracle import npusim_runner
    from npusim.okk.oracle.differential import shared_oracle
    vals = np.array([POS_Q, NEG_Q, 0x7FC00001, 0xFFA00000, 0x7F800000, 0x3F800000, 0x7F800001, 0xFF800003,
                     0, 0x80000000], np.uint32)
    a, b = np.repeat(vals, len(vals)), np.tile(vals, len(vals))
    d = np.roll(b, 5)
    n = len(a)
    sh = (1, 1, 1, n)
    c = _f(0xFFC00005)
    calls = [(f"okk_bdc_{f}", (0x2000, 0, 0x1000, sh, None, None, None)) for f in ("add", "sub", "mul", "div", "mac")]
    calls += [(f"okk_bdc_{f}", (0x2000, 0, c, sh, None, None)) for f in
              ("add_C", "sub_C", "C_sub", "mul_C", "div_C", "C_div", "mac_C")]
    calls += [(f"okk_bdc_{f}", (0x2000, 0, 0x1000, sh, None, None)) for f in ("bias", "scale")]
    oracle = shared_oracle()
    for name, args in calls:
        prog = [("wl", 0, a.tobytes()), ("wl", 0x1000, b.tobytes()), ("wl", 0x2000, d.tobytes()),
                ("call", "okk_initialize", ()), ("call", name, args), ("call", "okk_poll", ()), ("rl", 0x2000, 4 * n)]
        ref, got = oracle.run(prog), npusim_runner.run(prog)
        assert ref.error is None
        assert ref.reads[0] == got.reads[0], name


LANE = 0x80000


def _pattern_value(bits, pos):
    """Tap ``pos`` of pattern ``bits``: a NaN with payload pos + 1 if its bit is set, else 1.0."""
    return (0x7FC00000 | (pos + 1)) if (bits >> pos) & 1 else 0x3F800000


@pytest.mark.skipif(not available(), reason="C-model libraries absent")
@pytest.mark.parametrize("kind", ["dw_zero", "dw_nan", "avg_nan"])
def test_depthwise_pool_every_tap_pattern_against_cmodel(kind):
    """All ±0 / NaN patterns of 1-5 taps, one channel (NPU) per pattern."""
    from npusim.okk.oracle import npusim_runner
    from npusim.okk.oracle.differential import shared_oracle
    oracle = shared_oracle()
    for k in range(1, 6):
        prog = []
        pats = range(2 ** k)
        for c in pats:
            if kind == "dw_zero":
                xs = [0x80000000 if (c >> t) & 1 else 0 for t in range(k)]
            else:
                xs = [_pattern_value(c, t) for t in range(k)]
            prog += [("wl", c * LANE, np.array(xs, np.uint32).tobytes()),
                     ("wl", c * LANE + 0x2000, np.full(k, 0x3F800000, np.uint32).tobytes()),
                     ("wl", c * LANE + 0x1000, np.full(4, 0x12345678, np.uint32).tobytes())]
        prog.append(("call", "okk_initialize", ()))
        if kind == "avg_nan":
            prog.append(("call", "okk_bdc_avg_pool2d", (0x1000, 0, (1, len(pats), 1, k), 1, k, None, None)))
        else:
            prog.append(("call", "okk_bdc_depthwise2d", (0x1000, 0, 0x2000, 0x3000, (1, len(pats), 1, k), 1, k, 0,
                                                          None, None, None)))
        prog += [("call", "okk_poll", ())] + [("rl", c * LANE + 0x1000, 4) for c in pats]
        ref, got = oracle.run(prog), npusim_runner.run(prog)
        assert ref.error is None
        assert ref.reads == got.reads, (kind, k)


@pytest.mark.skipif(not available(), reason="C-model libraries absent")
@pytest.mark.parametrize("ic,k", [(1, 3), (2, 2), (3, 2), (4, 1), (5, 1)])
def test_conv_every_nan_pattern_against_cmodel(ic, k):
    """Every NaN pattern over the IC x K taps of a 1 x K kernel: which payload the sum keeps."""
    from npusim.okk.oracle import npusim_runner
    from npusim.okk.oracle.differential import shared_oracle
    pats = range(1, 2 ** (ic * k))
    prog = [("wl", q * LANE + 0x30000, np.full(64, 0x3F800000, np.uint32).tobytes()) for q in range(64)]
    calls = []
    for i, c in enumerate(pats):
        base = 0x4000 + i * 0x80
        for ch in range(ic):
            xs = [_pattern_value(c, ch * k + t) for t in range(k)]
            prog.append(("wl", ch * LANE + base, np.array(xs, np.uint32).tobytes()))
        kst = okk.okk_compact_stride(None, 0, okk.dim4(-(-ic // 2), 1, 1, k))
        calls.append(("call", "okk_bdc_conv2d", (0x1000 + i * 0x80, base, 0x30000, 0x38000, (1, ic, 1, k), 1, 1, k,
                                                 None, (kst.n, kst.c, kst.h, kst.w), 0, 0, None, None, None)))
    prog += [("call", "okk_initialize", ())] + calls + [("call", "okk_poll", ())]
    prog += [("rl", 0x1000 + i * 0x80, 4) for i in range(len(pats))]
    ref, got = shared_oracle().run(prog), npusim_runner.run(prog)
    assert ref.error is None
    assert ref.reads == got.reads
