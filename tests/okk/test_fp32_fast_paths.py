"""The exact fast paths of the fp32 unary functions give the same bits, events and reports as the
step-by-step path: the Taylor loop without provably idle FTZ passes, and the exp chain on values."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from npusim import configure, okk
from npusim.okk import bdc_fp32_unary as unary, fp32

SPECIALS = np.array([0, 0x80000000, 1, 0x807FFFFF, 0x00800000, 0x80800000, 0x7F800000, 0xFF800000,
                     0x7FC00001, 0xFFA00000, 0x7F7FFFFF, 0x3F800000, 0xBF800000, 0x3F7FFFFF, 0xBF7FFFFF],
                    np.uint32).view(np.float32)


def _taylor_reference(x, n):
    """The Horner loop with an FTZ pass after every operation (the definition in okkernel.md §4.1)."""
    p = fp32.mul(x, fp32.TAYLOR_COEF[n])
    for k in range(n - 1, 0, -1):
        p = fp32.mul(fp32.add(p, fp32.TAYLOR_COEF[k]), x)
    return p


def _inputs(rng, size):
    parts = [rng.uniform(-1, 1, size), rng.uniform(-1, 1, size) * 2.0 ** rng.integers(-126, 0, size),
             rng.integers(0, 1 << 32, size, dtype=np.uint64).astype(np.uint32).view(np.float32),
             rng.uniform(-40, 40, size)]
    return fp32.daz(np.concatenate([SPECIALS] + [np.asarray(p, np.float32) for p in parts]))


@pytest.mark.parametrize("n", [1, 2, 3, 7, 16, 31, 32, 33, 34, 64])
def test_taylor_sum_equals_the_always_flushing_loop(n):
    x = _inputs(np.random.default_rng(n), 3000)
    with np.errstate(all="ignore"):
        want = _taylor_reference(x, n)
    np.testing.assert_array_equal(fp32.taylor_sum(x, n).view(np.uint32), want.view(np.uint32))


@settings(max_examples=150, deadline=None)
@given(e=st.floats(-130, 0), scale=st.floats(0.5, 1.0), n=st.integers(1, 40), neg=st.booleans())
def test_flush_claims_hold_step_by_step(e, scale, n, neg):
    """Wherever taylor_flush_steps says a product cannot be subnormal, the unflushed product is not."""
    x = fp32.daz(np.float32([(-1 if neg else 1) * scale * 2.0 ** e, 0.75, -0.999]))
    flush = fp32.taylor_flush_steps(np.abs(x), n)
    assert flush is not None
    with np.errstate(all="ignore"):
        p = np.multiply(x, fp32.TAYLOR_COEF[n], dtype=np.float32)
        steps = [(n, p.copy())]
        fp32.ftz_(p)
        for k in range(n - 1, 0, -1):
            p = fp32.add(p, fp32.TAYLOR_COEF[k])
            p = np.multiply(p, x, dtype=np.float32)
            steps.append((k, p.copy()))
            fp32.ftz_(p)
    for k, prod in steps:
        tiny = (prod != 0) & (np.abs(prod) < fp32.FLT_MIN)
        assert flush[k] or not tiny.any(), (k, prod)


def test_flush_steps_make_no_claim_beyond_one_or_for_nan():
    assert fp32.taylor_flush_steps(np.float32([1.5]), 32) is None
    assert fp32.taylor_flush_steps(np.float32([np.nan]), 32) is None
    assert not any(fp32.taylor_flush_steps(np.float32([0.5, 0.0]), 32))
    assert fp32.taylor_flush_steps(np.float32([1e-3]), 32)[32]      # c_32 * 1e-3 is subnormal


def _run(fn, x, fused: bool, monkeypatch, dst=0x1000, src=0, work=0x2000, parallel=False, upload=None,
         **cfg):
    """Call ``fn`` on a fresh device with ``x`` at ``src``; return dst and work bits and the events."""
    if not fused:
        monkeypatch.setattr(unary, "_fusable", lambda *a: False)
    dev = okk.Device(global_mem_bytes=1 << 20)
    shape = okk.dim4(1, 1, 2, x.size // 2)          # all in NPU 0, where write_local puts x
    with dev, configure(**cfg):
        dev.write_local(0, src, x.view(np.uint8)[:upload])
        if parallel:
            okk.okk_parallel_start()
        fn(dst, src, work, shape)
        if parallel:
            okk.okk_parallel_end()
    monkeypatch.undo()
    nb = x.size * 4
    events = [(e.engine, e.name, e.cycles, e.start_ns, e.end_ns, e.nbytes, e.elements, e.source, e.args)
              for e in dev.events]
    return dev.read_local(0, dst, nb).tobytes(), dev.read_local(0, work, nb).tobytes(), events


CALLS = {
    "exp": okk.okk_bdc_exp, "sigmoid": okk.okk_bdc_sigmoid, "tanh": okk.okk_bdc_tanh,
    "exp_tunable_5": lambda d, s, w, sh: okk.okk_bdc_exp_tunable(d, s, w, sh, 5),
    "exp_tunable_40": lambda d, s, w, sh: okk.okk_bdc_exp_tunable(d, s, w, sh, 40),
    "sigmoid_tunable_9": lambda d, s, w, sh: okk.okk_bdc_sigmoid_tunable(d, s, w, sh, 9),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_fused_exp_chain_matches_the_step_by_step_chain(name, monkeypatch):
    rng = np.random.default_rng(len(name))
    x = np.concatenate([SPECIALS, rng.uniform(-103, 88, 200), rng.uniform(-1, 1, 80),
                        rng.uniform(-1, 1, 40) * 2.0 ** rng.integers(-126, -60, 40),
                        np.arange(-103, 89), rng.uniform(-3e9, 3e9, 8)]).astype(np.float32)
    x = x[: x.size - x.size % 2]
    taken = []
    real = unary._fusable      # spied on (not _exp_chain_fused: a test frame would change event sources)
    monkeypatch.setattr(unary, "_fusable", lambda *a: taken.append(real(*a)) or taken[-1])
    fast = _run(CALLS[name], x, True, monkeypatch)
    assert taken == [True]
    slow = _run(CALLS[name], x, False, monkeypatch)
    assert fast == slow


@pytest.mark.parametrize("where", ["in_place", "parallel", "partly_written"])
def test_chain_cases_the_fast_path_declines_still_match(where, monkeypatch):
    x = np.random.default_rng(5).uniform(-20, 20, 16).astype(np.float32)
    kw = {"in_place": dict(dst=0), "parallel": dict(parallel=True), "partly_written": {}}[where]
    calls = []
    real = unary._fusable
    monkeypatch.setattr(unary, "_fusable", lambda *a: calls.append(real(*a)) or calls[-1])
    if where == "partly_written":
        with pytest.warns(Warning):
            fast = _run(okk.okk_bdc_exp, x, True, monkeypatch, upload=60)   # the last element unwritten
    else:
        fast = _run(okk.okk_bdc_exp, x, True, monkeypatch, **kw)
    assert calls == [False]
    if where == "partly_written":
        with pytest.warns(Warning):
            slow = _run(okk.okk_bdc_exp, x, False, monkeypatch, upload=60)
    else:
        slow = _run(okk.okk_bdc_exp, x, False, monkeypatch, **kw)
    assert fast == slow


def _rsqrt_reference(x):
    """rsqrt_nr with the DAZ/FTZ pass after every step (okkernel.md §4.5), the general path."""
    y = fp32.ftz_((np.int32(0x5F3759DF) - (x.view(np.int32) >> np.int32(1))).view(np.float32))
    x2 = fp32.mul(np.float32(0.5), fp32.daz(x))
    for _ in range(3):
        y = fp32.mul(y, fp32.sub(np.float32(1.5), fp32.mul(fp32.mul(x2, y), y)))
    return y


def _edge_bits():
    rng = np.random.default_rng(11)
    parts = [np.arange(0, 1 << 32, 65537, dtype=np.uint64), rng.integers(0, 1 << 32, 50000, dtype=np.uint64)]
    for e in (-126, -121, -120, -119, 0, 119, 120, 121, 127):
        b = int(np.float32(2.0 ** e).view(np.uint32))
        parts.append(np.arange(b - 600, b + 600, dtype=np.uint64))
    return np.concatenate(parts).astype(np.uint32).view(np.float32)


def test_rsqrt_fast_range_equals_the_flushing_steps():
    x = _edge_bits()
    safe = x[(x >= 2.0 ** -120) & (x <= 2.0 ** 120)]
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(fp32.rsqrt_nr(safe).view(np.uint32), _rsqrt_reference(safe).view(np.uint32))
        np.testing.assert_array_equal(fp32.rsqrt_nr(x).view(np.uint32), _rsqrt_reference(x).view(np.uint32))
        for v in (np.float32([2.0 ** -120]), np.float32([2.0 ** 120]), np.float32([0.7, 3.0])):
            np.testing.assert_array_equal(fp32.rsqrt_nr(v).view(np.uint32), _rsqrt_reference(v).view(np.uint32))


def test_fp32_to_int32_in_range_shortcut_matches_the_saturating_rule():
    x = _edge_bits()
    x = np.concatenate([x, np.float32([-2.0 ** 31, 2.0 ** 31, 2147483520.0, -0.0, 0.99, -0.99])])
    with np.errstate(all="ignore"):
        wide = np.clip(np.nan_to_num(x.astype(np.float64), nan=0.0), -2.0 ** 31, 2.0 ** 31 - 1)
    want = np.trunc(wide).astype(np.int64)
    want[np.isnan(x)] = np.where(np.signbit(x[np.isnan(x)]), -2 ** 31, 2 ** 31 - 1)
    inside = ~np.isnan(x) & (x >= -2.0 ** 31) & (x < 2.0 ** 31)
    np.testing.assert_array_equal(fp32.fp32_to_int32(x[inside]), want[inside])      # the shortcut
    np.testing.assert_array_equal(fp32.fp32_to_int32(x), want)                      # the general path


def test_ftz_flushes_exactly_the_subnormals_keeping_signs():
    from npusim.okk import fp32
    bits = np.array([0x00000001, 0x807FFFFF, 0x00800000, 0x80800000, 0, 0x80000000, 0x7FC00001, 0xFFC00000,
                     0x7F800000, 0x7FA00000, 0x3F800000, 0x00400000], np.uint32)
    ref = bits.copy()
    sub = (bits & 0x7F800000 == 0) & (bits & 0x7FFFFF != 0)                # exponent 0, mantissa != 0
    ref[sub] &= np.uint32(0x80000000)
    for lo, hi in ((0, 12), (0, 4), (4, 6)):               # with and without anything to flush
        got = fp32.ftz_(bits[lo:hi].view(np.float32).copy())
        assert np.array_equal(got.view(np.uint32), ref[lo:hi])  # NaN payloads (even signalling) kept
    assert fp32.ftz_(np.array(np.float32(1e-40))) == 0


@pytest.mark.parametrize("native", ["1", "0"])
def test_ftz_on_large_arrays_with_and_without_the_native_scan(native, monkeypatch):
    from npusim.okk import fp32
    monkeypatch.setenv("NPUSIM_NATIVE", native)
    r = np.random.default_rng(7)
    x = r.uniform(-1, 1, 1 << 13).astype(np.float32)
    x[::97] = 0.0
    assert np.array_equal(fp32.ftz_(x.copy()).view(np.uint32), x.view(np.uint32))   # nothing to flush
    x[[5, 700, 8000]] = np.array([1e-40, -1e-41, np.nan], np.float32)
    want = x.copy()
    want[5], want[700] = 0.0, -0.0
    assert np.array_equal(fp32.ftz_(x.copy()).view(np.uint32), want.view(np.uint32))
