"""What the legacy ``neuronxcc.nki`` layer costs per instruction, measured against a twin.

The published ``mamba_v1`` (legacy API, bench_nki_public.py) is compared with ``twin``: the same
instructions written against the current API by hand (checked here: identical outputs and trace events).
``twin_legacy_tiles`` is the twin again with every tile turned into a ``LegacyTensor``, so the current ops
see the legacy tile type; against it, the difference is the legacy wrappers' own work.

    PYTHONPATH=src python benchmarks/nki_legacy_overhead.py [channels] [seq] [rounds]

Prints the best-of-N process time per instruction of each and the median of paired differences
(alternating order, GC off during a run): on a shared machine a single difference of ~1 us is noise.
"""
import gc
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_nki_public as bench  # noqa: E402
import npusim.nki as nki  # noqa: E402
import npusim.nki.isa as nisa  # noqa: E402
import npusim.nki.language as nl  # noqa: E402
from npusim.nki.legacy.tensor import legacy  # noqa: E402


def _mamba_body(delta, u, A, B, C, tile):
    """mamba_v1's instructions in the current API; ``tile`` wraps every tile made (identity or legacy)."""
    batch_size, channels, seq_len = delta.shape
    output = nl.ndarray((batch_size, channels, seq_len), dtype=delta.dtype, buffer=nl.shared_hbm)
    P, n = nl.tile_size.pmax, channels // nl.tile_size.pmax
    for i_batch in nl.affine_range(batch_size):
        acc = tile(nl.ndarray((P, n, seq_len), dtype=delta.dtype))     # the kernel's par_dim block tile
        nisa.memset(dst=acc, value=0.0)
        for i_state in nl.affine_range(A.shape[1]):
            for t in nl.affine_range(n):
                c0 = t * P
                delta_i = tile(nl.load(delta[i_batch, c0:c0 + P, 0:seq_len]))
                A_i = tile(nl.load(A[c0:c0 + P, i_state:i_state + 1]))
                deltaA = tile(nl.ndarray((P, seq_len), dtype=nl.float32))
                nisa.activation(dst=deltaA, op=nl.exp, data=delta_i, scale=A_i)
                u_i = tile(nl.load(u[i_batch, c0:c0 + P, 0:seq_len]))
                B_i = tile(nl.load(B[i_batch, i_state:i_state + 1, 0:seq_len]))
                deltaU = tile(nl.ndarray((P, seq_len), dtype=nl.float32))
                nisa.tensor_tensor(dst=deltaU, data1=delta_i, data2=u_i, op=nl.multiply)
                B_b = tile(nl.broadcast_to(B_i, (P, seq_len)))
                deltaBu = tile(nl.ndarray((P, seq_len), dtype=nl.float32))
                nisa.tensor_tensor(dst=deltaBu, data1=deltaU, data2=B_b, op=nl.multiply)
                scan = tile(nl.ndarray((P, seq_len), dtype=nl.float32))
                nisa.tensor_tensor_scan(dst=scan, data0=deltaA, data1=deltaBu, initial=0,
                                        op0=np.multiply, op1=np.add)
                C_i = tile(nl.load(C[i_batch, i_state:i_state + 1, 0:seq_len]))
                C_b = tile(nl.broadcast_to(C_i, (P, seq_len)))
                scanC = tile(nl.ndarray((P, seq_len), dtype=nl.float32))
                nisa.tensor_tensor(dst=scanC, data1=scan, data2=C_b, op=nl.multiply)
                a = acc[:, t][0:P, 0:seq_len]
                nisa.tensor_tensor(dst=a, data1=a, data2=scanC, op=nl.add)
        for t in nl.affine_range(n):
            nl.store(output[i_batch, t * P:(t + 1) * P, 0:seq_len], acc[:, t][0:P, 0:seq_len])
    return output


@nki.jit
def twin(delta, u, A, B, C):
    return _mamba_body(delta, u, A, B, C, lambda t: t)


@nki.jit
def twin_legacy_tiles(delta, u, A, B, C):
    return _mamba_body(delta, u, A, B, C, legacy)


def _events(fn):
    y = np.asarray(fn())
    return y, [(e.core, e.engine, e.name, e.start_ns, e.end_ns, e.cycles, e.nbytes, e.elements, e.source,
                str(e.args)) for e in nki.last_run().trace.events]


def _paired(f, g, rounds):
    """(best f, best g, median of f - g) process seconds over ``rounds`` alternating pairs."""
    best_f = best_g = float("inf")
    diffs = []
    for i in range(rounds):
        got = []
        for h in ((f, g) if i % 2 == 0 else (g, f)):
            gc.collect()
            gc.disable()
            t = time.process_time()
            h()
            got.append(time.process_time() - t)
            gc.enable()
        tf, tg = got if i % 2 == 0 else got[::-1]
        best_f, best_g = min(best_f, tf), min(best_g, tg)
        diffs.append(tf - tg)
    return best_f, best_g, sorted(diffs)[len(diffs) // 2]


def main(channels=512, seq=16, rounds=20):
    published, _, name = bench._mamba("mamba_v1", channels=channels, seq=seq, state=16)
    args = bench._mamba_inputs(channels, seq, 16)
    y0, e0 = _events(published)
    for label, k in (("twin", twin), ("twin with legacy tiles", twin_legacy_tiles)):
        y, e = _events(lambda: k(*args))
        same = [x[:8] + x[9:] for x in e] == [x[:8] + x[9:] for x in e0]     # (all but the source line)
        assert np.array_equal(y, y0) and same, f"{label} is not the same run"
    n = len(e0)
    us = 1e6 / n
    print(f"{name}: {n} instructions (the twins' outputs and events are identical)")
    for label, k in (("current-API twin", twin), ("twin with legacy tiles", twin_legacy_tiles)):
        a, b, d = _paired(published, lambda: k(*args), rounds)
        print(f"  published {a * us:.1f} us/instr, {label} {b * us:.1f} us/instr: legacy layer "
              f"{(a - b) * us:.2f} us/instr (best of {rounds}), {d * us:.2f} (median of paired differences)")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:4]))
