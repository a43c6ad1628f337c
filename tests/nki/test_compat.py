"""npusim.nki.compat: `import nki` / `import neuronxcc.nki` resolve to npusim's current / legacy API, never
shadow a real installed package unless forced, and `npusim run` installs them."""
import importlib
import sys

import pytest

import npusim.nki
import npusim.nki.legacy
from npusim.cli import main
from npusim.nki import compat


@pytest.fixture
def clean():
    compat.uninstall()
    yield
    compat.uninstall()


def test_aliases_resolve_to_both_apis(clean):
    assert compat.install() == {"nki", "neuronxcc"}
    import nki
    import nki.isa as nisa
    import nki.language as nl
    import nki.typing as nt
    import neuronxcc.nki as lnki
    import neuronxcc.nki.isa as lnisa
    import neuronxcc.nki.language as lnl
    from neuronxcc.nki.typing import tensor
    from neuronxcc import nki as lnki2
    assert nki is npusim.nki and nl is npusim.nki.language and nisa is npusim.nki.isa
    assert nt is importlib.import_module("npusim.nki.typing")
    assert lnki is npusim.nki.legacy is lnki2 and lnl is npusim.nki.legacy.language
    assert lnisa is npusim.nki.legacy.isa and tensor[128, 512].params == (128, 512)
    assert npusim.nki.__spec__.name == "npusim.nki"       # the alias does not rename the module


def test_uninstall_removes_the_aliases(clean):
    compat.install()
    import nki  # noqa: F401
    compat.uninstall()
    assert "nki" not in sys.modules
    with pytest.raises(ImportError):
        import neuronxcc.nki  # noqa: F401


def test_a_real_package_is_not_shadowed_unless_forced(clean, tmp_path, monkeypatch):
    pkg = tmp_path / "neuronxcc"
    (pkg / "nki").mkdir(parents=True)
    (pkg / "__init__.py").write_text("REAL = True\n")
    (pkg / "nki" / "__init__.py").write_text("REAL = True\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert compat.install() == {"nki"}          # neuronxcc is a real installed package
    import neuronxcc.nki
    assert neuronxcc.nki.REAL
    compat.uninstall()
    for name in ("neuronxcc", "neuronxcc.nki"):
        sys.modules.pop(name, None)
    assert compat.install(force=True) == {"nki", "neuronxcc"}
    import neuronxcc.nki as forced
    assert forced is npusim.nki.legacy
    for name in ("neuronxcc", "neuronxcc.nki"):
        sys.modules.pop(name, None)


def test_a_namespace_directory_is_not_a_real_package(clean, tmp_path, monkeypatch):
    (tmp_path / "nki").mkdir()              # e.g. a repository's tests/nki on sys.path
    monkeypatch.syspath_prepend(str(tmp_path))
    assert not compat.real_package("nki")
    assert "nki" in compat.install()
    import nki
    assert nki is npusim.nki


def test_npusim_run_installs_the_aliases(clean, tmp_path, capsys):
    script = tmp_path / "legacy_kernel.py"
    script.write_text(
        "import numpy as np\n"
        "import neuronxcc.nki as nki\n"
        "import neuronxcc.nki.language as nl\n"
        "@nki.jit\n"
        "def k(a):\n"
        "    out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)\n"
        "    ix, iy = nl.arange(128)[:, None], nl.arange(64)[None, :]\n"
        "    nl.store(out[ix, iy], nl.load(a[ix, iy]) * 2.0)\n"
        "    return out\n"
        "a = np.ones((128, 64), np.float32)\n"
        "print('doubled', bool((k(a) == 2).all()))\n")
    assert main(["run", str(script)]) == 0
    assert "doubled True" in capsys.readouterr().out
