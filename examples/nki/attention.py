"""Single-head causal attention forward, softmax(Q K^T / sqrt(d) + causal mask) V, the layout of the
nki-samples attention kernels: q and k arrive transposed ([d, S], d on partitions: TensorE contracts over
partitions), v as [S, d]. Per 128-query tile:
  1. scores = q_tile^T k, 512 keys per nc_matmul into PSUM, scaled by 1/sqrt(d) on the way to SBUF;
  2. causal mask with GpSimd affine_select: keep key j <= query i (value i - j >= 0), else -9984.0;
  3. softmax: VectorE max (negated), ScalarE exp(x - max) summing rows in its reduce registers,
     VectorE reciprocal;
  4. P V: each 128x128 block of P transposed on TensorE, then nc_matmul accumulating over the key
     blocks in one PSUM tile; the 1/sum scaling is applied when the result leaves PSUM.
Published check (nki-samples flash attention test): allclose(atol=1e-2) against numpy."""
import math

import numpy as np

import npusim.nki as nki
import npusim.nki.isa as nisa
import npusim.nki.language as nl

ATOL = 1e-2
MASKED = -9984.0            # the samples' masked score


@nki.jit
def attention(qT, kT, v):
    d, s = qT.shape
    out = nl.ndarray((s, d), v.dtype, buffer=nl.shared_hbm)
    kT_sb = nl.load(kT)                                            # [d, S]
    v_tiles = [nl.load(v[j * 128:(j + 1) * 128, :]) for j in range(s // 128)]   # [128 keys, d] each
    kchunk = min(s, nl.tile_size.gemm_moving_fmax)
    for i in nl.affine_range(s // 128):
        q_sb = nl.load(qT[:, i * 128:(i + 1) * 128])               # stationary [d, 128 queries]
        scores = nl.ndarray((128, s), nl.float32, buffer=nl.sbuf)
        for c in nl.affine_range(s // kchunk):
            ps = nl.ndarray((128, kchunk), nl.float32, buffer=nl.psum)
            nisa.nc_matmul(dst=ps, stationary=q_sb, moving=kT_sb[:, c * kchunk:(c + 1) * kchunk])
            nisa.tensor_scalar(dst=scores[:, c * kchunk:(c + 1) * kchunk], data=ps, op0=nl.multiply,
                               operand0=1.0 / math.sqrt(d))
        masked = nl.ndarray((128, s), nl.float32, buffer=nl.sbuf)
        nisa.affine_select(dst=masked, pattern=[[-1, s]], channel_multiplier=1, on_true_tile=scores,
                           on_false_value=MASKED, cmp_op=nl.greater_equal, offset=i * 128)
        neg_max = nl.ndarray((128, 1), nl.float32, buffer=nl.sbuf)
        nisa.tensor_reduce(dst=neg_max, op=nl.maximum, data=masked, axis=1, negate=True, keepdims=True)
        probs = nl.ndarray((128, s), nl.float32, buffer=nl.sbuf)
        total = nl.ndarray((128, 1), nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=probs, op=nl.exp, data=masked, bias=neg_max, reduce_op=nl.add, reduce_res=total,
                        reduce_cmd=nisa.reduce_cmd.reset_reduce)
        inv = nl.ndarray((128, 1), nl.float32, buffer=nl.sbuf)
        nisa.reciprocal(dst=inv, data=total)
        if v.dtype != nl.float32:                  # bf16 kernels feed TensorE bf16 probabilities
            p_mm = nl.ndarray((128, s), v.dtype, buffer=nl.sbuf)
            nisa.tensor_copy(dst=p_mm, src=probs)
            probs = p_mm
        acc = nl.ndarray((128, d), nl.float32, buffer=nl.psum)
        for j in nl.affine_range(s // 128):
            pt_ps = nl.ndarray((128, 128), v.dtype, buffer=nl.psum)
            nisa.nc_transpose(dst=pt_ps, data=probs[:, j * 128:(j + 1) * 128], engine=nisa.engine.tensor)
            pt = nl.ndarray((128, 128), v.dtype, buffer=nl.sbuf)             # [128 keys, 128 queries]
            nisa.tensor_copy(dst=pt, src=pt_ps)
            nisa.nc_matmul(dst=acc, stationary=pt, moving=v_tiles[j])
        o = nl.ndarray((128, d), v.dtype, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=o, data=acc, op0=nl.multiply, operand0=inv)
        nl.store(out[i * 128:(i + 1) * 128, :], o)
    return out


def reference(q, k, v):
    s, d = q.shape
    scores = q.astype(np.float64) @ k.astype(np.float64).T / math.sqrt(d)
    scores = np.where(np.tril(np.ones((s, s), bool)), scores, MASKED)
    p = np.exp(scores - scores.max(1, keepdims=True))
    return (p / p.sum(1, keepdims=True)) @ v.astype(np.float64)


def check(dtype, target="trn2", s=256, d=128):
    rng = np.random.default_rng(6)
    q, k, v = (rng.standard_normal((s, d)).astype(dtype) for _ in range(3))
    y = nki.simulate(attention, target=target)(np.ascontiguousarray(q.T), np.ascontiguousarray(k.T), v)
    want = reference(q, k, v)
    y = y.astype(np.float64)
    ok = np.allclose(y, want, atol=ATOL)
    print(f"attention {np.dtype(dtype).name} S={s} d={d} on {target}: max abs err {np.max(np.abs(y - want)):.3g} "
          f"({'within' if ok else 'OUTSIDE'} atol={ATOL})")
    return ok


def main(target="trn2", s=256, d=128):
    import ml_dtypes
    return check(np.float32, target, s, d) and check(ml_dtypes.bfloat16, target, s, d)


if __name__ == "__main__":
    raise SystemExit(0 if main() else 1)
