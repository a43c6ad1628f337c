"""Shared helpers of the part-two tests."""
import numpy as np

import npusim.nki.language as nl


def tile(values, dtype=None, buffer=None):
    values = np.asarray(values)
    t = nl.ndarray(values.shape, dtype or values.dtype, buffer=buffer or nl.sbuf)
    t.write(values.astype(t.tv.dtype.np))
    return t


def rand(shape, seed=0, lo=-2.0, hi=2.0):
    return np.random.default_rng(seed).uniform(lo, hi, shape).astype(np.float32)
