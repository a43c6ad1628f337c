"""nki-library's rotational top-K (aws-neuron/nki-library @ d2ad3a5, core/topk/rotational_topk.py and
rotational_topk_utils.py kept verbatim under nkilib/core/topk/), run unchanged: max8 /
nc_match_replace8 per stage, ``nisa.nc_n_gather`` of the global indices of each stage's winners, a
circulant rotation through TensorE (``nl.shared_constant`` of a ``.npy`` file), the final sort
(max8 passes and ``nc_n_gather`` again), LNC2 sharding over rows.

The driver follows the library's test (test/integration/nkilib/core/topk/test_topk.py): create_topk_config,
create_rotational_topk_config, prepare_rotational_constants, ``rotational_topk[lnc]``; values compared
sorted against numpy's top-k with its rtol=1e-3, atol=1e-5 (``maxAllClose``), indices checked by gathering
the input at them. rotational_topk_utils.py imports scipy (``scipy.linalg.circulant``) at module level:
without scipy (the ``nkilib`` extra) the test is skipped.
"""
import os
import sys

import numpy as np
import pytest

import npusim.nki as nki
from npusim.core.errors import ConstraintError

pytest.importorskip("scipy", reason="nki-library's rotational_topk_utils.py imports scipy (pip install npusim[nkilib])")

sys.path.insert(0, os.path.dirname(__file__))
from nkilib_loader import load  # noqa: E402

import npusim.nki.language as nl  # noqa: E402


def _topk(inp, k, lnc, target, sorted_flag=True):
    m = load("core.topk.rotational_topk")
    tc = m.create_topk_config(inp_shape=inp.shape, inp_dtype=nl.float32, k=k, sorted=sorted_flag, num_programs=lnc)
    cfg = m.create_rotational_topk_config(inp_shape=inp.shape, topk_config=tc)
    cfg = m.prepare_rotational_constants(cfg)
    try:
        vals, idx = nki.simulate(m.rotational_topk[cfg.n_prgs], target=target)(inp=inp, config=cfg)
    finally:
        m.cleanup_rotational_constants()
    return cfg, vals, idx


@pytest.mark.parametrize("batch, vocab, k, lnc, target", [
    (8, 256, 16, 2, "trn2"),           # 2 stages of 8, LNC2: 4 rows per core
    (8, 3168, 64, 2, "trn3"),          # 8 stages
    (3, 1000, 50, 1, "trn2"),          # k padded to 56: the sort path (nc_n_gather of the sorted indices)
    (1, 3168, 8, 2, "trn2"),           # one row: one program, one stage (the scanning fallback)
    (16, 512, 20, 2, "trn2"),
])
def test_rotational_topk_values_and_indices(batch, vocab, k, lnc, target):
    rng = np.random.default_rng(batch * 7 + k)
    inp = rng.standard_normal((batch, vocab)).astype(np.float32)
    cfg, vals, idx = _topk(inp, k, lnc, target)
    assert vals.shape == (batch, k) and idx.shape == (batch, k) and idx.dtype == np.uint32
    want = -np.sort(-inp.astype(np.float64), axis=1)[:, :k]
    got = np.sort(vals.astype(np.float64), axis=1)[:, ::-1]
    err = np.abs(got - want).max()
    assert err <= 1e-5 + 1e-3 * np.abs(want).max()
    np.testing.assert_array_equal(vals, want.astype(np.float32))        # sorted output: exactly the top k
    np.testing.assert_array_equal(np.take_along_axis(inp, idx.astype(np.int64), axis=1), vals)
    if cfg.n_stages > 1:
        names = [e.name for e in nki.last_run().trace.events]
        assert "nisa.nc_n_gather" in names
        assert all(e.engine == "gpsimd" for e in nki.last_run().trace.events if e.name == "nisa.nc_n_gather")


def test_rotational_topk_needs_nc_v3_for_its_scalar_engine_copies():
    """``insert`` copies with ``tensor_copy(engine=nisa.scalar_engine)``, which NeuronCore-v2 (trn1) lacks
    (the tensor_copy docstring): on trn1 the kernel stops at that rule."""
    inp = np.random.default_rng(0).standard_normal((3, 1000)).astype(np.float32)
    with pytest.raises(ConstraintError) as e:
        _topk(inp, 50, 1, "trn1")
    assert e.value.api == "nisa.tensor_copy" and e.value.param == "engine"
