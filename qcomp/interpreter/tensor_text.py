"""Values as `stablehlo-translate --interpret` prints them.

`tensor_text` is the reference interpreter's `Tensor::print`: the type, then the
elements nested per dimension, two spaces of indent per level, elements as MLIR prints
attributes of the element type (`true`, `-3`, `1.000000e+00`, complex `[re, im]`):

    tensor<2x2xi8> {          tensor<ui8> {1}          tensor<2x0xi8> {
      [                                                  [
        [1, 2],                                            [],
        [3, 4]                                             []
      ]                                                  ]
    }                                                  }

`dense_text` is `--interpreter-print-dense`: `dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>`.
Quantized values print as their storage integers with the storage type (upstream's
interpreter runs quantized programs lowered to integers). A token prints as its type;
a tuple as its type and its elements, one per line, in parentheses.
"""

from __future__ import annotations

import io

import numpy as np
from xdsl.dialects.builtin import BytesAttr, ComplexType, DenseIntOrFPElementsAttr, IntegerType, TensorType
from xdsl.ir import Attribute

from qcomp.interpreter.values import quant_of

__all__ = ["dense_attr", "dense_text", "tensor_text", "value_text"]


def _storage_type(t: TensorType) -> TensorType:
    q = quant_of(t)
    if q is None:
        return t
    return TensorType(q.storage_type, t.get_shape())


def _type_text(t: Attribute) -> str:
    from qcomp.dialects.stablehlo.kinds import type_text

    return type_text(t)


def dense_attr(value: np.ndarray, t: TensorType) -> DenseIntOrFPElementsAttr:
    """`value` as a dense elements attribute of type `t` (its storage type if quantized)."""
    t = _storage_type(t)
    e = t.get_element_type()
    a = np.ascontiguousarray(value).reshape(-1)
    if isinstance(e, IntegerType):
        raw = a.astype(np.int64 if a.dtype.kind != "u" else np.uint64).astype(
            np.dtype(e.format).newbyteorder("<")).tobytes()
    elif isinstance(e, ComplexType):
        dt = np.complex64 if a.dtype == np.complex64 else np.complex128
        raw = a.astype(np.dtype(dt).newbyteorder("<")).tobytes()
    else:
        raw = a.tobytes()  # float storage: ml_dtypes / NumPy bytes are the attribute's
    return DenseIntOrFPElementsAttr(t, BytesAttr(raw))


def _attr_text(attr: Attribute) -> str:
    from qcomp.ir.printer import QcompPrinter

    out = io.StringIO()
    QcompPrinter(stream=out).print_attribute(attr)
    return out.getvalue()


def dense_text(value: np.ndarray, t: TensorType) -> str:
    """`dense<...> : tensor<...>` (MLIR's attribute text, splats folded)."""
    return _attr_text(dense_attr(value, t))


def _element_texts(value: np.ndarray, t: TensorType) -> list[str]:
    t = _storage_type(t)
    e = t.get_element_type()
    flat = np.ascontiguousarray(value).reshape(-1)
    if isinstance(e, IntegerType):
        if e.width.data == 1:
            return ["true" if v else "false" for v in flat.astype(bool).tolist()]
        return [str(v) for v in flat.tolist()]
    if isinstance(e, ComplexType):
        part_t = TensorType(e.element_type, [flat.size])
        dt = np.float32 if flat.dtype == np.complex64 else np.float64
        re = _element_texts(flat.real.astype(dt), part_t)
        im = _element_texts(flat.imag.astype(dt), part_t)
        return [f"[{r}, {i}]" for r, i in zip(re, im)]
    from qcomp.ir.dense_text import element_texts

    return element_texts(dense_attr(flat, TensorType(e, [flat.size])))


def tensor_text(value: np.ndarray, t: TensorType) -> str:
    """The reference interpreter's `Tensor::print` (see the module docstring)."""
    shape = list(t.get_shape())
    texts = _element_texts(value, t)
    out = [_type_text(_storage_type(t)), " {"]
    if not shape:
        out.append(texts[0])
    else:
        _nest(out, texts, shape, 0, 1)
    out.append("}")
    return "".join(out)


def _nest(out: list[str], texts: list[str], shape: list[int], start: int, level: int,
          last: bool = True) -> None:
    """`printHelper`: `[...]` at depth `level` (1-based) holding `texts[start:...]`,
    then `,` when more of its dimension follow, else a newline indented one level less."""
    out.append("\n" + "  " * level + "[")
    dims = shape[level - 1:]
    inner = int(np.prod(dims[1:])) if len(dims) > 1 else 1
    for i in range(dims[0]):
        if len(dims) == 1:
            out.append(texts[start + i] + (", " if i != dims[0] - 1 else ""))
        else:
            _nest(out, texts, shape, start + i * inner, level + 1, i == dims[0] - 1)
    out.append("]" + ("\n" + "  " * (level - 1) if last else ","))


def value_text(value, t: Attribute) -> str:
    """A result or printed operand: tensors, tokens and tuples (see the module docstring)."""
    from xdsl.dialects.builtin import TupleType

    if isinstance(t, TensorType):
        return tensor_text(np.asarray(value), t)
    if isinstance(t, TupleType):
        parts = [value_text(v, vt) for v, vt in zip(value, t.types.data)]
        return _type_text(t) + " (\n" + ",\n".join(parts) + ("\n" if parts else "") + ")"
    return _type_text(t)
