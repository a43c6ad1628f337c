"""LayerNorm over the last dim, the nki-samples layernorm v2 recipe in the current API: per 128-row tile,
bn_stats over 512-element chunks, bn_aggr to [mean, var], rstd = (var + eps)^-1/2 (ScalarE rsqrt), then
one tensor_scalar(subtract mean, multiply rstd), and gamma/beta broadcast across partitions.
Check: allclose(atol=1e-4, rtol=1e-2) against float64 numpy (the samples' tolerance)."""
import numpy as np

import npusim.nki as nki
import npusim.nki.isa as nisa
import npusim.nki.language as nl

ATOL, RTOL = 1e-4, 1e-2
EPS = 1e-5


@nki.jit
def layernorm(x, gamma, beta):
    n, d = x.shape
    out = nl.ndarray((n, d), x.dtype, buffer=nl.shared_hbm)
    fmax = nl.tile_size.bn_stats_fmax
    chunks = (d + fmax - 1) // fmax
    g_row, b_row = nl.load(gamma), nl.load(beta)                       # (1, d)
    g = nl.broadcast_to(g_row, (128, d))                                # across partitions (TensorE)
    b = nl.broadcast_to(b_row, (128, d))
    for i in nl.affine_range(n // 128):
        t = nl.load(x[i * 128:(i + 1) * 128, :])
        stats = nl.ndarray((128, 6 * chunks), nl.float32, buffer=nl.sbuf)
        for c in nl.affine_range(chunks):
            w = min(fmax, d - c * fmax)
            nisa.bn_stats(dst=stats[:, c * 6:(c + 1) * 6], data=t[:, c * fmax:c * fmax + w])
        mv = nl.ndarray((128, 2), nl.float32, buffer=nl.sbuf)
        nisa.bn_aggr(dst=mv, data=stats)
        var_eps = nl.ndarray((128, 1), nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=var_eps, data=mv[:, 1:2], op0=nl.add, operand0=EPS)
        rstd = nl.ndarray((128, 1), nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=rstd, op=nl.rsqrt, data=var_eps)
        y = nl.ndarray((128, d), nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=y, data=t, op0=nl.subtract, operand0=mv[:, 0:1], op1=nl.multiply, operand1=rstd)
        nisa.tensor_tensor(dst=y, data1=y, data2=g, op=nl.multiply)
        o = nl.ndarray((128, d), x.dtype, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=o, data1=y, data2=b, op=nl.add)
        nl.store(out[i * 128:(i + 1) * 128, :], o)
    return out


def main(target="trn2", n=128, d=1000):
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((n, d)) * 3 + 1).astype(np.float32)
    gamma = rng.standard_normal((1, d)).astype(np.float32)
    beta = rng.standard_normal((1, d)).astype(np.float32)
    y = nki.simulate(layernorm, target=target)(x, gamma, beta)
    x64 = x.astype(np.float64)
    want = (x64 - x64.mean(1, keepdims=True)) / np.sqrt(x64.var(1, keepdims=True) + EPS) * gamma + beta
    ok = np.allclose(y, want, atol=ATOL, rtol=RTOL)
    print(f"layernorm {n}x{d} on {target}: max abs err {np.max(np.abs(y - want)):.3g} "
          f"({'within' if ok else 'OUTSIDE'} atol={ATOL}, rtol={RTOL})")
    return ok


if __name__ == "__main__":
    raise SystemExit(0 if main() else 1)
