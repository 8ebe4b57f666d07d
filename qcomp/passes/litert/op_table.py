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

from xdsl.ir import Operation

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.quant import DequantizeCastOp, QuantizeCastOp


@dataclass(frozen=True)
class Row:
    tflite: str
    stablehlo: tuple[type[Operation], ...]
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
    Row("ADD", (sh.AddOp,), ("Add", "QLinearAdd"), int16=True),
    Row("SUB", (sh.SubtractOp,), ("Sub",), int16=True),
    Row("MUL", (sh.MultiplyOp,), ("Mul", "QLinearMul"), int16=True),
    Row("AVERAGE_POOL_2D", (sh.ReduceWindowOp,), ("AveragePool", "QLinearAveragePool"),
        output="same", int16=True,
        how="reduce_window with an add body (and the divide by the window size after it)"),
    Row("MAX_POOL_2D", (sh.ReduceWindowOp,), ("MaxPool",), output="same", int16=True,
        how="reduce_window with a max body"),
    Row("CONCATENATION", (sh.ConcatenateOp,), ("Concat", "QLinearConcat"),
        output="same", int16=True),
    Row("CONV_2D", (sh.ConvolutionOp,), ("Conv", "QLinearConv", "ConvInteger"),
        weights="conv", int16=True,
        how="convolution with feature_group_count 1 (or groups other than the input "
            "features); weight = rhs, per-axis on kernel_output_feature_dimension "
            "(TFLite's OHWI dim 0)"),
    Row("DEPTHWISE_CONV_2D", (sh.ConvolutionOp,), ("Conv", "QLinearConv"),
        weights="depthwise", int16=True,
        how="convolution with feature_group_count = input features > 1; weight = rhs "
            "[H, W, 1, C*M] per-axis on kernel_output_feature_dimension, which holds "
            "TFLite's [1, H, W, C*M] dim 3"),
    Row("FULLY_CONNECTED", (sh.DotGeneralOp, sh.DotOp),
        ("Gemm", "MatMul", "MatMulInteger", "QLinearMatMul"), weights="fc", int16=True,
        how="dot_general / dot; weight = rhs (a constant, or a run-time value, which "
            "TFLite's FULLY_CONNECTED also takes), per-axis on its free (neither "
            "contracting nor batching) dimension, TFLite's [out, in] dim 0"),
    Row("L2_NORMALIZATION", (sh.DivideOp, sh.MultiplyOp),
        ("LpNormalization",), output="fixed", fixed=(1.0 / 128.0, 0),
        how="divide(x, sqrt(reduce_add(x*x))) or multiply(x, rsqrt(reduce_add(x*x))), "
            "broadcasts between"),
    Row("LOGISTIC", (sh.LogisticOp,), ("Sigmoid", "QLinearSigmoid"), output="fixed",
        fixed=(1.0 / 256.0, -128), fixed16=_Q16, int16=True),
    Row("RESHAPE", (sh.ReshapeOp,), ("Reshape", "Flatten"), output="same", int16=True,
        how="reshape that does more than drop size-1 dimensions"),
    Row("RESIZE_BILINEAR", (), ("Resize",), output="same", int16=True,
        how="composite \"tfl.resize_bilinear\" only"),
    Row("SOFTMAX", (sh.DivideOp,), ("Softmax",), output="fixed",
        fixed=(1.0 / 256.0, -128), fixed16=_Q16, int16=True,
        how="divide(e, broadcast(reduce_add(e))) with e = exponential(x) (or "
            "exponential(x - broadcast(reduce_max(x))))"),
    Row("SPACE_TO_DEPTH", (), ("SpaceToDepth",), output="same",
        how="composite \"tfl.space_to_depth\"; as reshape/transpose chains each op is "
            "checked as RESHAPE / TRANSPOSE, with the same rule"),
    Row("TANH", (sh.TanhOp,), ("Tanh",), output="fixed", fixed=(1.0 / 128.0, 0),
        fixed16=_Q16, int16=True),
    Row("PAD", (sh.PadOp,), ("Pad",), output="same", int16=True,
        how="pad (the padding value operand too: PADV2)"),
    Row("GATHER", (sh.GatherOp,), ("Gather",), output="same", int16=True,
        how="gather (operand 0; the indices are integers)"),
    Row("BATCH_TO_SPACE_ND", (), (), output="same",
        how="composite \"tfl.batch_to_space_nd\"; as reshape/transpose/slice chains each "
            "op is checked with the same rule"),
    Row("SPACE_TO_BATCH_ND", (), (), output="same",
        how="composite \"tfl.space_to_batch_nd\"; as pad/reshape/transpose chains each "
            "op is checked with the same rule"),
    Row("TRANSPOSE", (sh.TransposeOp,), ("Transpose",), output="same", int16=True),
    Row("MEAN", (sh.ReduceOp,), ("ReduceMean",), int16=True,
        how="reduce with an add body whose result is divided by a constant"),
    Row("SUM", (sh.ReduceOp,), ("ReduceSum",), int16=True,
        how="reduce with an add body"),
    Row("SQUEEZE", (sh.ReshapeOp,), ("Squeeze",), output="same", int16=True,
        how="reshape that only drops size-1 dimensions"),
    Row("LOG_SOFTMAX", (sh.SubtractOp,), ("LogSoftmax",), output="fixed",
        fixed=(16.0 / 256.0, 127),
        how="subtract(x, broadcast(log(reduce_add(exponential(x)))))"),
    Row("MAXIMUM", (sh.MaximumOp,), ("Max",), output="same", int16=True),
    Row("ARG_MAX", (), ("ArgMax",), output="none", how="composite \"tfl.arg_max\" only"),
    Row("MINIMUM", (sh.MinimumOp,), ("Min",), output="same", int16=True),
    Row("LESS", (sh.CompareOp,), ("Less",), output="none", int16=True,
        how="compare LT"),
    Row("PADV2", (sh.PadOp,), ("Pad",), output="same", int16=True,
        how="pad: the same rule as PAD, reported as PAD"),
    Row("GREATER", (sh.CompareOp,), ("Greater",), output="none", int16=True,
        how="compare GT"),
    Row("GREATER_EQUAL", (sh.CompareOp,), ("GreaterOrEqual",), output="none",
        int16=True, how="compare GE"),
    Row("LESS_EQUAL", (sh.CompareOp,), ("LessOrEqual",), output="none", int16=True,
        how="compare LE"),
    Row("SLICE", (sh.SliceOp, sh.DynamicSliceOp), ("Slice",), output="same",
        int16=True, how="slice, dynamic_slice (operand 0)"),
    Row("EQUAL", (sh.CompareOp,), ("Equal",), output="none", int16=True,
        how="compare EQ"),
    Row("NOT_EQUAL", (sh.CompareOp,), (), output="none", int16=True,
        how="compare NE"),
    Row("SHAPE", (sh.GetDimensionSizeOp,), ("Shape",), output="none", int16=True),
    Row("QUANTIZE", (sh.UniformQuantizeOp, QuantizeCastOp), ("QuantizeLinear",), int16=True,
        how="uniform_quantize (or quant.qcast): from float, or a requantization"),
    # not in the spec's table: the StableHLO forms of what a TFLite graph does implicitly
    Row("DEQUANTIZE", (sh.UniformDequantizeOp, DequantizeCastOp), ("DequantizeLinear",),
        output="none", int16=True, spec=False,
        how="uniform_dequantize (or quant.dcast; TFLite's DEQUANTIZE: input only)"),
    Row("BROADCAST (implicit)", (sh.BroadcastInDimOp,), ("Expand",), output="same",
        int16=True, spec=False,
        how="broadcast_in_dim: TFLite's binary ops broadcast implicitly; moves data"),
    Row("FUSED_ACTIVATION", (sh.ClampOp,), ("Clip", "Relu"), output="same", int16=True,
        spec=False,
        how="clamp (RELU, RELU6, RELU_N1_TO_1 fused into the op before): bounds and "
            "result in the operand's parameters"),
)

BY_NAME: dict[str, Row] = {r.tflite: r for r in TABLE}
BY_COMPOSITE: dict[str, Row] = {r.composite: r for r in TABLE if r.spec}

COMPARE: dict[str, str] = {"LT": "LESS", "GT": "GREATER", "GE": "GREATER_EQUAL",
                           "LE": "LESS_EQUAL", "EQ": "EQUAL", "NE": "NOT_EQUAL"}
"""`stablehlo.compare` direction -> TFLite op."""


def rows_for_stablehlo(op: Operation) -> list[Row]:
    """The table rows a StableHLO op can express (the recogniser picks one)."""
    return [r for r in TABLE if isinstance(op, r.stablehlo)]


def rows_for_onnx(name: str) -> list[Row]:
    """The table rows an ONNX op type can express."""
    return [r for r in TABLE if name in r.onnx]
