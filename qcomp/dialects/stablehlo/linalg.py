"""StableHLO's linear-algebra, transform, normalization and random ops, and `reverse`:

    %l = stablehlo.cholesky %a, lower = true : tensor<3x3xf32>
    %x = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true,
           transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false} : ...
    %f = stablehlo.fft %x, type = RFFT, length = [4] : (tensor<4xf32>) -> tensor<3xcomplex<f32>>
    %g:3 = "stablehlo.batch_norm_grad"(...), %t:3 = "stablehlo.batch_norm_training"(...)
    %r = stablehlo.reverse %x, dims = [0] : tensor<3xf32>
    %u = stablehlo.rng %a, %b, %shape, distribution = UNIFORM : (...) -> tensor<2xf32>
    %s, %o = stablehlo.rng_bit_generator %state, algorithm = THREE_FRY : (...) -> (...)
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    BoolAttr,
    ComplexType,
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    TensorType,
)
from xdsl.irdl import (
    IRDLOperation,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import NoMemoryEffect

from qcomp.dialects.facts import (
    NO_QUANTIZATION,
    XLA_EXPANSION,
    Quantization,
    QuantSemantics,
    UpstreamGeneric,
    XlaInexact,
    dq_op_q,
    type_only,
)
from qcomp.dialects.quant import element_type
from qcomp.dialects.stablehlo.assembly import FIELD_DIRECTIVES, FUNCTIONAL_TAIL, SAME_TYPE_TAIL
from qcomp.dialects.stablehlo.format import array_values, int_value
from qcomp.dialects.stablehlo.kinds import (
    FP_Q,
    INT,
    ONE_D,
    RANKED,
    TENSOR,
    ZERO_D,
    ElementKinds,
    type_text,
    verify_value_kinds,
)
from qcomp.dialects.stablehlo.op_attrs import (
    FftType,
    FftTypeAttr,
    RngAlgorithmAttr,
    RngDistributionAttr,
    Transpose,
    TransposeAttr,
)
from qcomp.dialects.stablehlo.verify_shapes import (
    check_inferred,
    compatible_elements,
    dims_compatible,
    fail,
    shape,
    shapes_compatible,
)
from qcomp.ir.lazy_format import irdl_op_definition

BATCH_NORM = Quantization(QuantSemantics.DEQUANTIZE_OP_QUANTIZE, upstream_qdq=True)
"""batch_norm_grad / batch_norm_training: dequantize-op-quantize, not fused (upstream's list)."""


def _dims(d) -> str:
    return ", ".join("?" if x < 0 else str(x) for x in d)


@irdl_op_definition
class ReverseOp(IRDLOperation):
    """`result[i] = operand[i with i_d = size_d - 1 - i_d for d in dimensions]`."""

    name = "stablehlo.reverse"
    assembly_format = "$operand `,` `dims` `=` custom<I64List>($dimensions) " + SAME_TYPE_TAIL
    custom_directives = FIELD_DIRECTIVES
    operand = operand_def()
    result = result_def()
    dimensions_attr = prop_def(DenseArrayBase, prop_name="dimensions")
    traits = traits_def(NoMemoryEffect(), ElementKinds(((RANKED, TENSOR),), (RANKED, TENSOR)),
                        type_only(upstream_generic=UpstreamGeneric.NEVER))

    @property
    def dimensions(self) -> tuple[int, ...]:
        return array_values(self.dimensions_attr) or ()

    def verify_(self) -> None:
        verify_value_kinds(self)
        if element_type(self.operand.type) != element_type(self.result.type):
            fail("requires the same element type for all operands and results")
        dims, rank = self.dimensions, len(shape(self.operand.type))
        if len(set(dims)) != len(dims):
            fail(f"dimensions should be unique. Got: {', '.join(map(str, dims))}")
        for d in dims:
            if d < 0:
                fail(f"all dimensions should be non-negative. Got dimension: {d}.")
            if d >= rank:
                fail(f"all dimensions should be between [0, {rank}). Got dimension: {d}.")
        check_inferred(self.operand.type, self.result.type)


@irdl_op_definition
class CholeskyOp(IRDLOperation):
    """The Cholesky factor of each matrix of `a` (`lower`: L with A = L L*, else U)."""

    name = "stablehlo.cholesky"
    assembly_format = "$a custom<TrueKeyword>($lower) " + SAME_TYPE_TAIL
    custom_directives = FIELD_DIRECTIVES
    a = operand_def()
    result = result_def()
    lower = opt_prop_def(BoolAttr)
    traits = traits_def(NoMemoryEffect(),
                        ElementKinds(((RANKED, ("F", "C", "Q")),), (RANKED, ("F", "C", "Q"))),
                        dq_op_q(), XLA_EXPANSION)

    def verify_(self) -> None:
        verify_value_kinds(self)
        if not compatible_elements(self.a.type, self.result.type):
            fail("requires compatible element types for all operands and results")
        s = shape(self.a.type)
        if len(s) < 2:
            fail(f"argument 'a' must have rank >= 2, got shape {_dims(s)}.")
        if not dims_compatible(s[-2], s[-1]):
            fail(f"minor dimensions of 'a' must have equal size, got shape {_dims(s)}.")
        check_inferred(self.a.type, self.result.type)


@irdl_op_definition
class TriangularSolveOp(IRDLOperation):
    """Solves `op(a) x = b` (left side) or `x op(a) = b` for triangular `a` (generic form)."""

    name = "stablehlo.triangular_solve"
    a = operand_def()
    b = operand_def()
    result = result_def()
    left_side = prop_def(BoolAttr)
    lower = prop_def(BoolAttr)
    unit_diagonal = prop_def(BoolAttr)
    transpose_a = prop_def(TransposeAttr)
    traits = traits_def(NoMemoryEffect(),
                        ElementKinds(((RANKED, ("F", "C")),) * 2, (RANKED, ("F", "C"))),
                        dq_op_q(),
                        XlaInexact("XLA's blocked solve (multiply-adds, its own order); qcomp "
                                   "substitutes as the reference interpreter does, each step "
                                   "rounded"))

    def verify_(self) -> None:
        verify_value_kinds(self)
        at, bt = self.a.type, self.b.type
        if not (compatible_elements(at, bt) and compatible_elements(at, self.result.type)):
            fail("requires compatible element types for all operands and results")
        a, b = shape(at), shape(bt)
        if len(a) < 2:
            fail(f"operand 'a' must have rank >= 2, but got '{type_text(at)}'")
        if not dims_compatible(a[-2], a[-1]):
            fail(f"two minor dimensions of operand 'a' must be compatible, but got '{type_text(at)}'")
        if len(a) != len(b):
            fail(f"operands must have equal rank, but got '{type_text(at)}' and '{type_text(bt)}'")
        if not dims_compatible(a[-1], b[-2 if self.left_side.value.data else -1]):
            fail("shared dimension of operands 'a' and 'b' must be compatible, but got "
                 f"'{type_text(at)}' and '{type_text(bt)}'")
        if not shapes_compatible(a[:-2], b[:-2]):
            fail("batch dimensions of the operands must be compatible, but got "
                 f"'{type_text(at)}' and '{type_text(bt)}'")
        if self.transpose_a.data == Transpose.TRANSPOSE_INVALID:
            fail("Invalid transpose option value for triangular solve")
        check_inferred(bt, self.result.type)


@irdl_op_definition
class FftOp(IRDLOperation):
    """FFT / IFFT (complex to complex), RFFT (real to complex), IRFFT (complex to real)
    over the innermost `len(fft_length)` dimensions."""

    name = "stablehlo.fft"
    assembly_format = ("$operand `,` `type` `=` custom<EnumCase>($fft_type) `,` `length` `=` "
                       "custom<I64List>($fft_length) " + FUNCTIONAL_TAIL)
    custom_directives = FIELD_DIRECTIVES
    operand = operand_def()
    result = result_def()
    fft_type = prop_def(FftTypeAttr)
    fft_length_attr = prop_def(DenseArrayBase, prop_name="fft_length")
    traits = traits_def(NoMemoryEffect(), ElementKinds(((RANKED, ("F", "C")),), (RANKED, ("F", "C"))),
                        NO_QUANTIZATION,
                        XlaInexact("XLA's FFT library and NumPy's FFT (float64, rounded once) "
                                   "round differently"))

    @property
    def fft_length(self) -> tuple[int, ...]:
        return array_values(self.fft_length_attr) or ()

    def verify_(self) -> None:
        verify_value_kinds(self)
        lengths, kind = self.fft_length, self.fft_type.data
        n = len(lengths)
        if not 1 <= n <= 3:
            fail(f"rank must be between 1 and 3, but got {n}.")
        t = self.operand.type
        e = element_type(t)
        if kind == FftType.RFFT:
            if type(e).__name__ not in ("Float32Type", "Float64Type"):
                fail(f"RFFT requires f32 or f64 input type, but is given '{type_text(e)}'.")
            out_e = ComplexType(e)
        else:
            if not isinstance(e, ComplexType):
                fail(f"FFT/IFFT/IRFFT take a complex tensor as input, but is given '{type_text(t)}'.")
            out_e = e.element_type if kind == FftType.IRFFT else e
        s = list(shape(t))
        if len(s) < n:
            fail(f"operand rank must not be less than fft rank of {n} for operand of type "
                 f"'{type_text(t)}'.")
        want = ", ".join(map(str, lengths))
        if kind == FftType.RFFT:
            if not all(dims_compatible(a, b) for a, b in zip(s[-n:], lengths)):
                fail("RFFT requires innermost dimensions to be compatible with fft_length. Got: "
                     f"{_dims(s)} but wanted {want}.")
            if lengths[-1] != 0:
                s[-1] = lengths[-1] // 2 + 1
        if kind == FftType.IRFFT:
            for a, b in zip(s[-n:-1], lengths):
                if not dims_compatible(a, b):
                    fail("IRFFT requires non-final dimensions to be compatible with fft_length. "
                         f"Got: {_dims(s)} but wanted {want}, and {a} != {b}.")
            if (not dims_compatible(s[-1], 0) or lengths[-1] != 0) and \
                    not dims_compatible(s[-1], lengths[-1] // 2 + 1):
                fail("IRFFT requires innermost dimension to be compatible with fft_length[-1]/2+1."
                     f" Got: {s[-1]} but fft_length is {want}.")
            s[-1] = lengths[-1]
        check_inferred(TensorType(out_e, s), self.result.type)


def _verify_batch_norm(op, multi, single) -> None:
    verify_value_kinds(op)
    if not all(shapes_compatible(shape(v.type), shape(multi[0].type)) for v in multi):
        fail("expects multi-dimensional operands to have compatible shapes.")
    if not all(shapes_compatible(shape(v.type), shape(single[0].type)) for v in single):
        fail("expects single-dimensional operands to have compatible shapes.")
    rank = len(shape(multi[0].type))
    f = op.feature_index
    if f >= rank:
        fail("expects featureIndex to be smaller than the rank of multi-dimensional operands; "
             f"got featureIndex {f}, and rank {rank}.")
    count, size = shape(multi[0].type)[f], shape(single[0].type)[0]
    if not dims_compatible(size, count):
        fail("expects the size of single-dimensional operands to be compatible with feature "
             f"count, but the size of single-dimensional operands is {_dims([size])} and the "
             f"feature count is {_dims([count])}.")
    e = element_type(multi[0].type)
    ft = TensorType(e, [count])
    for r, want in zip(op.results, [multi[0].type, ft, ft]):
        check_inferred(want, r.type)


_BN_KINDS = ((RANKED, FP_Q), (ONE_D, FP_Q))


@irdl_op_definition
class BatchNormTrainingOp(IRDLOperation):
    """Normalizes over all dimensions but `feature_index`; also returns the batch mean
    and variance."""

    name = "stablehlo.batch_norm_training"
    operand = operand_def()
    scale = operand_def()
    offset = operand_def()
    output = result_def()
    batch_mean = result_def()
    batch_var = result_def()
    epsilon = prop_def(FloatAttr)
    feature_index_attr = prop_def(IntegerAttr, prop_name="feature_index")
    traits = traits_def(NoMemoryEffect(), ElementKinds(_BN_KINDS), BATCH_NORM, XLA_EXPANSION)

    @property
    def feature_index(self) -> int:
        return int_value(self.feature_index_attr)

    def asm_result_names(self) -> list[str]:
        return ["output", "batch_mean", "batch_var"]

    def verify_(self) -> None:
        _verify_batch_norm(self, [self.operand], [self.scale, self.offset])


@irdl_op_definition
class BatchNormGradOp(IRDLOperation):
    """The gradients of batch normalization with respect to operand, scale and offset."""

    name = "stablehlo.batch_norm_grad"
    operand = operand_def()
    scale = operand_def()
    mean = operand_def()
    variance = operand_def()
    grad_output = operand_def()
    grad_operand = result_def()
    grad_scale = result_def()
    grad_offset = result_def()
    epsilon = prop_def(FloatAttr)
    feature_index_attr = prop_def(IntegerAttr, prop_name="feature_index")
    traits = traits_def(NoMemoryEffect(), ElementKinds((*_BN_KINDS, (ONE_D, FP_Q),
                                                        (ONE_D, FP_Q), (RANKED, FP_Q))),
                        BATCH_NORM, XLA_EXPANSION)

    @property
    def feature_index(self) -> int:
        return int_value(self.feature_index_attr)

    def asm_result_names(self) -> list[str]:
        return ["grad_operand", "grad_scale", "grad_offset"]

    def verify_(self) -> None:
        _verify_batch_norm(self, [self.operand, self.grad_output],
                           [self.scale, self.mean, self.variance])


@irdl_op_definition
class RngOp(IRDLOperation):
    """Random numbers of `shape`: UNIFORM in [a, b), NORMAL with mean a and deviation b."""

    name = "stablehlo.rng"
    assembly_format = ("$a `,` $b `,` $shape_ `,` `distribution` `=` "
                       "custom<EnumCase>($rng_distribution) " + FUNCTIONAL_TAIL)
    custom_directives = FIELD_DIRECTIVES
    a = operand_def()
    b = operand_def()
    shape_ = operand_def()
    result = result_def()
    rng_distribution = prop_def(RngDistributionAttr)
    traits = traits_def(ElementKinds(((ZERO_D, ("B", "I", "F")), (ZERO_D, ("B", "I", "F")),
                                      (ONE_D, INT)), (RANKED, ("B", "I", "F"))),
                        NO_QUANTIZATION)

    def verify_(self) -> None:
        verify_value_kinds(self)
        e = element_type(self.result.type)
        if element_type(self.a.type) != e or element_type(self.b.type) != e:
            fail("failed to verify that all of {a, b, result} have same element type")


@irdl_op_definition
class RngBitGeneratorOp(IRDLOperation):
    """Random bits of `output`'s type from `initial_state` (THREE_FRY, PHILOX or DEFAULT)."""

    name = "stablehlo.rng_bit_generator"
    assembly_format = ("$initial_state `,` `algorithm` `=` custom<EnumCase>($rng_algorithm) "
                       + FUNCTIONAL_TAIL)
    custom_directives = FIELD_DIRECTIVES
    initial_state = operand_def()
    output_state = result_def()
    output = result_def()
    rng_algorithm = prop_def(RngAlgorithmAttr)
    traits = traits_def(NoMemoryEffect(), ElementKinds(((RANKED, ("I", "F")),), (RANKED, ("I", "F"))),
                        NO_QUANTIZATION)

    def asm_result_names(self) -> list[str]:
        return ["output_state", "output"]

    def verify_(self) -> None:
        verify_value_kinds(self)
        a, b = self.initial_state.type, self.output_state.type
        if not shapes_compatible(shape(a), shape(b)):
            fail("output state shape must be compatible with initial state shape. Got: "
                 f"'{type_text(a)}' and '{type_text(b)}'")


LINALG_OPS = [ReverseOp, CholeskyOp, TriangularSolveOp, FftOp, BatchNormTrainingOp,
              BatchNormGradOp, RngOp, RngBitGeneratorOp]
