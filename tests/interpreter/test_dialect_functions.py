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

ALWAYS = {"FuncFunctions", "StablehloFunctions", "BuiltinFunctions"}
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


def test_stablehlo_functions_load_with_the_modules_of_their_ops():
    """`runner.STABLEHLO_FUNCTIONS` names, for each class, every module defining an op
    it runs: a program loads the class when it has an op of one of them."""
    for module, name, op_modules in runner.STABLEHLO_FUNCTIONS:
        cls = getattr(importlib.import_module(f"qcomp.interpreter.{module}"), name)
        defining = {op.__module__ for op, _ in cls._impls()
                    if op.__module__.startswith("qcomp.dialects.stablehlo.")}
        assert defining == set(op_modules), name
    every = runner._functions_of("stablehlo", "spec")
    assert [type(f).__name__ for f in every] == [name for _, name, _ in runner.STABLEHLO_FUNCTIONS]
    # the StableHLO classes not in the table are the ones always registered
    stablehlo = {cls for cls in _function_classes()
                 if any(op.name.startswith("stablehlo.") for op, _ in cls._impls())}
    assert {cls.__name__ for cls in stablehlo} - {type(f).__name__ for f in every} == {"StablehloFunctions"}


def test_a_stablehlo_program_brings_the_functions_of_its_ops_modules():
    def names(*modules):
        op_modules = frozenset(f"qcomp.dialects.stablehlo.{m}" for m in modules)
        return [type(f).__name__ for f in runner.dialect_functions({"stablehlo"}, "spec", op_modules)]

    assert names("binary", "ops") == []
    assert names("binary", "control") == ["StablehloControlFunctions"]
    assert names("sort") == ["StablehloScatterFunctions"]
    assert names("linalg") == ["LinalgFunctions", "RandomFunctions"]
    assert names("collectives", "dynamic") == ["DynamicFunctions", "CollectiveFunctions"]
    assert len(runner.dialect_functions({"stablehlo"})) == len(runner.STABLEHLO_FUNCTIONS)
