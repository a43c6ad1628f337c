"""CompareScalar and the advanced APIs (Sigmoid, Tanh, Gelu, FasterGelu, Exp<T, level, reuse>, SoftMax,
LayerNorm) against numpy references written here, with their tmp-buffer rules."""
import numpy as np
import pytest

from npusim import ascendc as asc
from npusim.core.errors import ConstraintError, UnsupportedError


def _t(ctx, dtype, n, offset):
    return asc.LocalTensor(ctx, offset, dtype, n, asc.TPosition.VECCALC)


def _setup(ctx):
    """Reserve the whole UB for explicit tensors (so the framework tmp form has nothing left)."""
    ctx.ub_used = 0


def test_compare_scalar_count_and_level0():
    x = np.linspace(-4, 4, 256).astype(np.float16)
    with asc.core_context() as ctx:
        src = _t(ctx, asc.half, 256, 0).load(x)
        dst = _t(ctx, asc.uint8_t, 64, 1024)
        dst.load(np.full(64, 0xAA, np.uint8))
        asc.CompareScalar(dst, src, 0.5, asc.CMPMODE.GT, 200)          # 128 compared, tail bits untouched
        got = np.unpackbits(dst.numpy()[:16], bitorder="little").astype(bool)
        np.testing.assert_array_equal(got, x[:128] > np.float16(0.5))
        assert (dst.numpy()[16:32] == 0xAA).all()
        asc.PipeBarrier(asc.PIPE_V)
        asc.Compares(dst, src, 1.0, asc.CMPMODE.LE, 64, 2, asc.UnaryRepeatParams())   # mask ignored on A2
        got = np.unpackbits(dst.numpy()[:32], bitorder="little").astype(bool)
        np.testing.assert_array_equal(got, x <= 1.0)
        with pytest.raises(ConstraintError, match="CMPMODE"):
            asc.CompareScalar(dst, src, 1.0, "GT", 128)
    with asc.core_context("Ascend910A") as ctx:
        with pytest.raises(UnsupportedError):
            asc.CompareScalar(_t(ctx, asc.uint8_t, 32, 1024), _t(ctx, asc.half, 128, 0), 0, asc.CMPMODE.EQ, 128)


def _f16_step(v):
    return np.asarray(v, np.float32).astype(np.float16).astype(np.float32)


def test_sigmoid_follows_the_vendor_steps_in_t():
    x = np.linspace(-10, 10, 1000).astype(np.float16)
    with asc.core_context() as ctx:
        src = _t(ctx, asc.half, 1024, 0).load(np.r_[x, np.zeros(24, np.float16)])
        dst = _t(ctx, asc.half, 1024, 4096)
        tmp = _t(ctx, asc.uint8_t, 256, 8192)
        ctx.ub_used = 8192 + 256
        asc.Sigmoid(dst, src, tmp, 1000)
        # Muls(-1), Exp (float64 rounded to half), Adds(1), Div(1, .) each rounded to half
        e = _f16_step(np.exp(-x.astype(np.float64)))
        want = _f16_step(1.0 / _f16_step(e + 1))
        np.testing.assert_array_equal(dst.numpy()[:1000].astype(np.float32), want)
        assert np.abs(want - 1 / (1 + np.exp(-x.astype(np.float64)))).max() < 1e-3
        with pytest.raises(ConstraintError, match="at least 256 bytes"):
            asc.Sigmoid(dst, src, _t(ctx, asc.uint8_t, 128, 8192), 1000)
        with pytest.raises(ConstraintError, match="overlap"):
            asc.Sigmoid(src, src, tmp, 1000)


def test_tanh_gelu_fastergelu_exp_float():
    rng = np.random.default_rng(0)
    x = rng.uniform(-6, 6, 512).astype(np.float32)
    xd = x.astype(np.float64)
    with asc.core_context() as ctx:
        src = _t(ctx, asc.float, 512, 0).load(x)
        dst = _t(ctx, asc.float, 512, 4096)
        tmp = _t(ctx, asc.uint8_t, 4096, 8192)
        asc.Tanh(dst, src, tmp)
        np.testing.assert_allclose(dst.numpy(), np.tanh(xd), atol=2e-6)
        asc.Gelu(dst, src, tmp, 512)
        gelu_tanh = xd / (1 + np.exp(-1.5957691216057308 * (xd + 0.044715 * xd ** 3)))
        np.testing.assert_allclose(dst.numpy(), gelu_tanh, rtol=1e-5, atol=1e-6)
        asc.FasterGelu[asc.float, False, True](dst, src, tmp, 512)
        np.testing.assert_allclose(dst.numpy(), xd / (1 + np.exp(-1.702 * xd)), rtol=1e-5, atol=1e-6)
        asc.Exp[asc.float, 12, False](dst, src, tmp, 512)
        np.testing.assert_allclose(dst.numpy(), np.exp(xd), rtol=2e-6)
        asc.Exp(dst, src, tmp, 512, taylorExpandLevel=2)        # a short series is visibly worse
        frac = xd - np.floor(xd)
        np.testing.assert_allclose(dst.numpy(), np.exp(np.floor(xd)) * (1 + frac + frac ** 2 / 2), rtol=1e-5)
        with pytest.raises(ConstraintError, match="T"):
            asc.Tanh[asc.half](dst, src, tmp)
        with pytest.raises(ConstraintError, match="768 bytes"):
            asc.Exp[asc.float, 10, False](dst, src, _t(ctx, asc.uint8_t, 512, 8192), 512)


def test_framework_tmp_form_uses_the_free_ub():
    x = np.linspace(-1, 1, 128).astype(np.float32)
    with asc.core_context() as ctx:
        src = _t(ctx, asc.float, 128, 0).load(x)
        dst = _t(ctx, asc.float, 128, 512)
        ctx.ub_used = ctx.soc.ub_bytes - 128            # TPipe took all but 128 bytes
        with pytest.raises(ConstraintError, match="framework takes the UB"):
            asc.Sigmoid(dst, src)
        ctx.ub_used = 1024
        asc.Sigmoid(dst, src)
        np.testing.assert_allclose(dst.numpy(), 1 / (1 + np.exp(-x.astype(np.float64))), rtol=1e-6)


def test_half_gelu_high_precision_computes_in_float():
    x = np.linspace(-3, 3, 256).astype(np.float16)
    xd = x.astype(np.float64)
    ref = xd / (1 + np.exp(-1.5957691216057308 * (xd + 0.044715 * xd ** 3)))
    with asc.core_context() as ctx:
        src = _t(ctx, asc.half, 256, 0).load(x)
        dst = _t(ctx, asc.half, 256, 1024)
        tmp = _t(ctx, asc.uint8_t, 2048, 2048)
        asc.Gelu[asc.half, True](dst, src, tmp, 256)
        hp = np.abs(dst.numpy().astype(np.float64) - ref).max()
        asc.Gelu(dst, src, tmp, 256)
        lp = np.abs(dst.numpy().astype(np.float64) - ref).max()
        assert hp <= 2e-3 and hp <= lp


def test_softmax_rows_and_broadcast_sum_max():
    rng = np.random.default_rng(2)
    m, k, ok = 4, 64, 50
    x = rng.uniform(-3, 3, (m, k)).astype(np.float32)
    with asc.core_context() as ctx:
        src = _t(ctx, asc.float, m * k, 0).load(x)
        dst = _t(ctx, asc.float, m * k, 2048).load(np.full(m * k, -7, np.float32))
        s_t = _t(ctx, asc.float, m * 8, 4096)
        m_t = _t(ctx, asc.float, m * 8, 4608)
        tmp = _t(ctx, asc.uint8_t, asc.GetSoftMaxMinTmpSize((m, k), 4), 8192)
        tiling = asc.SoftMaxTilingFunc((m, k), 4)
        asc.SoftMax(dst, s_t, m_t, src, tmp, tiling, asc.SoftMaxShapeInfo(m, k, m, ok))
        xs = x[:, :ok].astype(np.float64)
        e = np.exp(xs - xs.max(1, keepdims=True))
        got = dst.numpy().reshape(m, k)
        np.testing.assert_allclose(got[:, :ok], e / e.sum(1, keepdims=True), rtol=1e-6, atol=1e-7)
        assert (got[:, ok:] == -7).all()
        np.testing.assert_array_equal(m_t.numpy().reshape(m, 8), np.repeat(x[:, :ok].max(1)[:, None], 8, 1))
        np.testing.assert_allclose(s_t.numpy().reshape(m, 8)[:, 0], e.sum(1), rtol=1e-6)
        with pytest.raises(ConstraintError, match="32 bytes"):
            asc.SoftMax(dst, src, tmp, tiling, asc.SoftMaxShapeInfo(m, 60, m, 60))
        with pytest.raises(ConstraintError, match="sharedTmpBuffer"):
            asc.SoftMax(dst, src, _t(ctx, asc.uint8_t, 64, 8192), tiling, asc.SoftMaxShapeInfo(m, k, m, k))


def test_layernorm_against_float64():
    rng = np.random.default_rng(4)
    b, s, h = 2, 3, 32
    x = rng.standard_normal((b * s, h)).astype(np.float32) * 3 + 1
    g = rng.uniform(0.5, 1.5, h).astype(np.float32)
    be = rng.uniform(-1, 1, h).astype(np.float32)
    with asc.core_context() as ctx:
        X = _t(ctx, asc.float, b * s * h, 0).load(x)
        G = _t(ctx, asc.float, h, 1024).load(g)
        B = _t(ctx, asc.float, h, 1152).load(be)
        Y = _t(ctx, asc.float, b * s * h, 2048)
        M = _t(ctx, asc.float, 8, 3072)
        V = _t(ctx, asc.float, 8, 3104)
        tmp = _t(ctx, asc.uint8_t, asc.GetLayerNormMinTmpSize((b, s, h), 4), 4096)
        asc.LayerNorm(Y, M, V, X, G, B, tmp, 1e-5, asc.LayerNormTiling(b, s, h, h))
        xd = x.astype(np.float64)
        mu, var = xd.mean(1), xd.var(1)
        want = (xd - mu[:, None]) / np.sqrt(var[:, None] + 1e-5) * g + be
        np.testing.assert_allclose(Y.numpy().reshape(b * s, h), want, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(M.numpy()[:6], mu, rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(V.numpy()[:6], var, rtol=1e-5)
        with pytest.raises(ConstraintError, match="sharedTmpBuffer"):
            asc.LayerNorm(Y, M, V, X, G, B, _t(ctx, asc.uint8_t, 32, 4096), 1e-5, asc.LayerNormTiling(b, s, h, h))


def test_select_with_bytes_mask_both_orders_and_rules():
    rng = np.random.default_rng(5)
    m, k, mk = 2, 16, 32
    x = rng.standard_normal(m * k).astype(np.float16)
    msk = (rng.integers(0, 3, m * mk) == 0).astype(np.uint8)
    with asc.core_context() as ctx:
        src = _t(ctx, asc.half, m * k, 0).load(x)
        mask = _t(ctx, asc.uint8_t, m * mk, 256).load(msk)
        dst = _t(ctx, asc.half, m * k, 512)
        tmp = _t(ctx, asc.uint8_t, 1056, 1024)      # max(1024, 32*2 + 512) + align32(32 mask bytes)
        info = asc.SelectWithBytesMaskShapeInfo(m, k, mk)
        sel = msk.reshape(m, mk)[:, :k].astype(bool)
        asc.Select(dst, src, 2.5, mask, tmp, info, isReuseMask=False)       # 0 -> tensor, else scalar
        np.testing.assert_array_equal(dst.numpy().reshape(m, k), np.where(sel, np.float16(2.5), x.reshape(m, k)))
        asc.SelectWithBytesMask(dst, -1.0, src, mask, tmp, info, isReuseMask=False)
        np.testing.assert_array_equal(dst.numpy().reshape(m, k), np.where(sel, x.reshape(m, k), np.float16(-1)))
        with pytest.raises(ConstraintError, match="at least 1056 bytes"):
            asc.Select(dst, src, 2.5, mask, _t(ctx, asc.uint8_t, 1040, 1024), info, isReuseMask=False)
        with pytest.raises(ConstraintError, match="multiple of 16"):
            asc.Select(dst, src, 2.5, mask, tmp, asc.SelectWithBytesMaskShapeInfo(m, k, 8))


@pytest.mark.parametrize("soc, ok", [("Ascend910A", {"Sigmoid"}), ("Ascend310P3", {"Sigmoid", "Tanh", "Gelu"}),
                                     ("Ascend310B1", set()), ("Ascend910B1", {"Sigmoid", "Tanh", "Gelu", "Exp"})])
def test_advanced_apis_per_product(soc, ok):
    with asc.core_context(soc) as ctx:
        src = _t(ctx, asc.half, 128, 0).load(np.zeros(128, np.float16))
        dst = _t(ctx, asc.half, 128, 256)
        tmp = _t(ctx, asc.uint8_t, 2048, 1024)
        calls = {"Sigmoid": lambda: asc.Sigmoid(dst, src, tmp, 128), "Tanh": lambda: asc.Tanh(dst, src, tmp, 128),
                 "Gelu": lambda: asc.Gelu(dst, src, tmp, 128), "Exp": lambda: asc.Exp[asc.half, 5](dst, src, tmp, 128)}
        for name, call in calls.items():
            if name in ok:
                call()
            else:
                with pytest.raises(UnsupportedError, match=name):
                    call()
