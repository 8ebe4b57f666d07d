"""The one list of qcomp's dialects and passes, by name.

`qcomp.universe` hands these to xDSL's plugin mechanism; qcomp's own tools build
their context with `make_context()`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Dialect

from qcomp import ir
from qcomp.passes import PASS_ALIASES, PASSES, canonical_name, pass_class  # noqa: F401 - re-exported

if TYPE_CHECKING:  # xDSL's pass machinery loads with the first pass
    from xdsl.passes import ModulePass


def _func() -> Dialect:
    from qcomp.dialects.func import Func

    return Func


def _quant() -> Dialect:
    from qcomp.dialects.quant import Quant

    return Quant


def _tosa() -> Dialect:
    from qcomp.dialects.tosa import TOSA

    return TOSA


def _check() -> Dialect:
    from qcomp.dialects.check import CHECK

    return CHECK


def _interpreter() -> Dialect:
    from qcomp.dialects.interpreter import Interpreter

    return Interpreter


def _stablehlo() -> Dialect:
    from qcomp.dialects.stablehlo import StableHLO

    return StableHLO


def _stablehlo_definitions(name: str) -> list[type]:
    from qcomp.dialects.stablehlo.index import definitions

    return definitions(name)


def _rowwise() -> Dialect:
    from qcomp.dialects.rowwise import Rowwise

    return Rowwise


def _chlo() -> Dialect:
    from qcomp.dialects.chlo import CHLO

    return CHLO


def _onnx() -> Dialect:
    from qcomp.dialects.onnx import ONNX

    return ONNX


def _shape() -> Dialect:
    from qcomp.dialects.shape import Shape

    return Shape


def _tensor() -> Dialect:
    from qcomp.dialects.tensor import Tensor

    return Tensor


DIALECTS: dict[str, Callable[[], Dialect]] = {
    "func": _func,
    "quant": _quant,
    "stablehlo": _stablehlo,
    "chlo": _chlo,
    "tosa": _tosa,
    "check": _check,
    "rowwise": _rowwise,
    "onnx": _onnx,
    "shape": _shape,
    "tensor": _tensor,
    "interpreter": _interpreter,
}
"""qcomp's dialects (name -> factory). `func` is xDSL's with MLIR's `func.return`
verifier, loaded in place of xDSL's; `tosa` extends xDSL's own and is loaded by
`make_context` in place of it; `shape` and `tensor` hold the few ops `lower-quant-ops`
emits for unranked tensors (qcomp's `tensor` replaces xDSL's in qcomp's contexts);
`interpreter` is StableHLO's reference-interpreter dialect (`interpreter.probe`,
`interpreter.run_parallel`)."""

DEFINITIONS = {"stablehlo": _stablehlo_definitions}
"""Dialects that `make_context()` loads a module at a time (name -> the classes to load
for an op or attribute name): a program using three StableHLO ops imports the modules
defining those three (`qcomp.ir.context.QcompContext`)."""




def _xdsl_pass(name: str) -> Callable[[], type[ModulePass]]:
    def factory() -> type[ModulePass]:
        from xdsl.transforms import get_all_passes

        return get_all_passes()[name]()

    return factory


XDSL_PASSES: dict[str, Callable[[], type[ModulePass]]] = {
    name: _xdsl_pass(name) for name in ("canonicalize", "cse", "dce")
}
"""xDSL's clean-up passes that qcomp's pipelines use; qcomp-opt runs them by name too
(they stay out of `PASSES`, which xDSL's own universe would see as duplicates)."""

PIPELINES: dict[str, tuple[str, str]] = {
    "stablehlo-lower-quant": (
        "stablehlo-legalize-quant-to-math,canonicalize,cse",
        "Quantized StableHLO to integer/float math, then canonicalize (folds, drops dead "
        "ops) and cse (merges repeated constants); options go to the first pass.",
    ),
}
"""Named pass pipelines (name -> (pipeline spec, one-line summary)), runnable by name."""


def make_context(allow_unregistered: bool = False) -> Context:
    """A context with builtin and func loaded, and arith, math and every qcomp dialect
    registered: each is imported and loaded the first time one of its ops or types is
    parsed or looked up (a tool run pays only for the dialects its input uses), and
    StableHLO a module at a time (`DEFINITIONS`)."""
    # math: lower-quant-ops' scalar output uses math.roundeven
    return ir.new_context({"arith": _arith, "math": _math, **DIALECTS}, allow_unregistered,
                          DEFINITIONS)


def parse_module(text: str, ctx: Context | None = None, name: str = "<stdin>") -> ModuleOp:
    """Parse a module the MLIR way in qcomp's context (or `ctx`)."""
    return ir.parse_module(text, ctx or make_context(), name)


def _arith() -> Dialect:
    from xdsl.dialects.arith import Arith

    return Arith


def _math() -> Dialect:
    from xdsl.dialects.math import Math

    return Math
