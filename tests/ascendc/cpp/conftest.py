"""The .cpp route needs a C++ compiler; its tests skip with a reason when there is none. Compiled kernels go
to npusim's cache ($NPUSIM_CACHE or ~/.cache/npusim), so later runs skip the compile."""
import os
import shutil

import pytest

needs_gxx = pytest.mark.skipif(shutil.which((os.environ.get("CXX") or "g++").split()[0]) is None,
                               reason="no C++ compiler (g++ or $CXX): the .cpp route needs one")
