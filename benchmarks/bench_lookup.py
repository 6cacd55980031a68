"""How long `harpsolve lookup` and `harpsolve deals` take on the committed tables.

    python benchmarks/bench_lookup.py                    # easy-harp, 9 repeats
    python benchmarks/bench_lookup.py --variant klondike-3 --repeats 15

Each command runs as a fresh process (what a player types), --repeats times;
the table gives the median and mean wall time and the median CPU time (user +
system of the child), next to `harpsolve --version` (Python and click start-up,
the floor any command pays) and to the in-process time of the lookup itself
(imports done).  Wall time on a busy machine is noisy: read the CPU column
and the medians.
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(args, repeats):
    walls, cpus = [], []
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    for _ in range(repeats):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        p = subprocess.run([sys.executable, "-m", "harpsolve.cli", *args], capture_output=True, text=True, env=env)
        walls.append(time.perf_counter() - t0)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        if p.returncode != 0:
            raise SystemExit(f"harpsolve {' '.join(args)} failed: {p.stderr.strip()}")
    return statistics.median(walls), statistics.mean(walls), statistics.median(cpus)


def in_process(variant, repeats):
    sys.path.insert(0, ROOT)
    from harpsolve.rules import get_rules
    from harpsolve.tables import lookup

    rules = get_rules(variant)
    lookup(rules, [5])  # imports and first file open
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        lookup(rules, [5, 17, 12345])
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variant", default="easy-harp")
    ap.add_argument("--repeats", type=int, default=9)
    a = ap.parse_args(argv)
    rows = [
        ("--version", ["--version"]),
        (f"lookup {a.variant} 5 daily", ["lookup", a.variant, "5", "daily"]),
        (f"deals {a.variant} --difficulty hard --count 10", ["deals", a.variant, "--difficulty", "hard",
                                                             "--count", "10", "--seed", "1"]),
    ]
    print(f"{a.repeats} runs each, fresh process per run\n")
    print("| command | median wall s | mean wall s | median CPU s |")
    print("|---|---:|---:|---:|")
    for label, args in rows:
        med, mean, cpu = run(args, a.repeats)
        print(f"| `harpsolve {label}` | {med:.3f} | {mean:.3f} | {cpu:.3f} |")
    print(f"\nin-process lookup of 3 deals (imports done): median {1e3 * in_process(a.variant, a.repeats):.1f} ms")


if __name__ == "__main__":
    main()
