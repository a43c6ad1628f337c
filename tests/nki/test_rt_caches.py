"""What the per-instruction plumbing caches answers as the uncached path does, and misses when a field
that the answer depends on changes: a tile's ``sig`` taken from its allocation plan (runtime.py)."""

import numpy as np
import pytest

import npusim.nki.isa as nisa
import npusim.nki.language as nl
from npusim.core.errors import ConstraintError
from npusim.nki import plan as _plan
from npusim.nki.runtime import run_context


GEOMETRIES = [((128, 16), nl.float32, nl.sbuf), ((128, 16), nl.bfloat16, nl.sbuf), ((128, 8), nl.float32, nl.sbuf),
              ((64, 16), nl.float32, nl.sbuf), ((128, 16), nl.float32, nl.psum), ((128, 2, 8), nl.float32, nl.sbuf),
              ((128, 16), nl.tfloat32, nl.sbuf), ((128, 16), "float32", nl.sbuf)]


def _fresh_sig(t) -> int:
    keep, t.sig = t.sig, None
    try:
        return _plan.sig(t)
    finally:
        t.sig = keep


def test_a_tile_has_the_sig_its_geometry_gives():
    with run_context("trn2") as run:
        sigs = {}
        for _ in range(3):                      # the first allocation makes the plan, later ones use it
            for shape, dtype, buffer in GEOMETRIES:
                t = run.allocate(shape, dtype, buffer)
                assert t.sig is None or t.sig == _fresh_sig(t)
                sigs.setdefault((shape, str(dtype), buffer), set()).add(_fresh_sig(t))
                assert run.allocate(shape, dtype, buffer).sig == _fresh_sig(t)      # (from the plan)
        assert all(len(s) == 1 for s in sigs.values())
        # a changed shape, dtype or buffer is another geometry: another sig ("float32" and nl.float32 agree)
        distinct = {k: next(iter(s)) for k, s in sigs.items()}
        assert distinct[((128, 16), "float32", nl.sbuf)] == distinct[((128, 16), str(nl.float32), nl.sbuf)]
        assert len(set(distinct.values())) == len(GEOMETRIES) - 1


def test_a_float_or_bool_dim_takes_the_checked_path_after_a_plan_exists():
    with run_context("trn2") as run:
        run.allocate((128, 16), nl.float32, nl.sbuf)            # the plan of (128, 16)
        for shape in ((128.0, 16), (128, True), (np.float64(128), 16)):
            with pytest.raises(ConstraintError):
                run.allocate(shape, nl.float32, nl.sbuf)
        assert run.allocate((np.int64(128), 16), nl.float32, nl.sbuf).shape == (128, 16)


def test_a_sliced_load_keeps_its_plan_sig_through_ops():
    """Tiles from the plan go through an op's plan tables like tiles whose sig was computed there."""
    with run_context("trn2") as run:
        src = nl.ndarray((128, 16), nl.float32, buffer=nl.shared_hbm)
        src.write(np.arange(128 * 16, dtype=np.float32).reshape(128, 16))
        a = nl.load(src)
        b = nl.load(src[:, 0:16])
        out = nl.ndarray((128, 16), nl.float32)
        nisa.tensor_tensor(dst=out, data1=a, data2=b, op=nl.add)
        np.testing.assert_array_equal(out.read(), 2 * np.arange(128 * 16, dtype=np.float32).reshape(128, 16))
        assert a.sig == b.sig == out.sig == _fresh_sig(out)
