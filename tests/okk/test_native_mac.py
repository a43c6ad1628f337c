"""The optional native kernels (native_mac, native/fast_mac.c) give exactly numpy's bits: against a plain
float32 sequential loop written here (small shapes), and against the numpy path (NPUSIM_NATIVE=0) on
random shapes with signed zeros, infinities and NaNs (hypothesis)."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim.okk import bdc_conv, bdc_depthwise_pool, bdc_matmul, fastsum, native_mac

HAVE_NATIVE = native_mac.enabled()
needs_native = pytest.mark.skipif(not HAVE_NATIVE, reason="native kernels off (no C compiler, or NPUSIM_NATIVE=0): "
                                  "they are optional")
F = np.float32
SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.5, -2.0]


def bits(a):
    return np.asarray(a, F).view(np.uint32)


def out_hw(h, w, kh, kw, s, d):
    return (h - (kh - 1) * d[0] - 1) // s[0] + 1, (w - (kw - 1) * d[1] - 1) // s[1] + 1


def tap(xp, i, j, oh, ow, s, d):
    return xp[:, :, i * d[0]:i * d[0] + s[0] * (oh - 1) + 1:s[0], j * d[1]:j * d[1] + s[1] * (ow - 1) + 1:s[1]]


def conv_loop(xp, wv, kh, kw, s, d):
    """docs/okk.md's CONV model, written out: items (pair m, tap t) taps outer; item number k adds
    x[2m + lane] * w to accumulator (lane, k % 2), the first product starting it; a missing accumulator
    is +0; out = (acc(0,1) + acc(0,0)) + (acc(1,1) + acc(1,0))."""
    n, ic = xp.shape[:2]
    oh, ow = out_hw(xp.shape[2], xp.shape[3], kh, kw, s, d)
    acc = {}
    k = 0
    for t in range(kh * kw):
        for m in range(-(-ic // 2)):
            for lane in (0, 1):
                c = 2 * m + lane
                if c < ic:
                    p = tap(xp[:, c:c + 1], t // kw, t % kw, oh, ow, s, d) * wv[None, :, c, t // kw, t % kw, None, None]
                    key = (lane, k % 2)
                    acc[key] = p if key not in acc else acc[key] + p
            k += 1
    z = F(0.0)
    lanes = [acc.get((p, 1), z) + acc.get((p, 0), z) for p in (0, 1)]
    return np.asarray(lanes[0] + lanes[1], F), len(acc)


def taps_loop(xp, wv, kh, kw, s, d):
    """Depthwise: acc[t % 2] over taps in order, first product starts each; one tap: acc0; else
    (acc0 + acc1) + 0."""
    oh, ow = out_hw(xp.shape[2], xp.shape[3], kh, kw, s, d)
    acc = [None, None]
    for t in range(kh * kw):
        p = tap(xp, t // kw, t % kw, oh, ow, s, d) * wv[None, :, t // kw, t % kw, None, None]
        acc[t % 2] = p if acc[t % 2] is None else acc[t % 2] + p
    return acc[0] if acc[1] is None else (acc[0] + acc[1]) + F(0.0)


def dot_loop(left, right):
    """FC: two accumulators from +0 over even / odd k in order, then even + odd."""
    acc = [np.zeros((left.shape[0], right.shape[1]), F) for _ in range(2)]
    for k in range(left.shape[1]):
        acc[k % 2] = acc[k % 2] + left[:, k, None] * right[None, k, :]
    return acc[0] + acc[1]


def conv_case(r, n, ic, oc, kh, kw, s, d, extra=0):
    oh, ow = 1 + extra + r.integers(0, 4), 1 + r.integers(0, 4)
    h, w = (oh - 1) * s[0] + (kh - 1) * d[0] + 1, (ow - 1) * s[1] + (kw - 1) * d[1] + 1
    xp = r.uniform(-2, 2, (n, ic, h, w)).astype(F)
    wv = r.uniform(-2, 2, (oc, ic, kh, kw)).astype(F)
    return xp, wv


def sprinkle(r, a, values, frac=0.2):
    m = r.random(a.shape) < frac
    a[m] = r.choice(np.array(values, F), m.sum())


@needs_native
@pytest.mark.parametrize("ic,kh,kw,s,d", [(1, 1, 1, (1, 1), (1, 1)), (2, 2, 3, (1, 1), (1, 1)), (3, 3, 3, (2, 2), (1, 1)),
                                          (5, 3, 2, (1, 3), (2, 1)), (7, 1, 4, (3, 1), (1, 2))])
def test_native_conv_matches_the_sequential_loop(ic, kh, kw, s, d):
    r = np.random.default_rng(ic * 100 + kh * 10 + kw)
    xp, wv = conv_case(r, 2, ic, 5, kh, kw, s, d)
    sprinkle(r, xp, [0.0, -0.0, np.inf, -np.inf])           # no NaN input: the native kernel's domain
    sprinkle(r, wv, [0.0, -0.0], 0.3)
    xp[1] = -0.0                                            # image 1, channel 0: every product is -0
    wv[0] = np.abs(wv[0])
    assert fastsum.plain_paths(xp, wv) == (True, True)
    oh, ow = out_hw(xp.shape[2], xp.shape[3], kh, kw, s, d)
    cs, ts, accs = bdc_conv._items(ic, kh * kw, "tap_outer")
    got = bdc_conv._conv_native(xp, wv, cs, ts, accs, kw, oh, ow, s, d)
    with np.errstate(all="ignore"):
        ref, used = conv_loop(xp, wv, kh, kw, s, d)
    assert np.array_equal(bits(got), bits(ref))
    assert np.all(np.signbit(ref[1, 0])) == (used == 4)     # -0 survives only when no accumulator is missing


@needs_native
def test_native_depthwise_and_dot_match_the_sequential_loops():
    r = np.random.default_rng(5)
    for kh, kw, s, d in [(1, 1, (1, 1), (1, 1)), (3, 3, (2, 2), (1, 1)), (2, 3, (1, 2), (2, 1))]:
        xp, _ = conv_case(r, 2, 6, 1, kh, kw, s, d)
        wv = r.uniform(-2, 2, (6, kh, kw)).astype(F)
        sprinkle(r, xp, [0.0, -0.0, np.inf])
        xp[1] = -0.0
        wv[0] = np.abs(wv[0])                               # image 1, channel 0: every product is -0
        oh, ow = out_hw(xp.shape[2], xp.shape[3], kh, kw, s, d)
        got = native_mac.even_odd_taps(xp, wv.reshape(6, kh * kw), kh, kw, oh, ow, s, d)
        with np.errstate(all="ignore"):
            assert np.array_equal(bits(got), bits(taps_loop(xp, wv, kh, kw, s, d)))
    for m, k, n in [(1, 1, 1), (3, 7, 5), (6, 9, 130)]:
        left, right = r.uniform(-2, 2, (m, k)).astype(F), r.uniform(-2, 2, (k, n)).astype(F)
        sprinkle(r, left, [0.0, -0.0, np.inf])
        got = np.empty((m, n), F)
        native_mac.even_odd_dot(left, right, got, 0, m)
        with np.errstate(all="ignore"):
            assert np.array_equal(bits(got), bits(dot_loop(left, right)))


@needs_native
def test_native_scan_is_smallest_nonzero_and_sees_nans():
    r = np.random.default_rng(1)
    for size in (0, 1, 15, 16, 17, 100):
        x = r.uniform(-1, 1, size).astype(F)
        x[::3] = 0.0
        assert native_mac.min_abs_nonzero(x) == (fastsum.smallest_nonzero(x), False)
        if size:
            x[size // 2] = np.nan
            assert native_mac.min_abs_nonzero(x)[1]
            assert np.isnan(fastsum.scan(x))


@needs_native
def test_nan_or_tiny_products_keep_the_numpy_path(monkeypatch):
    x = np.ones((1, 2, 3, 3), F)
    w = np.ones((2, 2, 1, 1), F)
    assert fastsum.plain_paths(x, w) == (True, True)
    x[0, 0, 0, 0] = np.nan
    assert fastsum.plain_paths(x, w) == (False, False)
    x[0, 0, 0, 0] = 2.0 ** -60
    w[0, 0] = 2.0 ** -60
    assert fastsum.plain_paths(x, w) == (False, False)        # 2^-120 < 2^-102: FTZ path
    monkeypatch.setenv("NPUSIM_NATIVE", "0")
    assert fastsum.plain_paths(np.ones(3, F), np.ones(3, F)) == (True, False)


def _both(monkeypatch, fn):
    got = fn()
    monkeypatch.setenv("NPUSIM_NATIVE", "0")
    ref = fn()
    monkeypatch.delenv("NPUSIM_NATIVE")
    return got, ref


@needs_native
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), ic=st.integers(1, 6), oc=st.integers(1, 20), kh=st.integers(1, 3),
       kw=st.integers(1, 3), s=st.tuples(st.integers(1, 3), st.integers(1, 3)),
       d=st.tuples(st.integers(1, 2), st.integers(1, 2)), special=st.sampled_from([[], [np.inf, -0.0], SPECIAL]))
def test_conv_native_and_numpy_paths_give_identical_bits(seed, ic, oc, kh, kw, s, d, special):
    r = np.random.default_rng(seed)
    xp, wv = conv_case(r, 1 + seed % 3, ic, oc, kh, kw, s, d, extra=seed % 40)
    if special:
        sprinkle(r, xp, special, 0.05)
        sprinkle(r, wv, special, 0.05)
    oh, ow = out_hw(xp.shape[2], xp.shape[3], kh, kw, s, d)
    with pytest.MonkeyPatch.context() as mp:
        got, ref = _both(mp, lambda: bdc_conv.conv_sum(xp, wv, kh, kw, oh, ow, s, d))
    assert np.array_equal(bits(got), bits(ref))


@needs_native
@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), c=st.integers(1, 9), kh=st.integers(1, 3), kw=st.integers(1, 3),
       s=st.tuples(st.integers(1, 3), st.integers(1, 3)), d=st.tuples(st.integers(1, 2), st.integers(1, 2)),
       special=st.sampled_from([[], [np.inf, -0.0], SPECIAL]), m=st.integers(1, 9), k=st.integers(1, 40),
       n=st.integers(1, 200))
def test_taps_and_dot_native_and_numpy_paths_give_identical_bits(seed, c, kh, kw, s, d, special, m, k, n):
    r = np.random.default_rng(seed)
    xp, _ = conv_case(r, 1 + seed % 2, c, 1, kh, kw, s, d, extra=seed % 50)
    wv = r.uniform(-2, 2, (c, kh, kw)).astype(F)
    left, right = r.uniform(-2, 2, (m, k)).astype(F), r.uniform(-2, 2, (k, n)).astype(F)
    for a in (xp, wv, left, right):
        if special:
            sprinkle(r, a, special, 0.05)
    oh, ow = out_hw(xp.shape[2], xp.shape[3], kh, kw, s, d)
    wmin = fastsum.smallest_nonzero(wv)
    inv = F(1.0) / F(kh * kw)
    with pytest.MonkeyPatch.context() as mp:
        for fn in (lambda: bdc_depthwise_pool.even_odd_taps(xp, wv, kh, kw, oh, ow, s, d, wmin),
                   lambda: bdc_depthwise_pool.even_odd_taps(xp, inv, kh, kw, oh, ow, s, d, float(inv)),
                   lambda: bdc_matmul.even_odd_dot(left, right)):
            with np.errstate(all="ignore"):
                got, ref = _both(mp, fn)
            assert np.array_equal(bits(got), bits(ref))


def test_without_a_compiler_or_with_a_broken_build_numpy_answers(monkeypatch, tmp_path):
    xp = np.random.default_rng(3).uniform(-1, 1, (1, 3, 5, 5)).astype(F)
    wv = np.random.default_rng(4).uniform(-1, 1, (2, 3, 2, 2)).astype(F)
    monkeypatch.setenv("NPUSIM_NATIVE", "0")
    ref = bdc_conv.conv_sum(xp, wv, 2, 2, 4, 4, (1, 1), (1, 1))
    monkeypatch.delenv("NPUSIM_NATIVE")
    monkeypatch.setattr(native_mac, "_LIB", [])
    monkeypatch.setenv("CC", "no-such-compiler-npusim")
    assert native_mac.lib() is None and not native_mac.enabled()
    assert fastsum.plain_paths(xp, wv) == (True, False)
    assert np.array_equal(bits(bdc_conv.conv_sum(xp, wv, 2, 2, 4, 4, (1, 1), (1, 1))), bits(ref))
    if not HAVE_NATIVE:
        return                                            # no compiler at all: nothing more to try
    monkeypatch.delenv("CC")
    broken = tmp_path / "fast_mac.c"
    broken.write_text("this is not C\n")
    monkeypatch.setattr(native_mac, "_LIB", [])
    monkeypatch.setattr(native_mac, "SOURCE", str(broken))
    monkeypatch.setenv("NPUSIM_CACHE", str(tmp_path / "cache"))
    with pytest.warns(RuntimeWarning, match="does not build"):
        assert native_mac.lib() is None
    assert np.array_equal(bits(bdc_conv.conv_sum(xp, wv, 2, 2, 4, 4, (1, 1), (1, 1))), bits(ref))
