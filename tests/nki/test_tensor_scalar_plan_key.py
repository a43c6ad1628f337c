"""The tensor_scalar plan cache keys constants by identity, not equality: -0.0 and 0.0 (equal, same hash)
are different operands, and so are 1 and 1.0 where the dtype rules tell them apart."""
import numpy as np

import npusim.nki as nki
import npusim.nki.isa as nisa
import npusim.nki.language as nl


def _kernel(operand):
    @nki.jit
    def k(a):
        out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)
        t = nl.ndarray(a.shape, a.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=a)
        r = nl.ndarray(a.shape, a.dtype, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=r, data=t, op0=nl.multiply, operand0=operand)
        nisa.dma_copy(dst=out, src=r)
        return out
    return k


def test_negative_zero_operand_after_positive_zero():
    a = np.ones((128, 8), np.float32)
    pos = nki.simulate(_kernel(0.0))(a)
    neg = nki.simulate(_kernel(-0.0))(a)
    assert not np.signbit(pos).any()
    assert np.signbit(neg).all()           # 1 * -0.0 = -0.0 in fp32


def test_positive_zero_operand_after_negative_zero():
    a = np.ones((128, 8), np.float32)
    neg = nki.simulate(_kernel(np.float32(-0.0)))(a)
    pos = nki.simulate(_kernel(np.float32(0.0)))(a)
    assert np.signbit(neg).all() and not np.signbit(pos).any()
