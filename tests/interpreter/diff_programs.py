"""Small MLIR program builders for the differential tests."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class QType:
    storage: str  # "i8", "u8", "i16", "i4", "i32"
    scales: tuple[float, ...]
    zero_points: tuple[int, ...]
    axis: int | None = None
    storage_min: int | None = None
    storage_max: int | None = None

    def text(self) -> str:
        st = self.storage
        if self.storage_min is not None:
            st += f"<{self.storage_min}:{self.storage_max}>"
        if self.axis is None:
            return f"!quant.uniform<{st}:f32, {self.scales[0]!r}:{self.zero_points[0]}>"
        params = ", ".join(f"{s!r}:{z}" for s, z in zip(self.scales, self.zero_points))
        return f"!quant.uniform<{st}:f32:{self.axis}, {{{params}}}>"

    @property
    def bits(self) -> int:
        return int(self.storage[1:])

    @property
    def signed(self) -> bool:
        return self.storage.startswith("i")

    def range(self) -> tuple[int, int]:
        if self.storage_min is not None:
            return self.storage_min, self.storage_max
        b = self.bits
        return (-(1 << (b - 1)), (1 << (b - 1)) - 1) if self.signed else (0, (1 << b) - 1)

    def np_storage(self):
        b = 8 if self.bits <= 8 else self.bits
        return np.dtype(f"{'int' if self.signed else 'uint'}{b}")

    def storage_ir(self) -> str:
        return f"i{self.bits}" if self.signed else f"ui{self.bits}"

    def container_ir(self) -> str:
        """The argument/result type: storage widened to 8 bits (jaxlib takes no i4 arrays)."""
        bits = max(self.bits, 8)
        return f"i{bits}" if self.signed else f"ui{bits}"


def tensor(shape, elem: str) -> str:
    dims = "x".join(str(d) for d in shape)
    return f"tensor<{dims}x{elem}>" if dims else f"tensor<{elem}>"


def qdq_program(op: str, shapes: list[tuple[int, ...]], in_types: list[QType], out_type: QType,
                result_shape=None, attrs: str = "") -> str:
    """quantize each f32 argument, apply `op`, dequantize."""
    rs = result_shape or shapes[0]
    args = ", ".join(f"%a{i}: {tensor(s, 'f32')}" for i, s in enumerate(shapes))
    lines = [f"func.func @main({args}) -> {tensor(rs, 'f32')} {{"]
    for i, (s, q) in enumerate(zip(shapes, in_types)):
        lines.append(f"  %q{i} = stablehlo.uniform_quantize %a{i} : ({tensor(s, 'f32')}) -> "
                     f"{tensor(s, q.text())}")
    operands = ", ".join(f"%q{i}" for i in range(len(shapes)))
    in_t = ", ".join(tensor(s, q.text()) for s, q in zip(shapes, in_types))
    lines.append(f'  %r = "stablehlo.{op}"({operands}) {attrs} : ({in_t}) -> {tensor(rs, out_type.text())}')
    lines.append(f"  %d = stablehlo.uniform_dequantize %r : ({tensor(rs, out_type.text())}) -> "
                 f"{tensor(rs, 'f32')}")
    lines.append(f"  func.return %d : {tensor(rs, 'f32')}")
    lines.append("}")
    return "\n".join(lines)


def storage_program(op_text: str, shapes: list[tuple[int, ...]], in_types: list[QType],
                    out_type: QType, result_shape) -> str:
    """storage arguments -> bitcast to quantized -> op -> bitcast back to storage.

    `op_text` formats with {operands}, {in_types}, {out_type}.
    """
    args = ", ".join(f"%a{i}: {tensor(s, q.container_ir())}" for i, (s, q) in enumerate(zip(shapes, in_types)))
    rs = result_shape
    lines = [f"func.func @main({args}) -> {tensor(rs, out_type.container_ir())} {{"]
    for i, (s, q) in enumerate(zip(shapes, in_types)):
        src = f"%a{i}"
        if q.bits < 8:
            lines.append(f"  %n{i} = stablehlo.convert %a{i} : ({tensor(s, q.container_ir())}) -> "
                         f"{tensor(s, q.storage_ir())}")
            src = f"%n{i}"
        lines.append(f"  %q{i} = stablehlo.bitcast_convert {src} : ({tensor(s, q.storage_ir())}) -> "
                     f"{tensor(s, q.text())}")
    operands = ", ".join(f"%q{i}" for i in range(len(shapes)))
    in_t = ", ".join(tensor(s, q.text()) for s, q in zip(shapes, in_types))
    lines.append("  %r = " + op_text.format(operands=operands, in_types=in_t,
                                             out_type=tensor(rs, out_type.text())))
    lines.append(f"  %o = stablehlo.bitcast_convert %r : ({tensor(rs, out_type.text())}) -> "
                 f"{tensor(rs, out_type.storage_ir())}")
    res = "%o"
    if out_type.bits < 8:
        lines.append(f"  %w = stablehlo.convert %o : ({tensor(rs, out_type.storage_ir())}) -> "
                     f"{tensor(rs, out_type.container_ir())}")
        res = "%w"
    lines.append(f"  func.return {res} : {tensor(rs, out_type.container_ir())}")
    lines.append("}")
    return "\n".join(lines)
