"""Example plans equal the simulated totals (audit findings 9 and 10): matmul.estimate and
spatial.plan_cycles cost the same instruction sequence the kernels issue, without computing."""
import os
import sys
import warnings

import pytest

EX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "okk")
sys.path.insert(0, EX)

import conv2d  # noqa: E402
import depthwise  # noqa: E402
import matmul  # noqa: E402
import pooling  # noqa: E402
import spatial  # noqa: E402
from spatial import Window  # noqa: E402


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


@pytest.mark.parametrize("mkn", [(2, 1280, 1000), (40, 2100, 70)])
def test_matmul_estimate_equals_simulated_total(mkn):
    _, _, dev = matmul.run(*mkn)
    assert matmul.estimate(*mkn) == dev.total_cycles


@pytest.mark.parametrize("shape,oc,win", [
    conv2d.CASES[0],
    ((1, 3, 23, 41), 70, Window(3, 3, (1, 1, 1, 1), (1, 4))),        # two OC tiles, IC 3 with stride_w 4
    ((2, 5, 12, 30), 8, Window(1, 2, (0, 0, 1, 0), (2, 7))),
])
def test_conv_plan_equals_simulated_total(shape, oc, win):
    _, _, _, dev = conv2d.simulate(shape, oc, win)
    assert conv2d.estimate(shape, oc, win) == dev.total_cycles


def test_depthwise_and_pool_plans_equal_simulated_totals():
    shape, win = (2, 70, 30, 17), Window(3, 3, (1, 1, 1, 1), (2, 2))
    _, _, dev = depthwise.run(shape, win)
    assert spatial.plan_cycles("depthwise2d", shape, win, 64 * 16) == dev.total_cycles
    shape, win = (1, 32, 1, 156), Window(1, 4, (0, 0, 1, 1), (1, 2))         # contest S1 avg_pool case 14
    _, _, dev = pooling.run("avg_pool2d", shape, win)
    assert spatial.plan_cycles("avg_pool2d", shape, win, 64 * 16) == dev.total_cycles


def test_conv2d_plan_flag_lists_the_15_contest_cases(capsys):
    assert conv2d.main(["--plan"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 15 and all("cycles" in s for s in lines)
    assert "case 12 (4, 1024, 10, 10) -> OC 546" in lines[12] and "1,839,578" in lines[12]


def test_pooling_s1_cases_are_the_contest_list():
    assert [c[0] for c in pooling.S1] == list(range(15))
    assert sum(why is None for *_, why in pooling.S1) == 9
