"""Row softmax of an (N, D) matrix, per 128-row tile: VectorE max (negated), one ScalarE
activation(exp, bias=-max) that also sums each row in its reduce registers, VectorE reciprocal,
tensor_scalar(multiply). Also checks nl.softmax (the language composite) on the same data.
Check: allclose(atol=1e-4, rtol=1e-2) against float64 numpy (the samples' tolerance)."""
import numpy as np

import npusim.nki as nki
import npusim.nki.isa as nisa
import npusim.nki.language as nl

ATOL, RTOL = 1e-4, 1e-2


@nki.jit
def softmax(x):
    n, d = x.shape
    out = nl.ndarray((n, d), x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(n // 128):
        t = nl.load(x[i * 128:(i + 1) * 128, :])
        neg_max = nl.ndarray((128, 1), nl.float32, buffer=nl.sbuf)
        nisa.tensor_reduce(dst=neg_max, op=nl.maximum, data=t, axis=1, negate=True, keepdims=True)
        e = nl.ndarray((128, d), nl.float32, buffer=nl.sbuf)
        total = nl.ndarray((128, 1), nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=e, op=nl.exp, data=t, bias=neg_max, reduce_op=nl.add, reduce_res=total,
                        reduce_cmd=nisa.reduce_cmd.reset_reduce)
        inv = nl.ndarray((128, 1), nl.float32, buffer=nl.sbuf)
        nisa.reciprocal(dst=inv, data=total)
        o = nl.ndarray((128, d), x.dtype, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=o, data=e, op0=nl.multiply, operand0=inv)
        nl.store(out[i * 128:(i + 1) * 128, :], o)
    return out


@nki.jit
def softmax_nl(x):
    out = nl.ndarray(x.shape, x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(x.shape[0] // 128):
        nl.store(out[i * 128:(i + 1) * 128, :], nl.softmax(nl.load(x[i * 128:(i + 1) * 128, :]), axis=1))
    return out


def main(target="trn2", n=128, d=512):
    x = (np.random.default_rng(4).standard_normal((n, d)) * 4).astype(np.float32)
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(1, keepdims=True))
    want = e / e.sum(1, keepdims=True)
    ok = True
    for k in (softmax, softmax_nl):
        y = nki.simulate(k, target=target)(x)
        good = np.allclose(y, want, atol=ATOL, rtol=RTOL)
        print(f"{k.__name__} {n}x{d} on {target}: max abs err {np.max(np.abs(y - want)):.3g} "
              f"({'within' if good else 'OUTSIDE'} atol={ATOL}, rtol={RTOL})")
        ok = ok and good
    return ok


if __name__ == "__main__":
    raise SystemExit(0 if main() else 1)
