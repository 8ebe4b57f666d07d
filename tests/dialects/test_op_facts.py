"""Every op declares its facts (qcomp.dialects.facts), and the sets the passes and the
interpreter derive from them are upstream's.

The op lists below are upstream StableHLO's own (the 40 ops of
`stablehlo-legalize-quantized-op-to-qdq`, quant-to-math's `ConvertGenericOp` list): an
independent statement of what the facts must produce.
"""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import UnregisteredOp

from qcomp.dialects.facts import (
    Elementwise,
    Quantization,
    QuantSemantics,
    UpstreamGeneric,
    quantization,
)
from qcomp.dialects.stablehlo.kinds import ElementKinds
from qcomp.dialects.stablehlo.undefined import UNDEFINED_OPS
from qcomp.registry import DIALECTS

# func is xDSL's dialect (qcomp only swaps in func.return's verifier): no facts
OPS = [op for name, factory in DIALECTS.items() if name != "func"
       for op in factory().operations]

# upstream: stablehlo/transforms/StablehloLegalizeQuantizedOpToQDQ.cpp
UPSTREAM_QDQ = {f"stablehlo.{n}" for n in (
    "abs", "add", "atan2", "batch_norm_grad", "batch_norm_inference", "batch_norm_training",
    "cbrt", "ceil", "cholesky", "clamp", "compare", "convolution", "cosine", "divide", "dot",
    "dot_general", "exponential", "exponential_minus_one", "floor", "log", "log_plus_one",
    "logistic", "maximum", "minimum", "multiply", "negate", "power", "reduce_precision",
    "remainder", "round_nearest_afz", "round_nearest_even", "rsqrt", "select", "sign", "sine",
    "sqrt", "subtract", "tan", "tanh", "triangular_solve")}
# upstream: StablehloLegalizeQuantToMath.cpp, ConvertGenericOp (the ops qcomp defines)
UPSTREAM_GENERIC = {f"stablehlo.{n}" for n in (
    "bitcast_convert", "broadcast_in_dim", "concatenate", "constant", "gather", "maximum",
    "minimum", "pad", "reduce_window", "reshape", "return", "select", "slice", "transpose",
    "dynamic_reshape", "dynamic_slice", "get_dimension_size", "dynamic_broadcast_in_dim")}


@pytest.mark.parametrize("op", OPS, ids=lambda op: op.name)
def test_every_op_declares_its_quantization(op):
    assert op.get_trait(Quantization) is not None, f"{op.name} declares no Quantization"


@pytest.mark.parametrize("op", [op for op in OPS if op.name.startswith("stablehlo.")],
                         ids=lambda op: op.name)
def test_every_stablehlo_op_declares_its_element_kinds(op):
    assert op.get_trait(ElementKinds) is not None, f"{op.name} declares no ElementKinds"


def test_op_classes_are_written_out():
    """Every op is a class of its own name in its module (no type() factory)."""
    import importlib
    import inspect

    for op in OPS:
        module = importlib.import_module(op.__module__)
        source = inspect.getsource(module)
        assert f"class {op.__name__}(" in source, op.__name__


def test_upstream_qdq_list():
    declared = {op.name for op in OPS if quantization(op).upstream_qdq}
    undefined = {name for name, f in UNDEFINED_OPS.items() if f.upstream_qdq}
    assert declared | undefined == UPSTREAM_QDQ
    assert not declared & undefined


def test_upstream_generic_list():
    declared = {op.name for op in OPS
                if quantization(op).upstream_generic != UpstreamGeneric.NEVER}
    assert declared == UPSTREAM_GENERIC
    same_types = {op.name for op in OPS
                  if quantization(op).upstream_generic == UpstreamGeneric.SAME_TYPES}
    assert same_types == {"stablehlo.maximum", "stablehlo.minimum"}


def test_per_axis_only_where_the_spec_allows_it():
    per_axis = {op.name for op in OPS if quantization(op).per_axis}
    assert per_axis == {f"stablehlo.{n}" for n in (
        "add", "bitcast_convert", "broadcast_in_dim", "constant", "convolution", "dot",
        "dot_general", "reshape", "transpose", "uniform_dequantize", "uniform_quantize",
        "dynamic_broadcast_in_dim", "dynamic_conv", "dynamic_reshape",
        # ODS: HLO_TensorOrPerAxisQuantizedTensorOrToken[OrTuple]
        "while", "if", "case", "tuple", "get_tuple_element")} | {
        "quant.qcast", "quant.dcast", "quant.scast", "tosa.rescale"}


def test_undefined_ops_are_not_defined():
    names = {op.name for op in OPS}
    assert not names & set(UNDEFINED_OPS)
    assert not UNDEFINED_OPS  # every op upstream's quantization passes name is defined


def test_elementwise_ops_have_one_or_two_operands_and_a_kernel():
    for op in OPS:
        impl = op.get_trait(Elementwise)
        if impl is None:
            continue
        assert any((impl.float, impl.complex, impl.int, impl.bool)), op.name


def test_quantized_elementwise_ops_are_dequantize_op_quantize():
    """A stablehlo elementwise op with a NumPy kernel and a quantized form has the
    spec's dequantize_op_quantize meaning (the interpreter's fallback relies on it)."""
    for op in OPS:
        q = quantization(op)
        if op.name.startswith("stablehlo.") and op.has_trait(Elementwise) and \
                q.semantics != QuantSemantics.NONE:
            assert q.dequantize_op_quantize, op.name


def test_unregistered_ops_have_no_traits():
    assert not UnregisteredOp.with_name("stablehlo.cholesky").has_trait(Quantization,
                                                                       value_if_unregistered=False)
