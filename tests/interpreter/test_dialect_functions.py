"""The interpreter registers the functions of the dialects a program uses
(`runner._functions_of`): every interpreter function class of qcomp is reachable that
way, from the dialect of each op it runs."""

from __future__ import annotations

import importlib
import pkgutil

from xdsl.interpreter import InterpreterFunctions

import qcomp.interpreter
from qcomp.interpreter import runner
from qcomp.registry import DIALECTS

ALWAYS = {"FuncFunctions", "StablehloFunctions", "CheckFunctions", "BuiltinFunctions"}
"""Registered for every program by `make_interpreter`."""


def _function_classes() -> set[type]:
    """The interpreter function classes of qcomp.interpreter's modules, and those made
    by a module's factory (onnx_float_functions)."""
    classes = set()
    for info in pkgutil.iter_modules(qcomp.interpreter.__path__):
        module = importlib.import_module(f"qcomp.interpreter.{info.name}")
        for value in vars(module).values():
            if (isinstance(value, type) and issubclass(value, InterpreterFunctions)
                    and value.__module__ == module.__name__):
                classes.add(value)
    every = {*DIALECTS, "arith", "math"}
    return classes | {type(f) for d in every for f in runner._functions_of(d, "spec")}


def test_every_op_reaches_its_functions_through_its_dialect():
    by_dialect = {d: {type(f).__name__ for f in runner._functions_of(d, "spec")}
                  for d in (*DIALECTS, "arith", "math")}
    for cls in _function_classes():
        if cls.__name__ in ALWAYS:
            continue
        ops = [op for op, _ in cls._impls()]
        assert ops, cls
        for op in ops:
            dialect = op.name.partition(".")[0]
            assert cls.__name__ in by_dialect.get(dialect, set()), (
                f"{cls.__name__} runs '{op.name}' but is not registered for dialect {dialect}")


def test_a_dialect_brings_only_its_own_functions():
    names = {type(f).__name__ for f in runner.dialect_functions({"chlo", "quant"})}
    assert names == {"ChloFunctions", "QuantFunctions"}
    assert runner.dialect_functions(set()) == []
