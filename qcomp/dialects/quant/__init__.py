"""The `quant` dialect: MLIR's quantized types (`types.py`, their storage in
`storage.py`, text in `syntax.py`) and the qcast/dcast/scast ops (`ops.py`)."""

from xdsl.ir import Dialect

from qcomp.dialects.quant.ops import DequantizeCastOp, QuantizeCastOp, StorageCastOp
from qcomp.dialects.quant.syntax import MAX_STORAGE_BITS, mlir_double_text
from qcomp.dialects.quant.types import (
    AnyQuantizedType,
    CalibratedQuantizedType,
    QuantType,
    UniformQuantizedType,
    element_type,
    expressed_of,
    float_kind,
    quantized_element,
    storage_of,
    storage_type_range,
)

Quant = Dialect(
    "quant",
    [QuantizeCastOp, DequantizeCastOp, StorageCastOp],
    [UniformQuantizedType, AnyQuantizedType, CalibratedQuantizedType],
)

__all__ = [
    "MAX_STORAGE_BITS", "AnyQuantizedType", "CalibratedQuantizedType", "DequantizeCastOp",
    "Quant", "QuantType", "QuantizeCastOp", "StorageCastOp", "UniformQuantizedType",
    "element_type", "expressed_of", "float_kind", "mlir_double_text", "quantized_element",
    "storage_of", "storage_type_range",
]
