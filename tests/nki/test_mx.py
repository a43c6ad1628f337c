"""MX on trn3: nisa.quantize_mx and nisa.nc_matmul_mx with packed x4 dtypes (mx.py). References: the
OCP microscaling math written here in numpy (the layout of nki-library's test/utils/mx_utils.py)."""
import ml_dtypes
import numpy as np
import pytest

import npusim.nki.isa as nisa
import npusim.nki.language as nl
from npusim.core.errors import ConstraintError
from npusim.nki import run_context


def sbuf(x, dtype=None):
    t = nl.ndarray(x.shape, dtype or x.dtype, buffer=nl.sbuf)
    t.write(np.asarray(x).astype(t.tv.dtype.np) if dtype is None or t.tv.dtype.kind != "p" else x)
    return t


def quantize_reference(x, elem, emax):
    """[P, F] -> (fp8 values [P, F] as float32, biased e8m0 exponents [P/8, F/4])."""
    p, f = x.shape
    g = x.astype(np.float32).reshape(p // 8, 8, f // 4, 4)
    amax = np.abs(g).max(axis=(1, 3))
    e = np.floor(np.log2(np.where(amax > 0, amax, 1))).astype(np.int64)
    biased = np.where(amax > 0, e - (emax - 1) + 127, 0)
    q = (g / np.exp2(biased - 127.0)[:, None, :, None]).astype(elem).astype(np.float32)
    return q.reshape(p, f), biased


def scale_row(p):
    return (p // 32) * 32 + (p % 32) // 8


@pytest.mark.parametrize("x4,elem,emax", [(nl.float8_e4m3fn_x4, ml_dtypes.float8_e4m3fn, 8),
                                          (nl.float8_e5m2_x4, ml_dtypes.float8_e5m2, 15)])
@pytest.mark.parametrize("p", [32, 128])
def test_quantize_mx_values_scales_and_layout(x4, elem, emax, p):
    with run_context("trn3"):
        rng = np.random.default_rng(p)
        x = (rng.standard_normal((p, 64)) * np.exp2(rng.integers(-6, 6, (p, 64)))).astype(ml_dtypes.bfloat16)
        x[:8, :4] = 0                                               # an all-zero group: scale 2^-127
        d = nl.ndarray((p, 16), x4)
        s = nl.ndarray((p, 16), nl.uint8)
        ev = nisa.quantize_mx(dst=d, src=sbuf(x), dst_scale=s).event
        q, biased = quantize_reference(x, elem, emax)
        raw = d.tv.array().reshape(p, 16).copy()
        got = raw.view(np.uint8).reshape(p, 16, 4).view(elem).astype(np.float32).reshape(p, 64)
        np.testing.assert_array_equal(got, q)
        sc = s.tv.array()
        rows = [scale_row(i) for i in range(0, p, 8)]
        np.testing.assert_array_equal(sc[rows], biased)
        assert biased[0, 0] == 0 and ev.engine == "vector"
        # dequantized, every value is within the format's precision of its group's largest magnitude
        deq = got * np.repeat(np.repeat(np.exp2(biased - 127.0), 8, 0), 4, 1)
        mant = 3 if elem is ml_dtypes.float8_e4m3fn else 2
        gmax = np.repeat(np.repeat(np.abs(x.astype(np.float32)).reshape(p // 8, 8, 16, 4).max(axis=(1, 3)), 8, 0), 4, 1)
        assert np.all(np.abs(deq - x.astype(np.float32)) <= gmax * 2.0 ** -mant)


def test_quantize_then_matmul_mx_matches_the_dequantized_product():
    with run_context("trn3"):
        rng = np.random.default_rng(7)
        k, m, n = 64, 32, 96               # contraction 4k = 256 values
        a = rng.standard_normal((k, 4 * m)).astype(ml_dtypes.bfloat16)
        b = rng.standard_normal((k, 4 * n)).astype(ml_dtypes.bfloat16)
        aq, as_ = nl.ndarray((k, m), nl.float8_e4m3fn_x4), nl.ndarray((k, m), nl.uint8)
        bq, bs = nl.ndarray((k, n), nl.float8_e4m3fn_x4), nl.ndarray((k, n), nl.float8_e8m0fnu)
        nisa.quantize_mx(dst=aq, src=sbuf(a), dst_scale=as_)
        nisa.quantize_mx(dst=bq, src=sbuf(b), dst_scale=bs)
        out = nl.ndarray((m, n), nl.float32, buffer=nl.psum)
        ev = nisa.nc_matmul_mx(dst=out, stationary=aq, moving=bq, stationary_scale=as_, moving_scale=bs).event
        qa, ea = quantize_reference(a, ml_dtypes.float8_e4m3fn, 8)
        qb, eb = quantize_reference(b, ml_dtypes.float8_e4m3fn, 8)
        da = (qa * np.repeat(np.repeat(np.exp2(ea - 127.0), 8, 0), 4, 1)).reshape(k, m, 4)
        db = (qb * np.repeat(np.repeat(np.exp2(eb - 127.0), 8, 0), 4, 1)).reshape(k, n, 4)
        want = np.einsum("kiq,kjq->ij", da.astype(np.float64), db.astype(np.float64))
        np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-4)
        ref = a.astype(np.float64).reshape(k, m, 4)
        exact = np.einsum("kiq,kjq->ij", ref, b.astype(np.float64).reshape(k, n, 4))
        assert np.abs(out.numpy() - exact).max() < 0.2 * np.abs(exact).max()      # MXFP8 stays close
        assert ev.engine == "tensor" and ev.cycles == 96


def test_fp4_x4_unpacks_nibbles_low_first():
    with run_context("trn3"):
        k = 32
        vals = np.array([0.5, -1.0, 6.0, 1.5], np.float32)                 # fp4 e2m1 codes 1, 10, 7, 3
        codes = vals.astype(ml_dtypes.float4_e2m1fn).view(np.uint8).astype(np.uint16)
        word = codes[0] | (codes[1] << 4) | (codes[2] << 8) | (codes[3] << 12)
        st = nl.ndarray((k, 2), nl.float4_e2m1fn_x4)
        st.tv.array()[...] = word
        st.mark_written()
        mv = nl.ndarray((k, 1), nl.float4_e2m1fn_x4)
        mv.tv.array()[...] = codes[2] << 0 | codes[2] << 4 | codes[2] << 8 | codes[2] << 12      # all 6.0
        mv.mark_written()
        s1 = nl.ndarray((k, 2), nl.uint8)
        nisa.memset(dst=s1, value=127)                                     # 2^0
        out = nl.ndarray((2, 1), nl.float32, buffer=nl.psum)
        nisa.nc_matmul_mx(dst=out, stationary=st, moving=mv, stationary_scale=s1, moving_scale=s1)
        assert out.numpy()[0, 0] == k * vals.sum() * 6.0


def test_mx_rules():
    with run_context("trn2"):
        with pytest.raises(ConstraintError, match="NeuronCore-v4"):
            nisa.quantize_mx(dst=nl.ndarray((32, 1), nl.float8_e4m3fn_x4), src=nl.ndarray((32, 4), nl.bfloat16),
                             dst_scale=nl.ndarray((32, 1), nl.uint8))
    with run_context("trn3"):
        src = sbuf(np.ones((32, 8), ml_dtypes.bfloat16))
        q, s = nl.ndarray((32, 2), nl.float8_e4m3fn_x4), nl.ndarray((32, 2), nl.uint8)
        cases = [
            (lambda: nisa.quantize_mx(dst=q, src=sbuf(np.ones((32, 8), np.float32)), dst_scale=s), "float16 or bfloat16"),
            (lambda: nisa.quantize_mx(dst=nl.ndarray((32, 2), nl.float4_e2m1fn_x4), src=src, dst_scale=s), "float8_e5m2_x4"),
            (lambda: nisa.quantize_mx(dst=q, src=sbuf(np.ones((16, 8), ml_dtypes.bfloat16)), dst_scale=s), "multiple of 32"),
            (lambda: nisa.quantize_mx(dst=nl.ndarray((32, 4), nl.float8_e4m3fn_x4), src=src, dst_scale=s), "a quarter"),
            (lambda: nisa.quantize_mx(dst=q, src=src, dst_scale=nl.ndarray((32, 2), nl.int8)), "e8m0fnu or uint8"),
            (lambda: nisa.quantize_mx(dst=q, src=src, dst_scale=nl.ndarray((2, 2), nl.uint8)), ">= 4 partitions"),
        ]
        nisa.quantize_mx(dst=q, src=src, dst_scale=s)
        out = nl.ndarray((2, 2), nl.float32, buffer=nl.psum)
        cases += [
            (lambda: nisa.nc_matmul_mx(dst=out, stationary=q, moving=sbuf(np.ones((32, 2), ml_dtypes.bfloat16)),
                                       stationary_scale=s, moving_scale=s), "float8_e5m2_x4"),
            (lambda: nisa.nc_matmul_mx(dst=nl.ndarray((2, 2), nl.float16, buffer=nl.psum), stationary=q, moving=q,
                                       stationary_scale=s, moving_scale=s), "float32 or bfloat16"),
            (lambda: nisa.nc_matmul_mx(dst=out, stationary=q[:, 0:1], moving=q, stationary_scale=s,
                                       moving_scale=s), "even free size"),
            (lambda: nisa.nc_matmul_mx(dst=out, stationary=q, moving=q, stationary_scale=s, moving_scale=s,
                                       tile_position=(0, 0), tile_size=(32, 64)), "row tiling only"),
        ]
        for make, words in cases:
            with pytest.raises(ConstraintError, match=words):
                make()


def test_a_never_written_scale_tile_over_freed_bytes_reads_as_never_written():
    """A scale tile allocated over an earlier tile's written bytes, never written itself: its scales are
    a never-written read (the earlier tile's marks do not count), as for any other operand."""
    import gc
    from npusim.core.errors import UninitializedReadError
    from npusim.core.options import configure
    with run_context("trn3") as run, configure(uninitialized="error"):
        k = 32
        old = nl.ndarray((k, run.chip.sbuf_usable // 4), nl.float32)     # every usable byte: next fit wraps
        half = old.shape[1] // 2
        nisa.memset(dst=old[:, 0:half], value=1.0)                # partial writes: init bytes marked
        nisa.memset(dst=old[:, half:old.shape[1]], value=1.0)
        del old
        gc.collect()
        s1 = nl.ndarray((k, 2), nl.uint8)
        assert s1.tv.offset == 0                                      # over the freed, written bytes
        st = nl.ndarray((k, 2), nl.float4_e2m1fn_x4)
        nisa.memset(dst=st, value=0)
        out = nl.ndarray((2, 2), nl.float32, buffer=nl.psum)
        with pytest.raises(UninitializedReadError):
            nisa.nc_matmul_mx(dst=out, stationary=st, moving=st, stationary_scale=s1, moving_scale=s1)
