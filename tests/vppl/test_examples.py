"""The examples in examples/vppl run and check themselves against numpy (they assert)."""
import os
import runpy

import pytest

from npusim.cli import main as cli_main

EX = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "vppl")


@pytest.mark.parametrize("name", ["frame_diff", "topk", "dot"])
def test_example_script_checks_itself(name, capsys):
    runpy.run_path(os.path.join(EX, name + ".py"), run_name="__main__")
    assert "numpy agrees" in capsys.readouterr().out


@pytest.mark.parametrize("name", ["frame_diff", "topk", "dot"])
def test_example_vppl_runs_under_the_cli(name, capsys):
    assert cli_main(["vppl", os.path.join(EX, name + ".vppl")]) == 0


def test_demo_checks_pass():
    from npusim.vppl.demo import run
    checks = run()
    assert checks and all(c.ok for c in checks), [c for c in checks if not c.ok]
