"""Cycle costs, anchored to msKPP's measured 910B1 tables (../shared/reference/ascendc_costs.md §3).

Vector instruction: ``max(L, s * repeats)`` cycles (issue 7's formula), per-family ``(L, s)``; slow families
have their own closed forms. A cycle count is the §3 fit rounded to the nearest whole cycle, which is also
the measured row rounded: the fits' 0.03 constant is the measurement's own overhead, not a cycle. Copies: the two-regime latency/bandwidth fits of §3, with a chip-wide GM
bandwidth cap shared by the cores that run at once. What msKPP leaves out and the docs define (bank
groups, 1-cycle mask/flag instructions) is added here; every constant is cited in docs/ascendc.md.
"""
from __future__ import annotations

import math

L_DEFAULT = 3          # minimum cycles of any vector instruction (§3, "L = 3")
FIT_C = 0.03           # constant term of every §3 fit
SCALAR_CYCLES = 1      # GetValue/SetValue on PIPE_S (assumption: msKPP has no scalar cost)
MASK_CYCLES = 1        # SetMaskCount/SetVectorMask/ResetMask/SetMaskNorm (ascendc.md §1.4)
FLAG_CYCLES = 1        # SetFlag / WaitFlag each (msKPP sync_instruction.py, costs §1.3)
BARRIER_CYCLES = 1     # PipeBarrier issue slot (assumption; msKPP has no pipe_barrier)
MAX_REPEAT = 255       # one instruction's repeat limit; a longer Normal-mode split pays L again

# family -> (L, s): s cycles per repeat (costs §3 table rows).
TWO_SOURCE = (3, 2)    # Add, Sub, Mul, Max, Min, AddRelu, SubRelu, AddReluCast, SubReluCast, And, Or, Compare, Select
ONE_SOURCE = (3, 1)    # Adds, Muls, Maxs, Mins, LeakyRelu, Abs, Relu, Rsqrt, Reciprocal, Duplicate, Cast, Not, Shift*


def _nearest(x: float) -> int:
    return math.floor(x + 0.5)


def _fit(L: float, s: float, r: int) -> int:
    return _nearest(max(L, s * r) + FIT_C)


def vector_cycles(kind: str, repeats: int, dtype_name: str = "", bank_factor: int = 1) -> int:
    """Cycles of one vector instruction of ``repeats`` repeats. ``bank_factor``: cycles per repeat the
    UB bank-group layout forces (1 = conflict free, up to 8), applied when worse than the fit's s."""
    r = max(int(repeats), 0)
    if r == 0:
        return 0
    f16 = dtype_name == "float16"
    if kind == "div":
        per, c = 4.0, (4.07 if f16 else FIT_C)                    # VDIV f16 4r+4.07, f32 4r+0.03
        return _nearest(max(per, bank_factor) * r + c)
    if kind == "exp_ln":
        if f16:
            return _nearest(max(3.89, bank_factor) * r + 0.07)    # VEXP/VLN f16 3.89r+0.07
        return _fit(3, max(2, bank_factor), r)                    # f32 joins the two-source family
    if kind == "sqrt":
        if f16:
            return _nearest(max(4, bank_factor) * r + FIT_C)      # VSQRT f16 4r+0.03
        return _fit(3, max(2, bank_factor), r)
    if kind == "reduce_sum":
        per = 7 if f16 else 3                                     # VCADD f16 7r, f32 3r+0.05
        return _nearest(per * r + (FIT_C if f16 else 0.05))
    if kind == "reduce_maxmin":
        return _nearest(7 * r + FIT_C)                            # VCMAX/VCMIN 7r+0.03
    L, s = TWO_SOURCE if kind == "two" else ONE_SOURCE
    return _fit(L, max(s, bank_factor), r)


def bank_factor(read_addrs, write_addrs) -> int:
    """Cycles per repeat forced by bank groups: per cycle the vector unit reads (or writes) one 32 B row
    per bank group on 2201, ``bank_group = (addr // 32) % 16`` (ascendc.md §7), so a repeat needs as many
    cycles as the busiest group has source blocks (all sources together) or destination blocks.
    ``read_addrs`` / ``write_addrs``: the first repeat's block start addresses."""
    worst = 1
    for addrs in (read_addrs, write_addrs):
        groups: dict[int, int] = {}
        for a in addrs:
            g = (a // 32) % 16
            groups[g] = groups.get(g, 0) + 1
        worst = max(worst, max(groups.values(), default=1))
    # Read-write conflict: a read row and a write row in the same bank (``16 * (addr // 65536) + group``,
    # ascendc.md §7) cannot share a cycle, so that bank needs reads + writes cycles. A row read and written
    # back in place is one access stream (the documented in-place use), so such rows are not counted twice.
    reads: dict[int, set] = {}
    for a in read_addrs:
        reads.setdefault(bank_of(a), set()).add(a // 32)
    writes: dict[int, set] = {}
    for a in write_addrs:
        writes.setdefault(bank_of(a), set()).add(a // 32)
    for b, w in writes.items():
        r = reads.get(b)
        if r and w - r:
            worst = max(worst, len(r) + len(w - r))
    return worst


def bank_of(addr: int) -> int:
    """UB bank of a byte address on 2201: 48 banks = 16 groups x 3 (64 KiB each), ascendc.md §7 (derived
    mapping that fits every doc example)."""
    return 16 * (addr // 65536) + (addr // 32) % 16


# ---- data movement (costs §3, "Data movement, before msKPP's cache scaling") ----
GM_TO_UB_LAT, GM_TO_UB_BW_LAT, GM_TO_UB_PEAK = 240.2, 81.9, 45.19     # cycles, B/cycle, B/cycle
UB_TO_GM_LAT, UB_TO_GM_BW_LAT, UB_TO_GM_PEAK = 143.0, 91.8, 63.76


def copy_cycles(direction: str, nbytes: int, chip_bytes_per_cycle: float | None = None,
                active_cores: int = 1) -> int:
    """GM->UB (``"in"``) or UB->GM (``"out"``) copy of ``nbytes``. With a chip-wide GM bandwidth, the
    cores that run at once share it: a core's stream rate is at most chip / active_cores."""
    if nbytes <= 0:
        return 0
    lat, bw_lat, peak = ((GM_TO_UB_LAT, GM_TO_UB_BW_LAT, GM_TO_UB_PEAK) if direction == "in"
                         else (UB_TO_GM_LAT, UB_TO_GM_BW_LAT, UB_TO_GM_PEAK))
    if chip_bytes_per_cycle:
        share = chip_bytes_per_cycle / max(active_cores, 1)
        peak = min(peak, share)
        bw_lat = min(bw_lat, share)
    return math.ceil(max(lat + nbytes / bw_lat, nbytes / peak))
