"""qcomp's Python API, what `import qcomp` offers (docs/api.md):

    import qcomp
    module = qcomp.parse_module(text)                      # MLIR text, parsed and verified
    qcomp.run_pipeline(module, "stablehlo-legalize-quant-to-math{rescale=fixed-point}")
    print(qcomp.print_module(module))                      # as mlir-opt prints it
    result = qcomp.run(module, {"x": [1.0, 2.5]})          # .results: NumPy arrays

`qcomp/__init__.py` imports this module on first use of one of its names, so that
`import qcomp` stays cheap. Nothing inside qcomp imports it (docs/design.md).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute
from xdsl.utils.exceptions import DiagnosticException
from xdsl.utils.exceptions import ParseError as XdslParseError

from qcomp.backends.compiled import compile  # noqa: A001 - qcomp.compile: compile once, run many
from qcomp.interpreter import FunctionRun, RunError
from qcomp.pipeline import PipelineError, build_passes
from qcomp.registry import make_context


class IRError(ValueError):
    """MLIR text that does not parse or verify: `str()` is one line,
    `name:line:col: error: message`."""


class PassError(RuntimeError):
    """A pass that failed on the module: `pass_name`, `op` (the op at fault, when
    known), and the pass's message."""

    def __init__(self, pass_name: str, message: str, op=None):
        super().__init__(f"{pass_name}: {message}")
        self.pass_name, self.message, self.op = pass_name, message, op


def _line_col(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def parse_module(text: str, name: str = "<string>") -> ModuleOp:
    """MLIR text (any of qcomp's dialects) as a verified `builtin.module`; IRError when
    it does not parse or verify."""
    from qcomp.ir import QcompParser

    try:
        parser = QcompParser(make_context(), text, name)
        module = parser.parse_module()
    except XdslParseError as e:
        line, col = _line_col(text, e.span.start)
        raise IRError(f"{name}:{line}:{col}: error: {e.msg}") from None
    except (ValueError, TypeError, KeyError, IndexError, AssertionError, RecursionError) as e:
        # a dialect's own parser rejecting bad input
        detail = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise IRError(f"{name}: error: {detail}") from None
    try:
        module.verify()
    except DiagnosticException as e:
        message = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise IRError(f"{name}: error: {message}") from None
    return module


def print_module(module: ModuleOp, generic: bool = False) -> str:
    """The module's text as mlir-opt prints it (MLIR's value names, floats and dense
    literals; `generic`: the generic op form), ending in a newline."""
    from qcomp.ir import print_module as print_text

    return print_text(module, generic)


def run_pipeline(module: ModuleOp, pipeline: str) -> ModuleOp:
    """Run passes on `module` in place, named as qcomp-opt's `-p` takes them:
    `"a,b{opt=v}"` or `"builtin.module(a,b{opt=v})"` (passes, their aliases, named
    pipelines, xDSL's canonicalize / cse / dce), the module verified after each. Returns
    `module`. PipelineError for an unknown name or bad option, PassError for a pass that
    fails."""
    ctx = make_context()
    for p in build_passes([pipeline]):
        try:
            p.apply(ctx, module)
            module.verify()
        except DiagnosticException as e:
            items = getattr(e, "items", None)
            op, message = items[0] if items else (getattr(e, "op", None),
                                                  getattr(e, "message", None) or str(e).strip())
            raise PassError(p.name, message, op) from None
    return module


def run(module: ModuleOp, inputs: Sequence[Any] | Mapping[str, Any] | None = None, *,
        backend: str = "numpy", semantics: str = "spec", entry: str | None = None,
        strict: bool = True) -> FunctionRun:
    """Run one function of `module` (`entry`, else `@main`, else the only function) on
    `backend` ("numpy": qcomp's interpreter; "xla": XLA through jaxlib) with the
    quantized ops' `semantics` ("spec" or "stablehlo", upstream's interpreter).

    `inputs`: one array per argument, in order (a list), or by argument name (a dict
    keyed by the names the MLIR text gave them, `%x` -> "x", or `arg0`, `arg1`, ...).
    Anything `np.asarray` takes will do; a float array (NumPy's float64 default) for an
    f32 / f16 / bf16 argument is converted when every value converts exactly, else
    RunError. Quantized arguments take their storage integers.

    Returns the `FunctionRun` (`.results`: NumPy arrays, `.checks`). With `strict`
    (default) a run that fails raises: RunError for an error while running, or for a
    failed check; `strict=False` returns the run with `.error` / `.checks` instead.
    """
    from qcomp.backends import run as run_on
    from qcomp.interpreter import entry_functions

    funcs = entry_functions(module, entry)
    if len(funcs) != 1:
        names = ", ".join(f"@{f.sym_name.data}" for f in _functions(module)) or "none"
        raise RunError(f"give entry= : the module has no @main and {len(funcs)} functions "
                       f"could be run (functions: {names})")
    (f,) = funcs
    args = _bind(f, inputs)
    (result,) = run_on(module, args, semantics=semantics, entry=f.sym_name.data,
                       backend=backend)
    if strict and result.error is not None:
        raise result.error
    if strict and not result.passed:
        failed = [c for c in result.checks if not c.passed]
        c = failed[0]
        raise RunError(f"@{result.name}: {len(failed)} check(s) failed, the first "
                       f"{c.op.name} with {c.total_mismatches} mismatching element(s)", c.op)
    return result


def _functions(module: ModuleOp) -> list[func.FuncOp]:
    return [op for op in module.ops if isinstance(op, func.FuncOp)]


def argument_names(f: func.FuncOp) -> list[str]:
    """The names of `f`'s arguments as the MLIR text wrote them (`arg{i}` where it
    gave none, or gave a number)."""
    block = f.body.blocks.first
    names = []
    for i in range(len(f.function_type.inputs.data)):
        hint = block.args[i].name_hint if block is not None else None
        names.append(hint if hint and not re.fullmatch(r"\d+", hint) else f"arg{i}")
    return names


def _bind(f: func.FuncOp, inputs) -> list[np.ndarray]:
    types = list(f.function_type.inputs.data)
    names = argument_names(f)
    where = f"@{f.sym_name.data}"
    if inputs is None:
        inputs = []
    if isinstance(inputs, Mapping):
        keyed = {**{f"arg{i}": n for i, n in enumerate(names)}, **{n: n for n in names}}
        unknown = [k for k in inputs if k not in keyed]
        if unknown:
            raise RunError(f"{where} has no argument named {', '.join(map(repr, unknown))} "
                           f"(its arguments: {', '.join(names) or 'none'})")
        by_name = {keyed[k]: v for k, v in inputs.items()}
        missing = [n for n in names if n not in by_name]
        if missing:
            raise RunError(f"{where}: no input for argument {', '.join(missing)}")
        values = [by_name[n] for n in names]
    else:
        values = list(inputs)
        if len(values) != len(types):
            raise RunError(f"{where} takes {len(types)} argument(s) "
                           f"({', '.join(names) or 'none'}), {len(values)} input(s) given")
    return [_exact(np.asarray(v), t, name) for v, t, name in zip(values, types, names)]


def _exact(a: np.ndarray, t: Attribute, name: str) -> np.ndarray:
    """`a` checked against argument type `t`'s shape, and converted to the NumPy dtype of
    a float `t` when every value converts exactly; other dtypes as they are (the run
    checks them)."""
    from qcomp.interpreter.values import element_type, fits_shape, numpy_dtype, quant_of

    if not fits_shape(tuple(a.shape), t):
        want = "x".join("?" if d < 0 else str(d) for d in getattr(t, "get_shape", tuple)()) or "a scalar"
        raise RunError(f"input '{name}' has shape {tuple(a.shape)}, the argument needs "
                       f"{want} ({type_text(t)})")
    if quant_of(t) is not None or a.dtype.kind not in "fiu":
        return a
    dt = numpy_dtype(element_type(t))
    if dt.kind != "f" or a.dtype == dt:
        return a
    with np.errstate(all="ignore"):
        converted = a.astype(dt)
        back = converted.astype(np.float64)
    wide = a.astype(np.float64) if a.dtype.kind == "f" else a
    exact = (back == wide) | (np.isnan(back) & np.isnan(wide))
    if a.dtype.kind in "iu":
        exact &= np.abs(a.astype(np.float64)) <= 2.0 ** 53
    if not exact.all():
        i = int(np.flatnonzero(~exact)[0])
        index = [int(k) for k in np.unravel_index(i, a.shape)] if a.shape else []
        raise RunError(f"input '{name}' ({a.dtype}) does not convert exactly to "
                       f"{element_type(t)}: element {index} is {a.flat[i].item()!r}, "
                       f"{float(converted.flat[i])!r} as {dt}")
    return converted


def type_text(t: Attribute) -> str:
    from qcomp.ir.printer import type_text as text

    return text(t)


__all__ = ["FunctionRun", "IRError", "PassError", "PipelineError", "RunError",
           "argument_names", "compile", "parse_module", "print_module", "run", "run_pipeline"]
