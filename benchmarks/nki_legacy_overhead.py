"""What the legacy ``neuronxcc.nki`` layer costs per instruction, measured against twins.

Each published legacy kernel of bench_nki_public.py's per-instruction rows (``mamba_v1``, rmsnorm, adaptive
average pooling) is compared with its twin: the same instructions written against the current API by
hand (checked here: identical outputs and trace events but for the source lines). ``twin_legacy_tiles`` is
the Mamba twin again with every tile turned into a ``LegacyTensor``, so the current ops see the legacy tile
type; against it, the difference is the legacy wrappers' own work. A twin has no index arrays or masks
to compute: what the kernel text does with them (numpy arithmetic on ``nl.arange`` indices) counts as the
legacy API's cost here.

    PYTHONPATH=src python benchmarks/nki_legacy_overhead.py [mamba|rmsnorm|pool] [rounds]

Prints the best-of-N process time per instruction of each and the median of paired differences
(alternating order, GC off during a run): on a shared machine a single difference of ~1 us is noise.

Load-independent (CPU instructions per instruction under callgrind; K = 0 and K = 2 launches after a
warm-up, (Ir(K=2) - Ir(K=0)) / 2 / N, for the published kernel and for its current-API twin):

    OPENBLAS_NUM_THREADS=1 PYTHONHASHSEED=0 PYTHONPATH=src valgrind --tool=callgrind \
        python benchmarks/nki_legacy_overhead.py ir [mamba|rmsnorm|pool] [published|twin] K
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


@nki.jit
def rmsnorm_twin(a, g):
    """bench_nki_public's rmsnorm (rows a multiple of 128: every mask selects everything)."""
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    F = a.shape[1]
    g_tile = nl.load(g.reshape((1, F))[0:1, 0:F])
    for i in nl.affine_range(a.shape[0] // 128):
        a_tile = nl.load(a[i * 128:(i + 1) * 128, 0:F])
        square_sum = nl.sum(nl.square(a_tile), axis=1)
        mean = nl.multiply(square_sum, float(np.float32(1) / np.float32(F)))      # the legacy ``/ F``
        scaled = nl.multiply(a_tile, nl.rsqrt(mean))
        g_bcast = nl.broadcast_to(g_tile, (128, F))
        nisa.tensor_copy(dst=scaled[...], src=nl.multiply(scaled, g_bcast))     # ``out_tile[...] = ...``
        nl.store(out[i * 128:(i + 1) * 128, 0:F], scaled)
    return out


@nki.jit
def adaptive_pool_twin(x, output_size):
    """vision.py's adaptive_avg_pool2d_kernel for N * C a multiple of 128 and windows under 128 rows and
    columns (every mask selects everything; one window tile per output position)."""
    N, C, H, W = x.shape
    OH = OW = output_size
    out = nl.ndarray((N, C, OH, OW), dtype=x.dtype, buffer=nl.shared_hbm)
    h0s, h1s = (np.arange(OH) * H) // OH, (np.arange(1, OH + 1) * H + OH - 1) // OH
    w0s, w1s = (np.arange(OW) * W) // OW, (np.arange(1, OW + 1) * W + OW - 1) // OW
    P = nl.tile_size.pmax
    n = N * C // P
    x_flat, out_flat = x.reshape((N * C, H, W)), out.reshape((N * C, OH, OW))
    in_tiles = nl.zeros((P, n, int((h1s - h0s).max()), int((w1s - w0s).max())), dtype=x.dtype, buffer=nl.sbuf)
    out_tiles = nl.zeros((P, n, OH, OW), dtype=x.dtype, buffer=nl.sbuf)
    for t in nl.affine_range(n):
        c0 = t * P
        for oh in nl.static_range(OH):
            for ow in nl.static_range(OW):
                h0, h1, w0, w1 = int(h0s[oh]), int(h1s[oh]), int(w0s[ow]), int(w1s[ow])
                acc = nl.zeros((P, 1), dtype=nl.float32, buffer=nl.sbuf)
                for _ in nl.sequential_range(1):
                    for _ in nl.sequential_range(1):
                        window = in_tiles[:, t, 0:h1 - h0, 0:w1 - w0]
                        nisa.dma_copy(dst=window, src=x_flat[c0:c0 + P, h0:h1, w0:w1])
                        nisa.tensor_copy(dst=acc[:, :], src=nl.add(acc[:, :], nl.sum(window, axis=(1, 2))))
                total = (h1 - h0) * (w1 - w0)
                nisa.tensor_copy(dst=out_tiles[:, t, oh, ow],
                                 src=nl.multiply(acc, float(np.float32(1) / np.float32(total))))
        nl.store(out_flat[c0:c0 + P, :, :], out_tiles[:, t])
    return out


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


def _kernels(which):
    """(published kernel, its twins (label, callable), name) for one of mamba, rmsnorm, pool."""
    if which == "mamba":
        published, _, name = bench._mamba("mamba_v1", channels=1024, seq=16, state=16)
        args = bench._mamba_inputs(1024, 16, 16)
        return published, [("current-API twin", lambda: twin(*args)),
                           ("twin with legacy tiles", lambda: twin_legacy_tiles(*args))], name
    if which == "rmsnorm":
        published, _, name = bench._rmsnorm(16384, 16)
        a = bench._rng(6).random((16384, 16)).astype(np.float32)      # bench._rmsnorm's inputs
        g = bench._rng(7).random(16).astype(np.float32)
        return published, [("current-API twin", lambda: rmsnorm_twin(a, g))], name
    published, _, name = bench._adaptive_pool(4)
    x = bench._rng(16).standard_normal((4, 128, 28, 28)).astype(np.float32)   # bench._adaptive_pool's input
    return published, [("current-API twin", lambda: adaptive_pool_twin(x, 7))], name


def main(which="mamba", rounds=20):
    published, twins, name = _kernels(which)
    y0, e0 = _events(published)
    for label, k in twins:
        y, e = _events(k)
        same = [x[:8] + x[9:] for x in e] == [x[:8] + x[9:] for x in e0]     # (all but the source line)
        assert np.array_equal(y, y0) and same, f"{label} is not the same run"
    n = len(e0)
    us = 1e6 / n
    print(f"{name}: {n} instructions (the twins' outputs and events are identical)")
    for label, k in twins:
        a, b, d = _paired(published, k, rounds)
        print(f"  published {a * us:.1f} us/instr, {label} {b * us:.1f} us/instr: legacy layer "
              f"{(a - b) * us:.2f} us/instr (best of {rounds}), {d * us:.2f} (median of paired differences)")


def ir_launches(which, kind, k):
    """One warm-up launch of the published kernel or its twin, then ``k`` more (for callgrind)."""
    published, twins, _ = _kernels(which)
    fn = published if kind == "published" else twins[0][1]
    fn()
    n = len(nki.last_run().trace.events)
    for _ in range(k):
        fn()
    print("N", n)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "ir":
        ir_launches(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        main(sys.argv[1] if len(sys.argv) > 1 else "mamba", *(int(a) for a in sys.argv[2:3]))
