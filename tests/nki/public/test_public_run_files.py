"""`npusim run kernel.py` on published kernel files as they are: their own __main__ drivers (numpy
inputs, their own numpy check and assert) run through the compat import aliases."""
import pathlib

import pytest

from npusim.cli import main
from npusim.nki import compat

KERNELS = pathlib.Path(__file__).parent / "kernels"


@pytest.mark.parametrize("filename, says", [
    ("tensor_addition_nki_kernels.py", "NKI and NumPy match"),
    ("transpose2d_nki_kernels.py", "NKI and NumPy match"),
    ("average_pool2d_nki_kernels.py", "NKI and NumPy match"),
    ("rmsnorm_nki_kernels.py", "NKI and NumPy match"),
    ("spmd_multiple_nc_tensor_addition_nki_kernels.py", "NKI and NumPy match"),   # imports its sibling
])
def test_published_main_runs_unchanged(filename, says, capsys):
    compat.uninstall()
    assert main(["run", str(KERNELS / filename)]) == 0
    out = capsys.readouterr().out
    assert says in out and "simulated" in out
