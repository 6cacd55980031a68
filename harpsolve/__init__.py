"""harpsolve: a solver and win-rate research toolkit for the Harp family of
patience games (Easy Harp, Harp, Big Harp, Endless Harp), Klondike and
Baker's Game.

The heavy parts (numba kernels) are imported lazily, so ``import harpsolve``
and ``harpsolve --help`` stay fast.
"""
__version__ = "0.1.0"

_LAZY = {
    "solve": ("harpsolve.solver", "solve"),
    "SolveResult": ("harpsolve.solver", "SolveResult"),
    "get_rules": ("harpsolve.rules", "get_rules"),
    "Rules": ("harpsolve.rules", "Rules"),
    "Layout": ("harpsolve.layout", "Layout"),
    "deal_layout": ("harpsolve.deals", "deal_layout"),
}


def __getattr__(name):
    if name in _LAZY:
        import importlib

        mod, attr = _LAZY[name]
        return getattr(importlib.import_module(mod), attr)
    raise AttributeError(f"module 'harpsolve' has no attribute {name!r}")
