"""Run metadata: what each run that wrote rows records in the files' metadata
(when, the command, the engine and workers, the machine, the versions, the code's commit)."""
from __future__ import annotations

import datetime as _dt
import os
import platform
import sys
import uuid

from .. import __version__


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def code_version() -> str | None:
    """The git commit of the checkout this harpsolve is imported from (12 hex digits), with
    "+changes" when the package's tracked files differ from it; None outside a git checkout
    (an installed wheel: ``harpsolve`` then says the version).  Why: results/NOTES.md names the
    code of every sweep, and a run record that says it needs no one to remember it."""
    import subprocess

    pkg = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        head = subprocess.run(["git", "-C", pkg, "rev-parse", "--short=12", "HEAD"], capture_output=True,
                              text=True, timeout=20)
        if head.returncode != 0:
            return None
        changed = subprocess.run(["git", "-C", pkg, "status", "--porcelain", "--untracked-files=no", "--", "."],
                                 capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return None
    return head.stdout.strip() + ("+changes" if changed.stdout.strip() else "")


def run_metadata(engine: str, workers: int, command: str | None = None) -> dict:
    import numba
    import numpy
    import pyarrow

    return dict(
        run_id=uuid.uuid4().hex[:12],
        started=now_iso(),
        ended=None,
        command=command if command is not None else _command_line(),
        engine=engine, workers=workers, cpu=cpu_model(), cores=os.cpu_count(),
        platform=platform.platform(), python=platform.python_version(),
        numba=numba.__version__, numpy=numpy.__version__, pyarrow=pyarrow.__version__,
        harpsolve=__version__, code=code_version(),
    )


def _command_line() -> str:
    import shlex

    argv = list(sys.argv)
    name = os.path.basename(argv[0])
    if name.startswith("harpsolve") or (name in ("cli.py", "__main__.py")
                                        and os.path.basename(os.path.dirname(argv[0])) == "harpsolve"):
        argv[0] = "harpsolve"
    return shlex.join(argv)


def now_iso() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds")


def merge_runs(*lists) -> list[dict]:
    """Union of run records; for one run_id keep the latest ``ended``."""
    by_id: dict[str, dict] = {}
    for runs in lists:
        for r in runs:
            old = by_id.get(r.get("run_id"))
            if old is None or (r.get("ended") or "") > (old.get("ended") or ""):
                by_id[r.get("run_id")] = r
    return sorted(by_id.values(), key=lambda r: r.get("started") or "")
