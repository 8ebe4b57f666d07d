"""Heavy oracles (torch, jax, onnxruntime's quantizer, numba) imported when a test first
uses them, not when pytest collects the module: every xdist worker collects every test
module, so a module-level `import torch` costs each worker seconds of CPU even when
another worker runs the file.

    torch = importorskip("torch")      # the module is skipped when torch is not installed
    _ir = lazy_module("jax._src.lib.mlir", "ir")
    torch.tensor(...)                  # the first attribute access imports it
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

import pytest


_MODULE_DUNDERS = frozenset({"__file__", "__path__", "__version__", "__name__"})
"""The dunder names read from the module itself; any other dunder is introspection."""


class LazyModule:
    """A stand-in for a module (`name`, or `from name import member`, `member` a dotted
    path such as `ops.quantized` for `torch.ops.quantized`): the first attribute access
    imports it."""

    def __init__(self, name: str, member: str | None = None):
        self._name = name
        self._member = member

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__") and attr.endswith("__") and attr not in _MODULE_DUNDERS:
            # introspection, not use: pytest's collection asks every module-level name
            # for `__bases__` (unittest's `issubclass` check), which must not import
            raise AttributeError(attr)
        module = importlib.import_module(self._name)
        for member in self._member.split(".") if self._member else ():
            module = getattr(module, member)
        return getattr(module, attr)

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r} {self._member or ''}>"


def lazy_module(name: str, member: str | None = None) -> Any:
    """`import name` (or `from name import member`), done at the first attribute access."""
    return LazyModule(name, member)


def installed(*names: str) -> bool:
    """Whether every top-level package in `names` is installed (without importing it)."""
    return all(importlib.util.find_spec(n) is not None for n in names)


def importorskip(name: str, reason: str | None = None) -> Any:
    """`pytest.importorskip(name)` at a module's top level without importing `name`:
    skips the module when its top-level package is not installed, else `name`, lazily."""
    if not installed(name.partition(".")[0]):
        pytest.skip(reason or f"could not import {name!r}", allow_module_level=True)
    return lazy_module(name)
