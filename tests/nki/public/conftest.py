"""Public NKI kernels (tests/nki/public/kernels/*.py, verbatim with their repository/path/commit header)
run through npusim.nki.compat's import aliases: `import nki` and `import neuronxcc.nki` as published."""
import importlib.util
import pathlib
import sys

import pytest

from npusim.nki import compat

KERNELS = pathlib.Path(__file__).parent / "kernels"
TARGETS = ["trn1", "trn2", "trn3"]
_loaded = {}


def load_kernels(filename: str):
    """Import a kernel file as published (its own imports resolved by compat.install())."""
    if filename not in _loaded:
        compat.install()
        if str(KERNELS) not in sys.path:
            sys.path.append(str(KERNELS))      # kernel files import their published siblings by name
        path = KERNELS / filename
        spec = importlib.util.spec_from_file_location(f"nki_public_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _loaded[filename] = module
    return _loaded[filename]


@pytest.fixture(params=TARGETS)
def target(request, monkeypatch):
    """Each public kernel runs unchanged on every chip: the target comes from the environment, as the
    official simulator's NEURON_PLATFORM_TARGET_OVERRIDE."""
    monkeypatch.setenv("NEURON_PLATFORM_TARGET_OVERRIDE", request.param)
    return request.param


@pytest.fixture
def kernels():
    """``kernels("file.py")``: the published kernel module (imported once per session)."""
    return load_kernels
