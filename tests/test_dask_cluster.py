"""The cluster path for real: a `dask scheduler` and a `dask worker` started as separate processes
from the command line, and `harpsolve sweep … --scheduler tcp://127.0.0.1:PORT` run against them,
then resumed with a bigger range.  Skipped only when the `dask` command is not installed."""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time

import pytest

from harpsolve import sweep as sw
from harpsolve.rules import get_rules

VARIANT = "klondike-3"     # small, fast deals
NODES = 5_000
START_TIMEOUT = 20.0       # seconds for the scheduler to listen and the worker to join


def _dask_cli() -> str | None:
    """The `dask` command of this Python's environment (next to the interpreter), else on PATH."""
    here = os.path.join(os.path.dirname(sys.executable), "dask")
    return here if os.access(here, os.X_OK) else shutil.which("dask")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _stop(proc: subprocess.Popen) -> None:
    """SIGTERM the process group (the worker's nanny has a child), then SIGKILL if it lingers."""
    if proc.poll() is not None:
        return
    for sig, wait in ((signal.SIGTERM, 5), (signal.SIGKILL, 5)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(wait)
            return
        except subprocess.TimeoutExpired:
            continue


def _wait_for_worker(address: str) -> None:
    from distributed import Client

    with Client(address, timeout=START_TIMEOUT) as client:
        client.wait_for_workers(1, timeout=START_TIMEOUT)


def _sweep(address, deals, out):
    return subprocess.run(
        [sys.executable, "-m", "harpsolve.cli", "sweep", VARIANT, deals, "--out", str(out), "--max-nodes",
         str(NODES), "--scheduler", address, "--no-progress", "--chunk-size", "2"],
        capture_output=True, text=True, timeout=120)


def test_sweep_through_a_scheduler_and_worker_started_from_the_command_line(tmp_path):
    dask = _dask_cli()
    if dask is None:
        pytest.skip("the dask command is not installed (pip install 'harpsolve[dask]')")
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    logs = {name: open(tmp_path / f"{name}.log", "w") for name in ("scheduler", "worker")}
    procs = []
    try:
        procs.append(subprocess.Popen(
            [dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
            stdout=logs["scheduler"], stderr=subprocess.STDOUT, start_new_session=True))
        procs.append(subprocess.Popen(
            [dask, "worker", address, "--nworkers", "1", "--nthreads", "1", "--no-dashboard",
             "--memory-limit", "0", "--death-timeout", "30"],
            stdout=logs["worker"], stderr=subprocess.STDOUT, start_new_session=True))
        try:
            _wait_for_worker(address)
        except (OSError, TimeoutError) as e:
            logs["worker"].flush()
            logs["scheduler"].flush()
            pytest.fail(f"the dask scheduler/worker did not come up ({e}):\n"
                        + (tmp_path / "scheduler.log").read_text()[-2000:]
                        + (tmp_path / "worker.log").read_text()[-2000:])

        out = tmp_path / "out"
        first = _sweep(address, "1-6", out)
        assert first.returncode == 0, first.stderr
        assert "6 deals (6 new, 0 already done)" in first.stdout

        res = sw.load_results([out])
        df = res.frame
        assert sorted(df["deal"]) == list(range(1, 7)), "one row per deal"
        assert set(df["status"]) <= {"solved", "unsolvable", "unknown"}
        assert (df["rules_fingerprint"] == get_rules(VARIANT).fingerprint()).all() and (df["max_nodes"] == NODES).all()
        (run,) = res.runs
        assert run["engine"] == f"dask {address}" and run["workers"] == 1

        # the same rows as solving here gives (same solver, same budgets)
        rules, budgets = get_rules(VARIANT), sw.Budgets.make(dict(max_nodes=NODES))
        for r in df.itertuples():
            here = sw.solve_row(rules, r.deal, budgets)
            assert (r.status, r.nodes, r.states) == (here["status"], here["nodes"], here["states"]), r.deal

        # resume: a bigger range solves only the new deals
        again = _sweep(address, "1-9", out)
        assert again.returncode == 0, again.stderr
        assert "9 deals (3 new, 6 already done)" in again.stdout
        df2 = sw.load_results([out]).frame
        assert sorted(df2["deal"]) == list(range(1, 10))
    finally:
        for p in reversed(procs):
            _stop(p)
        for f in logs.values():
            f.close()
