"""A neuronx-distributed kernel (legacy API): `count_nonzeros_shard_rows`, the MoE index-calculation
helper that shards mask rows over an SPMD grid of 2 (its LNC2 launch), unchanged on trn1/trn2/trn3;
exact counts against numpy."""
import numpy as np
import pytest


@pytest.mark.parametrize("boolean_mask", [True, False])
def test_count_nonzeros_shard_rows(target, kernels, boolean_mask):
    k = kernels("nxd_find_index.py")
    rng = np.random.default_rng(17)
    mask = (rng.random((8, 256)) < 0.3).astype(np.float32)
    if not boolean_mask:
        mask *= rng.integers(1, 9, size=mask.shape).astype(np.float32)     # any nonzero counts
    counts = k.count_nonzeros_shard_rows[2](mask, boolean_mask=boolean_mask)
    assert counts.dtype == np.int32 and counts.shape == (8,)
    np.testing.assert_array_equal(counts, np.count_nonzero(mask, axis=1))
