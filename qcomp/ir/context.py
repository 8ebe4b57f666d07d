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
    looked up, so a run pays only for the dialects its input uses. A `func` entry is
    loaded at once in place of xDSL's."""
    ctx = Context(allow_unregistered=allow_unregistered)
    ctx.load_dialect(Builtin)
    ctx.load_dialect(dialects["func"]() if "func" in dialects else Func)
    for name, factory in dialects.items():
        if name != "func":
            ctx.register_dialect(name, factory)
    return ctx
