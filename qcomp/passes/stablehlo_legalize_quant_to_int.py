"""The `stablehlo-legalize-quant-to-int` pass: upstream's older name of
`stablehlo-legalize-quant-to-math`."""

from __future__ import annotations

from dataclasses import dataclass

from qcomp.passes.stablehlo_legalize_quant_to_math import LegalizeQuantToMathPass


@dataclass(frozen=True)
class LegalizeQuantToIntPass(LegalizeQuantToMathPass):
    """Lower quantized StableHLO to integer/float math (older name of stablehlo-legalize-quant-to-math).

    The same pass and options as `stablehlo-legalize-quant-to-math`, under the name
    upstream used before (`stablehlo-legalize-quant-to-int`).
    """

    name = "stablehlo-legalize-quant-to-int"
