"""How far the xla backend's numbers may be from the interpreter's, and the comparison
of the two on the program XLA compiles (`compare_lowered`: what `qcomp-opt
--verify-numerics --backend xla` and `tests/backends/test_xla.py` run).

Exact (bit for bit, integers and floats) unless the lowered program uses an op XLA
computes differently (ops declaring `qcomp.dialects.facts.XlaInexact`, with the reason;
`tolerance_for`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from qcomp.backends.xla import XlaFunction
from qcomp.dialects import stablehlo as sh
from qcomp.dialects.facts import XlaInexact
from qcomp.interpreter import RunError
from qcomp.interpreter.values import element_type, is_float, quant_of


def compare_outputs(expected: Sequence[np.ndarray], actual: Sequence[np.ndarray], ulps: int = 0,
                    steps: int = 0, atol: float = 0.0, rtol: float = 0.0,
                    zero_sign: bool = True) -> list[str]:
    """Where `actual` departs from `expected` by more than the tolerance: integers by
    more than `steps + rtol * |expected|`; floats (bits compared, NaN equals NaN, and
    `-0.0` differs from `+0.0` unless `zero_sign` is False) by more than `ulps` units in
    the last place and more than `atol + rtol * |expected|`; complex numbers part by
    part. Empty when they agree."""
    out = []
    tol = dict(ulps=ulps, atol=atol, rtol=rtol, zero_sign=zero_sign)
    for i, (e, a) in enumerate(zip(expected, actual)):
        e, a = np.asarray(e), np.asarray(a)
        if e.shape != a.shape:
            out.append(f"result {i}: shape {a.shape}, expected {e.shape}")
            continue
        if e.dtype.kind == "c":
            same = _floats_agree(e.real, a.real.astype(e.real.dtype), **tol) & \
                _floats_agree(e.imag, a.imag.astype(e.imag.dtype), **tol)
        elif e.dtype.kind in "fV":
            same = _floats_agree(e, a.astype(e.dtype), **tol)
        else:
            e64 = e.astype(np.int64)
            same = np.abs(e64 - a.astype(np.int64)) <= steps + rtol * np.abs(e64)
        if not same.all():
            bad = np.argwhere(~same)[:3]
            pts = ", ".join(f"{tuple(int(k) for k in b)}: {a[tuple(b)]!r} vs {e[tuple(b)]!r}" for b in bad)
            out.append(f"result {i}: {int((~same).sum())} of {same.size} differ ({pts})")
    return out


def _floats_agree(e: np.ndarray, a: np.ndarray, ulps: int, atol: float, rtol: float,
                  zero_sign: bool) -> np.ndarray:
    from qcomp.interpreter.checks import ulp_distance

    e64, a64 = e.astype(np.float64), a.astype(np.float64)
    same = (e64 == a64) | (np.isnan(e64) & np.isnan(a64))
    if zero_sign:
        same &= (np.signbit(e64) == np.signbit(a64)) | np.isnan(e64)
    if ulps and e.dtype.kind == "f" and e.dtype.itemsize in (2, 4, 8):
        same |= ulp_distance(e, a) <= ulps
    if atol or rtol:
        with np.errstate(invalid="ignore"):
            same |= np.abs(e64 - a64) <= atol + rtol * np.abs(e64)
    return same


FLOAT_ULPS = 4
"""How far (in ulp) a float may move when the program uses an op XLA computes
differently (one that declares `XlaInexact`)."""
SUM_RTOL = 1e-5
"""How far (relative) a value may move when the program sums floats (an f32 sum of n
terms in another order moves by up to about n·2^-24 of the sum of the terms' magnitudes,
which cancellation can make far larger than an ulp of the result)."""


def _inexact(op: Operation) -> XlaInexact | None:
    """`op`'s `XlaInexact` when it applies: a summing op counts only with float results."""
    fact = op.get_trait(XlaInexact)
    if fact is None or (fact.sums and not any(is_float(element_type(r.type))
                                              for r in op.results)):
        return None
    return fact


def inexact_ops(module: ModuleOp) -> list[str]:
    """The ops of `module` (a lowered program) that XLA computes differently (they
    declare `XlaInexact`, with the reason)."""
    return [op.name for op in module.walk() if _inexact(op) is not None]


def tolerance_for(module: ModuleOp, lowered: ModuleOp) -> dict:
    """`compare_outputs` tolerance for running `module` on XLA: exact, unless its lowered
    program uses an op declaring `XlaInexact`; then integers may move one step, floats
    `FLOAT_ULPS` ulp or one storage step of the largest scale of `module` (a quantized value next to
    a rounding tie flips), both also `FLOAT_ULPS` float32 ulp of their magnitude, or
    `SUM_RTOL` of it when the program sums floats (an integer computed from a float sum,
    as upstream's f32 convolutions are, moves with the sum). With float
    maximum / minimum, `-0.0` and `+0.0` compare equal (XLA returns either)."""
    tol: dict = {}
    if any(isinstance(op, sh.MaximumOp | sh.MinimumOp) and is_float(element_type(op.results[0].type))
           for op in lowered.walk()):
        tol["zero_sign"] = False  # XLA's maximum / minimum return either of -0.0 and +0.0
    inexact = [fact for op in lowered.walk() if (fact := _inexact(op)) is not None]
    if not inexact:
        return tol
    step = max((float(np.max(q.scales)) for op in module.walk() for v in op.results
                if (q := quant_of(v.type)) is not None), default=0.0)
    sums = any(fact.sums for fact in inexact)
    return {**tol, "ulps": FLOAT_ULPS, "steps": 1, "atol": step,
            "rtol": SUM_RTOL if sums else FLOAT_ULPS * 2.0 ** -23}


def compare_lowered(fn: XlaFunction, inputs: Sequence[np.ndarray], semantics: str = "spec",
                    tolerance: dict | None = None) -> list[str]:
    """Run the program XLA compiled (`fn.text`: checks as results, constants as
    arguments) on the interpreter and on XLA and compare every result
    (`compare_outputs` with `tolerance`, by default `tolerance_for`); a list of
    differences, empty when they agree. The interpreter runs `fn.prepared`, the IR
    `fn.text` was printed from (the text parsed when there is none)."""
    from qcomp.interpreter import run_function
    from qcomp.registry import parse_module

    module = fn.prepared if fn.prepared is not None else parse_module(fn.text)
    main = next(op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == "main")
    if tolerance is None:
        tolerance = tolerance_for(fn.function.parent_op(), module)
    ref = run_function(module, main, fn.lowered_inputs(inputs), semantics)
    if ref.error is not None:
        return [f"the interpreter stopped on the lowered program: {ref.error.message}"]
    try:
        got = fn.raw_outputs(inputs)
    except RunError as e:
        return [f"XLA stopped: {e.message}"]
    return compare_outputs(ref.results, got, **tolerance)
