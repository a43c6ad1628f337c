"""The part-two examples run and pass their own contest-tolerance checks (small cases, to stay fast)."""
import os
import sys

import numpy as np
import pytest

EX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "okk")
sys.path.insert(0, EX)

import contest  # noqa: E402
import conv2d  # noqa: E402
import depthwise  # noqa: E402
import matmul  # noqa: E402
import plus_one  # noqa: E402
import pooling  # noqa: E402
import softmax  # noqa: E402
from spatial import Window  # noqa: E402


def test_contest_criterion():
    assert contest.contest_ok(np.array([1.0, np.inf]), np.array([1.00001, np.inf]), 1e-4)[0]
    assert not contest.contest_ok(np.array([100.0]), np.array([100.1]), 1e-4)[0]
    assert not contest.contest_ok(np.array([np.nan]), np.array([1.0]), 1e-4)[0]


@pytest.mark.parametrize("k,shape", [(1, (2, 70, 3, 5)), (2, (5, 3, 4, 9)), (3, (9, 66, 2, 3)), (4, (3, 3, 7, 101))])
def test_plus_one(k, shape):
    x = np.random.default_rng(k).standard_normal(shape).astype(np.float32)
    y, _ = plus_one.run(k, x)
    np.testing.assert_array_equal(y, x + np.float32(1))


@pytest.mark.parametrize("shape", [(1, 37, 5, 7), (130, 21, 1, 1), (2, 3, 9, 50)])
def test_softmax(shape):
    y, ref, _ = softmax.run(shape)
    assert contest.contest_ok(y, ref, softmax.TOL)[0]


@pytest.mark.parametrize("mkn", [(100, 200, 150), (3, 70, 300)])
def test_matmul_and_plan_estimate(mkn):
    y, ref, dev = matmul.run(*mkn)
    assert contest.contest_ok(y, ref, matmul.TOL)[0]
    assert matmul.estimate(*mkn) == dev.total_cycles


def test_matmul_k_tiling_with_result_add(monkeypatch):
    monkeypatch.setattr(matmul, "plan", lambda M, K, N: (4, 16, N, 1, 1))
    y, ref, _ = matmul.run(9, 40, 20)
    assert contest.contest_ok(y, ref, matmul.TOL)[0]


def test_conv2d_demo_case():
    shape, oc, win = conv2d.CASES[0]
    y, ref, _ = conv2d.run(shape, oc, win)
    assert contest.contest_ok(y, ref, conv2d.TOL)[0]


def test_depthwise_and_pool_with_row_tiles(monkeypatch):
    import spatial
    monkeypatch.setattr(spatial, "IN_BYTES", 2048)      # force several output-row tiles with halos
    win = Window(3, 3, (1, 2, 1, 0), (2, 1), (2, 1))
    y, ref, dev = depthwise.run((2, 70, 30, 17), win)
    assert contest.contest_ok(y, ref, depthwise.TOL)[0]
    assert sum(e.args["instruction"] == "DEPTHWISE_FP32" for e in dev.events) > 4
    y, ref, _ = pooling.run("max_pool2d", (1, 5, 30, 17), Window(3, 3, (1, 2, 1, 0), (2, 1)))
    np.testing.assert_array_equal(y, ref.astype(np.float32))
