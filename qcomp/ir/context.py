"""Contexts for MLIR text: builtin and func loaded, other dialects registered lazily."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from xdsl.context import Context
from xdsl.dialects.builtin import Builtin
from xdsl.dialects.func import Func
from xdsl.ir import Dialect


def new_context(dialects: Mapping[str, Callable[[], Dialect]],
                allow_unregistered: bool = False) -> Context:
    """A context with builtin and func loaded and each of `dialects` (name -> factory)
    registered: imported and loaded the first time one of its ops or types is parsed or
    looked up, so a run pays only for the dialects its input uses."""
    ctx = Context(allow_unregistered=allow_unregistered)
    for d in (Builtin, Func):
        ctx.load_dialect(d)
    for name, factory in dialects.items():
        ctx.register_dialect(name, factory)
    return ctx
