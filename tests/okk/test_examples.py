"""The tiled sigmoid/tanh examples run, check themselves, and ping-pong overlaps GDMA with BDC."""
import importlib.util
import os

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PATH = os.path.join(HERE, "..", "..", "examples", "okk", "activation_tiled.py")


@pytest.fixture(scope="module")
def ex():
    spec = importlib.util.spec_from_file_location("activation_tiled", PATH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_tiles_cover_everything_once(ex):
    total = 5 * 64 * 256 + 64 * 7 + 5
    ts = ex.tiles(total, 256)
    assert [t[1].tuple() for t in ts[-2:]] == [(1, 64, 1, 7), (1, 5, 1, 1)]
    covered = sum(s.n * s.c * s.h * s.w for _, s in ts)
    assert covered == total and [o for o, _ in ts] == sorted(o for o, _ in ts)


@pytest.mark.parametrize("op", ["sigmoid", "tanh"])
def test_simple_and_pingpong_agree_with_numpy(ex, op):
    x = np.random.default_rng(3).uniform(-10, 10, 6 * 64 * 256 + 64 * 3 + 11).astype(np.float32)
    y1, d1 = ex.run(op, x, False, tile_w=256)
    y2, d2 = ex.run(op, x, True, tile_w=256)
    assert ex.check(op, x, y1) < ex.TOLERANCE[op]
    np.testing.assert_array_equal(y1, y2)                 # same instructions, same bits
    assert d2.total_cycles < d1.total_cycles              # overlap pays
    assert len(d1.events) == len(d2.events)
    bd = [e for e in d2.events if e.engine == "BDC"]
    gd = [e for e in d2.events if e.engine == "GDMA"]
    assert any(g.start_ns < b.end_ns and b.start_ns < g.end_ns for g in gd for b in bd[:40])


def test_main_small(ex, capsys):
    assert ex.main(["--op", "sigmoid", "--mib", "0.3"]) == 0
    assert "ping-pong saves" in capsys.readouterr().out
