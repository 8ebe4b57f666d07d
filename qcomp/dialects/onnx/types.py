"""ONNX element types: `TensorProto.DataType` numbers, ONNX's names (`tensor(float8e4m3fn)`
without `tensor(...)`) and the MLIR types onnx-mlir gives them (`uint8` -> `ui8`,
`int8` -> `i8` signless, `bool` -> `i1`, `string` -> `!onnx.String`)."""

from __future__ import annotations

from collections.abc import Iterable

from xdsl.dialects import builtin
from xdsl.dialects.builtin import IntegerType, NoneType, Signedness, TensorType, UnrankedTensorType
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition


@irdl_attr_definition
class StringType(ParametrizedAttribute, TypeAttribute):
    """`!onnx.String`: the element type of ONNX string tensors."""

    name = "onnx.String"


# (DataType number, ONNX name, MLIR type factory)
_TABLE: tuple[tuple[int, str, object], ...] = (
    (1, "float", builtin.Float32Type),
    (2, "uint8", lambda: IntegerType(8, Signedness.UNSIGNED)),
    (3, "int8", lambda: IntegerType(8)),
    (4, "uint16", lambda: IntegerType(16, Signedness.UNSIGNED)),
    (5, "int16", lambda: IntegerType(16)),
    (6, "int32", lambda: IntegerType(32)),
    (7, "int64", lambda: IntegerType(64)),
    (8, "string", StringType),
    (9, "bool", lambda: IntegerType(1)),
    (10, "float16", builtin.Float16Type),
    (11, "double", builtin.Float64Type),
    (12, "uint32", lambda: IntegerType(32, Signedness.UNSIGNED)),
    (13, "uint64", lambda: IntegerType(64, Signedness.UNSIGNED)),
    (16, "bfloat16", builtin.BFloat16Type),
    (17, "float8e4m3fn", builtin.Float8E4M3FNType),
    (18, "float8e4m3fnuz", builtin.Float8E4M3FNUZType),
    (19, "float8e5m2", builtin.Float8E5M2Type),
    (20, "float8e5m2fnuz", builtin.Float8E5M2FNUZType),
    (21, "uint4", lambda: IntegerType(4, Signedness.UNSIGNED)),
    (22, "int4", lambda: IntegerType(4)),
    (23, "float4e2m1", builtin.Float4E2M1FNType),
    (24, "float8e8m0", builtin.Float8E8M0FNUType),
    (25, "uint2", lambda: IntegerType(2, Signedness.UNSIGNED)),
    (26, "int2", lambda: IntegerType(2)),
)

NAME_OF_DTYPE: dict[int, str] = {n: name for n, name, _ in _TABLE}
DTYPE_OF_NAME: dict[str, int] = {name: n for n, name, _ in _TABLE}
_MLIR_OF_NAME: dict[str, Attribute] = {name: f() for _, name, f in _TABLE}  # type: ignore[operator]
_NAME_OF_MLIR: dict[Attribute, str] = {t: name for name, t in _MLIR_OF_NAME.items()}


def mlir_type(dtype: int | str) -> Attribute:
    """The MLIR element type of an ONNX DataType number or name (KeyError if none)."""
    name = NAME_OF_DTYPE[dtype] if isinstance(dtype, int) else dtype
    return _MLIR_OF_NAME[name]


def onnx_name(t: Attribute) -> str | None:
    """ONNX's name of an MLIR element type (or of a tensor's elements); None if none."""
    if isinstance(t, TensorType | UnrankedTensorType):
        t = t.element_type
    if isinstance(t, IntegerType) and t.signedness.data == Signedness.SIGNED:
        t = IntegerType(t.width.data)
    return _NAME_OF_MLIR.get(t)


def onnx_dtype(t: Attribute) -> int | None:
    name = onnx_name(t)
    return None if name is None else DTYPE_OF_NAME[name]


def type_list(names: Iterable[str]) -> str:
    return ", ".join(f"tensor({n})" for n in sorted(names))


FLOATS = ("float", "float16", "bfloat16")
FLOAT8 = ("float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz")
INTS = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64")
SUB_BYTE = ("int4", "uint4", "int2", "uint2")
NUMERIC = (*FLOATS, "double", *INTS, *SUB_BYTE, *FLOAT8, "float4e2m1", "float8e8m0", "bool")
ALL = (*NUMERIC, "string")


def is_none_type(t: Attribute) -> bool:
    return isinstance(t, NoneType)
