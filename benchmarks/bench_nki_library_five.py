"""NKI: the nki-library kernels of Part five (tests/nki/public/nkilib, verbatim) end to end on trn2 against
numpy doing the same math (issue 15: "wall time of each public kernel vs numpy"): the rotational top-K
(nc_n_gather; needs scipy, the ``nkilib`` extra, which its utils import: without it that case is left out)
and the newer cumsum (tensor_scalar_cumulative)."""
import os
import sys

import numpy as np

from harness import Case
import npusim.nki as nki

_PUBLIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "nki", "public")
sys.path.insert(0, _PUBLIC)
from nkilib_loader import load  # noqa: E402


def _topk(batch=64, vocab=8192, k=64, lnc=2):
    import npusim.nki.language as nl
    mod = load("core.topk.rotational_topk")
    x = np.random.default_rng(0).standard_normal((batch, vocab)).astype(np.float32)
    tc = mod.create_topk_config(inp_shape=x.shape, inp_dtype=nl.float32, k=k, sorted=True, num_programs=lnc)
    cfg = mod.prepare_rotational_constants(mod.create_rotational_topk_config(inp_shape=x.shape, topk_config=tc))
    kern = nki.simulate(mod.rotational_topk[cfg.n_prgs], target="trn2")
    return Case(f"nki-library rotational_topk [{batch}, {vocab}] k={k} fp32, LNC2 (max8 / nc_match_replace8 / "
                f"nc_n_gather, {cfg.n_stages} stages)",
                lambda: kern(inp=x, config=cfg), numpy=lambda: -np.sort(-x, axis=1)[:, :k], repeats=3)


def _cumsum_v2():
    mod = load("core.cumsum.cumsum_092a49d")
    x = np.random.default_rng(1).standard_normal((512, 4096)).astype(np.float32)
    kern = nki.simulate(mod.cumsum, target="trn2")
    return Case("nki-library cumsum @092a49d 512x4096 fp32 (tensor_scalar_cumulative, load_reduce carry)",
                lambda: kern(x), numpy=lambda: np.cumsum(x, axis=-1), repeats=3)


def cases():
    out = [_cumsum_v2()]
    try:
        import scipy  # noqa: F401
    except ImportError:
        return out
    return [_topk()] + out
