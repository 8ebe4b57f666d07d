"""Which TFLite operator of the spec's table each quantized StableHLO op is.

`recognise(ops)` takes the top-level ops of a function body and returns the `Match`es
(one per TFLite operator: its activation inputs, weight, bias, output) and the
quantized ops it could not place. Multi-op forms are matched first, each covering
its ops: FULLY_CONNECTED / CONV_2D / DEPTHWISE_CONV_2D (`dot_general` / `dot` /
`convolution`, an `i32` accumulator, `add` of the bias (through `broadcast_in_dim`),
`uniform_quantize` to the output), SOFTMAX, LOG_SOFTMAX, L2_NORMALIZATION,
AVERAGE_POOL_2D / MEAN (the sum and its divide); every other op is looked up by name
in `op_table` (how each is told apart is the table's `how`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import func
from xdsl.ir import Operation, SSAValue

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.quant import (
    DequantizeCastOp,
    QuantizeCastOp,
    StorageCastOp,
    quantized_element,
)
from qcomp.passes.litert.op_table import BY_COMPOSITE, BY_NAME, COMPARE, Row, rows_for_stablehlo

MOVES = (sh.BroadcastInDimOp, sh.ReshapeOp)
"""Ops peeled off between the parts of a multi-op form."""


@dataclass
class Match:
    row: Row
    anchor: Operation
    """The op diagnostics about the operator's inputs and weights are reported at."""
    inputs: list[SSAValue]
    output: SSAValue | None
    output_op: Operation | None = None
    """The op producing `output` (diagnostics about the output go there)."""
    weight: SSAValue | None = None
    bias: SSAValue | None = None
    bias_op: Operation | None = None
    accumulator: SSAValue | None = None
    covered: list[Operation] = field(default_factory=list)


def involves_quant(op: Operation) -> bool:
    return any(quantized_element(v.type) is not None for v in (*op.operands, *op.results))


def producer(v: SSAValue) -> Operation | None:
    owner = v.owner
    return owner if isinstance(owner, Operation) else None


def peel(v: SSAValue, kinds=MOVES, covered: list[Operation] | None = None) -> SSAValue:
    """`v` with the ops of `kinds` in front of it taken off (through operand 0)."""
    while (op := producer(v)) is not None and isinstance(op, kinds):
        if covered is not None:
            covered.append(op)
        v = op.operands[0]
    return v


def made_by(v: SSAValue, kind: type[Operation]) -> Operation | None:
    op = producer(v)
    return op if isinstance(op, kind) else None


def body_op(op: Operation) -> type[Operation] | None:
    """The class of the one computing op in a reduce / reduce_window body."""
    if not op.regions or not op.regions[0].blocks:
        return None
    kinds = [type(o) for o in op.regions[0].blocks[0].ops
             if not isinstance(o, sh.ReturnOp | func.ReturnOp)]
    return kinds[0] if len(kinds) == 1 else None


def only_user(v: SSAValue) -> Operation | None:
    users = [u.operation for u in v.uses]
    return users[0] if len(users) == 1 else None


def _reduce_add_of(v: SSAValue, covered: list[Operation]) -> SSAValue | None:
    """The input of `reduce_add(..)` at `v` (through broadcasts/reshapes), if it is one."""
    r = made_by(peel(v, covered=covered), sh.ReduceOp)
    if r is None or body_op(r) is not sh.AddOp:
        return None
    covered.append(r)
    return r.operands[0]


def _without_max(x: SSAValue, covered: list[Operation]) -> SSAValue:
    """x0 when x = subtract(x0, broadcast(reduce_max(x0))) (the stable softmax form)."""
    sub = made_by(x, sh.SubtractOp)
    if sub is None:
        return x
    part: list[Operation] = []
    r = made_by(peel(sub.operands[1], covered=part), sh.ReduceOp)
    if r is None or body_op(r) is not sh.MaximumOp or r.operands[0] is not sub.operands[0]:
        return x
    covered.extend([sub, *part, r])
    return sub.operands[0]


def _softmax(op: Operation) -> Match | None:
    covered: list[Operation] = []
    e = made_by(op.operands[0], sh.ExponentialOp)
    if e is None or _reduce_add_of(op.operands[1], covered) is not e.results[0]:
        return None
    covered.append(e)
    x = _without_max(e.operands[0], covered)
    return Match(BY_NAME["SOFTMAX"], op, [x], op.results[0], op, covered=covered)


def _log_softmax(op: Operation) -> Match | None:
    covered: list[Operation] = []
    a = op.operands[0]
    log = made_by(peel(op.operands[1], covered=covered), sh.LogOp)
    if log is None:
        return None
    s = _reduce_add_of(log.operands[0], covered)
    e = made_by(s, sh.ExponentialOp) if s is not None else None
    if e is None or e.operands[0] is not a:
        return None
    covered.extend([log, e])
    x = _without_max(a, covered)
    return Match(BY_NAME["LOG_SOFTMAX"], op, [x], op.results[0], op, covered=covered)


def _l2_normalization(op: Operation) -> Match | None:
    covered: list[Operation] = []
    x = op.operands[0]
    root = sh.SqrtOp if isinstance(op, sh.DivideOp) else sh.RsqrtOp
    r = made_by(peel(op.operands[1], covered=covered), root)
    if r is None:
        return None
    s = _reduce_add_of(r.operands[0], covered)
    m = made_by(s, sh.MultiplyOp) if s is not None else None
    if m is None or m.operands[0] is not x or m.operands[1] is not x:
        return None
    covered.extend([r, m])
    return Match(BY_NAME["L2_NORMALIZATION"], op, [x], op.results[0], op, covered=covered)


def _contraction(op: Operation) -> Match:
    """FULLY_CONNECTED / CONV_2D / DEPTHWISE_CONV_2D from its dot or convolution."""
    lhs, rhs = op.operands[0], op.operands[1]
    if isinstance(op, sh.ConvolutionOp):
        groups = op.feature_group_count_attr.value.data
        features = lhs.type.get_shape()[op.dimension_numbers.input_feature_dimension]
        row = BY_NAME["DEPTHWISE_CONV_2D" if groups > 1 and groups == features else "CONV_2D"]
    else:
        row = BY_NAME["FULLY_CONNECTED"]
    m = Match(row, op, [lhs], op.results[0], op, weight=rhs)
    chain: list[Operation] = []
    if isinstance(producer(peel(rhs, (*MOVES, sh.TransposeOp), chain)), sh.ConstantOp):
        m.covered.extend(chain)  # a constant weight reshaped/transposed is still the weight
    q = quantized_element(op.results[0].type)
    if q is None or q.is_float_storage or q.storage_bitwidth < 32:
        return m  # the op requantizes to its output itself (no bias)
    m.accumulator = cur = op.results[0]
    add = only_user(cur)
    if add is not None and isinstance(add, sh.AddOp):
        other = add.operands[1] if add.operands[0] is cur else add.operands[0]
        # through quant.scast pairs too: the stored integers of a bias declaring other
        # parameters than the accumulator's (the `.tflite` importer's form)
        m.bias = peel(other, (*MOVES, StorageCastOp), covered=m.covered)
        m.bias_op = add
        m.covered.append(add)
        cur = add.results[0]
    requant = only_user(cur)
    if requant is not None and isinstance(requant, sh.UniformQuantizeOp):
        m.covered.append(requant)
        m.output, m.output_op = requant.results[0], requant
    else:
        m.output, m.output_op = cur, producer(cur)
    return m


def _pool_or_sum(op: Operation) -> Match | None:
    body = body_op(op)
    if len(op.results) != 1:
        return None
    if isinstance(op, sh.ReduceWindowOp):
        if body is sh.MaximumOp:
            return Match(BY_NAME["MAX_POOL_2D"], op, [op.operands[0]], op.results[0], op)
        name = "AVERAGE_POOL_2D"
    else:
        name = "MEAN"
    if body is not sh.AddOp:
        return None
    m = Match(BY_NAME[name], op, [op.operands[0]], op.results[0], op)
    div = only_user(op.results[0])
    if div is not None and isinstance(div, sh.DivideOp) and div.operands[0] is op.results[0]:
        m.covered.append(div)
        m.output, m.output_op = div.results[0], div
    elif isinstance(op, sh.ReduceOp):
        m.row = BY_NAME["SUM"]
    return m


def _composite(op: Operation) -> Match | None:
    row = BY_COMPOSITE.get(op.composite_name.data)
    if row is None:
        return None
    out = op.results[0] if op.results else None
    if row.weights is not None and len(op.operands) >= 2:
        bias = op.operands[2] if len(op.operands) > 2 else None
        return Match(row, op, [op.operands[0]], out, op, weight=op.operands[1], bias=bias,
                     bias_op=op if bias is not None else None)
    inputs = [v for v in op.operands if quantized_element(v.type) is not None]
    return Match(row, op, inputs, out, op)


def _squeeze_only(op: Operation) -> bool:
    a, b = op.operands[0].type.get_shape(), op.results[0].type.get_shape()
    return len(b) < len(a) and [d for d in a if d != 1] == [d for d in b if d != 1]


def _single(op: Operation) -> Match | None:
    """Ops that are one TFLite operator by themselves."""
    out = op.results[0] if op.results else None
    if isinstance(op, sh.CompareOp):
        row = BY_NAME[COMPARE[op.comparison_direction_attr.data.value]]
        return Match(row, op, list(op.operands), None, op)
    if isinstance(op, sh.ReshapeOp):
        row = BY_NAME["SQUEEZE" if _squeeze_only(op) else "RESHAPE"]
        return Match(row, op, [op.operands[0]], out, op)
    if isinstance(op, sh.PadOp):
        return Match(BY_NAME["PAD"], op, list(op.operands), out, op)
    if isinstance(op, sh.GatherOp | sh.DynamicSliceOp):
        return Match(BY_NAME["GATHER" if isinstance(op, sh.GatherOp) else "SLICE"], op,
                     [op.operands[0]], out, op)
    if isinstance(op, sh.UniformDequantizeOp | DequantizeCastOp):
        return Match(BY_NAME["DEQUANTIZE"], op, [op.operands[0]], None, op)
    if isinstance(op, sh.UniformQuantizeOp | QuantizeCastOp):
        inputs = [op.operands[0]] if quantized_element(op.operands[0].type) else []
        return Match(BY_NAME["QUANTIZE"], op, inputs, out, op)
    rows = rows_for_stablehlo(op)
    if len(rows) > 1:  # subtract: SUB, not LOG_SOFTMAX's form; multiply: MUL, not L2's
        rows = [r for r in rows if not r.how]
    if len(rows) != 1:
        return None
    inputs = [v for v in op.operands if quantized_element(v.type) is not None]
    return Match(rows[0], op, inputs, out, op)


PATTERNS = {
    sh.DotGeneralOp: (_contraction,), sh.DotOp: (_contraction,),
    sh.ConvolutionOp: (_contraction,),
    sh.DivideOp: (_softmax, _l2_normalization),
    sh.SubtractOp: (_log_softmax,), sh.MultiplyOp: (_l2_normalization,),
    sh.ReduceWindowOp: (_pool_or_sum,), sh.ReduceOp: (_pool_or_sum,),
    sh.CompositeOp: (_composite,),
}


def recognise(ops: list[Operation]) -> tuple[list[Match], list[Operation]]:
    """(matches in program order, quantized ops no table row accounts for)."""
    matches: dict[Operation, Match] = {}
    covered: set[Operation] = set()
    for op in ops:
        if not involves_quant(op):
            continue
        for fn in PATTERNS.get(type(op), ()):
            m = fn(op)
            if m is not None:
                matches[op] = m
                covered.update(m.covered)
                break
    unknown: list[Operation] = []
    for op in ops:
        if op in matches or op in covered or not involves_quant(op):
            continue
        if isinstance(op, sh.ConstantOp | func.ReturnOp | func.CallOp | StorageCastOp):
            continue  # constants are checked as their users' inputs; calls at the callee
        m = _single(op)
        if m is None:
            unknown.append(op)
        else:
            matches[op] = m
    order = {op: i for i, op in enumerate(ops)}
    found = sorted(matches.values(), key=lambda m: order[m.anchor])
    return [m for m in found if m.anchor not in covered], unknown
