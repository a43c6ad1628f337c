import os
import shutil

import pytest

needs_gxx = pytest.mark.skipif(shutil.which((os.environ.get("CXX") or "g++").split()[0]) is None,
                               reason="no C++ compiler (g++ or $CXX): the .cpp route needs one")


@pytest.fixture(autouse=True, scope="session")
def _cache_outside_repo(tmp_path_factory):
    """Compiled kernels go to the user's cache unless NPUSIM_CACHE says otherwise (kept across runs)."""
    yield
