"""One declaration per TFLite builtin operator: `Operator`.

An `Operator` holds every fact qcomp knows about one TFLite operator:

- **import** (`qcomp.importers.tflite`): its builtin options table (`Options`: the
  schema's table name and a check per field), its operands (`Operand`: role, element
  types, rank, constant or not, optional), and `build`, the function that makes its
  StableHLO from an `OpContext` (`qcomp.tflite.context`);
- **the LiteRT 8-bit quantization spec's rule** (`litert-verify-int8`, read through
  `qcomp.passes.litert.op_table`): `output`, `fixed` / `fixed16`, `weights`, `int16`,
  the StableHLO ops that express it (`stablehlo`, told apart as `how` says) and the ONNX
  op types that do (`onnx`):

      output = "activation"  int8 per-tensor, zero point in [-128, 127]
               "fixed"       the spec's fixed (scale, zero_point) (`fixed`, `fixed16`)
               "same"        the inputs' and the output's (scale, zero_point) all equal
               "none"        the result is not quantized (compare, arg_max, shape)
      weights = "fc" | "conv" | "depthwise": input 1 is a symmetric int8 weight,
                per-tensor or per-axis on the output channel, input 2 an int32 bias
                with (scale, zero_point) = (input0_scale * weight_scale[c], 0)

  `int16` marks the ops TFLite also runs in 16x8 mode (int16 activations with zero
  point 0, int8 weights); `fixed16` is their fixed output in that mode;
- **`rescale=fixed-point`** (`stablehlo-legalize-quant-to-math`): `kernels`, TFLite's
  integer kernel per StableHLO op class the operator imports as (or per `tfl.*`
  composite name), each `kernel(op, builder, storage_of) -> SSAValue | None` (None:
  not this kernel's types, the generic lowering runs).

`declare(Operator(...))` adds a declaration to `OPERATORS` (in declaration order, which
is the op table's); the modules that declare are listed in `qcomp.tflite.operators`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from xdsl.ir import Operation

Kernel = Callable[..., Any]
"""`kernel(op, b: Builder, st) -> SSAValue | None` (`st`: a value's storage form)."""


@dataclass(frozen=True)
class Operand:
    """One input of an operator: `role` names it in diagnostics; `types` are the
    schema's TensorType names it may have (empty: any type qcomp imports); `rank` a set
    of ranks (empty: any); `constant` when its buffer must hold data; `optional` when it
    may be given as -1."""

    role: str
    types: tuple[str, ...] = ()
    rank: tuple[int, ...] = ()
    min_rank: int = 0
    constant: bool = False
    optional: bool = False


ACTIVATION = Operand("input")


def one_of(*allowed: int) -> Callable[[Any], str | None]:
    """An option check: the value is one of `allowed`."""
    def check(v: Any) -> str | None:
        return None if v in allowed else f"must be one of {', '.join(map(str, allowed))}"
    return check


def positive(v: Any) -> str | None:
    return None if isinstance(v, int) and v > 0 else "must be positive"


def boolean(v: Any) -> str | None:
    return None if isinstance(v, bool) or v in (0, 1) else "must be true or false"


def finite(v: Any) -> str | None:
    import math

    return None if math.isfinite(float(v)) else "must be finite"


def any_value(v: Any) -> str | None:
    return None


@dataclass(frozen=True)
class Options:
    """The builtin options table of an operator: the schema's `BuiltinOptions` name,
    a check per field (its value -> None, or what is wrong), and whether the table may
    be absent (its fields then take the schema's defaults)."""

    table: str
    fields: Mapping[str, Callable[[Any], str | None]] = field(default_factory=dict)
    required: bool = True


@dataclass(frozen=True)
class Operator:
    """One TFLite builtin operator (see the module docstring)."""

    tflite: str
    # -- the LiteRT 8-bit spec's rule (litert-verify-int8) --
    stablehlo: tuple[type[Operation], ...] = ()
    onnx: tuple[str, ...] = ()
    output: str = "activation"
    fixed: tuple[float, int] | None = None
    fixed16: tuple[float, int] | None = None
    weights: str | None = None
    int16: bool = False
    how: str = ""
    spec: bool = True
    """False for the StableHLO glue rows that are no TFLite op of the spec's table."""
    # -- import --
    options: Options | None = None
    inputs: tuple[Operand, ...] = ()
    variadic: bool = False
    """True when any number (>= 1) of inputs like `inputs[0]` is taken (CONCATENATION)."""
    outputs: int | None = 1
    """How many outputs it has; None: any number >= 1 (SPLIT, SPLIT_V, UNPACK), its
    `build` checks the count against its options."""
    build: Callable[..., list] | None = None
    """`build(ctx: OpContext) -> [SSAValue per output]`; None: not imported."""
    # -- rescale=fixed-point --
    kernels: Mapping[type[Operation] | str, Kernel] = field(default_factory=dict)

    @property
    def composite(self) -> str:
        """The `stablehlo.composite` name of the operator (`tfl.<name in lower case>`)."""
        return "tfl." + self.tflite.lower()

    @property
    def name(self) -> str:
        return self.tflite


OPERATORS: dict[str, Operator] = {}


def declare(op: Operator) -> Operator:
    """Adds `op` to `OPERATORS` (one declaration per name)."""
    if op.tflite in OPERATORS:
        raise ValueError(f"TFLite operator {op.tflite} is declared twice")
    OPERATORS[op.tflite] = op
    return op


__all__ = ["ACTIVATION", "OPERATORS", "Kernel", "Operand", "Operator",
           "Options", "any_value", "boolean", "declare", "finite", "one_of", "positive"]
