"""MLIR's textual float forms: how `printFloatValue` writes an IEEE value and how a
float literal (decimal or `0x` bit pattern) reads back.

MLIR prints a finite value in the six-digit exponent form (`9.987200e-01`) when that
reads back to the same bits, else in APFloat's default form (17 significant digits
for a double, trailing zeros dropped, scientific with `E` when more than three
padding zeros would be needed), else as the hex bit pattern (`0x7FC00000`).
"""

from __future__ import annotations

import math
import re
import struct

import numpy as np
from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, Float64Type
from xdsl.ir import Attribute

FLOAT_KINDS: dict[type, str] = {
    Float16Type: "f16",
    BFloat16Type: "bf16",
    Float32Type: "f32",
    Float64Type: "f64",
}
"""The float types qcomp prints and reads, by their kind name."""
KIND_TYPES: dict[str, type] = {kind: cls for cls, kind in FLOAT_KINDS.items()}


def float_kind(t: Attribute) -> str | None:
    """`f16` / `bf16` / `f32` / `f64` for those float types, else None."""
    return FLOAT_KINDS.get(type(t))


_FLOAT_LITERAL = re.compile(r"^[-+]?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$")

# bitwidth -> (numpy dtype for rounding, mantissa precision in bits incl. hidden bit)
_SEMANTICS: dict[str, tuple[int, int]] = {
    "f16": (16, 11),
    "bf16": (16, 8),
    "f32": (32, 24),
    "f64": (64, 53),
}


_BF16_MAX = 3.3895313892515355e38


def _round_bf16(value: float) -> float:
    """Round a double straight to bf16, ties to even (no detour through f32, which
    would round twice: 1 + 2^-8 + 2^-30 must give 1 + 2^-7, not 1)."""
    if not math.isfinite(value) or value == 0.0:
        return value
    mag = abs(value)
    exponent = max(math.frexp(mag)[1] - 1, -126)
    ulp = math.ldexp(1.0, exponent - 7)
    rounded = round(mag / ulp) * ulp  # exact scaling; round() ties to even
    if rounded > _BF16_MAX:
        rounded = math.inf
    return math.copysign(rounded, value)


def _round_to(value: float, kind: str) -> float:
    """Round a double to the nearest value of the float kind (ties to even)."""
    if kind == "f64":
        return value
    with np.errstate(over="ignore"):
        if kind == "f32":
            return float(np.float32(value))
        if kind == "f16":
            return float(np.float16(value))
    if kind == "bf16":
        return _round_bf16(value)
    raise ValueError(f"unknown float kind {kind}")


def float_to_bits(value: float, kind: str = "f64") -> int:
    """The IEEE bit pattern of `value` in the float kind."""
    if kind == "f64":
        return struct.unpack("<Q", struct.pack("<d", value))[0]
    if kind == "f32":
        return int(np.array(value, dtype=np.float32).view(np.uint32))
    if kind == "f16":
        return int(np.array(value, dtype=np.float16).view(np.uint16))
    if kind == "bf16":
        if math.isnan(value):  # keep the payload: a bf16 NaN is the top half of an f32 NaN
            return float_to_bits(value, "f32") >> 16
        return float_to_bits(_round_to(value, "bf16"), "f32") >> 16
    raise ValueError(f"unknown float kind {kind}")


def bits_to_float(bits: int, kind: str = "f64") -> float:
    """The value whose IEEE bit pattern in the float kind is `bits`."""
    if kind == "f64":
        return struct.unpack("<d", struct.pack("<Q", bits & (2**64 - 1)))[0]
    if kind == "f32":
        return float(np.array(bits & 0xFFFFFFFF, dtype=np.uint32).view(np.float32))
    if kind == "f16":
        return float(np.array(bits & 0xFFFF, dtype=np.uint16).view(np.float16))
    if kind == "bf16":
        return bits_to_float((bits & 0xFFFF) << 16, "f32")
    raise ValueError(f"unknown float kind {kind}")


def _apfloat_to_string(value: float, kind: str, precision: int, max_padding: int,
                       truncate_zero: bool) -> str:
    """LLVM's `IEEEFloat::toString` for a finite value of the float kind."""
    if value == 0.0:
        sign = "-" if math.copysign(1.0, value) < 0 else ""
        if max_padding == 0:
            if truncate_zero:
                return sign + "0.0E+0"
            return sign + "0.0" + "0" * max(precision - 1, 0) + "e+00"
        return sign + "0.0"
    sign = "-" if value < 0 else ""
    value = abs(value)
    mant, exp2 = math.frexp(value)
    sem_precision = _SEMANTICS[kind][1]
    # exact integer significand and binary exponent: value = sig * 2**exp
    sig = int(math.ldexp(mant, 64))
    exp = exp2 - 64
    tz = (sig & -sig).bit_length() - 1
    sig >>= tz
    exp += tz
    if precision == 0:
        precision = 2 + sem_precision * 59 // 196
    # to decimal: sig * 2**exp == digits * 10**exp10
    if exp >= 0:
        digits_int = sig << exp
        exp10 = 0
    else:
        digits_int = sig * 5 ** (-exp)
        exp10 = exp
    # LLVM first drops whole decimal units by truncating division, using
    # 196/59 as an estimate of log2(10), before rounding to `precision` digits.
    required = (precision * 196 + 58) // 59
    used = digits_int.bit_length()
    if used > required:
        units = (used - required) * 59 // 196
        if units > 0:
            digits_int //= 10**units
            exp10 += units
    digits = str(digits_int)
    # drop trailing decimal zeros
    stripped = digits.rstrip("0")
    exp10 += len(digits) - len(stripped)
    digits = stripped
    # round half up to `precision` digits
    if len(digits) > precision:
        cut = len(digits) - precision
        keep, rest = digits[:precision], digits[precision:]
        exp10 += cut
        if rest[0] >= "5":
            kept = str(int(keep) + 1)
            if len(kept) > precision:
                kept = kept[:-1]
                exp10 += 1
            keep = kept
        stripped = keep.rstrip("0")
        exp10 += len(keep) - len(stripped)
        digits = stripped
    ndigits = len(digits)
    if max_padding == 0:
        scientific = True
    elif exp10 >= 0:
        scientific = exp10 > max_padding or ndigits + exp10 > precision
    else:
        msd = exp10 + ndigits - 1
        scientific = msd < 0 and -msd > max_padding
    if scientific:
        exponent = exp10 + ndigits - 1
        out = digits[0] + "."
        if ndigits == 1 and truncate_zero:
            out += "0"
        else:
            out += digits[1:]
        if not truncate_zero and precision > ndigits - 1:
            out += "0" * (precision - ndigits + 1)
        if not truncate_zero:
            return f"{sign}{out}e{'+' if exponent >= 0 else '-'}{abs(exponent):02d}"
        return f"{sign}{out}E{'+' if exponent >= 0 else '-'}{abs(exponent)}"
    if exp10 >= 0:
        # like APFloat: an integral value gets no decimal point (so MLIR falls
        # back to the hex form for it)
        return sign + digits + "0" * exp10
    point = ndigits + exp10
    if point > 0:
        return sign + digits[:point] + "." + digits[point:]
    return sign + "0." + "0" * (-point) + digits


def apfloat_to_string(value: float, precision: int, max_padding: int,
                      truncate_zero: bool) -> str:
    """LLVM's `IEEEFloat::toString` of a finite value with an explicit precision (so the
    value's own float kind does not matter)."""
    return _apfloat_to_string(value, "f64", precision, max_padding, truncate_zero)


def _parses_back(text: str, value: float, kind: str) -> bool:
    back = _round_to(float(text), kind)
    return float_to_bits(back, kind) == float_to_bits(value, kind)


_FORMATTED: dict[tuple[float, str], str] = {}
"""format_float's text of each (value, kind) seen (the same scales recur in many types);
bounded by _FORMATTED_LIMIT."""
_FORMATTED_LIMIT = 1 << 16


def format_float(value: float, kind: str = "f64") -> str:
    """Text of `value` (already a value of the float kind) as MLIR prints it."""
    if value == 0.0:  # 0.0 and -0.0 would be one key
        return _format_float(value, kind)
    key = (value, kind)
    text = _FORMATTED.get(key)
    if text is None:
        text = _format_float(value, kind)
        if len(_FORMATTED) >= _FORMATTED_LIMIT:
            _FORMATTED.clear()
        _FORMATTED[key] = text
    return text


def _format_float(value: float, kind: str) -> str:
    if math.isfinite(value):
        # 6 digits first; for an f64 they cannot read back when the correctly rounded
        # 6 digits do not (LLVM's are no nearer the value), which Python's formatting
        # tells at C speed
        if kind != "f64" or float(f"{value:.5e}") == value:
            text = _apfloat_to_string(value, kind, 6, 0, False)
            if _parses_back(text, value, kind):
                return text
        text = _apfloat_to_string(value, kind, 0, 3, True)
        if "." in text and _parses_back(text, value, kind):
            return text
    width = {"f16": 4, "bf16": 4, "f32": 8, "f64": 16}[kind]
    return "0x" + format(float_to_bits(value, kind), f"0{width}X")


def parse_float(text: str, kind: str = "f64") -> float:
    """Value of a float literal, decimal or `0x` bit pattern, in the float kind.

    Raises ValueError when the text is not a float literal or a decimal literal
    overflows the kind.
    """
    t = text.strip()
    if t.lower().startswith(("0x", "-0x", "+0x")):
        if t[0] in "+-":
            raise ValueError("hexadecimal float literal should not have a leading minus")
        bits = int(t, 16)
        width = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}[kind]
        if bits >> width:
            raise ValueError(f"hexadecimal float constant out of range for type {kind}")
        return bits_to_float(bits, kind)
    if not _FLOAT_LITERAL.match(t):
        raise ValueError(f"expected float literal, got '{text}'")
    value = float(t)
    rounded = _round_to(value, kind)
    if (math.isinf(rounded) and not math.isinf(value)) or math.isinf(value):
        raise ValueError(f"float literal '{text}' out of range for {kind}")
    return rounded
