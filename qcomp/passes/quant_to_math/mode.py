"""`RescaleMode`: the `rescale` option of `stablehlo-legalize-quant-to-math`, parsed once.

| mode          | quantized -> quantized rescale          | storage types | numerics          |
|---------------|-----------------------------------------|---------------|-------------------|
| `float`       | the spec's, in float (f64 for dot/conv) | `iN` / `uiN`  | spec, exactly     |
| `fixed-point` | ((v * M + 2^(shift-1)) >> shift) + zp   | `iN` / `uiN`  | spec, 1 step      |
| `stablehlo`   | upstream's f32 / i32 formulas           | signless `iN` | upstream, exactly |
"""

from __future__ import annotations

from enum import Enum

from xdsl.dialects.builtin import f32
from xdsl.ir import Attribute, Operation, SSAValue

from qcomp.dialects.quant import UniformQuantizedType
from qcomp.passes.quant_to_math.emit import (
    spec_dequantize,
    spec_quantize,
    upstream_dequantize,
    upstream_quantize,
    upstream_storage_type,
)
from qcomp.passes.utils.builder import Builder
from qcomp.passes.utils.diagnostics import PassDiagnostic
from qcomp.passes.utils.storage_boundaries import stripped_type


class RescaleMode(Enum):
    """How every rescale is computed; the values are the option's spellings."""

    FLOAT = "float"
    FIXED_POINT = "fixed-point"
    STABLEHLO = "stablehlo"

    @classmethod
    def parse(cls, option: str, pass_name: str, where: Operation) -> RescaleMode:
        """The mode spelled `option`; a diagnostic at `where` naming the choices otherwise."""
        try:
            return cls(option)
        except ValueError:
            raise PassDiagnostic(where, f"{pass_name}: rescale must be one of "
                                 f"{', '.join(m.value for m in cls)}, not '{option}'") from None

    @property
    def upstream(self) -> bool:
        """Upstream's lowering bit for bit: its f32/i32 formulas, signless `iN` storage."""
        return self is RescaleMode.STABLEHLO

    @property
    def integer_only(self) -> bool:
        """Quantized -> quantized rescales as fixed-point multiplier and shift."""
        return self is RescaleMode.FIXED_POINT

    @property
    def folds(self) -> bool:
        """The lowering folds as it emits (`qcomp.passes.utils.folding`): splat
        constants, no clamp or convert that changes nothing, constant adds combined.
        Not `stablehlo`, which emits upstream's ops one for one."""
        return self is RescaleMode.FIXED_POINT

    def numerics_contract(self) -> tuple[str, int]:
        """(semantics the input is read in, storage steps a result may move)."""
        if self.upstream:
            return ("stablehlo", 0)
        return ("spec", 1 if self.integer_only else 0)

    def storage_type(self, t: Attribute) -> Attribute:
        """`t` with quantized elements as their storage integers (`uN` as `uiN`, or as
        signless `iN` when upstream)."""
        return upstream_storage_type(t) if self.upstream else stripped_type(t)

    def float_type(self, q: UniformQuantizedType) -> Attribute:
        """The float type a dequantized `q` is computed in: f32 upstream, else expressed."""
        return f32 if self.upstream else q.expressed_type

    def quantize(self, b: Builder, x: SSAValue, q: UniformQuantizedType) -> SSAValue:
        """Storage integers of `quantize(x)` (the spec's, or upstream's in f32)."""
        return upstream_quantize(b, x, q) if self.upstream else spec_quantize(b, x, q)

    def dequantize(self, b: Builder, s: SSAValue, q: UniformQuantizedType) -> SSAValue:
        """Real values of the storage integers `s` (the spec's, or upstream's in f32)."""
        return upstream_dequantize(b, s, q) if self.upstream else spec_dequantize(b, s, q)


__all__ = ["RescaleMode"]
