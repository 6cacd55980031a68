"""Every docstring example in the package runs and shows what the code gives."""
from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import harpsolve

MODULES = sorted(m.name for m in pkgutil.walk_packages(harpsolve.__path__, "harpsolve."))


def test_every_module_is_listed():
    assert {"harpsolve.stats", "harpsolve.solver", "harpsolve.sweep.schema", "harpsolve.search.engine"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} docstring examples fail"
