"""qcomp's passes, one ModulePass module per pass named after it (`qcomp/passes/<name>.py`),
and the shared helpers beside them (`utils/`, and one subpackage per pass family).

    from qcomp.passes import PASSES, pass_class
    LowerQuant = pass_class("stablehlo-legalize-quant-to-math")   # the ModulePass class
    LowerQuant(rescale="fixed-point").apply(ctx, module)

`PASSES` maps each pass's canonical name (upstream's, where upstream has the pass) to a
factory that imports its module; `PASS_ALIASES` maps the other names a pass answers to
(upstream's older names) to the canonical one. `pass_class` takes either. Named
pipelines and xDSL's clean-up passes are `qcomp.registry`'s (`qcomp.run_pipeline` runs
all of them by name).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from xdsl.passes import ModulePass


def _strip_func_quant_types() -> type[ModulePass]:
    from qcomp.passes.strip_func_quant_types import StripFuncQuantTypesPass

    return StripFuncQuantTypesPass


def _normalize_quant_types() -> type[ModulePass]:
    from qcomp.passes.normalize_quant_types import NormalizeQuantTypesPass

    return NormalizeQuantTypesPass


def _lower_quant_ops() -> type[ModulePass]:
    from qcomp.passes.lower_quant_ops import LowerQuantOpsPass

    return LowerQuantOpsPass


def _stablehlo_legalize_qdq_to_quantized_op() -> type[ModulePass]:
    from qcomp.passes.stablehlo_legalize_qdq_to_quantized_op import StablehloLegalizeQDQToQuantizedOpPass

    return StablehloLegalizeQDQToQuantizedOpPass


def _stablehlo_legalize_quantized_op_to_qdq() -> type[ModulePass]:
    from qcomp.passes.stablehlo_legalize_quantized_op_to_qdq import StablehloLegalizeQuantizedOpToQDQPass

    return StablehloLegalizeQuantizedOpToQDQPass


def _stablehlo_quant_legalize_to_tosa_rescale() -> type[ModulePass]:
    from qcomp.passes.stablehlo_quant_legalize_to_tosa_rescale import StablehloQuantLegalizeToTosaRescalePass

    return StablehloQuantLegalizeToTosaRescalePass


def _tosa_rescale_legalize_to_stablehlo() -> type[ModulePass]:
    from qcomp.passes.tosa_rescale_legalize_to_stablehlo import TosaRescaleLegalizeToStablehloPass

    return TosaRescaleLegalizeToStablehloPass


def _stablehlo_legalize_quant_to_math() -> type[ModulePass]:
    from qcomp.passes.stablehlo_legalize_quant_to_math import LegalizeQuantToMathPass

    return LegalizeQuantToMathPass


def _rowwise_legalize_to_stablehlo() -> type[ModulePass]:
    from qcomp.passes.rowwise_legalize_to_stablehlo import RowwiseLegalizeToStablehloPass

    return RowwiseLegalizeToStablehloPass


def _litert_verify_int8() -> type[ModulePass]:
    from qcomp.passes.litert_verify_int8 import LitertVerifyInt8Pass

    return LitertVerifyInt8Pass


def _litert_quantize_weights() -> type[ModulePass]:
    from qcomp.passes.litert_quantize_weights import LitertQuantizeWeightsPass

    return LitertQuantizeWeightsPass


def _onnx_legalize_to_stablehlo() -> type[ModulePass]:
    from qcomp.passes.onnx_legalize_to_stablehlo import OnnxLegalizeToStablehloPass

    return OnnxLegalizeToStablehloPass


def _onnx_legalize_qdq_to_quant() -> type[ModulePass]:
    from qcomp.passes.onnx_legalize_qdq_to_quant import OnnxLegalizeQDQToQuantPass

    return OnnxLegalizeQDQToQuantPass


def _onnx_fuse_qdq() -> type[ModulePass]:
    from qcomp.passes.onnx_fuse_qdq import OnnxFuseQDQPass

    return OnnxFuseQDQPass


def _onnx_unfuse_qdq() -> type[ModulePass]:
    from qcomp.passes.onnx_unfuse_qdq import OnnxUnfuseQDQPass

    return OnnxUnfuseQDQPass


PASSES: dict[str, Callable[[], type[ModulePass]]] = {
    "strip-func-quant-types": _strip_func_quant_types,
    "normalize-quant-types": _normalize_quant_types,
    "lower-quant-ops": _lower_quant_ops,
    "stablehlo-legalize-qdq-to-quantized-op": _stablehlo_legalize_qdq_to_quantized_op,
    "stablehlo-legalize-quantized-op-to-qdq": _stablehlo_legalize_quantized_op_to_qdq,
    "stablehlo-quant-legalize-to-tosa-rescale": _stablehlo_quant_legalize_to_tosa_rescale,
    "tosa-rescale-legalize-to-stablehlo": _tosa_rescale_legalize_to_stablehlo,
    "stablehlo-legalize-quant-to-math": _stablehlo_legalize_quant_to_math,
    "rowwise-legalize-to-stablehlo": _rowwise_legalize_to_stablehlo,
    "litert-verify-int8": _litert_verify_int8,
    "litert-quantize-weights": _litert_quantize_weights,
    "onnx-legalize-to-stablehlo": _onnx_legalize_to_stablehlo,
    "onnx-legalize-qdq-to-quant": _onnx_legalize_qdq_to_quant,
    "onnx-fuse-qdq": _onnx_fuse_qdq,
    "onnx-unfuse-qdq": _onnx_unfuse_qdq,
}
"""qcomp's passes by their canonical name (name -> factory: the class, imported on first
use). Each lives in `qcomp/passes/<name with _>.py`."""

PASS_ALIASES: dict[str, str] = {
    # upstream StableHLO's name for the pass before it was renamed to -to-math
    "stablehlo-legalize-quant-to-int": "stablehlo-legalize-quant-to-math",
}
"""Other names of a pass (alias -> canonical name), accepted everywhere a pass is named
(qcomp-opt, `qcomp.run_pipeline`, the xDSL plugin) and listed in `--help` and
docs/passes.md."""


def canonical_name(name: str) -> str:
    """The canonical name of a pass named `name` (itself when it is not an alias)."""
    return PASS_ALIASES.get(name, name)


@functools.cache
def pass_class(name: str) -> type[ModulePass]:
    """The pass class registered as `name` (a canonical name or an alias; KeyError
    otherwise). An alias's class is the canonical class under the alias's `name`: xDSL
    requires a pass spec's name to equal its class's, so `xdsl-opt -p <alias>` needs it."""
    if name in PASSES:
        return PASSES[name]()
    cls = PASSES[PASS_ALIASES[name]]()
    doc = f"{canonical_name(name)} under its other name `{name}` (same pass, same options)."
    return type(cls.__name__, (cls,), {"name": name, "__doc__": doc,
                                       "__module__": cls.__module__})


__all__ = ["PASSES", "PASS_ALIASES", "canonical_name", "pass_class"]
