"""nl.loop_reduce (legacy API) with a mask and an x that is not a tile: a ConstraintError naming x (the
fuzz campaign found an AttributeError: the mask's shape check read x.shape)."""
import pytest

from npusim.core.errors import ConstraintError
from npusim.nki import run_context
from npusim.nki.legacy import language as lnl


@pytest.mark.parametrize("x", [1.5, 3, None, "tile"])
def test_a_masked_loop_reduce_of_a_non_tile_names_x(x):
    with run_context("trn1"):
        with pytest.raises(ConstraintError) as e:
            lnl.loop_reduce(x, op=lnl.multiply, loop_indices=(), mask=1 << 40)
    assert e.value.param == "x", str(e.value)
