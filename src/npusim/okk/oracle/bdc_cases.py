"""Random cases of the seed-000 FP32 unary functions, as oracle programs (shared by tests and benches)."""

from __future__ import annotations

import numpy as np

from .programs import Builder, aligned_strides, fp32_mix, local_span, npus_touched

# function -> (argument form, value domain (lo, hi, log-uniform?), takes num_series)
FUNCTIONS = {
    "okk_bdc_rsqrt": ("plain", (1e-30, 1e30, True), False),
    "okk_bdc_sqrt": ("plain", (1e-30, 1e30, True), False),
    "okk_bdc_taylor_exp": ("plain", (-2.0, 2.0, False), True),
    "okk_bdc_lookup_exp": ("int", None, False),
    "okk_bdc_exp": ("work", (-103.0, 88.0, False), False),
    "okk_bdc_exp_tunable": ("work", (-103.0, 88.0, False), True),
    "okk_bdc_sigmoid": ("work", (-88.0, 103.0, False), False),
    "okk_bdc_sigmoid_tunable": ("work", (-88.0, 103.0, False), True),
    "okk_bdc_tanh": ("work", (-103.0, 88.0, False), False),
    "okk_bdc_tanh_tunable": ("work", (-103.0, 88.0, False), True),
    "okk_bdc_reciprocal": ("strided", (1e-38, 1e38, True), False),
    "okk_bdc_neg": ("strided", (1e-38, 1e38, True), False),
}


def _round(x: int, a: int = 128) -> int:
    return -(-x // a) * a


def random_shape(rng) -> tuple[int, int, int, int]:
    kind = rng.random()
    if kind < 0.7:   # small: the many-case bulk
        return (int(rng.integers(1, 3)), int(rng.integers(1, 70)), int(rng.integers(1, 4)), int(rng.integers(1, 24)))
    if kind < 0.85:  # many channels (several rows per NPU)
        return (1, int(rng.integers(60, 300)), int(rng.integers(1, 3)), int(rng.integers(1, 12)))
    # long rows (h*w beyond one 32-lane line, odd sizes)
    return (1, int(rng.integers(1, 66)), int(rng.integers(1, 9)), int(rng.integers(30, 120)))


def random_strides(rng, q: int, shape, src: bool):
    """None (the default aligned layout), or explicit strides: gaps, w-strides 0-3, broadcast."""
    n, c, h, w = shape
    rows = -(-(q + c) // 64)
    k = rng.random()
    if k < 0.3:
        return None
    # BDC strides have no w == 1 rule (seed 000 only says NULL means the aligned layout)
    ws = int(rng.choice([1, 1, 1, 2, 3] + ([0] if src else [])))
    hs = w * max(ws, 1) + int(rng.integers(0, 3)) if h > 1 else int(rng.integers(0, 50))
    cs = h * max(hs, w * max(ws, 1)) + int(rng.integers(0, 40))
    if src and k > 0.85:             # broadcasting through zero strides (reads only)
        hs = 0 if rng.random() < 0.5 else hs
        cs = 0 if rng.random() < 0.5 else cs
    ns = rows * max(cs, h * hs + w * max(ws, 1)) + int(rng.integers(0, 40))
    if src and k > 0.95:
        ns = 0
    return (ns, cs, hs, ws)


def _effective(q, shape, st):
    return aligned_strides(q, shape) if st is None else st


def _int_mix(rng, size):
    v = rng.integers(-300, 300, size).astype(np.int64)
    r = rng.random(size)
    v[r < 0.2] = rng.integers(-2**31, 2**31, int((r < 0.2).sum()))
    return v.astype(np.int32).view(np.float32)


def add_case(b: Builder, rng, func: str, tag: str, variant: str = "domain") -> dict:
    """Append one random call of ``func`` with its set-up and read-back; return its description.

    Variants: ``domain`` (out of place, default layout, values of the documented domain plus edge
    values), ``negative`` (the same with the sign bit set: outside the domain of the roots),
    ``inplace`` (dst == src), ``strided`` (explicit strides; reciprocal and neg only)."""
    form, dom, tunable = FUNCTIONS[func]
    shape = random_shape(rng)
    q = int(rng.integers(0, 64))
    npus = npus_touched(q, shape[1])
    case = {"func": func, "shape": shape, "q": q}
    if form == "strided" and variant == "strided":
        dst_st = random_strides(rng, q, shape, src=False)
        src_st = random_strides(rng, q, shape, src=True)
        spans = [local_span(q, shape, _effective(q, shape, s)) for s in (dst_st, src_st)]
        align = 128 if (dst_st is None or src_st is None) and rng.random() < 0.5 else 4
        base = int(rng.integers(0, 32)) * 4 if align == 4 else 0
        dst_r = base
        src_r = _round(dst_r + spans[0]) + (int(rng.integers(0, 32)) * 4 if align == 4 else 0)
        regions = {"dst": (dst_r, spans[0]), "src": (src_r, spans[1])}
        args = (q * 0x80000 + dst_r, q * 0x80000 + src_r, shape, dst_st, src_st)
        case.update(dst_stride=dst_st, src_stride=src_st)
    elif form == "strided":           # NULL strides: the 128-byte aligned layout
        span = local_span(q, shape, aligned_strides(q, shape))
        step = _round(span)
        in_place = variant == "inplace"
        src_r, dst_r = 0, (0 if in_place else step)
        regions = {"src": (src_r, span)} if in_place else {"src": (src_r, span), "dst": (dst_r, span)}
        args = (q * 0x80000 + dst_r, q * 0x80000 + src_r, shape, None, None)
        case["in_place"] = in_place
    else:
        span = local_span(q, shape, aligned_strides(q, shape))
        step = _round(span)
        in_place = variant == "inplace"
        src_r, dst_r, work_r = 0, (0 if in_place else step), 2 * step
        regions = {"src": (src_r, span)} if in_place else {"src": (src_r, span), "dst": (dst_r, span)}
        if form == "work":
            regions["work"] = (work_r, span)
        args = [q * 0x80000 + dst_r, q * 0x80000 + src_r]
        if form == "work":
            args.append(q * 0x80000 + work_r)
        args.append(shape)
        if tunable:
            args.append(int(rng.integers(1, 65)))
        args = tuple(args)
        case["in_place"] = in_place
    if 3 * max(s for _, s in regions.values()) + 512 > 0x80000:
        return add_case(b, rng, func, tag, variant)
    for name, (r, span) in regions.items():
        count = span // 4
        if name == "src":
            if form == "int":
                vals = _int_mix(rng, len(npus) * count)
            else:
                vals = fp32_mix(rng, len(npus) * count, *dom)
                if variant == "negative":
                    vals = (vals.view(np.uint32) | np.uint32(0x80000000)).view(np.float32)
                elif dom[2] and func in ("okk_bdc_rsqrt", "okk_bdc_sqrt"):
                    vals = (vals.view(np.uint32) & np.uint32(0x7FFFFFFF)).view(np.float32)
        else:                         # destination and work: random bits, so every write shows
            vals = rng.integers(0, 1 << 32, len(npus) * count, dtype=np.uint64).astype(np.uint32)
        b.write_local_span(q, r, span, npus, np.asarray(vals).view(np.uint8).reshape(len(npus), span))
    b.call(func, *args)
    for name, (r, span) in regions.items():
        b.read_local_span(r, span, npus, f"{tag} {func}{args} {name}")
        case.setdefault("reads", []).append(name)
    case["args"] = args
    return case
