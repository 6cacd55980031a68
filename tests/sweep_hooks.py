"""Run the harpsolve CLI with sweep workers that crash or dawdle on purpose (tests only).

    python tests/sweep_hooks.py sweep klondike-3 1-12 --out OUT ...

Environment: ``HARPSOLVE_TEST_CRASH=5,17`` makes a worker kill itself with SIGKILL when it
starts one of these deals; with ``HARPSOLVE_TEST_CRASH_ONCE=PATH`` only once per deal
(marker files ``PATH.<deal>``); ``HARPSOLVE_TEST_DELAY=SECONDS`` sleeps before each deal.

The engines look their solve function up when they start (``harpsolve.sweep.engines``);
this script swaps it for :func:`hooked_solve_row` before running the CLI, and the workers
receive it by reference, so the production workers read no test switches at all.
"""
import os
import signal
import time

from harpsolve.sweep import engines, jobs


def hooked_solve_row(rules, deal, budgets):
    crash = {int(x) for x in os.environ.get("HARPSOLVE_TEST_CRASH", "").split(",") if x.strip()}
    if isinstance(deal, int) and deal in crash:
        once = os.environ.get("HARPSOLVE_TEST_CRASH_ONCE")
        marker = f"{once}.{deal}" if once else None
        if marker is None or not os.path.exists(marker):
            if marker:
                open(marker, "w").close()
            os.kill(os.getpid(), signal.SIGKILL)
    delay = float(os.environ.get("HARPSOLVE_TEST_DELAY") or 0)
    if delay:
        time.sleep(delay)
    return jobs.solve_row(rules, deal, budgets)


if __name__ == "__main__":
    engines.solve_row = hooked_solve_row
    from harpsolve.cli import main

    main(prog_name="harpsolve")
