"""Quantization math shared by the passes and the interpreter (NumPy only, no IR).

- `ranges`: storage and literal ranges (float storage types too), container dtypes,
  two's-complement wrap and signed view, saturate
- `rounding`: round half to even / half away from zero
- `uniform`: the StableHLO spec's quantize / dequantize / requantize
- `float_storage`: float8/float4 storage: rounding once to nearest even, saturating
- `stablehlo`: what upstream's quant-to-math lowering computes (`--semantics stablehlo`)
- `fixed_point`: multiplier/shift and TOSA 1.0 RESCALE
"""

from qcomp.quant.fixed_point import multiplier_and_shift, tosa_rescale
from qcomp.quant.ranges import (
    container_dtype,
    float_storage_range,
    literal_range,
    saturate,
    signed_view,
    storage_range,
    wrap,
)
from qcomp.quant.rounding import round_half_away_from_zero, round_half_to_even
from qcomp.quant.uniform import dequantize, quantize, requantize

__all__ = [
    "container_dtype", "dequantize", "float_storage_range", "literal_range",
    "multiplier_and_shift", "quantize", "requantize", "round_half_away_from_zero",
    "round_half_to_even", "saturate", "signed_view", "storage_range", "tosa_rescale", "wrap",
]
