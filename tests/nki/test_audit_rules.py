"""Rules and wordings from the NKI audit: over-wide tiles fail at the ISA op with the official
simulator's words, (P, 1) operands may sit on other partitions than data, third-party-logged wordings."""
import numpy as np
import pytest

import npusim.nki as nki
import npusim.nki.isa as nisa
import npusim.nki.language as nl
from npusim.core.errors import ConstraintError
from npusim.nki import run_context


def test_over_wide_tile_allocates_and_the_isa_op_refuses_it():
    # nki_simulator.rst "Hardware Constraint Validation": the allocation passes, tensor_tensor raises
    with run_context("trn2") as run:
        x = nl.ndarray((256, 512), nl.float32, buffer=nl.sbuf)
        y = nl.ndarray((256, 512), nl.float32, buffer=nl.sbuf)
        z = nl.ndarray((256, 512), nl.float32, buffer=nl.sbuf)
        with pytest.raises(ConstraintError) as e:
            nisa.tensor_tensor(dst=z, data1=x, data2=y, op=nl.add)
        assert str(e.value).startswith("tensor_tensor data1 partition dimension 256 exceeds maximum 128")
        # each counts its bytes per partition, like any tile (3 x 2 KiB)
        assert sum(b.size for b in run.alloc[nl.sbuf].blocks) == 3 * 2048
        # the host still sees all 256 rows
        vals = np.arange(256 * 512, dtype=np.float32).reshape(256, 512)
        x.write(vals)
        np.testing.assert_array_equal(x.numpy(), vals)


def test_over_wide_nl_load_fails_at_dma_copy():
    @nki.jit
    def k(a):
        return nl.load(a)
    with pytest.raises(ConstraintError, match="dma_copy dst partition dimension 256 exceeds maximum 128"):
        nki.simulate(k)(np.ones((256, 8), np.float32))


def test_over_wide_psum_tile_fails_at_the_op():
    with run_context("trn2"):
        p = nl.ndarray((200, 4), nl.float32, buffer=nl.psum)
        with pytest.raises(ConstraintError, match="memset dst partition dimension 200 exceeds maximum 128"):
            nisa.memset(p, 0.0)


def test_vector_operand_may_start_at_another_partition():
    with run_context("trn2"):
        t = nl.ndarray((128, 8), nl.float32)
        t.write(np.arange(128 * 8, dtype=np.float32).reshape(128, 8))
        s = nl.ndarray((64, 1), nl.float32)                       # a fresh tile: partitions 0..63
        s.write(np.arange(64, dtype=np.float32).reshape(64, 1) + 1)
        r = nl.ndarray((64, 8), nl.float32)
        nisa.tensor_scalar(dst=r, data=t[64:128, :], op0=nl.multiply, operand0=s)
        want = np.arange(64 * 8, 128 * 8, dtype=np.float64).reshape(64, 8) * (np.arange(64) + 1)[:, None]
        np.testing.assert_array_equal(r.numpy(), want.astype(np.float32))


def test_vector_operand_still_obeys_its_own_start_partition_rule():
    with run_context("trn2"):
        t = nl.ndarray((64, 8), nl.float32)
        t.write(np.ones((64, 8), np.float32))
        big = nl.ndarray((128, 1), nl.float32)
        big.write(np.ones((128, 1), np.float32))
        with pytest.raises(ConstraintError, match="starts at partition 0 or 64"):
            nisa.tensor_scalar(dst=t, data=t, op0=nl.add, operand0=big[32:96, :])


def test_dma_count_mismatch_wording():
    @nki.jit
    def k(a):
        t = nl.ndarray((128, 4), a.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=a)
    with pytest.raises(ConstraintError, match="dma_copy requires src and dst to have the same number of elements, "
                                              "got src=1024, dst=512"):
        nki.simulate(k)(np.ones((128, 8), np.float32))


@pytest.mark.parametrize("op", ["tensor_copy", "memset"])
def test_on_chip_operand_wording(op):
    @nki.jit
    def k(a):
        out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)
        if op == "tensor_copy":
            nisa.tensor_copy(dst=out, src=nl.load(a))
        else:
            nisa.memset(dst=out, value=0.0)
    with pytest.raises(ConstraintError, match=rf"{op} dst must be in \['sbuf', 'psum'\], got shared_hbm"):
        nki.simulate(k)(np.ones((128, 8), np.float32))


def test_1d_tile_wording():
    with run_context("trn2"):
        with pytest.raises(ConstraintError, match=r"SBUF and PSUM tensors must have at least 2 dimensions "
                                                  r"\(partition-dim and free-dim\)"):
            nl.ndarray((128,), nl.float32, buffer=nl.sbuf)
