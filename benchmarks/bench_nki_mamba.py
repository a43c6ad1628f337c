"""NKI: the fused Mamba tutorial's mamba_v1 (hand port to the current API, examples/nki/mamba_port.py)
end to end against numpy, its simulated latency beside AWS's published profile, and the simulator's
per-instruction overhead on a launch of thousands of instructions."""
import os
import runpy

from harness import Case
import npusim.nki as nki

_PORT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "nki", "mamba_port.py")
PUBLISHED_US, PUBLISHED_VECTOR = 172.93, 0.9871     # fused_mamba.rst: mamba_v1 at [1, 512, 256, 16]


def _mod():
    return runpy.run_path(_PORT, run_name="bench")


def published_rows():
    mod = _mod()
    rows = []
    for target in ("trn1", "trn2", "trn3"):
        us, busy, _ = mod["profile"](target)
        rows.append((target, us, busy))
    return rows


def per_instruction(channels=1024, seq_len=512):
    """(kernel callable, instructions per launch, numpy reference) for mamba_v1 at [1, seq_len, channels, 16]."""
    mod = _mod()
    args = mod["inputs"](channels=channels, seq_len=seq_len)
    kernel = nki.simulate(mod["mamba_v1"], target="trn2")
    kernel(*args)
    n = len(nki.last_run().trace.events)
    return (lambda: kernel(*args)), n, (lambda: mod["reference"](*args))


def cases():
    mod = _mod()
    args = mod["inputs"]()
    kernel = nki.simulate(mod["mamba_v1"], target="trn2")
    fn, n, ref = per_instruction()
    small, n_small, ref_small = per_instruction(seq_len=16)
    out = [Case("fused Mamba mamba_v1 [1, 512, 256, 16] fp32 (port of the tutorial), end to end",
                lambda: kernel(*args), numpy=lambda: mod["reference"](*args), repeats=3)]
    for target, us, busy in published_rows():
        out.append(Case(f"mamba_v1 simulated on {target}: {us:.1f} us, VectorE busy {100 * busy:.1f}% "
                        f"(AWS neuron-profile: {PUBLISHED_US} us, VectorE active {100 * PUBLISHED_VECTOR:.2f}%)",
                        lambda: None, repeats=1))
    out.append(Case(f"per instruction: mamba_v1 [1, 512, 1024, 16] on trn2, {n} instructions of 128x512 fp32 "
                    "tiles a launch", fn, numpy=ref, per=n, repeats=3))
    out.append(Case(f"per-instruction overhead: the same kernel at seq_len 16 ({n_small} instructions of "
                    "128x16 tiles: the numpy work is negligible)", small, numpy=ref_small, per=n_small,
                    target="<= 20 us per instruction", repeats=5))
    return out


if __name__ == "__main__":
    for r in published_rows():
        print(r)
