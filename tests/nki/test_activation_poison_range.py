"""A range-limited activation (rsqrt, log ...) on poison (NaN) inputs: NaN is not "outside the documented
range", so no range warning and no crash (it used to raise an IndexError from the range check)."""
import warnings

import numpy as np

import npusim.nki.isa as nisa
import npusim.nki.language as nl
from npusim.nki import run_context
from npusim.nki.actfuncs import ActivationRangeWarning


def test_rsqrt_of_nan_gives_nan_without_a_range_warning():
    with run_context("trn2"):
        x = nl.ndarray((128, 4), nl.float32)
        x.write(np.array([[np.nan, 4.0, 1.0, 0.25]] * 128, np.float32))
        y = nl.ndarray((128, 4), nl.float32)
        with warnings.catch_warnings():
            warnings.simplefilter("error", ActivationRangeWarning)
            nisa.activation(y, nl.rsqrt, x)
        v = y.numpy()
        assert np.isnan(v[:, 0]).all()
        np.testing.assert_allclose(v[:, 1:], [[0.5, 1.0, 2.0]] * 128, rtol=1e-6)
