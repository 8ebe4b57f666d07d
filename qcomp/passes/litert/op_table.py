"""The LiteRT 8-bit quantization spec's operator table, once.

Each `Row` is one TFLite operator of the spec's "int8 quantized operator
specifications" (plus the two StableHLO glue forms a TFLite graph hides: implicit
broadcasting and fused activations), with the StableHLO ops that express it (and the
ONNX ops, by name, for an ONNX front end), and what the spec asks of it:

    output = "activation"  int8 per-tensor, zero point in [-128, 127]
             "fixed"       the spec's fixed (scale, zero_point) (`fixed`, `fixed16`)
             "same"        the inputs' and the output's (scale, zero_point) all equal
             "none"        the result is not quantized (compare, arg_max, shape)
    weights = "fc" | "conv" | "depthwise": input 1 is a symmetric int8 weight,
              per-tensor or per-axis on the output channel, input 2 an int32 bias
              with (scale, zero_point) = (input0_scale * weight_scale[c], 0)

`int16` marks the ops TFLite also runs in 16x8 mode (int16 activations with zero
point 0, int8 weights); `fixed16` is their fixed output in that mode (TFLite's int16
kernels: 1/32768 and zero point 0). `how` says how `litert-verify-int8` recognises
the op in StableHLO (`recognise.py` does it). A `stablehlo.composite "tfl.<name>"`
(the op's lower-case name) is always recognised as that op.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Row:
    tflite: str
    stablehlo: tuple[str, ...]
    onnx: tuple[str, ...]
    output: str = "activation"
    fixed: tuple[float, int] | None = None
    fixed16: tuple[float, int] | None = None
    weights: str | None = None
    int16: bool = False
    how: str = ""
    spec: bool = True
    """False for the StableHLO glue rows that are no TFLite op of the spec's table."""

    @property
    def composite(self) -> str:
        return "tfl." + self.tflite.lower()


_Q16 = (1.0 / 32768.0, 0)

TABLE: tuple[Row, ...] = (
    Row("ADD", ("stablehlo.add",), ("Add", "QLinearAdd"), int16=True),
    Row("SUB", ("stablehlo.subtract",), ("Sub",), int16=True),
    Row("MUL", ("stablehlo.multiply",), ("Mul", "QLinearMul"), int16=True),
    Row("AVERAGE_POOL_2D", ("stablehlo.reduce_window",), ("AveragePool", "QLinearAveragePool"),
        output="same", int16=True,
        how="reduce_window with an add body (and the divide by the window size after it)"),
    Row("MAX_POOL_2D", ("stablehlo.reduce_window",), ("MaxPool",), output="same", int16=True,
        how="reduce_window with a max body"),
    Row("CONCATENATION", ("stablehlo.concatenate",), ("Concat", "QLinearConcat"),
        output="same", int16=True),
    Row("CONV_2D", ("stablehlo.convolution",), ("Conv", "QLinearConv", "ConvInteger"),
        weights="conv", int16=True,
        how="convolution with feature_group_count 1 (or groups other than the input "
            "features); weight = rhs, per-axis on kernel_output_feature_dimension "
            "(TFLite's OHWI dim 0)"),
    Row("DEPTHWISE_CONV_2D", ("stablehlo.convolution",), ("Conv", "QLinearConv"),
        weights="depthwise", int16=True,
        how="convolution with feature_group_count = input features > 1; weight = rhs "
            "[H, W, 1, C*M] per-axis on kernel_output_feature_dimension, which holds "
            "TFLite's [1, H, W, C*M] dim 3"),
    Row("FULLY_CONNECTED", ("stablehlo.dot_general", "stablehlo.dot"),
        ("Gemm", "MatMul", "MatMulInteger", "QLinearMatMul"), weights="fc", int16=True,
        how="dot_general / dot whose rhs is a constant; weight = rhs, per-axis on its "
            "free (neither contracting nor batching) dimension, TFLite's [out, in] dim 0"),
    Row("L2_NORMALIZATION", ("stablehlo.divide", "stablehlo.multiply"),
        ("LpNormalization",), output="fixed", fixed=(1.0 / 128.0, 0),
        how="divide(x, sqrt(reduce_add(x*x))) or multiply(x, rsqrt(reduce_add(x*x))), "
            "broadcasts between"),
    Row("LOGISTIC", ("stablehlo.logistic",), ("Sigmoid", "QLinearSigmoid"), output="fixed",
        fixed=(1.0 / 256.0, -128), fixed16=_Q16, int16=True),
    Row("RESHAPE", ("stablehlo.reshape",), ("Reshape", "Flatten"), output="same", int16=True,
        how="reshape that does more than drop size-1 dimensions"),
    Row("RESIZE_BILINEAR", (), ("Resize",), output="same", int16=True,
        how="composite \"tfl.resize_bilinear\" only"),
    Row("SOFTMAX", ("stablehlo.divide",), ("Softmax",), output="fixed",
        fixed=(1.0 / 256.0, -128), fixed16=_Q16, int16=True,
        how="divide(e, broadcast(reduce_add(e))) with e = exponential(x) (or "
            "exponential(x - broadcast(reduce_max(x))))"),
    Row("SPACE_TO_DEPTH", (), ("SpaceToDepth",), output="same",
        how="composite \"tfl.space_to_depth\"; as reshape/transpose chains each op is "
            "checked as RESHAPE / TRANSPOSE, with the same rule"),
    Row("TANH", ("stablehlo.tanh",), ("Tanh",), output="fixed", fixed=(1.0 / 128.0, 0),
        fixed16=_Q16, int16=True),
    Row("PAD", ("stablehlo.pad",), ("Pad",), output="same", int16=True,
        how="pad (the padding value operand too: PADV2)"),
    Row("GATHER", ("stablehlo.gather",), ("Gather",), output="same", int16=True,
        how="gather (operand 0; the indices are integers)"),
    Row("BATCH_TO_SPACE_ND", (), ("DepthToSpace",), output="same",
        how="composite \"tfl.batch_to_space_nd\"; as reshape/transpose/slice chains each "
            "op is checked with the same rule"),
    Row("SPACE_TO_BATCH_ND", (), (), output="same",
        how="composite \"tfl.space_to_batch_nd\"; as pad/reshape/transpose chains each "
            "op is checked with the same rule"),
    Row("TRANSPOSE", ("stablehlo.transpose",), ("Transpose",), output="same", int16=True),
    Row("MEAN", ("stablehlo.reduce",), ("ReduceMean",), int16=True,
        how="reduce with an add body whose result is divided by a constant"),
    Row("SUM", ("stablehlo.reduce",), ("ReduceSum",), int16=True,
        how="reduce with an add body"),
    Row("SQUEEZE", ("stablehlo.reshape",), ("Squeeze",), output="same", int16=True,
        how="reshape that only drops size-1 dimensions"),
    Row("LOG_SOFTMAX", ("stablehlo.subtract",), ("LogSoftmax",), output="fixed",
        fixed=(16.0 / 256.0, 127),
        how="subtract(x, broadcast(log(reduce_add(exponential(x)))))"),
    Row("MAXIMUM", ("stablehlo.maximum",), ("Max",), output="same", int16=True),
    Row("ARG_MAX", (), ("ArgMax",), output="none", how="composite \"tfl.arg_max\" only"),
    Row("MINIMUM", ("stablehlo.minimum",), ("Min",), output="same", int16=True),
    Row("LESS", ("stablehlo.compare",), ("Less",), output="none", int16=True,
        how="compare LT"),
    Row("PADV2", ("stablehlo.pad",), ("Pad",), output="same", int16=True,
        how="pad with a padding value other than the zero point"),
    Row("GREATER", ("stablehlo.compare",), ("Greater",), output="none", int16=True,
        how="compare GT"),
    Row("GREATER_EQUAL", ("stablehlo.compare",), ("GreaterOrEqual",), output="none",
        int16=True, how="compare GE"),
    Row("LESS_EQUAL", ("stablehlo.compare",), ("LessOrEqual",), output="none", int16=True,
        how="compare LE"),
    Row("SLICE", ("stablehlo.slice", "stablehlo.dynamic_slice"), ("Slice",), output="same",
        int16=True, how="slice, dynamic_slice (operand 0)"),
    Row("EQUAL", ("stablehlo.compare",), ("Equal",), output="none", int16=True,
        how="compare EQ"),
    Row("NOT_EQUAL", ("stablehlo.compare",), ("Not",), output="none", int16=True,
        how="compare NE"),
    Row("SHAPE", ("stablehlo.get_dimension_size",), ("Shape",), output="none", int16=True),
    Row("QUANTIZE", ("stablehlo.uniform_quantize",), ("QuantizeLinear",), int16=True,
        how="uniform_quantize: from float, or a requantization from int8/int16"),
    # not in the spec's table: the StableHLO forms of what a TFLite graph does implicitly
    Row("DEQUANTIZE", ("stablehlo.uniform_dequantize",), ("DequantizeLinear",), output="none",
        int16=True, spec=False, how="uniform_dequantize (TFLite's DEQUANTIZE: input only)"),
    Row("BROADCAST (implicit)", ("stablehlo.broadcast_in_dim",), ("Expand",), output="same",
        int16=True, spec=False,
        how="broadcast_in_dim: TFLite's binary ops broadcast implicitly; moves data"),
    Row("FUSED_ACTIVATION", ("stablehlo.clamp",), ("Clip", "Relu"), output="same", int16=True,
        spec=False,
        how="clamp (RELU, RELU6, RELU_N1_TO_1 fused into the op before): bounds and "
            "result in the operand's parameters"),
)

BY_NAME: dict[str, Row] = {r.tflite: r for r in TABLE}
BY_COMPOSITE: dict[str, Row] = {r.composite: r for r in TABLE if r.spec}

COMPARE: dict[str, str] = {"LT": "LESS", "GT": "GREATER", "GE": "GREATER_EQUAL",
                           "LE": "LESS_EQUAL", "EQ": "EQUAL", "NE": "NOT_EQUAL"}
"""`stablehlo.compare` direction -> TFLite op."""


def rows_for_stablehlo(name: str) -> list[Row]:
    """The table rows a StableHLO op name can express (the recogniser picks one)."""
    return [r for r in TABLE if name in r.stablehlo]


def rows_for_onnx(name: str) -> list[Row]:
    """The table rows an ONNX op type can express."""
    return [r for r in TABLE if name in r.onnx]
