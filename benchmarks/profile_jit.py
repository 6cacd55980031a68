"""Where a solve's time goes, down to the instruction: `perf` samples over the jitted kernels.

    python benchmarks/profile_jit.py harp 1-100000/500
    python benchmarks/profile_jit.py klondike-3 1-100000/250 --top 12 --context 16

numba's kernels are machine code in anonymous memory, so `perf report` shows them as bare
addresses.  This script solves the deals in a child process (the solver's defaults, no
polish, no replay), and after the warm-up the child writes out every executable anonymous
region of its memory; `perf record -p` samples it while it solves; then the samples are
reported: the share of each library ("[JIT]" for the kernels, libpython for the Python
side, the kernel for page faults), numba's reference counting (NRT_incref / NRT_decref,
found by their code: ``lock incq`` / ``lock decq`` on the count) as one line, and the
hottest JIT addresses with the instructions before each, disassembled by objdump (a load
just before a hot instruction is usually a cache miss).

What it found (twenty-eighth session): 21 % of harp's samples in the two reference-count
functions, which config.JIT_NORC then removed from the beams and depth-first searches; and
a fifth of klondike-3's on one load of the arrangement-free engine's table probe, which
the twenty-ninth session's prefetch (search/afree.py ``_ahead``) brought down to 2.5 %.

Needs `perf` (linux-perf) and objdump; on a machine without hardware counters perf samples
the CPU clock, which is what is wanted here.  Exit 1 if perf cannot record.
"""
from __future__ import annotations

import argparse
import collections
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The child: warm up, dump the executable anonymous regions, signal, wait, solve, exit.
CHILD = r"""
import ctypes, os, sys, time
sys.path.insert(0, sys.argv[1])
from harpsolve.deals import deal_layout
from harpsolve.rules import get_rules
from harpsolve.solver import solve, warm_up
variant, out = sys.argv[2], sys.argv[3]
deals = [int(d) for d in sys.argv[4].split(",")]
rules = get_rules(variant)
warm_up(rules, deal_layout(rules, deals[0]))
solve(variant, deals[0], verify=False, polish=False)
for line in open("/proc/self/maps"):
    f = line.split()
    if "x" in f[1] and len(f) < 6:  # executable, no file behind it: jitted code
        a, b = (int(x, 16) for x in f[0].split("-"))
        with open(os.path.join(out, f"jit_{a:x}.bin"), "wb") as fh:
            fh.write(ctypes.string_at(a, b - a))
open(os.path.join(out, "ready"), "w").close()
while not os.path.exists(os.path.join(out, "go")):
    time.sleep(0.05)
t0 = time.perf_counter()
for d in deals:
    solve(variant, d, verify=False, polish=False)
print(f"{len(deals)} deals in {time.perf_counter() - t0:.2f} s", flush=True)
"""

INCREF = bytes.fromhex("4885ff7404f048ff07c3")  # test rdi; je; lock incq (rdi); ret
DECREF = bytes.fromhex("4885ff7406f048ff0f")     # test rdi; je; lock decq (rdi); ...


def parse_deals(text: str) -> list[int]:
    from harpsolve.sweep.jobs import parse_every

    return parse_every(text)


def load_regions(folder: str) -> list[tuple[int, bytes]]:
    out = []
    for name in os.listdir(folder):
        if name.startswith("jit_"):
            with open(os.path.join(folder, name), "rb") as fh:
                out.append((int(name[4:-4], 16), fh.read()))
    return sorted(out)


def nrt_ranges(regions) -> list[tuple[int, int, str]]:
    """The address ranges of numba's NRT_incref / NRT_decref, found by their code."""
    found = []
    for base, code in regions:
        for pat, name, size in ((INCREF, "NRT_incref", 16), (DECREF, "NRT_decref", 16)):
            i = code.find(pat)
            if i >= 0:
                found.append((base + i, base + i + size, name))
    return found


def disassemble(regions, ip: int, before: int) -> list[str]:
    """objdump's lines for the ``before`` instructions up to and including ``ip``."""
    for base, code in regions:
        if base <= ip < base + len(code):
            lo = max(base, ip - 8 * before)
            with tempfile.NamedTemporaryFile(suffix=".bin") as fh:
                fh.write(code[lo - base:ip - base + 16])
                fh.flush()
                text = subprocess.run(["objdump", "-D", "-b", "binary", "-m", "i386:x86-64",
                                       f"--adjust-vma={lo:#x}", fh.name], capture_output=True, text=True).stdout
            lines = [ln for ln in text.splitlines() if ln.strip()[:1].isalnum() and ":\t" in ln]
            # a window decoded from an arbitrary start may begin mid-instruction: keep the tail
            idx = next((k for k, ln in enumerate(lines) if ln.strip().startswith(f"{ip:x}:")), len(lines) - 1)
            return lines[max(0, idx - before):idx + 1]
    return []


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("variant")
    ap.add_argument("deals", help="a deal range as sweep reads it, /K for every K-th deal: 1-100000/500")
    ap.add_argument("--repo", default=HERE, help="the checkout to profile [this one]")
    ap.add_argument("--freq", type=int, default=2000, help="samples a second [2000]")
    ap.add_argument("--top", type=int, default=8, help="hottest JIT addresses shown [8]")
    ap.add_argument("--context", type=int, default=10, help="instructions shown before each [10]")
    a = ap.parse_args(argv)
    for tool in ("perf", "objdump"):
        if shutil.which(tool) is None:
            print(f"profile_jit: {tool} is not installed", file=sys.stderr)
            return 1
    deals = parse_deals(a.deals)
    with tempfile.TemporaryDirectory() as tmp:
        child = subprocess.Popen([sys.executable, "-c", CHILD, os.path.abspath(a.repo), a.variant, tmp,
                                  ",".join(map(str, deals))], cwd=tempfile.gettempdir(),
                                 stdout=subprocess.PIPE, text=True)
        while not os.path.exists(os.path.join(tmp, "ready")):
            if child.poll() is not None:
                print("profile_jit: the solving process ended before its warm-up did", file=sys.stderr)
                return 1
            time.sleep(0.1)
        data = os.path.join(tmp, "perf.data")
        rec = subprocess.Popen(["perf", "record", "-F", str(a.freq), "-p", str(child.pid), "-o", data],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        time.sleep(1.0)  # perf attached before the clock
        open(os.path.join(tmp, "go"), "w").close()
        said = child.stdout.read().strip()
        child.wait()
        rec.wait()
        if rec.returncode != 0 or not os.path.exists(data):
            print(f"profile_jit: perf record failed: {rec.stderr.read().strip()[:300]}", file=sys.stderr)
            return 1
        script = subprocess.run(["perf", "script", "-i", data, "-F", "ip,sym,dso"], capture_output=True, text=True).stdout
        regions = load_regions(tmp)
        nrt = nrt_ranges(regions)
        samples = []
        for line in script.splitlines():
            f = line.split()
            if f:
                samples.append((int(f[0], 16), f[-1].strip("()")))
        total = len(samples)
        if not total:
            print("profile_jit: no samples", file=sys.stderr)
            return 1
        jit = lambda ip: any(b <= ip < b + len(c) for b, c in regions)  # noqa: E731
        by_dso = collections.Counter("[JIT]" if jit(ip) else os.path.basename(dso) for ip, dso in samples)
        in_nrt = collections.Counter(name for ip, _ in samples for lo, hi, name in nrt if lo <= ip < hi)
        hot = collections.Counter(ip for ip, _ in samples if jit(ip) and not any(lo <= ip < hi for lo, hi, _ in nrt))
        print(f"{a.variant} {a.deals}: {said}; {total} samples at {a.freq} Hz")
        print("\nshare by code:")
        for dso, n in by_dso.most_common(8):
            print(f"  {100 * n / total:5.1f} %  {dso}")
        print(f"\nnumba's reference counting: {100 * sum(in_nrt.values()) / total:.1f} % "
              f"({', '.join(f'{k} {100 * v / total:.1f} %' for k, v in in_nrt.items()) or 'not sampled'})")
        print("\nhottest JIT addresses (the instructions up to each):")
        for ip, n in hot.most_common(a.top):
            print(f"\n  {100 * n / total:5.1f} %  {ip:#x}")
            for ln in disassemble(regions, ip, a.context):
                print("     " + ln.strip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
