"""Every example under examples/nki/ runs and checks itself against numpy (on every target)."""
import os
import runpy

import pytest

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "nki")
NAMES = sorted(f[:-3] for f in os.listdir(EXAMPLES) if f.endswith(".py"))


@pytest.mark.parametrize("target", ["trn1", "trn2", "trn3"])
@pytest.mark.parametrize("name", NAMES)
def test_example_matches_numpy(name, target):
    mod = runpy.run_path(os.path.join(EXAMPLES, name + ".py"), run_name="example")
    kwargs = {"shape": (512, 1024), "grid": 2} if name == "tensor_add_spmd" else {}   # keep the suite quick
    assert mod["main"](target=target, **kwargs)


def test_all_five_examples_exist():
    assert set(NAMES) >= {"tensor_add_spmd", "affine_rows", "normalize_rows", "quantize_int8", "bitmanip"}
