"""The on-chip allocator's addresses, evictions and capacity errors, pinned against a reference model.

Addresses decide which instructions conflict on the timeline, so they decide timing: every address
``nl.ndarray`` hands out must stay what the next-fit policy (alloc.py) gives. A random program of
allocations, drops and nested ``nl.affine_range`` loops runs through the real runtime, and an
independent model written here replays it: next fit from the cursor, first fit from the start when
that fails, and when nothing fits, the oldest lapsed loop tile (alive at the end of its iteration,
scope.py) is evicted and the request retried; with nothing left to evict the error lists the live blocks.
"""
import pytest
from hypothesis import given, settings, strategies as st

import npusim.nki.language as nl
from npusim.core.errors import ConstraintError
from npusim.nki.runtime import run_context
from npusim.nki.scope import Evicted


class Model:
    """Next fit over [0, capacity) with ``align``-aligned offsets, tiles that lapse, oldest-first eviction."""

    def __init__(self, capacity: int, align: int, label: str):
        self.capacity, self.align, self.label = capacity, align, label
        self.live = {}          # tile id -> (offset, size, name)
        self.cursor = 0
        self.high = 0
        self.lapsed = []        # tile ids, oldest first (freed ones are skipped when evicting)
        self.evicted = set()

    def _up(self, x: int) -> int:
        return (x + self.align - 1) // self.align * self.align

    def _fit_from(self, at: int, size: int):
        """The first aligned offset >= at where ``size`` bytes meet no live block, or None past the end."""
        at = self._up(at)
        for off, sz, _ in sorted(self.live.values()):
            if off + sz <= at:
                continue
            if at + size <= off:
                break
            at = self._up(off + sz)
        return at if at + size <= self.capacity else None

    def alloc(self, tid, size: int, name: str):
        while True:
            at = self._fit_from(self.cursor, size)
            if at is None:
                at = self._fit_from(0, size)
            if at is not None:
                self.live[tid] = (at, size, name)
                self.cursor = at + size
                self.high = max(self.high, at + size)
                return at
            while self.lapsed and self.lapsed[0] not in self.live:
                self.lapsed.pop(0)
            if not self.lapsed:
                blocks = ", ".join(f"{n}@{o:#x}+{s}" for o, s, n in sorted(self.live.values())) or "nothing"
                used = sum(s for _, s, _ in self.live.values())
                return (f"nl.ndarray: parameter 'size' breaks the rule \"{self.label} holds at most "
                        f"{self.capacity} bytes ({used} in use: {blocks})\" (got '{name} of {size} bytes')")
            victim = self.lapsed.pop(0)
            del self.live[victim]
            self.evicted.add(victim)

    def free(self, tid) -> None:
        self.live.pop(tid, None)       # (an evicted tile's bytes went already)


#: a program: a list of ops; ("alloc", slot, buffer, free elements), ("drop", slot), ("loop", n, body)
_alloc = st.tuples(st.just("alloc"), st.integers(0, 5), st.sampled_from(["sbuf", "sbuf", "sbuf", "psum"]),
                   st.sampled_from([1, 3, 16, 100, 512, 4000, 20000, 40000]))
_drop = st.tuples(st.just("drop"), st.integers(0, 5))
_ops = st.recursive(st.lists(st.one_of(_alloc, _alloc, _drop), max_size=6),
                    lambda body: st.lists(st.one_of(_alloc, _drop, st.tuples(st.just("loop"), st.integers(1, 3),
                                                                              body)), max_size=6),
                    max_leaves=30)


def _run(program, target="trn2"):
    """Run ``program`` for real and in the model; (real events, model events) to compare."""
    real, want = [], []
    with run_context(target) as run:
        chip = run.chip
        models = {"sbuf": Model(chip.sbuf_usable, 4, run.alloc[nl.sbuf].name),
                  "psum": Model(chip.psum_bytes, chip.psum_bank_bytes, run.alloc[nl.psum].name)}
        slots = {}              # slot -> real tile; the model's view: slot -> (buffer, tile id)
        mslots = {}
        scopes = [[]]           # model: tile ids allocated in each open iteration, innermost last
        counter = iter(range(10 ** 6))

        def play(ops):
            for op in ops:
                if op[0] == "alloc":
                    _, slot, buf, n = op
                    if buf == "psum":
                        n = min(n, 512)             # a PSUM tile stays inside one 2 KiB bank
                    tid = next(counter)
                    shape = (128, n)
                    name = f"{'sbuf' if buf == 'sbuf' else 'psum'}[{shape}]"
                    got = models[buf].alloc(tid, 4 * n, name)
                    want.append(got)
                    try:
                        t = nl.ndarray(shape, nl.float32, buffer=getattr(nl, buf))
                    except ConstraintError as e:
                        real.append(str(e))
                        continue
                    real.append(t.tv.offset)
                    scopes[-1].append((buf, tid))
                    old = mslots.get(slot)
                    slots[slot] = t             # the slot's previous tile dies here
                    del t
                    mslots[slot] = (buf, tid)
                    if old is not None:
                        models[old[0]].free(old[1])
                elif op[0] == "drop":
                    slots.pop(op[1], None)
                    old = mslots.pop(op[1], None)
                    if old is not None:
                        models[old[0]].free(old[1])
                else:
                    for _ in nl.affine_range(op[1]):
                        scopes.append([])
                        play(op[2])
                        for buf, tid in scopes.pop():      # the iteration ends: its live tiles lapse
                            if tid in models[buf].live:
                                models[buf].lapsed.append(tid)
                real.append(("peaks", run.peak[nl.sbuf], run.peak[nl.psum]))
                want.append(("peaks", models["sbuf"].high, models["psum"].high))

        play(program)
        # the tiles still held: which ones a later allocation evicted
        real.append(("evicted", sorted(s for s, t in slots.items() if isinstance(t.scope, Evicted))))
        want.append(("evicted", sorted(s for s, (buf, tid) in mslots.items() if tid in models[buf].evicted)))
    return real, want


@settings(max_examples=150, deadline=None)
@given(_ops)
def test_addresses_evictions_and_errors_match_the_model(program):
    real, want = _run(program)
    assert real == want


@pytest.mark.parametrize("target", ["trn1", "trn2", "trn3"])
def test_a_mamba_like_loop_matches_the_model(target):
    # the Mamba kernel's shape of work: per (state, tile) iteration a handful of small tiles rebinding the
    # same names, accumulators made before the loop; enough iterations to wrap the cursor around SBUF
    body = [("alloc", 0, "sbuf", 16), ("alloc", 1, "sbuf", 1), ("alloc", 2, "sbuf", 16),
            ("alloc", 3, "sbuf", 16), ("alloc", 4, "psum", 16), ("alloc", 5, "sbuf", 16)]
    program = [("alloc", 0, "sbuf", 16), ("loop", 3, [("loop", 3, [("loop", 3, [("loop", 3, body)])])]),
               ("loop", 2, [("alloc", 3, "sbuf", 40000), ("alloc", 4, "sbuf", 40000)])]
    real, want = _run(program, target)
    assert real == want
    assert real[-1] != ("evicted", [])      # the large tiles forced evictions of lapsed ones


def test_a_full_buffer_names_every_live_block_like_the_model():
    program = [("alloc", 0, "sbuf", 40000), ("alloc", 1, "sbuf", 20000), ("alloc", 2, "sbuf", 4000)]
    real, want = _run(program)
    assert real == want
    assert isinstance(real[2], str) and "sbuf[(128, 40000)]@0x0+160000" in real[2]
