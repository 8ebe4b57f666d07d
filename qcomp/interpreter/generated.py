"""Interpreter function classes generated from tables of (op class, implementation)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from xdsl.interpreter import InterpreterFunctions
from xdsl.ir import Operation


def generated_functions(impls: Iterable[tuple[type[Operation], Callable]]
                        ) -> type[InterpreterFunctions]:
    """A base class with one `run_<dialect>_<op>` method per `(op class, method)` pair
    (each method already wrapped by `xdsl.interpreter.impl`); the dialect's
    `@register_impls` class derives from it."""
    cls = type("GeneratedFunctions", (InterpreterFunctions,), {})
    for op_type, method in impls:
        setattr(cls, "run_" + op_type.name.replace(".", "_"), method)
    return cls
