"""nki-library's newer cumsum (core/cumsum/cumsum.py @ 092a49dc, verbatim as nkilib/core/cumsum/cumsum_092a49d.py):
``nisa.tensor_scalar_cumulative`` with ``load_reduce`` carrying each row's sum from one 2048-column tile
to the next, and the ``tensor_tensor_scan`` fallback for int32 / uint32. Run unchanged on trn1/trn2/trn3
against float64 numpy at the library test's tolerances (atol 1e-3, rtol 1e-3; 1e-2 for bf16)."""
import os
import sys

import ml_dtypes
import numpy as np
import pytest

import npusim.nki as nki

sys.path.insert(0, os.path.dirname(__file__))
from nkilib_loader import load  # noqa: E402


@pytest.mark.parametrize("target", ["trn1", "trn2", "trn3"])
@pytest.mark.parametrize("shape,dtype", [((256, 1000), np.float32), ((64, 4, 1024), ml_dtypes.bfloat16),
                                         ((130, 5000), np.float32), ((8, 300), np.float16)])
def test_cumsum_with_tensor_scalar_cumulative(target, shape, dtype):
    mod = load("core.cumsum.cumsum_092a49d")
    x = np.random.default_rng(shape[-1]).standard_normal(shape).astype(dtype)
    got = nki.simulate(mod.cumsum, target=target)(x)
    assert got.shape == x.shape and got.dtype == x.dtype
    want = np.cumsum(x.astype(np.float64), axis=-1).astype(dtype).astype(np.float64)
    narrow = dtype != np.float32
    np.testing.assert_allclose(got.astype(np.float64), want, atol=1e-3, rtol=1e-2 if narrow else 1e-3)
    names = [e.name for e in nki.last_run().trace.events]
    assert "nisa.tensor_scalar_cumulative" in names and "nisa.tensor_tensor_scan" not in names
    if dtype == np.float32:                 # fp32 in and out: the fp32 running sum, tile carry included
        flat = x.reshape(-1, shape[-1])
        np.testing.assert_array_equal(got.reshape(flat.shape), np.add.accumulate(flat, axis=1, dtype=np.float32))


def test_cumsum_int32_takes_the_tensor_tensor_scan_fallback():
    mod = load("core.cumsum.cumsum_092a49d")
    x = np.random.default_rng(0).integers(-1000, 1000, (16, 3000)).astype(np.int32)
    got = nki.simulate(mod.cumsum, target="trn2")(x)
    np.testing.assert_array_equal(got, np.cumsum(x, axis=-1))
    names = [e.name for e in nki.last_run().trace.events]
    assert "nisa.tensor_tensor_scan" in names and "nisa.tensor_scalar_cumulative" not in names
