"""Check results: the rules judging the `check` dialect's ops (whose interpreter
functions are `check_functions.CheckFunctions`) and the check custom calls.

Every check (a `check.*` op or a `stablehlo.custom_call` to a check target,
`custom_call_checks`) appends a
`CheckResult` to the run's log instead of stopping the run:
- integers, i1 and quantized storage compare exactly;
- floats pass when |actual - expected| <= tolerance (default 1e-4, upstream's), or
  both are NaN, or both are the same infinity; complex compares both parts.
- `expect_eq` on floats is exact (NaN equals NaN); `expect_close` counts ULPs.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions
from xdsl.ir import Attribute, Operation

from qcomp.interpreter.errors import RunError
from qcomp.interpreter.values import dense_to_array, shape_of

DEFAULT_TOLERANCE = 1e-4
MAX_REPORTED = 10


@dataclass
class CheckResult:
    """One check: `mismatches` lists (index, got, expected) of the first failing elements."""

    op: Operation
    passed: bool
    total_mismatches: int = 0
    mismatches: list[tuple[tuple[int, ...], Any, Any]] = field(default_factory=list)
    note: str = ""


def log_of(interpreter: Interpreter) -> list[CheckResult]:
    """The run's check results (kept under xDSL's base class: the checks of the `check`
    ops, the custom calls and the probes' check all log here)."""
    return interpreter.get_data(InterpreterFunctions, "check_log", list)


def _close(a: np.ndarray, b: np.ndarray, tol: float | None) -> np.ndarray:
    """Element-wise pass mask for float/complex arrays (tol None: exact)."""
    if a.dtype.kind == "c" or b.dtype.kind == "c":
        ac, bc = a.astype(np.complex128), b.astype(np.complex128)
        return _close(ac.real, bc.real, tol) & _close(ac.imag, bc.imag, tol)
    fa, fb = a.astype(np.float64), b.astype(np.float64)
    both_nan = np.isnan(fa) & np.isnan(fb)
    with np.errstate(invalid="ignore"):
        same = fa == fb
        if tol is None:
            return same | both_nan
        return same | both_nan | (np.abs(fa - fb) <= tol)


def compare_arrays(actual: np.ndarray, expected: np.ndarray, tol: float | None) -> np.ndarray:
    """Pass mask: exact for integers/bools, `_close` for floats."""
    if actual.shape != expected.shape:
        raise RunError(f"check compares shapes {actual.shape} and {expected.shape}")
    if actual.dtype.kind in "fc" or expected.dtype.kind in "fc" or actual.dtype.kind == "V":
        return _close(actual, expected, tol)
    if actual.dtype == np.bool_ or expected.dtype == np.bool_:
        return actual.astype(bool) == expected.astype(bool)
    return actual.astype(np.int64 if actual.dtype != np.uint64 else np.uint64) == \
        expected.astype(np.int64 if expected.dtype != np.uint64 else np.uint64)


def _scalar(v) -> Any:
    item = v.item() if hasattr(v, "item") else v
    if isinstance(item, float) and v.dtype.itemsize < 8:
        return float(np.float32(item)) if v.dtype.kind == "f" else item
    return item


def judge(op: Operation, actual: np.ndarray, expected: np.ndarray,
          tolerance: float | None = DEFAULT_TOLERANCE) -> CheckResult:
    """The verdict of comparing `actual` with `expected` (see module docstring)."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    if actual.dtype.kind in "iub" and expected.dtype.kind in "iub":
        tolerance = None
    ok_mask = compare_arrays(actual, expected, tolerance)
    bad = np.argwhere(~ok_mask) if ok_mask.ndim else (np.zeros((1, 0), int) if not ok_mask else
                                                       np.zeros((0, 0), int))
    res = CheckResult(op, passed=bool(np.all(ok_mask)), total_mismatches=int(np.sum(~ok_mask)))
    for idx in bad[:MAX_REPORTED]:
        i = tuple(int(k) for k in idx)
        res.mismatches.append((i, _scalar(actual[i]), _scalar(expected[i])))
    return res


def judge_close(op: Operation, actual: np.ndarray, expected: np.ndarray, max_ulp: int,
                min_ulp: int = 0) -> CheckResult:
    """`min_ulp <= ulp_distance(actual, expected) <= max_ulp` element-wise."""
    a, e = np.asarray(actual), np.asarray(expected)
    if a.dtype.kind == "c":  # upstream: the larger of the parts' distances
        d = np.maximum(ulp_distance(a.real.copy(), e.real.copy()),
                       ulp_distance(a.imag.copy(), e.imag.copy()))
    else:
        d = ulp_distance(a, e)
    return _verdict(op, a, e, (d >= min_ulp) & (d <= max_ulp))


def _verdict(op: Operation, a: np.ndarray, e: np.ndarray, mask: np.ndarray) -> CheckResult:
    """The check's result from its element-wise pass mask."""
    mask = np.asarray(mask)
    res = CheckResult(op, passed=bool(np.all(mask)), total_mismatches=int(np.sum(~mask)))
    for idx in np.argwhere(~mask.reshape(mask.shape or (1,)))[:MAX_REPORTED]:
        i = tuple(int(k) for k in idx) if mask.ndim else ()
        res.mismatches.append((i, _scalar(a[i]), _scalar(e[i])))
    return res


CHECK_EQ_TARGET = "check.eq"
UPSTREAM_CLOSE_ULPS = 3
UPSTREAM_ALMOST_EQ_TOLERANCE = 0.001


@functools.cache
def custom_call_checks() -> tuple[str, ...]:
    """The `stablehlo.custom_call` targets that are checks, as stablehlo-translate's
    interpreter fallback judges them: `@check.eq(%expected, %actual)` (tolerance 1e-4),
    and with operands `(%actual, %expected)` `@check.expect_eq` (exact: `==` per element,
    so NaN fails and -0 equals +0), `@check.expect_close` (0 to 3 ULPs) and
    `@check.expect_almost_eq` (tolerance 0.001)."""
    from qcomp.dialects import check as chk

    return (CHECK_EQ_TARGET, chk.ExpectEqOp.name, chk.ExpectCloseOp.name, chk.ExpectAlmostEqOp.name)


def is_check(op: Operation) -> bool:
    """Whether `op` is a check: a `check.*` op or a `custom_call` to a check target."""
    chk = sys.modules.get("qcomp.dialects.check")  # not loaded: the program has no check op
    if chk is not None and isinstance(op, chk._CheckOp):
        return True
    target = getattr(op, "call_target_name", None)
    return target is not None and target in custom_call_checks()


def judge_check(op: Operation, args: Sequence[np.ndarray]) -> CheckResult:
    """The verdict of the check op `op` on its operand values `args`: the one place
    the rules live (the interpreter's functions and `qcomp.backends.xla` call it)."""
    from qcomp.dialects import check as chk

    if isinstance(op, chk.ExpectEqOp):
        return judge(op, args[0], args[1], tolerance=None)
    if isinstance(op, chk.ExpectEqConstOp):
        return judge(op, args[0], _const(op, op.value, op.operands[0].type), tolerance=None)
    if isinstance(op, chk.ExpectAlmostEqOp):
        return judge(op, args[0], args[1], tolerance=op.tolerance_value)
    if isinstance(op, chk.ExpectAlmostEqConstOp):
        return judge(op, args[0], _const(op, op.value, op.operands[0].type),
                     tolerance=op.tolerance_value)
    if isinstance(op, chk.ExpectCloseOp):
        lo = op.min_ulp_difference.value.data if op.min_ulp_difference is not None else 0
        return judge_close(op, args[0], args[1], op.max_ulp_difference.value.data, lo)
    if isinstance(op, chk.ExpectSerializedEqOp):
        raise RunError("check.expect_serialized_eq needs the run's probe records "
                       "(qcomp.interpreter.probe_functions)")
    target = getattr(op, "call_target_name", None)
    if target == CHECK_EQ_TARGET:
        if len(args) != 2:
            raise RunError("@check.eq takes two operands (expected, actual)")
        return judge(op, args[1], args[0], tolerance=DEFAULT_TOLERANCE)
    if target in custom_call_checks():
        return _judge_custom_call(op, target, args)
    raise RunError(f"'{op.name}' is not a check")


def _judge_custom_call(op: Operation, target: str, args: Sequence[np.ndarray]) -> CheckResult:
    """`custom_call @check.expect_*(%actual, %expected)` (upstream takes two operands and
    reports any other custom call as unsupported)."""
    if len(args) != 2:
        raise RunError(f"unsupported custom call @{target} with {len(args)} operands "
                       "(the check targets take two: actual, expected)")
    from qcomp.dialects import check as chk

    actual, expected = np.asarray(args[0]), np.asarray(args[1])
    if target == chk.ExpectEqOp.name:
        if actual.dtype.kind in "fcV" or expected.dtype.kind in "fcV":
            return _verdict(op, actual, expected, _float_eq(actual, expected))
        return judge(op, actual, expected, tolerance=None)
    if actual.dtype.kind not in "fcV":
        raise RunError(f"@{target}: unsupported element type (float or complex only)")
    if target == chk.ExpectCloseOp.name:
        return judge_close(op, actual, expected, UPSTREAM_CLOSE_ULPS)
    return judge(op, actual, expected, tolerance=UPSTREAM_ALMOST_EQ_TOLERANCE)


def _float_eq(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IEEE `==` per element (complex: both parts)."""
    if a.shape != b.shape:
        raise RunError(f"check compares shapes {a.shape} and {b.shape}")
    if a.dtype.kind == "c" or b.dtype.kind == "c":
        return (a.astype(np.complex128).real == b.astype(np.complex128).real) & \
            (a.astype(np.complex128).imag == b.astype(np.complex128).imag)
    with np.errstate(invalid="ignore"):
        return a.astype(np.float64) == b.astype(np.float64)


def _const(op, attr: Attribute, like_type: Attribute) -> np.ndarray:
    if not hasattr(attr, "data") or not hasattr(attr, "get_type"):
        raise RunError(f"unsupported check constant {attr}")
    t = attr.get_type()
    if shape_of(t) != shape_of(like_type):
        raise RunError(f"check constant has shape {shape_of(t)}, operand has {shape_of(like_type)}")
    return dense_to_array(attr, t)


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Number of representable values between a and b in their float type, as
    upstream's `ULPDifference`: 0 for the same bits and for NaN vs NaN; the largest
    uint64 (as int64 max here) when one is infinite or NaN and the bits differ.

    Finite floats map to integers monotonically (sign-magnitude bits -> signed), +0
    and -0 both to 0; the distance is the difference of the keys.
    """
    bits = a.dtype.itemsize * 8
    si = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]

    def key(x):
        s = np.ascontiguousarray(x).view(si).astype(np.int64)
        mag = s & np.int64((1 << (bits - 1)) - 1) if bits < 64 else s & np.int64(2**63 - 1)
        return np.where(s < 0, -mag, mag)

    with np.errstate(over="ignore"):
        d = np.abs(key(a) - key(b))
    fa, fb = a.astype(np.float64), b.astype(np.float64)
    both_nan = np.isnan(fa) & np.isnan(fb)
    same_bits = key(a) == key(b)
    finite = np.isfinite(fa) & np.isfinite(fb)
    far = np.iinfo(np.int64).max
    return np.where(both_nan | same_bits, 0, np.where(finite, d, far))
