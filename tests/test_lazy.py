"""tests/lazy.py's stand-ins import their module at the first real use, and not when
pytest's collection probes a test module's names (`issubclass(obj, unittest.TestCase)`
reads `obj.__bases__`)."""

from __future__ import annotations

import unittest

import pytest

from tests.lazy import lazy_module

MISSING = "qcomp_no_such_module"


def test_collection_probe_does_not_import():
    lazy = lazy_module(MISSING)
    with pytest.raises(TypeError, match="must be a class"):
        issubclass(lazy, unittest.TestCase)  # type: ignore[arg-type]
    assert not hasattr(lazy, "__bases__")


def test_first_use_imports():
    with pytest.raises(ModuleNotFoundError, match=MISSING):
        lazy_module(MISSING).anything  # noqa: B018
    assert lazy_module("math").sqrt(4.0) == 2.0
    assert lazy_module("os", "path").join("a", "b") == "a/b"
    assert lazy_module("json").__name__ == "json"
