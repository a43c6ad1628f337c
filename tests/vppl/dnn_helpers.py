"""Shared test helpers for the DNN layers: data in DM, allocated work vectors, float64 references."""
import numpy as np

from npusim import vppl
from npusim.vppl import dm_alloc, dm_put
from npusim.vppl.fixed_point import to_fixed

Q = 12
LSB = 2.0 ** -Q


def work(name="vW", n=32):
    return vppl.alloc_vector(name, "__I16V", n)


def f16(x):
    return to_fixed(x, Q)


def put(a):
    return dm_put(np.ascontiguousarray(a))


def out_block(nbytes):
    return dm_alloc(nbytes)


def conv_ref(x, w, s, pad):
    """float64 cross-correlation of a 2-D map, zero padding, written with explicit loops (independent)."""
    h, wd = x.shape
    k = w.shape[0]
    oh, ow = (h + 2 * pad - k) // s + 1, (wd + 2 * pad - k) // s + 1
    xp = np.zeros((h + 2 * pad, wd + 2 * pad))
    xp[pad:pad + h, pad:pad + wd] = x
    out = np.zeros((oh, ow))
    for i in range(oh):
        for j in range(ow):
            out[i, j] = np.sum(xp[i * s:i * s + k, j * s:j * s + k] * w)
    return out
