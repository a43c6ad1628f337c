"""The README's Python snippets run as written (the tour of each target must not rot)."""
import os
import re

import numpy as np

README = os.path.join(os.path.dirname(__file__), "..", "..", "README.md")


def test_readme_python_blocks_run_and_compute_what_they_say():
    blocks = re.findall(r"```python\n(.*?)```", open(README, encoding="utf-8").read(), re.S)
    # the profile and sweep blocks have '...' bodies (tests/sweep runs the sweep API)
    tours = [b for b in blocks if "npusim.profile()" not in b and "npusim.sweep(" not in b]
    assert len(tours) >= 4
    okk, nki, asc, vppl = ({} for _ in range(4))
    for block, ns in zip(tours, (okk, nki, asc, vppl)):
        exec(compile(block, "README.md", "exec"), ns)
    assert np.max(np.abs(okk["y"] - np.exp(okk["x"])) / np.exp(okk["x"])) < 1e-6
    assert nki["y"].shape == (128, 512) and np.all(nki["y"] == 0.0)       # sub_one on ones
    want = np.clip(np.rint(asc["x"].astype(np.float64) + 0.5), -128, 127).astype(np.int8)
    assert np.array_equal(asc["z"], want)
    assert np.asarray(vppl["v"]).tolist() == [55, 99, 33] + [10] * 29    # min_IW
