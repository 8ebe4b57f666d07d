"""onnx-mlir's ONNX dialect (github onnx/onnx-mlir `src/Dialect/ONNX/`), in its text:
most ops in MLIR's generic form (`"onnx.QuantizeLinear"(%x, %s, %zp) {axis = 1 : si64}
: (...) -> ...`), `onnx.Constant dense<...> : T`, `"onnx.NoValue"() {value} : () -> none`
for an absent optional input, `"onnx.Custom"` for contrib (com.microsoft) ops.

One module per family of ops, each exporting its list:
- `core`: Constant, NoValue, Custom;
- `quantize`: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, Cast, CastLike;
- `quantized`: QLinearMatMul, QLinearConv, MatMulInteger, ConvInteger and onnxruntime's
  com.microsoft quantized ops;
- `float_ops`: the float ops of QDQ models (Conv, MatMul, Gemm, Add, ... Identity);
- `float_math`: Neg, Exp, Sqrt, Erf, Pow, HardSigmoid, HardSwish, Equal / Less / Greater,
  Where, BatchNormalization, LayerNormalization, ReduceMean;
- `float_slices`: Slice, Split;
- `index_ops`: TopK, ArgMax, CumSum, GatherElements, InstanceNormalization, LeakyRelu;
- `resize_pad`: Pad, Resize;
- `conv_transpose`: ConvTranspose;
- `sequence_ops`: LSTM (a `stablehlo.while` over the time steps);
- `sequence_contrib`: com.microsoft EmbedLayerNormalization, QEmbedLayerNormalization,
  DynamicQuantizeLSTM (`onnx.Custom` ops with lowerings);
- `attention_contrib`: com.microsoft Attention, QAttention (past / present,
  attention_bias, every mask_index form of onnxruntime's CPU kernel);
- `reduce_ops`: ReduceMin, ReduceMax, and the Min, Max, Round of DynamicQuantizeLinear's
  function body;
- `to_stablehlo`: the float ops' StableHLO lowerings, which their `Lowering` traits name.
"""

from __future__ import annotations

from xdsl.ir import Dialect

from qcomp.dialects.onnx import (  # noqa: F401 - com.microsoft ops' checks, lowerings
    attention_contrib,
    sequence_contrib,
)
from qcomp.dialects.onnx.conv_transpose import CONV_TRANSPOSE_OPS
from qcomp.dialects.onnx.core import CORE_ATTRS, CORE_OPS
from qcomp.dialects.onnx.float_math import MATH_OPS
from qcomp.dialects.onnx.float_ops import FLOAT_OPS
from qcomp.dialects.onnx.float_slices import SLICE_OPS
from qcomp.dialects.onnx.index_ops import INDEX_OPS
from qcomp.dialects.onnx.quantize import QUANTIZE_OPS
from qcomp.dialects.onnx.quantized import QUANTIZED_OPS
from qcomp.dialects.onnx.reduce_ops import REDUCE_OPS
from qcomp.dialects.onnx.resize_pad import RESIZE_PAD_OPS
from qcomp.dialects.onnx.sequence_ops import SEQUENCE_OPS

ONNX = Dialect("onnx", [*CORE_OPS, *QUANTIZE_OPS, *QUANTIZED_OPS, *FLOAT_OPS,
                        *MATH_OPS, *SLICE_OPS, *REDUCE_OPS, *INDEX_OPS,
                        *SEQUENCE_OPS, *RESIZE_PAD_OPS, *CONV_TRANSPOSE_OPS],
             [*CORE_ATTRS])
