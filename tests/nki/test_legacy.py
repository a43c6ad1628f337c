"""The legacy neuronxcc.nki API (npusim.nki.legacy): index expressions, masks, operators, returned
results, par_dim block tiles, entry points; each rule raises, each value is checked against numpy."""
import warnings

import ml_dtypes

import numpy as np
import pytest

import npusim.nki as current_nki
import npusim.nki.legacy as nki
import npusim.nki.legacy.isa as nisa
import npusim.nki.legacy.language as nl
from npusim.core.errors import ConstraintError, UnsupportedError
from npusim.core.errors import UninitializedReadWarning


def run(fn, *args, target="trn2"):
    return current_nki.simulate(nki.jit(fn), target=target)(*args)


def test_affine_index_views_match_numpy_fancy_indexing():
    a = np.arange(128 * 48, dtype=np.float32).reshape(128, 48)

    def k(x):
        out = nl.ndarray((128, 4, 6), nl.float32, buffer=nl.shared_hbm)
        t = nl.load(x)
        i_p = nl.arange(128)[:, None, None]
        i_a = nl.arange(4)[None, :, None]
        i_b = nl.arange(6)[None, None, :]
        nl.store(out, nl.copy(t[i_p, 2 * i_b * 4 + i_a]))     # stride 8 along b, 1 along a
        return out
    want = a[np.arange(128)[:, None, None], 8 * np.arange(6)[None, None, :] + np.arange(4)[None, :, None]]
    np.testing.assert_array_equal(run(k, a), want)


def test_mgrid_has_p_and_x():
    g = nl.mgrid[0:128, 0:512]
    assert g.p.shape == (128, 1) and g.x.shape == (1, 512)
    i0, i1 = nl.mgrid[0:4, 0:3]
    assert (i0 + i1).shape == (4, 3)


@pytest.mark.parametrize("key, rule", [
    (lambda: (nl.arange(64), 0), "1D arange is not supported"),
    (lambda: (nl.arange(8)[:, None], nl.arange(4)[None, :] ** 2), "affine expression"),
    (lambda: (nl.arange(8)[:, None], 10 + nl.arange(4)[None, :]), "inside its size 12"),
    (lambda: (nl.arange(8)[:, None] + nl.arange(4)[None, :], nl.arange(4)[None, :]), "partition index varies"),
    (lambda: (nl.arange(8)[:, None], nl.arange(8)[:, None] + nl.arange(4)[None, :]), "does not vary along the "
                                                                                    "partition"),
    (lambda: (nl.arange(8)[:, None] * 2, nl.arange(4)[None, :]), "contiguous"),
    (lambda: (nl.arange(8)[:, None], 3 - nl.arange(4)[None, :]), "coefficients are >= 0"),
    (lambda: (nl.arange(8)[:, None], slice(None)), "not mixed with slices"),
])
def test_index_rules_raise(key, rule):
    def k(x):
        t = nl.load(x)
        t[key()]
    with pytest.raises(ConstraintError, match=rule):
        run(k, np.zeros((16, 12), np.float32))


def test_masked_load_and_store_move_only_the_masked_rows():
    a = np.arange(128 * 8, dtype=np.float32).reshape(128, 8)

    def k(x):
        out = nl.ndarray((128, 8), nl.float32, buffer=nl.shared_hbm)
        ix, iy = nl.arange(128)[:, None], nl.arange(8)[None, :]
        nl.store(out[ix, iy], nl.zeros((128, 8), nl.float32))
        t = nl.load(x[ix, iy], mask=(ix < 100))
        nl.store(out[ix, iy], t, mask=(ix < 60))
        return out
    with warnings.catch_warnings():
        warnings.simplefilter("error", UninitializedReadWarning)
        y = run(k, a)                      # the unloaded rows 100.. are never stored (mask < 60)
    want = np.zeros_like(a)
    want[:60] = a[:60]
    np.testing.assert_array_equal(y, want)


def test_masked_op_leaves_the_rest_of_its_result_unwritten():
    def k(x):
        out = nl.ndarray((128, 4), nl.float32, buffer=nl.shared_hbm)
        ix = nl.arange(128)[:, None]
        t = nl.load(x)
        nl.store(out, nl.add(t, 1.0, mask=(ix < 32)))
        return out
    with pytest.warns(UninitializedReadWarning):
        y = run(k, np.ones((128, 4), np.float32))
    np.testing.assert_array_equal(y[:32], 2.0)
    assert np.isnan(y[32:]).all()          # poison: never written


def test_mask_must_be_boolean_and_fit_the_result():
    def k(x):
        t = nl.load(x)
        nl.add(t, 1.0, mask=nl.arange(128)[:, None])
    with pytest.raises(ConstraintError, match="boolean expression"):
        run(k, np.ones((128, 4), np.float32))

    def k2(x):
        t = nl.load(x)
        nl.add(t, 1.0, mask=(nl.arange(7)[None, :] < 3))
    with pytest.raises(ConstraintError, match="broadcasts to the result"):
        run(k2, np.ones((128, 4), np.float32))


def test_tile_operators_and_divide():
    rng = np.random.default_rng(0)
    a = rng.random((128, 16), np.float32) + 0.5
    b = rng.random((128, 16), np.float32) + 0.5

    def k(x, y):
        out = nl.ndarray((6, 128, 16), nl.float32, buffer=nl.shared_hbm)
        s, t = nl.load(x), nl.load(y)
        col = nl.sum(t, axis=1)                 # (128, 1)
        for i, r in enumerate((s + t, s - t, 2.0 - s, -s * t, s / 4.0, s / col)):
            nl.store(out[i], r)
        return out
    y = run(k, a, b)
    col = b.sum(axis=1, keepdims=True, dtype=np.float32)
    np.testing.assert_array_equal(y[0], a + b)
    np.testing.assert_array_equal(y[1], a - b)
    np.testing.assert_array_equal(y[2], np.float32(2) - a)
    np.testing.assert_array_equal(y[3], -(a * b))
    np.testing.assert_array_equal(y[4], a * np.float32(0.25))
    np.testing.assert_allclose(y[5], a / col, rtol=2e-7)         # times the reciprocal: within 1 ulp


def test_augmented_assignment_updates_in_place():
    def k(x):
        out = nl.ndarray((128, 8), nl.float32, buffer=nl.shared_hbm)
        acc = nl.zeros((128, 8), nl.float32)
        for i in nl.affine_range(3):
            acc[...] += nl.load(x)
        acc *= 0.5
        nl.store(out, acc)
        return out
    a = np.full((128, 8), 2.0, np.float32)
    np.testing.assert_array_equal(run(k, a), 3.0)
    names = [e.name for e in current_nki.last_run().trace.events]
    assert names.count("nisa.tensor_tensor") == 3 and "nisa.tensor_copy" not in names   # no copy back


def test_par_dim_block_tiles():
    a = np.arange(128 * 4, dtype=np.float32).reshape(128, 4)

    def k(x):
        out = nl.ndarray((2, 128, 4), nl.float32, buffer=nl.shared_hbm)
        blocks = nl.zeros((2, nl.par_dim(128), 4), dtype=nl.float32)
        assert blocks.shape == (2, 128, 4)
        blocks[1, 0:128, 0:4] += nl.load(x)
        for b in nl.affine_range(2):
            nl.store(out[b], blocks[b, 0:128, 0:4])
        return out
    y = run(k, a)
    np.testing.assert_array_equal(y[0], 0.0)
    np.testing.assert_array_equal(y[1], a)


def test_par_dim_rules():
    def two(x):
        nl.ndarray((nl.par_dim(2), nl.par_dim(128), 4), nl.float32)
    with pytest.raises(ConstraintError, match="at most one nl.par_dim"):
        run(two, np.zeros((1, 1), np.float32))

    def sliced(x):
        t = nl.zeros((2, nl.par_dim(128), 4), dtype=nl.float32)
        t[0:2, 0:128, 0:4]
    with pytest.raises(ConstraintError, match="an int per block dim"):
        run(sliced, np.zeros((1, 1), np.float32))


def test_isa_calls_return_their_results():
    rng = np.random.default_rng(1)
    q = rng.standard_normal((128, 64)).astype(np.float32)
    v = rng.standard_normal((128, 512)).astype(np.float32)

    def k(x, y):
        out = nl.ndarray((64, 512), nl.float32, buffer=nl.shared_hbm)
        ps = nisa.nc_matmul(nl.load(x), nl.load(y))
        assert ps.buffer is nl.psum and ps.shape == (64, 512)
        sb = nisa.tensor_copy(ps)
        r = nisa.tensor_scalar(sb, nl.multiply, 2.0, op1=nl.add, operand1=1.0)
        m = nisa.tensor_reduce(op=nl.max, data=r, axis=1)
        nl.store(out, nisa.tensor_scalar(r, nl.subtract, m))
        return out
    y = run(k, q, v)
    r = (q.T @ v) * 2 + 1
    np.testing.assert_allclose(y, r - r.max(axis=1, keepdims=True), rtol=1e-5, atol=1e-4)


def test_iota_from_an_index_expression():
    def k(x):
        out = nl.ndarray((128, 8), nl.int32, buffer=nl.shared_hbm)
        i = nl.mgrid[0:128, 0:8]
        nl.store(out, nisa.iota(i.p * 8 + i.x + 3, dtype=nl.int32))
        return out
    np.testing.assert_array_equal(run(k, np.zeros((1, 1), np.float32)), np.arange(1024).reshape(128, 8) + 3)


def test_reduction_over_inner_free_axes():
    a = np.random.default_rng(2).random((128, 3, 4, 5), np.float32)

    def k(x):
        out = nl.ndarray((128, 4), nl.float32, buffer=nl.shared_hbm)
        nl.store(out, nl.max(nl.load(x), axis=[1, 3]))
        return out
    np.testing.assert_array_equal(run(k, a), a.max(axis=(1, 3)))


def test_entry_points():
    def add_one(x):
        out = nl.ndarray(x.shape, x.dtype, buffer=nl.shared_hbm)
        nl.store(out, nl.load(x) + 1.0)
        return out
    a = np.zeros((128, 4), np.float32)
    for k in (nki.jit(add_one), nki.jit(mode="simulation")(add_one), nki.baremetal(add_one)):
        np.testing.assert_array_equal(k(a), 1.0)
    np.testing.assert_array_equal(nki.simulate_kernel(nki.jit(add_one), a), 1.0)
    np.testing.assert_array_equal(nki.simulate_kernel(add_one, a), 1.0)
    with pytest.raises(ConstraintError, match="mode"):
        nki.jit(add_one, mode="gpu")


def test_direct_allocation_is_refused_when_called():
    with pytest.raises(UnsupportedError, match="direct allocation"):
        nki.compiler.sbuf.mod_alloc(base_addr=0, num_free_tiles=(2,))
    assert nki.compiler.skip_middle_end_transformations(len) is len


def test_legacy_dtype_names():
    assert nl.fp32 == np.float32 and nl.bf16 == nl.bfloat16 and nl.float32 is current_nki.language.float32


@pytest.mark.parametrize("target", ["trn1", "trn2", "trn3"])
def test_legacy_ops_cost_what_the_current_ops_cost(target):
    a = np.ones((128, 512), np.float32)

    def legacy_kernel(x):
        out = nl.ndarray(x.shape, x.dtype, buffer=nl.shared_hbm)
        t = nl.load(x)
        nl.store(out, t * t)
        return out

    def current_kernel(x):
        cl = current_nki.language
        out = cl.ndarray(x.shape, x.dtype, buffer=cl.shared_hbm)
        t = cl.load(x)
        r = cl.ndarray(x.shape, x.dtype, buffer=cl.sbuf)
        current_nki.isa.tensor_tensor(r, t, t, cl.multiply)
        cl.store(out, r)
        return out
    run(legacy_kernel, a, target=target)
    ev_l = [(e.name, e.cycles) for e in current_nki.last_run().trace.events]
    current_nki.simulate(current_kernel, target=target)(a)
    ev_c = [(e.name, e.cycles) for e in current_nki.last_run().trace.events]
    assert ev_l == ev_c


def test_psum_plus_equals_matmul_accumulates():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((256, 128)).astype(np.float32)
    b = rng.standard_normal((256, 512)).astype(np.float32)

    def k(x, y):
        out = nl.ndarray((128, 512), nl.float32, buffer=nl.shared_hbm)
        acc = nl.zeros((128, 512), nl.float32, buffer=nl.psum)
        for i in nl.affine_range(2):
            acc += nisa.nc_matmul(nl.load(x[i * 128:(i + 1) * 128, :]), nl.load(y[i * 128:(i + 1) * 128, :]))
        nl.store(out, acc)
        return out
    np.testing.assert_allclose(run(k, a, b), a.T @ b, rtol=1e-5, atol=1e-4)
    ev = [e for e in current_nki.last_run().trace.events if e.name == "nisa.nc_matmul"]
    assert [e.cycles > 0 for e in ev] == [True, False, True, False]     # the accumulation itself is free


def test_psum_plus_equals_needs_a_matmul_result():
    def k(x):
        acc = nl.zeros((128, 8), nl.float32, buffer=nl.psum)
        other = nl.zeros((128, 8), nl.float32, buffer=nl.psum)
        acc += other
    with pytest.raises(ConstraintError, match="takes a matmul result"):
        run(k, np.zeros((1, 1), np.float32))


def test_matmul_is_transpose_with_an_identity_and_shared_constant():
    a = np.arange(128 * 128, dtype=np.float32).reshape(128, 128)

    def k(x):
        out = nl.ndarray((128, 128), nl.float32, buffer=nl.shared_hbm)
        ident = nl.load(nl.shared_constant(np.identity(128, dtype=np.int8), dtype=nl.float32))
        t = nisa.nc_matmul(nl.load(x), ident, is_transpose=True)
        assert t.buffer is nl.psum and t.dtype == np.float32
        nl.store(out, t)
        return out
    np.testing.assert_array_equal(run(k, a), a.T)

    def not_identity(x):
        nisa.nc_matmul(nl.load(x), nl.load(x), is_transpose=True)
    with pytest.raises(ConstraintError, match="identity"):
        run(not_identity, a)


from hypothesis import given, settings, strategies as st  # noqa: E402


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 8), st.integers(1, 5), st.integers(1, 5), st.integers(0, 3), st.integers(0, 3),
       st.integers(0, 4))
def test_property_affine_views_equal_numpy_fancy_indexing(p, na, nb, ca, cb, base):
    # t[i_p, base + ca * i_a + cb * i_b] over a (p, F) tile, F just large enough
    f = base + ca * (na - 1) + cb * (nb - 1) + 1
    a = np.arange(p * f, dtype=np.float32).reshape(p, f)
    i_p = np.arange(p)[:, None, None]
    i_a = np.arange(na)[None, :, None]
    i_b = np.arange(nb)[None, None, :]
    want = a[i_p, base + ca * i_a + cb * i_b]

    def k(x):
        out = nl.ndarray((p, na, nb), nl.float32, buffer=nl.shared_hbm)
        t = nl.load(x)
        nl.store(out, nl.copy(t[nl.arange(p)[:, None, None], base + ca * nl.arange(na)[None, :, None]
                                + cb * nl.arange(nb)[None, None, :]]))
        return out
    np.testing.assert_array_equal(run(k, a), want)
    # and the same pattern on the HBM tensor itself (no partition rules there)
    def h(x):
        out = nl.ndarray((p, na, nb), nl.float32, buffer=nl.shared_hbm)
        nl.store(out, nl.load(x[nl.arange(p)[:, None, None], base + ca * nl.arange(na)[None, :, None]
                                + cb * nl.arange(nb)[None, None, :]]))
        return out
    np.testing.assert_array_equal(run(h, a), want)


def test_affine_select_with_a_predicate_expression():
    a = np.arange(128 * 64, dtype=np.float32).reshape(128, 64)

    def k(x):
        out = nl.ndarray((128, 64), nl.float32, buffer=nl.shared_hbm)
        i_p, i_f = nl.mgrid[0:128, 0:64]
        nl.store(out, nisa.affine_select(pred=(i_p >= i_f), on_true_tile=nl.load(x), on_false_value=nl.fp32.min))
        return out
    y = run(k, a)
    keep = np.arange(128)[:, None] >= np.arange(64)[None, :]
    np.testing.assert_array_equal(y, np.where(keep, a, np.finfo(np.float32).min))
    assert [e.engine for e in current_nki.last_run().trace.events if e.name == "nisa.affine_select"] == ["gpsimd"]

    def bad(x):
        nisa.affine_select(pred=nl.arange(128)[:, None], on_true_tile=nl.load(x), on_false_value=0.0)
    with pytest.raises(ConstraintError, match="boolean expression"):
        run(bad, a)


def test_trace_mode_helpers_run_inside_the_calling_kernel():
    @nki.jit(mode="trace")
    def helper(t):
        return t * 2.0

    def k(x):
        out = nl.ndarray(x.shape, x.dtype, buffer=nl.shared_hbm)
        nl.store(out, helper(nl.load(x)))
        return out
    np.testing.assert_array_equal(run(k, np.ones((128, 4), np.float32)), 2.0)


def test_float_names_have_a_range_and_act_as_dtypes():
    assert nl.fp32.min == np.finfo(np.float32).min and nl.bf16.max == float(ml_dtypes.finfo(ml_dtypes.bfloat16).max)
    assert np.dtype(nl.fp16) == np.float16 and nl.fp32 == nl.float32 and hash(nl.fp32) == hash(np.dtype(np.float32))

    def k(x):
        out = nl.ndarray(x.shape, nl.fp16, buffer=nl.shared_hbm)
        nl.store(out, nl.load(x, dtype=nl.fp16))
        return out
    assert run(k, np.ones((128, 4), np.float32)).dtype == np.float16


def test_load_transpose2d_and_partition_reduce():
    a = np.arange(64 * 128, dtype=np.float32).reshape(64, 128)

    def k(x):
        out = nl.ndarray((129, 64), nl.float32, buffer=nl.shared_hbm)
        t = nl.load_transpose2d(x)
        assert t.shape == (128, 64)
        nl.store(out[0:128, :], t)
        nl.store(out[128:129, :], nisa.tensor_partition_reduce(np.add, t))
        return out
    y = run(k, a)
    np.testing.assert_array_equal(y[:128], a.T)
    np.testing.assert_array_equal(y[128], a.T.sum(axis=0))

    def bad(x):
        nl.load_transpose2d(x[0])
    with pytest.raises(ConstraintError, match="2-D HBM"):
        run(bad, a)


def test_loop_reduce_accumulates_over_the_named_loop():
    a = np.ones((128, 8), np.float32)

    def k(x):
        out = nl.ndarray((128, 8), nl.float32, buffer=nl.shared_hbm)
        acc = nl.ndarray((128, 8), nl.float32)
        for i in nl.affine_range(3):
            acc[...] = nl.loop_reduce(nl.load(x) * float(i + 1), op=np.add, loop_indices=[i])
        nl.store(out, acc)
        return out
    np.testing.assert_array_equal(run(k, a), 6.0)       # 1 + 2 + 3: the first iteration initializes

    def bad(x):
        nl.loop_reduce(nl.load(x), op=np.divide, loop_indices=[0])
    with pytest.raises(ConstraintError, match="ALU operator"):
        run(bad, a)


def test_one_partition_operand_is_broadcast_across_partitions():
    def k(x):
        out = nl.ndarray((128, 1), nl.float32, buffer=nl.shared_hbm)
        col = nl.load(x)                                    # (128, 1)
        one = nl.full((1, 1), 2.5, nl.float32)
        nl.store(out, nl.add(col, one))
        return out
    a = np.arange(128, dtype=np.float32).reshape(128, 1)
    np.testing.assert_array_equal(run(k, a), a + 2.5)


def test_psum_matmul_operand_is_staged_and_blocks_index_partially():
    rng = np.random.default_rng(4)
    a = rng.standard_normal((128, 128)).astype(np.float32)
    b = rng.standard_normal((128, 64)).astype(np.float32)

    def k(x, y):
        out = nl.ndarray((128, 64), nl.float32, buffer=nl.shared_hbm)
        t = nisa.nc_transpose(nl.load(x))                   # PSUM on TensorE
        blocks = nl.ndarray((2, 3, nl.par_dim(128), 64), nl.float32)
        blocks[1][2, 0:128, 0:64] = nl.load(y)              # blocks[1] is a (3, P, 64) block tile
        nl.store(out, nisa.nc_matmul(t, blocks[1, 2]))      # t.T @ y = x @ y
        return out
    np.testing.assert_allclose(run(k, a, b), a @ b, rtol=1e-4, atol=1e-4)
    names = [e.name for e in current_nki.last_run().trace.events]
    assert names.index("nisa.tensor_copy") < names.index("nisa.nc_matmul")     # the staging copy


def test_an_index_outside_the_tensor_needs_a_mask_that_leaves_it_out():
    a = np.arange(100 * 4, dtype=np.float32).reshape(100, 4)
    ix, iy = nl.arange(128)[:, None], nl.arange(4)[None, :]

    def masked(x):
        out = nl.ndarray((100, 4), nl.float32, buffer=nl.shared_hbm)
        t = nl.load(x[ix, iy], mask=(ix < 100))
        nl.store(out[ix, iy], t, mask=(ix < 100))
        return out
    np.testing.assert_array_equal(run(masked, a), a)

    def unmasked(x):
        nl.load(x[ix, iy])
    with pytest.raises(ConstraintError, match="lie inside its size 100"):
        run(unmasked, a)

    def too_wide(x):
        nl.load(x[ix, iy], mask=(ix < 110))
    with pytest.raises(ConstraintError, match="need a mask"):
        run(too_wide, a)

    def as_operand(x):
        nisa.tensor_copy(x[ix, iy])
    with pytest.raises(ConstraintError):
        run(as_operand, a)


def test_hbm_slice_past_the_end_under_a_mask_and_masked_dma_copy():
    a = np.arange(200 * 4, dtype=np.float32).reshape(200, 4)

    def k(x):
        out = nl.ndarray((200, 4), nl.float32, buffer=nl.shared_hbm)
        ip = nl.arange(128)[:, None] + 128
        t = nl.ndarray((128, 4), nl.float32)
        nisa.dma_copy(dst=t, src=x[128:256, :], mask=(ip < 200))      # rows 200..255 do not exist
        nl.store(out[0:128, :], nl.load(x[0:128, :]))
        nl.store(out[128:256, :], t, mask=(ip < 200))
        return out
    np.testing.assert_array_equal(run(k, a), a)

    def unmasked(x):
        nl.load(x[128:256, :])
    with pytest.raises(ConstraintError, match="lie inside its size 200"):
        run(unmasked, a)

    def not_a_box(x):
        ip, i_f = nl.arange(128)[:, None], nl.arange(4)[None, :]
        t = nl.load(x[0:128, :])
        nisa.dma_copy(dst=t, src=x[0:128, :], mask=(ip + i_f < 100))
    with pytest.raises(UnsupportedError, match="not a box"):
        run(not_a_box, a)


def test_spmd_dim_over_cores_is_the_product():
    assert nl.spmd_dim(3, nl.nc(2)) == 6 and nl.spmd_dim(4) == 4


def test_block_tile_plus_equals_skips_only_its_own_self_assignment():
    """``blocks[k] += x`` assigns the updated view back to itself (no instruction); any other assignment
    (another key, another value, the same key spelled anew) still copies, block by block."""
    a = np.arange(128 * 4, dtype=np.float32).reshape(128, 4)

    def k(x):
        out = nl.ndarray((3, 128, 4), nl.float32, buffer=nl.shared_hbm)
        blocks = nl.zeros((3, nl.par_dim(128), 4), dtype=nl.float32)
        key = (0, slice(0, 128), slice(0, 4))
        blocks[key] += nl.load(x)               # one tensor_tensor, no copy back
        v = blocks[key]
        blocks[1, 0:128, 0:4] = v                # another key: a copy
        blocks[key] = nl.load(x)                 # the remembered key, another value: a copy
        w = blocks[2]
        blocks[2] = w                            # the same view, key not remembered: assigns itself (no copy)
        for b in nl.affine_range(3):
            nl.store(out[b], blocks[b, 0:128, 0:4])
        return out
    y = run(k, a)
    np.testing.assert_array_equal(y[0], a)
    np.testing.assert_array_equal(y[1], a)
    np.testing.assert_array_equal(y[2], 0.0)
    names = [e.name for e in current_nki.last_run().trace.events]
    assert names.count("nisa.tensor_tensor") == 1
    assert names.count("nisa.tensor_copy") == 2
