"""A small CNN in VPPL text (small_cnn.vppl) on a 128x128 image, checked layer by layer against float64
numpy within each layer's documented fixed-point bound (docs/vppl.md (part two)), and end to end.

    PYTHONPATH=src python examples/vppl/small_cnn.py
    PYTHONPATH=src python examples/vppl/small_cnn.py --write-inputs DIR    # files for the CLI, see below

The same text under the CLI, with the host's data from files (``--write-inputs`` writes them and prints
this line):

    npusim vppl examples/vppl/small_cnn.vppl --PINA DIR/image.npy --externs DIR/small_cnn_inputs.npz \
        --read pS=int32:10

The host side does what the vendor's loader would: it puts the F16Q12 weights into data memory, reserves
the activation blocks, binds the program's External pointers to them, and loads the image into buffer A.
"""
from __future__ import annotations

import os

import numpy as np

from npusim import vppl
from npusim.vppl.fixed_point import from_fixed, to_fixed
from npusim.vppl.ops_blas import pad_fpbl

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "small_cnn.vppl")
Q = 12
LSB = 2.0 ** -Q
C1 = C2 = 4
CLASSES = 10


def test_image(size: int = 128, seed: int = 0) -> np.ndarray:
    """A synthetic 8-bit scene: smooth gradients, a bright disc, a dark square, noise."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:size, 0:size] / size
    img = 90 + 60 * np.sin(6 * xx) * np.cos(4 * yy)
    img[(xx - 0.6) ** 2 + (yy - 0.4) ** 2 < 0.04] = 230
    img[int(size * 0.65):int(size * 0.85), int(size * 0.15):int(size * 0.35)] = 20
    return np.clip(img + rng.normal(0, 6, img.shape), 0, 255).astype(np.uint8)


def make_weights(seed: int = 1) -> dict:
    """F16Q12 raw weights (int16)."""
    rng = np.random.default_rng(seed)
    f = lambda a: to_fixed(a, Q)                                           # noqa: E731
    return {"W1": f(rng.normal(0, 0.2, (C1, 5, 5))), "B1": f(rng.uniform(-0.2, 0.2, C1)),
            "W2": f(rng.normal(0, 0.15, (C2, C1, 3, 3))), "B2": f(rng.uniform(-0.2, 0.2, C2)),
            "FW": f(rng.normal(0, 1 / 30, (CLASSES, C2 * 15 * 15))), "FB": f(rng.uniform(-0.1, 0.1, CLASSES))}


def host_arrays(w: dict) -> dict:
    """What each External pointer points at: the weights (padded FC layer) and zeroed activation blocks.
    The same dict, saved as an .npz, is what ``npusim vppl --externs`` binds."""
    fw, fb, _ = pad_fpbl(w["FW"], w["FB"])                                 # 16 x 928, the padding tool
    z16, z32 = (lambda n: np.zeros(n, np.int16)), (lambda n: np.zeros(n, np.int32))  # noqa: E731
    return {"pX": z16(128 * 128), "pW1": w["W1"], "pB1": w["B1"], "pC1": z16(C1 * 124 * 124),
            "pP1": z16(C1 * 62 * 62), "pW2": w["W2"], "pB2": w["B2"], "pT": z32(62 * 62),
            "pC2": z16(C2 * 62 * 62), "pP2": z16(C2 * 31 * 31), "pL": z16(C2 * 31 * 31),
            "pF": z16(928),                                                # zero padding 900 -> 928
            "pFW": fw, "pFB": fb, "pY": z16(16), "pS": z32(CLASSES)}


def setup(m: vppl.Machine, w: dict) -> dict:
    """Weights into DM, activation blocks reserved; returns the External bindings."""
    with vppl.using(m):
        return {k: vppl.dm_put(a, k) for k, a in host_arrays(w).items()}


def write_inputs(d: str) -> str:
    """Write the image and the External arrays for ``npusim vppl``; returns the command line."""
    os.makedirs(d, exist_ok=True)
    np.save(os.path.join(d, "image.npy"), test_image())
    np.savez(os.path.join(d, "small_cnn_inputs.npz"), **host_arrays(make_weights()))
    return (f"npusim vppl {SOURCE} --PINA {os.path.join(d, 'image.npy')} "
            f"--externs {os.path.join(d, 'small_cnn_inputs.npz')} --read pS=int32:{CLASSES}")


def run_vppl(image: np.ndarray, w: dict, m: vppl.Machine | None = None, source: str | None = None) -> dict:
    """Run small_cnn.vppl; returns every activation (raw integers) read back from DM."""
    m = m or vppl.Machine()
    if source is None:
        with open(SOURCE, encoding="utf-8") as f:
            source = f.read()
    ext = setup(m, w)
    vppl.run_with(source, machine=m, images={"A": image}, externals=ext, filename="small_cnn.vppl")
    with vppl.using(m):
        rd = vppl.dm_read
        return {"x": rd(ext["pX"], np.int16, 128 * 128, (128, 128)),
                "c1": rd(ext["pC1"], np.int16, C1 * 124 * 124, (C1, 124, 124)),
                "p1": rd(ext["pP1"], np.int16, C1 * 62 * 62, (C1, 62, 62)),
                "c2": rd(ext["pC2"], np.int16, C2 * 62 * 62, (C2, 62, 62)),
                "p2": rd(ext["pP2"], np.int16, C2 * 31 * 31, (C2, 31, 31)),
                "l": rd(ext["pL"], np.int16, C2 * 31 * 31, (C2, 31, 31)),
                "f": rd(ext["pF"], np.int16, 900),
                "y": rd(ext["pY"], np.int16, CLASSES),
                "s": rd(ext["pS"], np.int32, CLASSES), "machine": m}


# ------------------------------------------------------------------------ the same network, float64 numpy

def conv(x, w, pad):
    """x (Cin, H, W), w (Cout, Cin, k, k) -> (Cout, H', W'): k*k shifted tensor contractions."""
    k = w.shape[-1]
    if pad:
        x = np.pad(x, ((0, 0), (pad, pad), (pad, pad)))
    cin, h, wd = x.shape
    oh, ow = h - k + 1, wd - k + 1
    out = np.zeros((w.shape[0], oh, ow))
    for dy in range(k):
        for dx in range(k):
            out += np.tensordot(w[:, :, dy, dx], x[:, dy:dy + oh, dx:dx + ow], axes=(1, 0))
    return out


def pool2(x):
    c, h, w = x.shape
    h2, w2 = h // 2, w // 2
    return x[:, :2 * h2, :2 * w2].reshape(c, h2, 2, w2, 2).max(axis=(2, 4))


def box(a, k=5):
    p = (k - 1) // 2
    ap = np.pad(a, p)
    c = np.pad(ap.cumsum(0).cumsum(1), ((1, 0), (1, 0)))
    h, w = a.shape
    return c[k:k + h, k:k + w] - c[:h, k:k + w] - c[k:k + h, :w] + c[:h, :w]


def lcn(x, k=5):
    n = k * k * x.shape[0]
    v = x - box(x.sum(0), k)[None] / n
    sigma = np.sqrt(box((v * v).sum(0), k) / n)
    return v / np.maximum(sigma, sigma.mean())[None]


def softmax(z):
    e = np.exp(z - z.max())
    return e / e.sum()


def layers_float(x, wf):
    """The network in float64 on real values; returns each activation."""
    c1 = np.maximum(conv(x[None], wf["W1"][:, None], 0) + wf["B1"][:, None, None], 0)
    p1 = pool2(c1)
    c2 = np.maximum(conv(p1, wf["W2"], 1) + wf["B2"][:, None, None], 0)
    p2 = pool2(c2)
    l = lcn(p2)
    f = pool2(l).ravel()
    y = wf["FW"] @ f + wf["FB"]
    return {"c1": c1, "p1": p1, "c2": c2, "p2": p2, "l": l, "f": f, "y": y, "s": softmax(y)}


def real_weights(w):
    return {k: from_fixed(v, Q) for k, v in w.items()}


def numpy_network(image, w):
    return layers_float(image / 256.0, real_weights(w))["s"]


# ------------------------------------------------------------------------ the checks

def check(out: dict, image: np.ndarray, w: dict) -> dict:
    """Each layer from the simulator's own input, against float64, within its documented bound;
    returns the worst errors (in LSBs of each layer's output format)."""
    wf = real_weights(w)
    r = {k: v * LSB for k, v in out.items() if k not in ("s", "machine")}
    errs = {}
    assert np.array_equal(out["x"], image.astype(np.int16) << 4), "get_array: lossless p << (q-8)"
    c1 = np.maximum(conv(r["x"][None], wf["W1"][:, None], 0) + wf["B1"][:, None, None], 0)
    errs["conv1+relu"] = np.abs(r["c1"] - c1).max() / LSB
    assert errs["conv1+relu"] <= 0.5
    assert np.array_equal(out["p1"], pool2(out["c1"])), "max pooling is exact"
    c2 = np.maximum(conv(r["p1"], wf["W2"], 1) + wf["B2"][:, None, None], 0)
    errs["conv2+relu"] = np.abs(r["c2"] - c2).max() / LSB
    assert errs["conv2+relu"] <= 0.5
    assert np.array_equal(out["p2"], pool2(out["c2"]))
    n = 25 * C2
    v = r["p2"] - box(r["p2"].sum(0))[None] / n
    sigma = np.sqrt(box((v * v).sum(0)) / n)
    d = np.maximum(sigma, sigma.mean())
    l_ref = v / d[None]
    bound = 0.5 * LSB + (0.5 + 2 * np.abs(l_ref)) / (d[None] / LSB)
    errs["lcn (fraction of bound)"] = float((np.abs(r["l"] - l_ref) / bound).max())
    assert errs["lcn (fraction of bound)"] <= 1.0
    assert np.array_equal(out["f"], pool2(out["l"]).ravel())
    y = wf["FW"] @ r["f"] + wf["FB"]
    errs["fc"] = np.abs(r["y"] - y).max() / LSB
    assert errs["fc"] <= 0.5
    s = softmax(r["y"])
    errs["softmax (Q16 LSB)"] = np.abs(out["s"] / 65536.0 - s).max() * 65536
    assert errs["softmax (Q16 LSB)"] <= 1.0
    # end to end against float64 on the same weights: fixed-point error compounds through the layers
    ref = numpy_network(image, w)
    errs["end-to-end probability"] = float(np.abs(out["s"] / 65536.0 - ref).max())
    assert errs["end-to-end probability"] <= 0.02
    return errs


def main() -> None:
    image, w = test_image(), make_weights()
    out = run_vppl(image, w)
    errs = check(out, image, w)
    m = out["machine"]
    print("class probabilities (F32Q16):", np.round(out["s"] / 65536.0, 4).tolist())
    for k, v in errs.items():
        print(f"  {k:28s} {v:.4g}")
    print(f"simulated: {len(m.timeline.trace.events)} events, {m.cycles:,.0f} cycles "
          f"({m.cycles / m.freq_hz * 1e3:.2f} ms at {m.freq_hz / 1e6:.0f} MHz, estimate)")
    print("OK")


if __name__ == "__main__":
    import sys
    if sys.argv[1:2] == ["--write-inputs"]:
        print(write_inputs(sys.argv[2]))
    else:
        main()
