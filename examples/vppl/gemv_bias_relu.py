"""Fixed-point GEMV with bias and ReLU through FPBLmAvX_uB_L, in VPPL text and from Python, checked
against float64 numpy within the documented bound (1/2 LSB of F16Q10: the one rounding is the final
shift; products and sums are exact).

    PYTHONPATH=src python examples/vppl/gemv_bias_relu.py
    PYTHONPATH=src python examples/vppl/gemv_bias_relu.py --write-inputs DIR   # files for the CLI:

    npusim vppl examples/vppl/gemv_bias_relu.vppl --externs DIR/gemv_inputs.npz --read pY=int16:100
"""
from __future__ import annotations

import os

import numpy as np

from npusim import vppl
from npusim.vppl.fixed_point import from_fixed, to_fixed
from npusim.vppl.ops_blas import pad_fpbl

Q = 10
HERE = os.path.dirname(os.path.abspath(__file__))


def problem(u=100, v=700, seed=0):
    rng = np.random.default_rng(seed)
    A = to_fixed(rng.normal(0, 1 / np.sqrt(v), (u, v)), Q)
    x = to_fixed(rng.uniform(-1, 1, v), Q)
    b = to_fixed(rng.uniform(-0.3, 0.3, u), Q)
    return A, x, b


def host_arrays(A, x, b) -> dict:
    """The External bindings as arrays (pointers: the data they point at; u, v: one-element arrays);
    saved as an .npz this is what ``npusim vppl --externs`` binds."""
    Ap, bp, xp = pad_fpbl(A, b, x)                       # the vendor's padding tool, before loading
    return {"pX": xp, "pY": np.zeros(Ap.shape[0], np.int16), "pB": bp, "pA": Ap,
            "u": np.array(A.shape[0]), "v": np.array(A.shape[1])}


def place(m, A, x, b):
    arrays = host_arrays(A, x, b)
    with vppl.using(m):
        ext = {k: vppl.dm_put(a, k) for k, a in arrays.items() if k.startswith("p")}
    return {**ext, "u": A.shape[0], "v": A.shape[1]}


def write_inputs(d: str) -> str:
    os.makedirs(d, exist_ok=True)
    A, x, b = problem()
    np.savez(os.path.join(d, "gemv_inputs.npz"), **host_arrays(A, x, b))
    return (f"npusim vppl {os.path.join(HERE, 'gemv_bias_relu.vppl')} "
            f"--externs {os.path.join(d, 'gemv_inputs.npz')} --read pY=int16:{A.shape[0]}")


def reference(A, x, b):
    return np.maximum(from_fixed(A, Q) @ from_fixed(x, Q) + from_fixed(b, Q), 0.0)


def run_text(A, x, b):
    m = vppl.Machine()
    ext = place(m, A, x, b)
    with open(os.path.join(HERE, "gemv_bias_relu.vppl"), encoding="utf-8") as f:
        vppl.run_with(f.read(), machine=m, externals=ext, filename="gemv_bias_relu.vppl")
    with vppl.using(m):
        return vppl.dm_read(ext["pY"], np.int16, A.shape[0]), m


def run_python(A, x, b):
    m = vppl.Machine()
    ext = place(m, A, x, b)
    with vppl.using(m):
        t = vppl.alloc_vector("vT", "__I16V", 8)
        xs = [vppl.alloc_vector(f"vX{k}", "__I16V", 256) for k in range(4)]
        t.FPBLmAvX_uB_L(Q, ext["u"], ext["v"], *xs, vppl.alloc_vector("vB", "__I16V", 8),
                        ext["pX"], ext["pY"], ext["pB"], ext["pA"], 1)
        return vppl.dm_read(ext["pY"], np.int16, A.shape[0]), m


def main() -> None:
    A, x, b = problem()
    ref = reference(A, x, b)
    y_text, m = run_text(A, x, b)
    y_py, _ = run_python(A, x, b)
    assert np.array_equal(y_text, y_py)
    err = np.abs(from_fixed(y_text, Q) - ref).max()
    assert err <= 0.5 * 2.0 ** -Q, err
    print(f"Y = relu(A.X + B), u={A.shape[0]}, v={A.shape[1]}, F16Q{Q}: max error {err / 2.0 ** -Q:.3f} LSB "
          f"(bound 0.5); {int((y_text == 0).sum())} outputs clipped by ReLU; {m.cycles:,.0f} cycles (estimate)")
    print("OK")


if __name__ == "__main__":
    import sys
    if sys.argv[1:2] == ["--write-inputs"]:
        print(write_inputs(sys.argv[2]))
    else:
        main()
