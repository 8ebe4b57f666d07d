"""Output types of onnxruntime's com.microsoft QLinearAveragePool, QLinearReduceMean and
QLinearWhere, as their schemas infer them (`nhwc_schema_defs.cc`,
`quantization_defs.cc`); each rule takes the node and the known input types (name ->
TypeProto) and returns None when they do not tell (`qcomp.importers.onnx.CONTRIB_TYPES`)."""

from __future__ import annotations


def _input(node, types, i):
    return types.get(node.input[i]) if i < len(node.input) and node.input[i] else None


def _dims(tp):
    tt = tp.tensor_type
    if not tt.HasField("shape"):
        return None
    return [d.dim_value if d.HasField("dim_value") else None for d in tt.shape.dim]


def _typed(elem_type: int, dims):
    from onnx import helper

    return helper.make_tensor_type_proto(elem_type, [d if d is not None else "?" for d in dims])


def _attr(node, name: str, default):
    from onnx import helper

    a = next((a for a in node.attribute if a.name == name), None)
    return default if a is None else helper.get_attribute_value(a)


def average_pool_type(node, types):
    """X's element type; [N, C, out...] by ONNX's pooling rule (`convPoolShapeInference`,
    no dilations; channels_last: [N, out..., C])."""
    from qcomp.dialects.onnx.float_shapes import ShapeError, window

    x = _input(node, types, 0)
    d = None if x is None else _dims(x)
    if not d or len(d) < 3:
        return None
    last = bool(_attr(node, "channels_last", 0))
    n, c, spatial = d[0], (d[-1] if last else d[1]), (d[1:-1] if last else d[2:])
    auto_pad = _attr(node, "auto_pad", b"NOTSET")
    try:
        w = window([-1 if s is None else s for s in spatial], _attr(node, "kernel_shape", []),
                   _attr(node, "strides", None), None, _attr(node, "pads", None),
                   auto_pad.decode() if isinstance(auto_pad, bytes) else auto_pad,
                   _attr(node, "ceil_mode", 0))
    except (ShapeError, TypeError, ValueError, UnicodeDecodeError):
        return None  # the op's verifier or the interpreter says what is wrong
    out = [None if o < 0 else o for o in w.out]
    return _typed(x.tensor_type.elem_type, [n, *out, c] if last else [n, c, *out])


def reduce_mean_type(node, types):
    """data's element type; the axes reduced (all without axes), kept as 1 with keepdims."""
    x = _input(node, types, 0)
    d = None if x is None else _dims(x)
    if d is None:
        return None
    rank = len(d)
    axes = list(_attr(node, "axes", []))
    if any(not -rank <= a < rank for a in axes):
        return None
    axes = {a % rank for a in axes} if axes else set(range(rank))
    keep = _attr(node, "keepdims", 1)
    out = [(1 if keep else None) if i in axes else s for i, s in enumerate(d)]
    return _typed(x.tensor_type.elem_type, [s for i, s in enumerate(out)
                                           if keep or i not in axes])


def where_type(node, types):
    """X's element type; condition, X and Y broadcast."""
    ts = [_input(node, types, i) for i in (0, 1, 4)]
    ds = [None if t is None else _dims(t) for t in ts]
    if any(d is None for d in ds):
        return None
    n = max(len(d) for d in ds)
    ds = [[1] * (n - len(d)) + d for d in ds]
    out = []
    for dims in zip(*ds):
        big = {v for v in dims if v != 1}
        known = big - {None}
        if len(known) > 1:
            return None  # not broadcastable: the interpreter says so
        out.append(known.pop() if known else None if big else 1)
    return _typed(ts[1].tensor_type.elem_type, out)


_MS = "com.microsoft"
RULES = {(_MS, "QLinearAveragePool"): average_pool_type,
         (_MS, "QLinearReduceMean"): reduce_mean_type, (_MS, "QLinearWhere"): where_type}
