"""Numba flags in one place (every kernel is compiled with these)."""
import os

# cache=True: compiled kernels are written next to the sources (__pycache__)
# so the second run of a command starts solving without recompiling.
JIT = dict(cache=True, nogil=True, boundscheck=os.environ.get("HARPSOLVE_BOUNDSCHECK") == "1")
