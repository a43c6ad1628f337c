"""RMSNorm y = x / sqrt(mean(x^2) + eps) * g (the nki-samples rmsnorm tutorial, current API): per
128-row tile, ScalarE activation(square) summing each row in its reduce registers, tensor_scalar(multiply
1/D, add eps), ScalarE rsqrt, tensor_scalar(multiply), and g broadcast across partitions once.
Also checks nl.rms_norm. Published check: allclose(atol=1e-4, rtol=1e-2)."""
import numpy as np

import npusim.nki as nki
import npusim.nki.isa as nisa
import npusim.nki.language as nl

ATOL, RTOL = 1e-4, 1e-2
EPS = 1e-6


@nki.jit
def rmsnorm(a, g):
    n, d = a.shape
    out = nl.ndarray((n, d), a.dtype, buffer=nl.shared_hbm)
    g_bc = nl.broadcast_to(nl.load(g), (128, d))
    for i in nl.affine_range(n // 128):
        t = nl.load(a[i * 128:(i + 1) * 128, :])
        sq = nl.ndarray((128, d), nl.float32, buffer=nl.sbuf)
        ss = nl.ndarray((128, 1), nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=sq, op=nl.square, data=t, reduce_op=nl.add, reduce_res=ss,
                        reduce_cmd=nisa.reduce_cmd.reset_reduce)
        ms = nl.ndarray((128, 1), nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=ms, data=ss, op0=nl.multiply, operand0=1.0 / d, op1=nl.add, operand1=EPS)
        rs = nl.ndarray((128, 1), nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=rs, op=nl.rsqrt, data=ms)
        y = nl.ndarray((128, d), nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=y, data=t, op0=nl.multiply, operand0=rs)
        o = nl.ndarray((128, d), a.dtype, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=o, data1=y, data2=g_bc, op=nl.multiply)
        nl.store(out[i * 128:(i + 1) * 128, :], o)
    return out


@nki.jit
def rmsnorm_nl(a, g):
    n, d = a.shape
    out = nl.ndarray((n, d), a.dtype, buffer=nl.shared_hbm)
    g_t = nl.load(g)
    for i in nl.affine_range(n // 128):
        t = nl.load(a[i * 128:(i + 1) * 128, :])
        nl.store(out[i * 128:(i + 1) * 128, :], nl.rms_norm(t, g_t, axis=1, n=d, epsilon=EPS))
    return out


def main(target="trn2", n=128, d=768):
    rng = np.random.default_rng(5)
    a = rng.standard_normal((n, d)).astype(np.float32)
    g = rng.standard_normal((1, d)).astype(np.float32)
    a64 = a.astype(np.float64)
    want = a64 / np.sqrt(np.mean(a64 * a64, axis=1, keepdims=True) + EPS) * g
    ok = True
    for k in (rmsnorm, rmsnorm_nl):
        y = nki.simulate(k, target=target)(a, g)
        good = np.allclose(y, want, atol=ATOL, rtol=RTOL)
        print(f"{k.__name__} {n}x{d} on {target}: max abs err {np.max(np.abs(y - want)):.3g} "
              f"({'within' if good else 'OUTSIDE'} atol={ATOL}, rtol={RTOL})")
        ok = ok and good
    return ok


if __name__ == "__main__":
    raise SystemExit(0 if main() else 1)
