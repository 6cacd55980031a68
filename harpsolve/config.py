"""Numba flags in one place (every kernel is compiled with these).

``cache=True`` writes compiled kernels to disk so that the second run of a
command starts solving without recompiling.  Numba keys its cache on the
file that defines a kernel only, not on the files it calls into (a changed
state layout in ``state.py`` would leave ``movegen.py``'s cached kernels
stale).  So the cache lives in a folder named after a digest of every
kernel source file: any change to any of them starts a fresh cache.
Set ``HARPSOLVE_CACHE_DIR`` to choose the parent folder.
"""
import hashlib
import os
from pathlib import Path

import numba

_HERE = Path(__file__).resolve().parent
_KERNEL_SOURCES = ["config.py", "bits.py", "prefetch.py", "state.py", "movegen.py"]


def _cache_dir() -> str:
    h = hashlib.sha256()
    files = [_HERE / name for name in _KERNEL_SOURCES] + sorted((_HERE / "search").glob("*.py"))
    for path in files:
        try:
            h.update(path.read_bytes())
        except OSError:
            pass
    h.update(numba.__version__.encode())
    parent = os.environ.get("HARPSOLVE_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "harpsolve", "numba")
    return os.path.join(parent, h.hexdigest()[:16])


numba.config.CACHE_DIR = _cache_dir()

JIT = dict(cache=True, nogil=True, boundscheck=os.environ.get("HARPSOLVE_BOUNDSCHECK") == "1")

# Kernels on a search's hot path: no reference counting.  Numba counts references to
# every array a compiled function is handed or takes a view of (``cur[i]``, a row of a
# stack), with an atomic add and subtract each time -- two calls that cannot be inlined; in
# the arrangement-free search that was ~40 % of the time (perf, klondike-3 deal 66), in the
# beams and depth-first searches of harp ~21 % (perf, twenty-eighth session).  Such kernels
# allocate nothing (their caller hands them every array, scratch included), keep no array
# beyond the call and return none, so the counts are not needed; numba refuses to compile
# one that allocates.  A helper is compiled with its own flags whoever calls it, so every
# helper on those paths is JIT_NORC too: state.py, movegen.py, search/tt.py, search/beam.py,
# search/dfs.py and search/afree.py.  Safe to call from a counting caller: that caller
# holds the arrays for the length of the call.
JIT_NORC = dict(JIT, _nrt=False)

