"""The fused Mamba tutorial's first kernel (mamba_v1), ported by hand to the current dst-first API.

Same instruction sequence per (batch, state, 128-channel tile) as the tutorial's ``mamba_v1``
(aws-neuron-sdk nki/tutorials/fused_mamba.rst; the published kernel is legacy ``neuronxcc.nki``):
load delta, A; exp(delta * A) in one ScalarE activation; load u, B; delta*u and *B (B broadcast across
partitions on TensorE) on VectorE; tensor_tensor_scan; load C, broadcast, multiply; accumulate over
states; store. ``profile()`` gives the simulated latency and VectorE busy share, which docs/nki.md and
BENCHMARKS.md put beside AWS's published profile (172.93 us, VectorE active 98.71% at
batch=1, seq_len=512, channels=256, state_size=16).
"""
import numpy as np

import npusim.nki as nki
import npusim.nki.isa as nisa
import npusim.nki.language as nl

ATOL, RTOL = 1e-4, 1e-2      # the samples' usual fp32 tolerance (the tutorial compares with allclose)


@nki.jit
def mamba_v1(delta, u, A, B, C):
    batch_size, channels, seq_len = delta.shape
    output = nl.ndarray((batch_size, channels, seq_len), dtype=delta.dtype, buffer=nl.shared_hbm)
    _, state_size = A.shape
    P = nl.tile_size.pmax
    n_tiles = channels // P
    for i_batch in nl.affine_range(batch_size):
        accum = []
        for i_tile in range(n_tiles):
            acc = nl.ndarray((P, seq_len), dtype=delta.dtype)
            nisa.memset(dst=acc, value=0.0)
            accum.append(acc)
        for i_state in nl.affine_range(state_size):
            for i_tile in nl.affine_range(n_tiles):
                c0 = i_tile * P
                delta_i = nl.load(delta[i_batch, c0:c0 + P, 0:seq_len])
                A_i = nl.load(A[c0:c0 + P, i_state:i_state + 1])
                deltaA = nl.ndarray((P, seq_len), dtype=nl.float32)
                nisa.activation(dst=deltaA, op=nl.exp, data=delta_i, scale=A_i)
                u_i = nl.load(u[i_batch, c0:c0 + P, 0:seq_len])
                B_i = nl.load(B[i_batch, i_state:i_state + 1, 0:seq_len])
                deltaU = nl.ndarray((P, seq_len), dtype=nl.float32)
                nisa.tensor_tensor(dst=deltaU, data1=delta_i, data2=u_i, op=nl.multiply)
                deltaBu = nl.ndarray((P, seq_len), dtype=nl.float32)
                nisa.tensor_tensor(dst=deltaBu, data1=deltaU, data2=nl.broadcast_to(B_i, (P, seq_len)),
                                   op=nl.multiply)
                scan = nl.ndarray((P, seq_len), dtype=nl.float32)
                nisa.tensor_tensor_scan(dst=scan, data0=deltaA, data1=deltaBu, initial=0.0,
                                        op0=nl.multiply, op1=nl.add)
                C_i = nl.load(C[i_batch, i_state:i_state + 1, 0:seq_len])
                scanC = nl.ndarray((P, seq_len), dtype=nl.float32)
                nisa.tensor_tensor(dst=scanC, data1=scan, data2=nl.broadcast_to(C_i, (P, seq_len)),
                                   op=nl.multiply)
                nisa.tensor_tensor(dst=accum[i_tile], data1=accum[i_tile], data2=scanC, op=nl.add)
        for i_tile in nl.affine_range(n_tiles):
            c0 = i_tile * P
            nl.store(output[i_batch, c0:c0 + P, 0:seq_len], accum[i_tile])
    return output


def reference(delta, u, A, B, C):
    """mamba_torch.py's math in float64 numpy."""
    d, uu, a, b, c = (x.astype(np.float64) for x in (delta, u, A, B, C))
    dA = np.exp(d[:, :, None, :] * a[None, :, :, None])
    dBu = d[:, :, None, :] * b[:, None, :, :] * uu[:, :, None, :]
    scan = np.empty_like(dA)
    prev = 0.0
    for i in range(d.shape[-1]):
        prev = dA[..., i] * prev + dBu[..., i]
        scan[..., i] = prev
    return (c[:, None, :, :] * scan).sum(axis=-2)


def inputs(batch=1, seq_len=512, channels=256, state_size=16, seed=0):
    rng = np.random.default_rng(seed)
    delta = rng.uniform(0.0, 0.1, (batch, channels, seq_len)).astype(np.float32)
    u = rng.standard_normal((batch, channels, seq_len)).astype(np.float32)
    A = -rng.uniform(0.5, 1.5, (channels, state_size)).astype(np.float32)
    B = rng.standard_normal((batch, state_size, seq_len)).astype(np.float32)
    C = rng.standard_normal((batch, state_size, seq_len)).astype(np.float32)
    return delta, u, A, B, C


def profile(target="trn2", **shape):
    """(simulated latency in us, VectorE busy share of the kernel's span, output) of one launch."""
    args = inputs(**shape)
    y = nki.simulate(mamba_v1, target=target)(*args)
    ev = nki.last_run().trace.events
    span = max(e.end_ns for e in ev) - min(e.start_ns for e in ev)
    vec = sum(e.dur_ns for e in ev if e.engine == "vector")
    return span / 1e3, vec / span, y


def main(target="trn2", **shape):
    shape = shape or {"seq_len": 128, "channels": 256, "state_size": 4}      # quick self-check
    args = inputs(**shape)
    us, busy, y = profile(target, **shape)
    want = reference(*args)
    good = np.allclose(y, want, atol=ATOL, rtol=RTOL)
    print(f"mamba_v1 {shape} on {target}: {us:.1f} us simulated, VectorE busy {100 * busy:.1f}%, "
          f"max abs err {np.max(np.abs(y - want)):.3g} ({'within' if good else 'OUTSIDE'} tolerance)")
    return good


if __name__ == "__main__":
    ok = main()
    for t in ("trn1", "trn2", "trn3"):
        us, busy, _ = profile(t)
        print(f"published shape [1, 512, 256, 16] on {t}: {us:.1f} us, VectorE busy {100 * busy:.1f}% "
              "(AWS profile: 172.93 us, VectorE active 98.71%)")
    raise SystemExit(0 if ok else 1)
