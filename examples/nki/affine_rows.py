"""Per-row affine transform y = x * scale[row] + bias[row] with (P, 1) operands:
one nisa.tensor_scalar(op0=multiply, operand0=scale, op1=add, operand1=bias) per tile."""
import numpy as np

import npusim.nki as nki
import npusim.nki.isa as nisa
import npusim.nki.language as nl


@nki.jit
def affine_rows(x, scale, bias):
    out = nl.ndarray(x.shape, x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(x.shape[0] // 128):
        rows = nl.ds(i * 128, 128)
        t = nl.load(x[rows, :])
        s = nl.load(scale[rows, :])                     # (128, 1) float32 per-partition scalars
        b = nl.load(bias[rows, :])
        y = nl.ndarray(t.shape, x.dtype, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=y, data=t, op0=nl.multiply, operand0=s, op1=nl.add, operand1=b)
        nl.store(out[rows, :], y)
    return out


def main(target="trn2"):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((256, 1024)).astype(np.float32)
    scale = rng.standard_normal((256, 1)).astype(np.float32)
    bias = rng.standard_normal((256, 1)).astype(np.float32)
    y = nki.simulate(affine_rows, target=target)(x, scale, bias)
    want = (x * scale).astype(np.float32) + bias            # fp32 multiply, then fp32 add
    ok = np.array_equal(y, want)
    print(f"affine_rows: {'matches' if ok else 'DIFFERS FROM'} numpy (bit-exact fp32)")
    return ok


if __name__ == "__main__":
    if not main():
        raise SystemExit(1)
