"""fp32 -> int8 quantisation that saturates: q = int8(x * (1 / scale)), rounding to nearest even and
clipping to [-128, 127] in the engine's output cast (no clamp instruction needed)."""
import numpy as np

import npusim.nki as nki
import npusim.nki.isa as nisa
import npusim.nki.language as nl


@nki.jit
def quantize(x, inv_scale):
    out = nl.ndarray(x.shape, nl.int8, buffer=nl.shared_hbm)
    t = nl.load(x)
    q = nl.ndarray(x.shape, nl.int8, buffer=nl.sbuf)
    nisa.tensor_scalar(dst=q, data=t, op0=nl.multiply, operand0=inv_scale)
    nl.store(out, q)
    return out


def main(target="trn2"):
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((128, 2048)) * 40).astype(np.float32)
    x[0, :6] = [0.5, 1.5, 2.5, -2.5, 1e6, -1e6]                   # ties and out-of-range values
    scale = 1.0
    q = nki.simulate(quantize, target=target)(x, 1 / scale)
    want = np.clip(np.rint((x * np.float32(1 / scale)).astype(np.float32)), -128, 127).astype(np.int8)
    ok = q.dtype == np.int8 and np.array_equal(q, want)
    print(f"quantize_int8: {'matches' if ok else 'DIFFERS FROM'} numpy; "
          f"{int((np.abs(q) == 127).sum() + (q == -128).sum())} saturated values; first row {q[0, :6].tolist()}")
    return ok


if __name__ == "__main__":
    if not main():
        raise SystemExit(1)
