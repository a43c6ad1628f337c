"""The K = 1 matmul fast paths: blas's outer product (both orientations, with and without a strided
``out``) bit for bit against numpy's matmul on any float32 values (NaN payloads, -0, Inf, underflow)."""
import numpy as np
from hypothesis import given, settings, strategies as st

from npusim.nki import blas

F32 = np.float32

_bits = st.integers(0, 2**32 - 1)       # every float32 bit pattern: NaN payloads, -0, denormals
_edge = st.sampled_from([0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00001, 0xFF812345,
                         0x3F800000, 0x00000001, 0x80000001, 0x1F800000, 0x9F800000])


def _f32(words) -> np.ndarray:
    return np.array(words, np.uint32).view(F32)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 40), st.integers(1, 40), st.data())
def test_outer_product_is_numpys_matmul_bit_for_bit(m, n, data):
    words = st.one_of(_bits, _edge)
    a = _f32(data.draw(st.lists(words, min_size=m, max_size=m))).reshape(1, m)
    b = _f32(data.draw(st.lists(words, min_size=n, max_size=n))).reshape(1, n)
    with np.errstate(all="ignore"):
        want = np.matmul(a.T, b)
        got = blas.matmul(a.T, b)
        # a strided out, as PSUM rows: every other row of a wider buffer
        buf = np.full((2 * m, n + 3), 7, F32)
        out = buf[::2, 1:n + 1]
        same = blas.matmul(a.T, b, out=out)
    assert got.shape == want.shape and same is out
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
    np.testing.assert_array_equal(out.view(np.uint32), want.view(np.uint32))
    # the rest of the buffer is untouched
    rest = buf.copy()
    rest[::2, 1:n + 1] = 7
    assert (rest == 7).all()
