"""NKI examples of aws-neuron/aws-neuron-sdk (nki/examples), unchanged on trn1/trn2/trn3: the current-API
tensor add and `nki.simulate` quick start, and the legacy SPMD `nisa.nc_matmul` example."""
import runpy

import ml_dtypes
import numpy as np

import npusim.nki as current_nki
from npusim.nki import compat

import pathlib

KERNELS = pathlib.Path(__file__).parent / "kernels"


def test_tensor_add_current_api(target, kernels, monkeypatch):
    k = kernels("sdk_tensor_addition_nki_kernels.py")
    # the file sets NEURON_PLATFORM_TARGET_OVERRIDE=trn1 when imported; the driver picks the chip after it
    monkeypatch.setenv("NEURON_PLATFORM_TARGET_OVERRIDE", target)
    rng = np.random.default_rng(11)
    a = rng.random((256, 1024)).astype(np.float32)
    b = rng.random((256, 1024)).astype(np.float32)
    np.testing.assert_array_equal(k.nki_tensor_add(a, b), a + b)
    assert current_nki.last_run().chip.name == target


def test_simulate_quick_start_runs_as_a_script(target):
    # the example runs nki.simulate and asserts allclose(rtol=1e-5) itself, at import
    compat.install()
    runpy.run_path(str(KERNELS / "nki_simulate_example.py"), run_name="__main__")
    assert current_nki.last_run().chip.name == target


def test_matmul_spmd_legacy(target, kernels):
    k = kernels("mm_nisa_spmd.py")
    rng = np.random.default_rng(12)
    a_t = rng.random((128, 512)).astype(ml_dtypes.bfloat16)
    b = rng.random((128, 1024)).astype(ml_dtypes.bfloat16)
    out = k.matmul_128x128x512_spmd[4, 2](a_t, b)        # the example's grid
    want = a_t.astype(np.float64).T @ b.astype(np.float64)
    assert out.dtype == ml_dtypes.bfloat16
    np.testing.assert_allclose(out.astype(np.float64), want, atol=1e-4, rtol=1e-2)
