"""Reading and writing ONNX type protos: a value's dimensions, a typed tensor proto, a
node's input type and integer attribute (the contrib type rules of `qcomp.importers.onnx`
and `onnx_sequence_types` use them)."""

from __future__ import annotations


def dims(tp) -> list[int | None] | None:
    """A typed tensor's dimensions (None for an unknown one), None when unranked."""
    tt = tp.tensor_type
    if not tt.HasField("shape"):
        return None
    return [d.dim_value if d.HasField("dim_value") else None for d in tt.shape.dim]


def typed(elem_type: int, dims) -> object:
    """A tensor type proto (None dimensions unknown)."""
    from onnx import helper

    return helper.make_tensor_type_proto(elem_type, [d if d is not None else "?" for d in dims])


def int_attr(node, name: str, default: int) -> int:
    """The node's INT attribute `name`, else `default`."""
    return next((a.i for a in node.attribute if a.name == name), default)


def input_type(node, types, i):
    """The type of the node's input `i` (None when absent or untyped)."""
    return types.get(node.input[i]) if i < len(node.input) and node.input[i] else None
