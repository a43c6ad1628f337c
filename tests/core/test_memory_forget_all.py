"""Memory.forget_all: every init byte back to "never written", data bytes kept, the generation moved;
with small pages on Linux the init pages go back to the OS (MADV_DONTNEED) instead of being zeroed."""
import sys

import numpy as np
import pytest

from npusim.core.memory import Memory


@pytest.mark.parametrize("small_pages", [False, True])
def test_forget_all_clears_every_init_byte_and_keeps_the_data(small_pages):
    m = Memory("M", 1 << 20, 4, small_pages=small_pages)        # 4 MiB: past one huge page
    rng = np.random.default_rng(0)
    picks = rng.integers(0, m.size - 64, 50)
    for p in picks:
        m.write_bytes(int(p), np.arange(64, dtype=np.uint8))
    data = m.data.copy()
    assert m.init.sum() > 0
    gen = m.generation
    m.forget_all()
    assert not m.init.any()
    assert m.generation == gen + 1
    np.testing.assert_array_equal(m.data, data)
    m.write_bytes(123, b"\x01\x02")                 # the map still works after its pages were dropped
    assert m.init[123:125].tolist() == [1, 1] and m.init.sum() == 2


def test_small_pages_drop_pages_on_linux_only():
    big = Memory("M", 1 << 20, 4, small_pages=True)
    assert big.drops_pages == sys.platform.startswith("linux")
    assert not Memory("M", 1 << 20, 4).drops_pages              # numpy's own allocation: zeroed in place
    assert not Memory("m", 4096, small_pages=True).drops_pages  # below a huge page: numpy's allocation
