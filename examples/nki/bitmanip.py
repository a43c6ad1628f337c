"""Bit manipulation on int32 tiles (bitvec ALU ops, Vector engine, bit patterns untouched by casts):
the biased exponent field of float32 values, ((bits >> 23) & 0xFF), and a sign flip, bits ^ 0x80000000."""
import numpy as np

import npusim.nki as nki
import npusim.nki.isa as nisa
import npusim.nki.language as nl


@nki.jit
def float_fields(bits):
    out = nl.ndarray((2,) + bits.shape, nl.int32, buffer=nl.shared_hbm)
    t = nl.load(bits)
    exp = nl.ndarray(bits.shape, nl.int32, buffer=nl.sbuf)
    nisa.tensor_scalar(dst=exp, data=t, op0=nl.right_shift, operand0=23, op1=nl.bitwise_and, operand1=0xFF)
    neg = nl.ndarray(bits.shape, nl.int32, buffer=nl.sbuf)
    nisa.tensor_scalar(dst=neg, data=t, op0=nl.bitwise_xor, operand0=-0x80000000)
    nl.store(out[0], exp)
    nl.store(out[1], neg)
    return out


def main(target="trn2"):
    rng = np.random.default_rng(4)
    f = (rng.standard_normal((128, 512)) * np.exp2(rng.integers(-60, 60, (128, 512)))).astype(np.float32)
    bits = f.view(np.int32)
    y = nki.simulate(float_fields, target=target)(bits)
    want_exp = np.frexp(f)[1] + 126                  # biased exponent of normal floats
    ok = np.array_equal(y[0], want_exp) and np.array_equal(y[1].view(np.float32), -f)
    print(f"bitmanip: {'matches' if ok else 'DIFFERS FROM'} numpy; exponents span "
          f"[{int(y[0].min())}, {int(y[0].max())}]")
    return ok


if __name__ == "__main__":
    if not main():
        raise SystemExit(1)
