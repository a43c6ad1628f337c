"""The native whole-tile ops (nki/native/elementwise.c via native_elementwise.py) against numpy, bit for
bit: float32 add / subtract / multiply, same-dtype copy and fill on views of one shared byte buffer laid
out like SBUF (rows a partition stride apart), the cases that must fall back to numpy (with why), the
switches that force numpy, and tensor_tensor / tensor_copy / memset / tensor_scalar giving the same bytes
with and without the native path."""
import warnings

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import npusim.nki.isa as nisa
import npusim.nki.language as nl
from npusim.nki import native_elementwise as ne, run_context

F32 = np.float32
UFUNCS = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply}

needs_native = pytest.mark.skipif(not ne.enabled(), reason="no C compiler (native elementwise off)")


@pytest.fixture(autouse=True)
def _decide_again():
    """Each test decides the native switch afresh (and leaves it to decide again from the environment)."""
    ne.reset()
    with np.errstate(all="ignore"):     # numpy's side of inf - inf and overflow: results, not warnings
        yield
    ne.reset()


# ------------------------------------------------------------------------------------------------ values

#: float32 bit patterns numpy and C could disagree on: signed zeros, subnormals (smallest, largest),
#: smallest normal, infinities, quiet and signalling NaNs with payloads and both signs, huge and tiny values
SPECIAL = np.array([0x00000000, 0x80000000, 0x00000001, 0x807FFFFF, 0x00400000, 0x00800000, 0x80800000,
                    0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7FC12345, 0xFFEDCBA9, 0x7F800001,
                    0xFFA00005, 0x7F7FFFFF, 0xFF7FFFFF, 0x3F800000, 0xBF800000, 0x0DA24260, 0x7149F2CA,
                    0x1E3CE508], np.uint32)


def _values(rng, shape, special_share: float, nan_ok: bool) -> np.ndarray:
    """float32 values: normal-ish numbers mixed with SPECIAL patterns (without NaNs unless ``nan_ok``)."""
    x = (rng.standard_normal(shape) * np.exp2(rng.integers(-130, 128, shape))).astype(F32)
    pool = SPECIAL if nan_ok else SPECIAL[(SPECIAL & 0x7FFFFFFF) <= 0x7F800000]
    pick = rng.random(shape) < special_share
    x.view(np.uint32)[pick] = rng.choice(pool, int(pick.sum()))
    return x


class Sbuf:
    """One byte buffer holding ``lanes`` rows ``stride`` bytes apart, like the SBUF model."""

    def __init__(self, lanes: int, stride: int, seed: int):
        self.stride = stride
        self.bytes = np.random.default_rng(seed).integers(0, 256, lanes * stride + 64, dtype=np.uint8)

    def view(self, lane: int, byte: int, shape, dtype=F32, step=None) -> np.ndarray:
        """(P, N) elements from ``lane``, ``byte`` into each row, ``step`` bytes apart in a row."""
        dtype = np.dtype(dtype)
        step = dtype.itemsize if step is None else step
        return np.ndarray(shape, dtype, buffer=self.bytes, offset=lane * self.stride + byte,
                          strides=(self.stride, step) if len(shape) == 2 else (step,))

    def twin(self, *views):
        """A copy of the buffer and the same views into it (numpy's side of a comparison)."""
        other = self.bytes.copy()
        base = self.bytes.ctypes.data
        return other, [np.ndarray(v.shape, v.dtype, buffer=other, offset=v.ctypes.data - base, strides=v.strides)
                       for v in views]


def _assert_same_bytes(a: np.ndarray, b: np.ndarray):
    assert a.tobytes() == b.tobytes(), np.flatnonzero(a != b)[:10]


# ------------------------------------------------------------------------------------------- binary ops

@st.composite
def binary_cases(draw):
    p = draw(st.integers(1, 128))
    n = draw(st.integers(1, 512))
    step = draw(st.sampled_from([4, 4, 4, 8, 12]))        # unit column stride mostly, as SBUF tiles
    width = (n - 1) * step + 4
    # three operands at their own column ranges of the same rows (the SBUF case), from random lanes
    gaps = [4 * draw(st.integers(0, 8)) for _ in range(3)]
    cols, at = [], 4 * draw(st.integers(0, 4))
    for g in gaps:
        cols.append(at)
        at += width + g
    order = draw(st.permutations([0, 1, 2]))
    lanes = [draw(st.integers(0, 128 - p)) for _ in range(3)]
    return (draw(st.sampled_from(sorted(UFUNCS))), p, n, step, [cols[i] for i in order], lanes, at,
            draw(st.integers(0, 2 ** 32 - 1)), draw(st.sampled_from([0.0, 0.05, 0.5])),
            draw(st.booleans()))


@needs_native
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(binary_cases())
def test_binary_equals_numpy_bit_for_bit(case):
    """out = a op b on SBUF-like rows: native where no NaN is involved, numpy's exact bytes everywhere
    (bytes outside out untouched); a NaN sends the op to numpy (reason "nan") and numpy's result stands."""
    name, p, n, step, cols, lanes, row_bytes, seed, share, nan_ok = case
    fn = UFUNCS[name]
    rng = np.random.default_rng(seed)
    mem = Sbuf(128, row_bytes + 16, seed)
    a, b, out = (mem.view(lane, col, (p, n), step=step) for lane, col in zip(lanes, cols))
    a[...] = _values(rng, (p, n), share, nan_ok)
    b[...] = _values(rng, (p, n), share, nan_ok)
    twin, (a2, b2, out2) = mem.twin(a, b, out)
    fn(a2, b2, out=out2)
    done = ne.binary(fn, a, b, out)
    if not done:
        assert ne.last_reason() == "nan"
        fn(a, b, out=out)                       # the hook's fallback
    assert done == (not np.isnan(out2).any())   # out misses a and b: any NaN result goes to numpy
    _assert_same_bytes(mem.bytes, twin)         # out as numpy wrote it, every other byte as it was


@needs_native
@settings(max_examples=40, deadline=None)
@given(st.sampled_from(sorted(UFUNCS)), st.integers(1, 128), st.integers(1, 64), st.integers(0, 2 ** 32 - 1),
       st.sampled_from(["a", "b", "both"]))
def test_binary_in_place_equals_numpy(name, p, n, seed, which):
    """out is exactly a (or b, or a is b too): elementwise in place, inputs scanned for NaN before any
    write (a NaN input: False with reason "nan" and nothing written), invalid operations (inf - inf,
    0 * inf) give numpy's default NaN natively."""
    fn = UFUNCS[name]
    rng = np.random.default_rng(seed)
    mem = Sbuf(128, 4096, seed)
    a = mem.view(0, 0, (p, n))
    b = a if which == "both" else mem.view(0, 1024, (p, n))
    a[...] = _values(rng, (p, n), 0.3, nan_ok=False)
    if which != "both":
        b[...] = _values(rng, (p, n), 0.3, nan_ok=False)
    a[0, 0] = np.inf                    # an invalid operation at [0, 0]: inf - inf, -inf + inf, inf * 0
    b[0, 0] = {"subtract": np.inf, "add": -np.inf, "multiply": 0.0}[name]
    out = a if which in ("a", "both") else b
    twin, (a2, b2, out2) = mem.twin(a, b, out)
    fn(a2, b2, out=out2)
    assert ne.binary(fn, a, b, out), ne.last_reason()
    _assert_same_bytes(mem.bytes, twin)
    # a NaN input: nothing written, numpy decides
    a.view(np.uint32)[p // 2, n // 2] = 0x7FC0BEEF
    before = mem.bytes.copy()
    assert not ne.binary(fn, a, b, out) and ne.last_reason() == "nan"
    _assert_same_bytes(mem.bytes, before)


@needs_native
@pytest.mark.parametrize("name", sorted(UFUNCS))
def test_binary_subnormals_and_signed_zeros_exhaustively_paired(name):
    """Every pair of the non-NaN SPECIAL patterns (subnormal results, -0 + 0, x - x, tiny * tiny, huge *
    huge, inf - inf): the native bytes are numpy's; and a strided 1-D and a negative-stride 2-D layout."""
    fn = UFUNCS[name]
    pool = SPECIAL[(SPECIAL & 0x7FFFFFFF) <= 0x7F800000]
    x = np.repeat(pool, len(pool)).view(F32)
    y = np.tile(pool, len(pool)).view(F32)
    with np.errstate(all="ignore"):
        want = fn(x, y)
    out = np.empty_like(x)
    done = ne.binary(fn, x, y, out)
    # inf - inf / 0 * inf give NaN results: with out apart from the inputs they go to numpy
    assert done == (not np.isnan(want).any()) and (done or ne.last_reason() == "nan")
    keep = ~np.isnan(want)
    out2 = np.empty(int(keep.sum()), F32)
    assert ne.binary(fn, x[keep], y[keep], out2)
    _assert_same_bytes(out2, want[keep])
    # strided and reversed layouts
    buf = np.zeros(4 * len(x), F32)
    xs, ys = buf[::4][: len(x) // 2], buf[1::4][: len(x) // 2]
    xs[...], ys[...] = x[keep][: len(xs)], y[keep][: len(ys)]
    o = np.zeros((len(xs) // 2, 2), F32)[::-1, ::-1]
    x2, y2 = xs[: o.size].reshape(o.shape), ys[: o.size].reshape(o.shape)
    assert ne.binary(fn, x2, y2, o), ne.last_reason()
    with np.errstate(all="ignore"):
        _assert_same_bytes(o, fn(x2, y2))


# ------------------------------------------------------------------------------------------ fallbacks

@needs_native
def test_fallback_cases_name_their_reason_and_write_nothing():
    mem = Sbuf(128, 4096, 1)
    a, b = mem.view(0, 0, (128, 16)), mem.view(0, 256, (128, 16))
    a[...], b[...] = 1.5, 2.5
    before = mem.bytes.copy()
    cases = [
        ("overlap", (np.add, a, b, mem.view(0, 4, (128, 16)))),          # out shifted one element from a
        ("overlap", (np.add, a, b, mem.view(0, 256 + 60, (128, 16)))),   # out's first column is b's last
        ("overlap", (np.add, a, b, mem.view(1, 0, (128, 16)))),          # a's rows, one lane down
        ("overlap", (np.add, a, b, mem.view(0, 4040, (128, 16)))),       # wraps into the next lane's a
        ("overlap", (np.add, a, b, mem.view(0, 512, (128, 16), step=0))),  # out's elements coincide
        ("overlap", (np.add, a, b, np.ndarray((128, 16), F32, mem.bytes, 512, (0, 4)))),
        ("type", (np.add, a.astype(np.float64), b.astype(np.float64), np.zeros((128, 16)))),
        ("type", (np.add, a, b, np.zeros((128, 16), np.float64))),
        ("type", (np.add, a.astype(np.int32), b.astype(np.int32), np.zeros((128, 16), np.int32))),
        ("type", (np.add, a, b, np.zeros((128, 16), ">f4"))),             # byte-swapped
        ("type", (np.add, 1.0, b, np.zeros((128, 16), F32))),
        ("op", (np.maximum, a, b, np.zeros((128, 16), F32))),
        ("shape", (np.add, a, b, np.zeros((128, 8), F32))),
        ("shape", (np.add, a[:, :8], b, np.zeros((128, 16), F32))),
        ("shape", (np.add, a[:1], b[:1], np.zeros(16, F32))),              # (1, 16) into (16,): numpy raises
        ("shape", (np.add, a.reshape(128, 2, 8), b.reshape(128, 2, 8), np.zeros((128, 2, 8), F32))),
        ("shape", (np.add, np.ones((), F32), np.ones((), F32), np.zeros((), F32))),
        ("align", (np.add, a, b, mem.view(0, 1026, (128, 16)))),
        ("readonly", (np.add, a, b, np.broadcast_to(np.zeros(16, F32), (128, 16)))),
    ]
    for reason, args in cases:
        assert ne.binary(*args) is False, reason
        assert ne.last_reason() == reason, (reason, args[3].shape)
    _assert_same_bytes(mem.bytes, before)
    # and the ones that are covered: rows interleaved in one buffer, exactly aliased, a 1-D tile
    assert ne.binary(np.add, a, b, mem.view(0, 64, (128, 16))) and ne.last_reason() == "done"
    assert ne.binary(np.add, a, b, mem.view(0, 4032, (128, 16)))          # ends where lane+1's a starts
    assert ne.binary(np.add, a, b, a) and ne.binary(np.add, a[0], b[0], b[0])
    assert ne.copy(a, np.zeros((128, 8), F32)) is False and ne.last_reason() == "shape"
    assert ne.copy(a[0], np.zeros((1, 16), F32)) is False and ne.last_reason() == "shape"
    assert ne.copy(a, a) and ne.last_reason() == "done"                          # exactly aliased: nothing to do
    assert ne.copy(a, mem.view(0, 8, (128, 16))) is False and ne.last_reason() == "overlap"
    assert ne.copy(np.zeros(3, object), np.zeros(3, object)) is False and ne.last_reason() == "type"
    assert ne.copy(np.zeros((2, 2), "V3"), np.zeros((2, 2), "V3")) is False    # itemsize 3
    assert ne.copy(np.zeros(4, np.int16), np.zeros(4, np.uint16)) is False and ne.last_reason() == "type"
    assert ne.fill(np.zeros(4, F32), np.float64(1.0).reshape(())) is False     # another dtype
    assert ne.fill(np.zeros(4, F32), F32(1.0)) is False and ne.last_reason() == "type"   # not an array
    assert ne.fill(np.zeros(4, F32), np.zeros(1, F32)) is False                # not 0-d
    assert ne.fill(np.broadcast_to(np.zeros(1, F32), (4,)), np.zeros((), F32)) is False
    assert ne.last_reason() == "readonly"


@needs_native
@settings(max_examples=150, deadline=None)
@given(st.tuples(st.integers(0, 200), st.integers(1, 6), st.integers(1, 9), st.integers(-3, 40),
                 st.integers(-3, 6)),
       st.tuples(st.integers(0, 200), st.integers(1, 6), st.integers(1, 9), st.integers(-3, 40),
                 st.integers(-3, 6)))
def test_overlap_never_missed(ga, gb):
    """For random 2-D layouts in one small buffer (negative, zero and interleaved strides): whenever the
    native copy says done, numpy's exact overlap solver agrees that out and src share no byte (or they
    are the same view), and out's elements are distinct bytes; otherwise the reason is "overlap"."""
    buf = np.zeros(4096, np.uint8)

    def view(g):
        off, n0, n1, s0, s1 = g
        s0, s1 = 4 * s0, 4 * s1
        lo = min(0, (n0 - 1) * s0) + min(0, (n1 - 1) * s1)     # the lowest byte, from the first element
        return np.ndarray((n0, n1), F32, buffer=buf, offset=4 * off - lo, strides=(s0, s1))

    src, out = view(ga), view(gb)
    if src.shape != out.shape:
        src = view((ga[0], gb[1], gb[2], ga[3], ga[4]))
    exact = src.ctypes.data == out.ctypes.data and all(   # the same elements (a length-1 dim's stride is moot)
        n == 1 or a == b for n, a, b in zip(out.shape, src.strides, out.strides))
    done = ne.copy(src, out)
    if not done:
        assert ne.last_reason() == "overlap"
        return
    i, j = np.indices(out.shape)
    starts = (i * out.strides[0] + j * out.strides[1]).ravel()
    assert len(set(starts.tolist())) == out.size or out.size == 1
    assert exact or not np.shares_memory(src, out, max_work=None)


# ------------------------------------------------------------------------------------------ copy, fill

COPY_DTYPES = [np.uint8, np.int8, np.bool_, np.float16, ml_dtypes.bfloat16, np.int16, F32, np.uint32,
               np.float64, np.int64, ml_dtypes.float8_e4m3fn]


@needs_native
@settings(max_examples=60, deadline=None)
@given(st.sampled_from(COPY_DTYPES), st.integers(1, 128), st.integers(1, 512), st.integers(0, 2 ** 32 - 1),
       st.sampled_from([1, 1, 2, 3]), st.booleans())
def test_copy_and_fill_equal_numpy_bit_for_bit(dtype, p, n, seed, step, swap):
    """out[...] = src and out[...] = value between SBUF-like rows: the bytes as numpy writes them (NaN
    payloads, -0 and bool bytes included), nothing outside out touched."""
    dtype = np.dtype(dtype)
    size = dtype.itemsize
    width = ((n - 1) * step + 1) * size
    mem = Sbuf(128, 2 * width + 64, seed)
    cols = [0, width + 8 * (seed % 4)] if not swap else [width + 8, 0]
    src = mem.view(0, cols[0], (p, n), dtype, step * size)
    out = mem.view(128 - p, cols[1], (p, n), dtype, step * size)
    twin, (src2, out2) = mem.twin(src, out)
    out2[...] = src2
    assert ne.copy(src, out), ne.last_reason()
    _assert_same_bytes(mem.bytes, twin)
    value = np.frombuffer(np.random.default_rng(seed).bytes(size), dtype).reshape(())
    twin, (out2,) = mem.twin(out)
    out2[...] = value
    assert ne.fill(out, value), ne.last_reason()
    _assert_same_bytes(mem.bytes, twin)


# ---------------------------------------------------------------------------------------- the switches

@pytest.mark.parametrize("var", ["NPUSIM_NATIVE", "NPUSIM_NATIVE_ELEMENTWISE"])
def test_switch_forces_numpy(monkeypatch, var):
    monkeypatch.setenv(var, "0")
    ne.reset()
    a = np.ones(4, F32)
    assert not ne.binary(np.add, a, a, np.empty(4, F32)) and not ne.copy(a, np.empty(4, F32))
    assert not ne.fill(np.empty(4, F32), np.zeros((), F32))
    assert not ne.enabled() and ne.last_reason() == "off"
    monkeypatch.delenv(var)
    ne.reset()
    if ne.enabled():                    # (with a C compiler) decided again: native once more
        out = np.empty(4, F32)
        assert ne.binary(np.add, a, a, out) and out.tolist() == [2.0] * 4


def test_without_a_compiler_numpy_does_everything(monkeypatch, tmp_path):
    """No C compiler: no warning, every call False. A compiler that fails: one warning naming the build."""
    monkeypatch.delenv("NPUSIM_NATIVE", raising=False)      # (a run with the native paths switched off
    monkeypatch.delenv("NPUSIM_NATIVE_ELEMENTWISE", raising=False)      # would never try the build)
    monkeypatch.setenv("NPUSIM_CACHE", str(tmp_path))
    monkeypatch.setenv("CC", str(tmp_path / "no-such-cc"))
    ne.reset()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert not ne.enabled()
        assert not ne.binary(np.add, np.ones(2, F32), np.ones(2, F32), np.empty(2, F32))
    monkeypatch.setenv("CC", "false")       # exists, exits 1: a failed build
    ne.reset()
    with pytest.warns(RuntimeWarning, match="elementwise.c does not build"):
        assert not ne.enabled()


# ------------------------------------------------------------------------ the hooks in the NKI ops

def _ops_kernel(x, y, fill):
    """tensor_tensor (three ops, one in place), tensor_copy (one dtype, and a cast), memset and a small
    tensor_scalar, on SBUF tiles at different columns of the same partitions."""
    a, b = nl.ndarray(x.shape, nl.float32), nl.ndarray(x.shape, nl.float32)
    a.write(x)
    b.write(y)
    outs = [nl.ndarray(x.shape, nl.float32) for _ in range(6)]
    nisa.tensor_tensor(dst=outs[0], data1=a, data2=b, op=nl.add)
    nisa.tensor_tensor(dst=outs[1], data1=a, data2=b, op=nl.subtract)
    nisa.tensor_tensor(dst=outs[2], data1=a, data2=b, op=nl.multiply)
    nisa.tensor_copy(dst=outs[3], src=outs[2])
    nisa.tensor_tensor(dst=outs[3], data1=outs[3], data2=b, op=nl.multiply)
    nisa.memset(dst=outs[4], value=fill)
    nisa.tensor_scalar(dst=outs[5], data=a, op0=nl.multiply, operand0=3.0)
    half = nl.ndarray(x.shape, nl.bfloat16)
    nisa.tensor_copy(dst=half, src=outs[0])
    half2 = nl.ndarray(x.shape, nl.bfloat16)
    nisa.tensor_copy(dst=half2, src=half)
    return [o.numpy().view(np.uint32) for o in outs] + [half2.numpy().view(np.uint16)]


@pytest.mark.parametrize("nan", [False, True])
def test_nki_ops_give_the_same_bytes_with_and_without_native(monkeypatch, nan):
    """The hooks (isa.tensor_tensor / tensor_copy / memset, isa_tensor_scalar's scratch copies) change
    no byte: the same kernel with NPUSIM_NATIVE_ELEMENTWISE=0 and =1, NaN payloads and subnormals included;
    and the values are the float32 arithmetic written here."""
    rng = np.random.default_rng(5)
    x, y = _values(rng, (128, 16), 0.2, nan), _values(rng, (128, 16), 0.2, nan)
    got = {}
    for flag in ("0", "1"):
        monkeypatch.setenv("NPUSIM_NATIVE_ELEMENTWISE", flag)
        ne.reset()
        with run_context("trn2"):
            got[flag] = _ops_kernel(x, y, -0.0)
    for g0, g1 in zip(got["0"], got["1"]):
        _assert_same_bytes(g0, g1)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(got["1"][0].view(F32), x + y)
        np.testing.assert_array_equal(got["1"][2].view(F32), x * y)
        np.testing.assert_array_equal(got["1"][3].view(F32), (x * y) * y)
    assert (got["1"][4] == 0x80000000).all()            # -0.0's bytes


def test_nki_ops_use_the_native_path():
    """With a C compiler the hot ops really take the native path (else the test above proves nothing)."""
    if not ne.enabled():
        pytest.skip("no C compiler (native elementwise off)")
    seen = []
    ext = ne._EXT
    for name in ("binary", "copy", "fill"):
        fn = getattr(ext, name)
        setattr(ne, name, lambda *args, _fn=fn, _n=name: seen.append((_n, _fn(*args))) or seen[-1][1])
    try:
        with run_context("trn2"):
            _ops_kernel(np.ones((128, 16), F32), np.ones((128, 16), F32), 2.0)
    finally:
        ne.reset()
    assert ("binary", True) in seen and ("copy", True) in seen and ("fill", True) in seen
    assert sum(ok for n, ok in seen if n == "binary") == 4


@needs_native
def test_build_cache_key_covers_python_abi_and_numpy_version(monkeypatch, tmp_path):
    """An extension built for another numpy (or Python ABI) is never loaded: both are in the build's key."""
    import sysconfig

    from npusim.core import native_build
    monkeypatch.setenv("NPUSIM_CACHE", str(tmp_path))
    path, why = native_build.build_library("nki_native", ne.SOURCE, [ne._flags()])
    assert path is not None, why
    monkeypatch.setattr(np, "__version__", np.__version__ + ".other")
    other, _ = native_build.build_library("nki_native", ne.SOURCE, [ne._flags()])
    assert other is not None and other != path
    monkeypatch.undo()
    flags = ne._flags()
    real = sysconfig.get_config_var
    monkeypatch.setattr(sysconfig, "get_config_var", lambda name: "other-abi" if name == "SOABI" else real(name))
    assert ne._flags() != flags         # (the flags are hashed into the library's name, as shown above)
