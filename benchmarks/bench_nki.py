"""NKI: tensor_scalar throughput against numpy, per-instruction overhead on tiny tiles, and a whole
tiled tensor add (4096 x 4096 fp32, 1024 instructions) against numpy's a + b."""
import os
import runpy

import numpy as np

from harness import Case
from npusim.nki import run_context
import npusim.nki as nki
import npusim.nki.isa as nisa
import npusim.nki.language as nl

N_TINY = 2000
_EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "nki")


def _tensor_scalar_case():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((128, 8192)).astype(np.float32)
    f = rng.standard_normal((128, 1)).astype(np.float32)
    ctx = run_context("trn2")
    ctx.__enter__()                         # one kernel context kept open for the timed calls
    t, ft, out = nl.ndarray(x.shape, nl.float32), nl.ndarray((128, 1), nl.float32), nl.ndarray(x.shape, nl.float32)
    t.write(x)
    ft.write(f)
    ctx.__exit__(None, None, None)
    from npusim.nki import runtime

    def sim():
        with runtime.activate(t.run):
            nisa.tensor_scalar(out, t, nl.multiply, ft, op1=nl.add, operand1=2.5)

    return sim, lambda: x * f + np.float32(2.5)


def _tiny_numpy(shape=(128, 8)):
    """The same math as one tiny tensor_scalar (fp32 multiply then add into an existing tile), N_TINY times:
    the row's "overhead per instruction" is the simulator's per-call time minus this."""
    a = np.ones(shape, np.float32)
    b = np.empty(shape, np.float32)

    def run():
        for _ in range(N_TINY):
            np.multiply(a, np.float32(2.0), out=b)
            np.add(b, np.float32(1.0), out=b)
    return run


def _tiny_case(shape=(128, 8)):
    """N_TINY tensor_scalar calls in one open kernel context (tiles made once, outside the timing, as
    the (128, 8192) case does): per call, the instruction's cost, not the kernel launch's."""
    from npusim.nki import runtime
    ctx = run_context("trn2")
    ctx.__enter__()
    a = nl.ndarray(shape, nl.float32)
    a.write(np.ones(shape, np.float32))
    b = nl.ndarray(shape, nl.float32)
    ctx.__exit__(None, None, None)

    def sim():
        with runtime.activate(a.run):
            for _ in range(N_TINY):
                nisa.tensor_scalar(b, a, nl.multiply, 2.0, op1=nl.add, operand1=1.0)
        a.run.timeline.reset()              # each repeat starts from an empty timeline, as a launch does
    return sim


def _tensor_add_case():
    mod = runpy.run_path(os.path.join(_EXAMPLES, "tensor_add_spmd.py"), run_name="bench")
    rng = np.random.default_rng(1)
    a = rng.standard_normal((4096, 4096)).astype(np.float32)
    b = rng.standard_normal((4096, 4096)).astype(np.float32)
    kernel = nki.simulate(mod["tensor_add"][8], target="trn2")
    return lambda: kernel(a, b), lambda: a + b


def cases():
    ts, ts_np = _tensor_scalar_case()
    add, add_np = _tensor_add_case()
    return [
        Case("nisa.tensor_scalar (128, 8192) fp32, (P,1) multiply + add", ts, numpy=ts_np,
             target="within 2x of numpy"),
        Case("nisa.tensor_scalar (128, 8) fp32, per instruction", _tiny_case(), numpy=_tiny_numpy(), per=N_TINY,
             target="< 20 us overhead per instruction", repeats=5),
        Case("nisa.tensor_scalar (8, 8) fp32, per instruction", _tiny_case((8, 8)), numpy=_tiny_numpy((8, 8)), per=N_TINY,
             target="< 20 us overhead per instruction", repeats=5),
        Case("tiled tensor add 4096x4096 fp32, grid [8], 1024 instructions", add, numpy=add_np, repeats=3),
    ]
