"""The engines that run a sweep's jobs: worker processes on this machine
(:func:`run_local`) or a Dask cluster (:func:`run_dask`).  Both hand out
chunks sized to take about CHUNK_SECONDS, send every row to the store as it
arrives, have the store write a file per finished chunk, and record a job
that kills its worker twice as an ``error`` row.

The function that solves one job is :func:`.jobs.solve_row`; the engines
look it up here when they start, so a test can swap in one that crashes or
dawdles (``tests/sweep_hooks.py``) without any hook in the workers' path.
"""
from __future__ import annotations

import math
import os
import signal
import time
from collections import Counter, deque

from .jobs import LayoutJob, _algorithm_kwargs, job_key, play_row, solve_chunk, solve_row
from .runs import cpu_model
from .schema import make_row
from .store import SweepError, _short, row_key

CHUNK_SECONDS = 10.0     # aim for chunks this long: the most a kill -9 of the sweep loses per worker
FIRST_CHUNK = 4          # deals in a worker's first chunk, before any timing exists
MAX_CHUNK = 1000


# ---- chunking ---------------------------------------------------------------------
class Chunker:
    """Hands out chunks sized to take about CHUNK_SECONDS; retries go alone, first."""

    def __init__(self, todo, slots: int, fixed: int | None):
        self.pending = deque(todo)
        self.retry: deque[int] = deque()
        self.slots = max(1, slots)
        self.fixed = fixed
        self.per_deal: float | None = None

    def __bool__(self):
        return bool(self.pending or self.retry)

    def next(self) -> list[int]:
        if self.retry:
            return [self.retry.popleft()]
        if self.fixed:
            k = self.fixed
        else:
            k = FIRST_CHUNK if self.per_deal is None else int(CHUNK_SECONDS / max(self.per_deal, 1e-6))
            k = max(1, min(k, MAX_CHUNK, math.ceil(len(self.pending) / (2 * self.slots))))
        return [self.pending.popleft() for _ in range(min(k, len(self.pending)))]

    def timed(self, n: int, seconds: float) -> None:
        if n:
            x = seconds / n
            self.per_deal = x if self.per_deal is None else 0.7 * self.per_deal + 0.3 * x

    def give_back(self, deals) -> None:
        self.pending.extendleft(reversed(list(deals)))


def _job_function(store):
    """What a worker runs per job: :func:`.jobs.solve_row`, or for a player sweep
    :func:`.jobs.play_row` with the store's player settings (picklable: a partial)."""
    if store.play is None:
        return solve_row
    import functools

    return functools.partial(play_row, play=store.play)


# ---- local worker processes -------------------------------------------------------------------
def _mp_context():
    import multiprocessing as mp

    if "forkserver" in mp.get_all_start_methods():
        ctx = mp.get_context("forkserver")
        ctx.set_forkserver_preload(["harpsolve.sweep.engines", "harpsolve.solver"])
        return ctx
    return mp.get_context("spawn")


def _worker_main(conn, rules, budgets, solve_one) -> None:
    """A worker process: warm the JIT once, then solve the chunks it is sent with ``solve_one``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop
    from ..solver import warm_up

    warm_up(rules, None, heuristic=budgets.heuristic, **_algorithm_kwargs(budgets))  # JIT compile / cache load
    try:
        conn.send(("ready", os.getpid()))
        while True:
            chunk = conn.recv()
            if chunk is None:
                return
            for deal in chunk:
                conn.send(("row", solve_one(rules, deal, budgets)))
            conn.send(("done", None))
    except (EOFError, BrokenPipeError, ConnectionResetError):
        return  # the parent is gone


class _Worker:
    def __init__(self, ctx, rules, budgets, solve_one):
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker_main, args=(child, rules, budgets, solve_one), daemon=True,
                                name="harpsolve-sweep-worker")
        self.proc.start()
        child.close()
        self.ready = False
        self.chunk: list[int] | None = None
        self.got: set[int] = set()
        self.sent_at = 0.0

    def send(self, chunk):
        self.chunk, self.got, self.sent_at = chunk, set(), time.perf_counter()
        self.conn.send(chunk)

    def stop(self, grace: float = 2.0):
        try:
            self.conn.send(None)
        except OSError:
            pass
        self.proc.join(grace)
        if self.proc.is_alive():
            self.proc.terminate()
            self.proc.join(grace)
        if self.proc.is_alive():  # pragma: no cover
            self.proc.kill()
            self.proc.join()
        self.conn.close()


def _death(exitcode) -> str:
    if exitcode is None:
        return "stopped answering"
    if exitcode < 0:
        try:
            return f"was killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"was killed by signal {-exitcode}"
    return f"exited with code {exitcode}"


def run_local(store, todo, rules, budgets, workers, chunk_size, progress) -> None:
    """Solve ``todo`` in ``workers`` processes here, a chunk at a time each."""
    from multiprocessing.connection import wait

    ctx = _mp_context()
    solve_one = _job_function(store)  # looked up now: tests swap solve_row (see the module's docstring)
    chunks = Chunker(todo, workers, chunk_size)
    attempts: Counter = Counter()
    startup_failures = 0
    pool = [_Worker(ctx, rules, budgets, solve_one) for _ in range(min(workers, len(todo)))]

    def handle(w, msg):
        kind, payload = msg
        if kind == "ready":
            w.ready = True
            progress.started()
        elif kind == "row":
            w.got.add(row_key(payload))
            store.add(payload)
            progress.update(payload["status"])
        elif kind == "done":
            chunks.timed(len(w.chunk), time.perf_counter() - w.sent_at)
            w.chunk = None
            store.flush()

    def drain(w) -> bool:
        """Read every waiting message; False once the pipe is closed."""
        try:
            while w.conn.poll():
                handle(w, w.conn.recv())
        except (EOFError, OSError):
            return False
        return True

    try:
        while chunks or any(w.chunk for w in pool):
            for w in pool:
                if w.ready and w.chunk is None and chunks:
                    try:
                        w.send(chunks.next())
                    except OSError:
                        pass  # found dead below
            ready = wait([w.conn for w in pool] + [w.proc.sentinel for w in pool], timeout=1.0)
            for w in list(pool):
                alive = True
                if w.conn in ready:
                    alive = drain(w)
                if w.proc.sentinel in ready or not alive:
                    drain(w)
                    w.proc.join(5)
                    if w.proc.is_alive():
                        continue  # pipe closed but still exiting; next round
                    why = _death(w.proc.exitcode)
                    pool.remove(w)
                    w.conn.close()
                    if w.chunk is not None:
                        left = [d for d in w.chunk if job_key(d) not in w.got]
                        if left:
                            culprit = left[0]
                            attempts[culprit] += 1
                            if attempts[culprit] >= 2:
                                row = make_row(rules, culprit, budgets, "error",
                                               reason=f"worker process {why} twice while solving this "
                                                      + ("layout" if isinstance(culprit, LayoutJob) else "deal"),
                                               play=store.play)
                                store.add(row)
                                progress.update("error")
                            else:
                                chunks.retry.append(culprit)
                            chunks.give_back(left[1:])
                        store.flush()
                    elif not w.ready:
                        startup_failures += 1
                        if startup_failures >= 3:
                            raise SweepError(f"sweep worker processes fail to start (a worker {why})")
                    if chunks:
                        pool.append(_Worker(ctx, rules, budgets, solve_one))
    finally:
        try:
            for w in pool:  # rows that arrived while we were stopping are finished work too
                drain(w)
            store.flush()
        finally:
            for w in pool:
                w.stop()


# ---- Dask --------------------------------------------------------------------
def run_dask(store, todo, rules, budgets, workers, chunk_size, progress, scheduler) -> None:
    """Solve ``todo`` on a Dask cluster (``scheduler``), or a LocalCluster of ``workers`` processes."""
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise SweepError("the dask engine needs Dask: pip install 'harpsolve[dask]'") from None
    cluster = None
    if scheduler:
        try:
            client = Client(scheduler, timeout="20s")
        except (OSError, TimeoutError) as e:
            raise SweepError(f"cannot reach the Dask scheduler at {scheduler} ({_short(e)})") from None
    else:
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None)
        client = Client(cluster)
    try:
        slots = max(1, sum(client.nthreads().values()))
        store.run["workers"] = slots
        try:
            store.run["cpu"] = "; ".join(sorted(set(client.run(cpu_model).values())))
        except (OSError, TimeoutError):  # a worker that does not answer: the run's cpu stays this machine's
            pass
        chunks = Chunker(todo, slots, chunk_size)
        futures = as_completed()
        solve_one = _job_function(store)
        info = {}

        def submit(chunk, attempt=1):
            f = client.submit(solve_chunk, rules, chunk, budgets, solve_one, pure=False)
            info[f.key] = (chunk, attempt)
            futures.add(f)

        for _ in range(2 * slots):
            if chunks:
                submit(chunks.next())
        for f in futures:
            chunk, attempt = info.pop(f.key)
            if f.status == "finished":
                rows = f.result()
                progress.started()  # each Dask worker warms up inside its first task
                chunks.timed(len(chunk), sum(r["seconds"] for r in rows) + 0.002 * len(rows))
                for row in rows:
                    store.add(row)
                    progress.update(row["status"])
            elif len(chunk) > 1:  # find the deal that kills workers: each alone, once more
                for d in chunk:
                    submit([d], 2)
            elif attempt < 2:
                submit(chunk, attempt + 1)
            else:
                try:
                    exc = f.exception()
                except BaseException as e:  # noqa: BLE001 - cancelled
                    exc = e
                store.add(make_row(rules, chunk[0], budgets, "error",
                                   reason=f"dask task failed twice: {type(exc).__name__}: {_short(exc)}",
                                   play=store.play))
                progress.update("error")
            store.flush()
            f.release()
            if chunks:
                submit(chunks.next())
    finally:
        try:
            store.flush()
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
