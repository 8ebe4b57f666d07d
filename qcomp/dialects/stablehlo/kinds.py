"""Operand/result type constraints of the StableHLO ops (upstream's ODS constraints).

Each op lists, per operand and result, which element kinds it accepts; a value of
another kind fails with upstream's message, e.g.

    operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or per-tensor
    integer quantized values, but got 'tensor<2x!quant.uniform<i8:f32:0, {...}>>'

Per-axis quantization (`QA`) is accepted only where the StableHLO spec allows it,
and only when its quantized dimension fits the tensor (`verify_for_shape`).
"""

from __future__ import annotations

from collections.abc import Sequence
from io import StringIO

from xdsl.dialects.builtin import (
    AnyFloat,
    ComplexType,
    Float32Type,
    Float64Type,
    IntegerType,
    Signedness,
    TensorType,
)
from xdsl.ir import Attribute
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from qcomp.dialects.quant import UniformQuantizedType

KIND_TEXT = {
    "F": "4/6/8/16/32/64-bit float",
    "B": "bool",
    "I": "2/4/8/16/32/64-bit integer",
    "SI": "2/4/8/16/32/64-bit signless integer",
    "C": "complex type with 32/64-bit float elements",
    "Q": "per-tensor integer quantized",
    "QA": "per-axis integer quantized",
}

TENSOR = ("F", "B", "I", "C", "Q")                 # HLO_Tensor
TENSOR_PA = TENSOR + ("QA",)                       # HLO_TensorOrPerAxisQuantizedTensor
INT_FP_COMPLEX_Q = ("I", "F", "C", "Q")
SINT_FP_COMPLEX_Q = ("SI", "F", "C", "Q")
FP_COMPLEX_Q = ("F", "C", "Q")
FP_Q = ("F", "Q")
PRED_INT = ("B", "I")
INT = ("I",)
PRED = ("B",)
FP = ("F",)
NON_QUANTIZED = ("F", "B", "I", "C")
QUANTIZED = ("Q", "QA")

RANKED = "ranked tensor"
STATIC = "statically shaped tensor"
STATIC_OR_BOUNDED = "statically shaped or single bounded dimension tensor"
ONE_D = "1D tensor"
ZERO_D = "0D tensor"

# op name -> (operand kinds per operand (last one repeats), result kinds, result prefix)
_UNARY = {
    "abs": (SINT_FP_COMPLEX_Q, ("SI", "F", "Q")),
    "ceil": (FP_Q, FP_Q), "floor": (FP_Q, FP_Q),
    "round_nearest_afz": (FP_Q, FP_Q), "round_nearest_even": (FP_Q, FP_Q),
    "convert": (NON_QUANTIZED, NON_QUANTIZED),
    "not": (PRED_INT, PRED_INT),
    "negate": (INT_FP_COMPLEX_Q, INT_FP_COMPLEX_Q),
    "popcnt": (INT, INT), "count_leading_zeros": (INT, INT),
    "sign": (SINT_FP_COMPLEX_Q, SINT_FP_COMPLEX_Q),
    "uniform_quantize": (("F", "Q", "QA"), QUANTIZED),
    "uniform_dequantize": (QUANTIZED, FP),
    "reduce_precision": (FP_Q, FP_Q),
}
for _name in ("cbrt", "cosine", "exponential", "exponential_minus_one", "log", "log_plus_one",
              "logistic", "rsqrt", "sine", "sqrt", "tan", "tanh"):
    _UNARY[_name] = (FP_COMPLEX_Q, FP_COMPLEX_Q)

_BINARY = {
    "add": TENSOR_PA, "atan2": FP_COMPLEX_Q,
    "maximum": TENSOR, "minimum": TENSOR, "multiply": TENSOR,
    "divide": INT_FP_COMPLEX_Q, "power": INT_FP_COMPLEX_Q, "remainder": INT_FP_COMPLEX_Q,
    "subtract": INT_FP_COMPLEX_Q,
    "shift_left": INT, "shift_right_arithmetic": INT, "shift_right_logical": INT,
    "and": PRED_INT, "or": PRED_INT, "xor": PRED_INT,
}

OPERAND_KINDS: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
RESULT_KINDS: dict[str, tuple[str, tuple[str, ...]]] = {}

for _name, (_ins, _out) in _UNARY.items():
    OPERAND_KINDS[f"stablehlo.{_name}"] = [(RANKED, _ins)]
    RESULT_KINDS[f"stablehlo.{_name}"] = (RANKED, _out)
for _name, _kinds in _BINARY.items():
    OPERAND_KINDS[f"stablehlo.{_name}"] = [(RANKED, _kinds), (RANKED, _kinds)]
    RESULT_KINDS[f"stablehlo.{_name}"] = (RANKED, _kinds)

_OTHER: dict[str, tuple[list[tuple[str, tuple[str, ...]]], tuple[str, tuple[str, ...]] | None]] = {
    "clamp": ([(RANKED, TENSOR)] * 3, (RANKED, TENSOR)),
    "select": ([(RANKED, PRED), (RANKED, TENSOR), (RANKED, TENSOR)], (RANKED, TENSOR)),
    "compare": ([(RANKED, TENSOR)] * 2, (RANKED, PRED)),
    "constant": ([], (STATIC, TENSOR_PA)),
    "iota": ([], (STATIC, INT_FP_COMPLEX_Q)),
    "bitcast_convert": ([(RANKED, TENSOR_PA)], (RANKED, TENSOR_PA)),
    "reshape": ([(RANKED, TENSOR_PA)], (STATIC_OR_BOUNDED, TENSOR_PA)),
    "transpose": ([(RANKED, TENSOR_PA)], (RANKED, TENSOR_PA)),
    "broadcast_in_dim": ([(RANKED, TENSOR_PA)], (STATIC_OR_BOUNDED, TENSOR_PA)),
    "concatenate": ([(RANKED, TENSOR)], (RANKED, TENSOR)),
    "slice": ([(RANKED, TENSOR)], (RANKED, TENSOR)),
    "pad": ([(RANKED, TENSOR), (ZERO_D, TENSOR)], (RANKED, TENSOR)),
    "gather": ([(RANKED, TENSOR), (RANKED, INT)], (RANKED, TENSOR)),
    "dot": ([(RANKED, TENSOR), (RANKED, TENSOR_PA)], (RANKED, TENSOR_PA)),
    "dot_general": ([(RANKED, TENSOR), (RANKED, TENSOR_PA)], (RANKED, TENSOR_PA)),
    "convolution": ([(RANKED, TENSOR), (RANKED, TENSOR_PA)], (RANKED, TENSOR_PA)),
    "batch_norm_inference": ([(RANKED, FP_Q), (ONE_D, FP_Q)], (RANKED, FP_Q)),
    "reduce": ([(RANKED, TENSOR)], (RANKED, TENSOR)),
    "reduce_window": ([(RANKED, TENSOR)], (RANKED, TENSOR)),
}
for _name, (_ins_list, _res) in _OTHER.items():
    OPERAND_KINDS[f"stablehlo.{_name}"] = _ins_list
    if _res is not None:
        RESULT_KINDS[f"stablehlo.{_name}"] = _res


def type_text(t: Attribute) -> str:
    """`t` as MLIR prints it."""
    out = StringIO()
    Printer(stream=out).print_attribute(t)
    return out.getvalue()


def element_kinds(t: Attribute) -> set[str]:
    """The kinds (`F`, `B`, `I`, `SI`, `C`, `Q`, `QA`) the element type of `t` belongs to."""
    e = t.element_type if isinstance(t, TensorType) else t
    kinds: set[str] = set()
    if isinstance(e, AnyFloat):
        kinds.add("F")
    elif isinstance(e, IntegerType):
        width = e.width.data
        signless = e.signedness.data == Signedness.SIGNLESS
        if width == 1 and signless:
            kinds.add("B")
        if width in (2, 4, 8, 16, 32, 64) and e.signedness.data != Signedness.SIGNED:
            kinds.add("I")
            if signless:
                kinds.add("SI")
    elif isinstance(e, ComplexType):
        if isinstance(e.element_type, Float32Type | Float64Type):
            kinds.add("C")
    elif isinstance(e, UniformQuantizedType):
        if e.is_per_tensor:
            kinds.add("Q")
        elif e.is_per_axis and isinstance(t, TensorType):
            try:
                e.verify_for_shape(t.get_shape())
                kinds.add("QA")
            except VerifyException:
                pass
    return kinds


def describe(prefix: str, kinds: Sequence[str]) -> str:
    return f"{prefix} of {' or '.join(KIND_TEXT[k] for k in kinds)} values"


def _fits(t: Attribute, prefix: str, kinds: Sequence[str]) -> bool:
    if not isinstance(t, TensorType):
        return False
    shape = t.get_shape()
    if prefix == STATIC and any(d < 0 for d in shape):
        return False
    if prefix == STATIC_OR_BOUNDED and any(d < 0 for d in shape):
        return False
    if prefix == ONE_D and len(shape) != 1:
        return False
    if prefix == ZERO_D and len(shape) != 0:
        return False
    return bool(element_kinds(t) & set(kinds))


def verify_value_kinds(op) -> None:
    """Check every operand and result against the op's accepted kinds."""
    spec = OPERAND_KINDS.get(op.name)
    if spec:
        for i, value in enumerate(op.operands):
            prefix, kinds = spec[min(i, len(spec) - 1)]
            if not _fits(value.type, prefix, kinds):
                raise VerifyException(
                    f"operand #{i} must be {describe(prefix, kinds)}, but got "
                    f"'{type_text(value.type)}'")
    res = RESULT_KINDS.get(op.name)
    if res:
        prefix, kinds = res
        for i, value in enumerate(op.results):
            if not _fits(value.type, prefix, kinds):
                raise VerifyException(
                    f"result #{i} must be {describe(prefix, kinds)}, but got "
                    f"'{type_text(value.type)}'")
