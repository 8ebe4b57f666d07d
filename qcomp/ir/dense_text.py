"""MLIR's text for `dense<...>` element data, as pure functions (no parser state).

Reading (`dense_from_text`): hex integers in float literals are IEEE bit patterns,
out-of-range values are `LiteralError`s in MLIR's words, a decimal list of the
type's shape is read by NumPy (about 1 us per element, xDSL 0.74 takes ~18 us),
`"0x..."` is MLIR's raw little-endian data (one element: a splat).
Writing (`dense_body_text`): MLIR's AsmPrinter layout: a splat as one element,
non-splat data of more than 100 elements as `"0x..."` (each element in
ceil(width/8) little-endian bytes, `i1` one byte, sub-byte integers zero-extended),
floats through `format_float` (printFloatValue), NaN and inf as their bits.
"""

from __future__ import annotations

import io
import math
import re
import warnings
from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import (
    AnyFloat,
    BytesAttr,
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerType,
    Signedness,
)
from xdsl.ir import Attribute
from xdsl.printer import Printer

from qcomp.ir.float_text import apfloat_to_string, bits_to_float, float_kind, format_float
from qcomp.ir.splat import dense_attr
from qcomp.quant.ranges import literal_range, signed_view

HEX_PRINT_LIMIT = 100
"""MLIR prints a non-splat dense attribute with more elements than this as hex."""

_NUMPY_FLOAT = {"f16": np.float16, "f32": np.float32, "f64": np.float64}
_UINT_OF_BYTES = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}

# One element token: hex, decimal (int or float), bool; anything else is caught
# by the skeleton comparison.
_ELEMENT = re.compile(
    r"[-+]?0x[0-9a-fA-F]+|[-+]?[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?|true|false"
)
_SKELETON_WS = re.compile(r"\s+")
_HEX_STRING = re.compile(r'\s*"0x([0-9a-fA-F]*)"\s*$')


class LiteralError(Exception):
    """A bad literal; `offset` is relative to the literal's text."""

    def __init__(self, message: str, offset: int = 0):
        super().__init__(message)
        self.message = message
        self.offset = offset


# ---------------------------------------------------------------------------
# element types


def _int_range(t: IntegerType | IndexType) -> tuple[int, int]:
    """Accepted literal range: signless iN (and index) takes both signed and unsigned spellings."""
    if isinstance(t, IndexType):
        return literal_range(64, None)
    s = t.signedness.data
    return literal_range(t.width.data, None if s == Signedness.SIGNLESS
                         else s == Signedness.SIGNED)


def _storage_dtype(t: Attribute) -> np.dtype:
    """NumPy dtype of xDSL's byte storage for an int/index element type."""
    return np.dtype(t.format)  # type: ignore[attr-defined]


def _is_unsigned(t: Attribute) -> bool:
    return isinstance(t, IntegerType) and t.signedness.data == Signedness.UNSIGNED


def _width(t: Attribute) -> int:
    if isinstance(t, IndexType):
        return 64
    return t.bitwidth  # type: ignore[attr-defined]


def _normalize_ints(values: np.ndarray, t: IntegerType | IndexType) -> np.ndarray:
    """Two's-complement wrap of in-range values to xDSL's storage (signed unless ui)."""
    w = _width(t)
    dtype = _storage_dtype(t)
    if _is_unsigned(t):
        return values.astype(dtype)
    if w == 0:  # i0 holds only 0
        return values.astype(dtype)
    return signed_view(values, w).astype(dtype)


# ---------------------------------------------------------------------------
# reading element text


def _skeleton_length(shape: Sequence[int]) -> int:
    """len(_expected_skeleton(shape)), without building it (a literal far shorter than its
    type must not cost the type's size)."""
    length = 1
    for dim in reversed(shape):
        length = dim * (length + 1) + 1 if dim else 2
    return length


def _expected_skeleton(shape: Sequence[int]) -> str:
    """The text of a nested list of `shape` with every element written `0`."""
    text = "0"
    for dim in reversed(shape):
        text = "[" + ",".join([text] * dim) + "]" if dim else "[]"
    return text


def _literal_shape(skeleton: str) -> list[int] | None:
    """Shape of a skeleton (`[`, `]`, `,`, `0`), None if the nesting is ragged."""
    pos = 0

    def walk() -> list[int] | None:
        nonlocal pos
        if skeleton[pos] == "0":
            pos += 1
            return []
        if skeleton[pos] != "[":
            raise LiteralError("expected element literal of primitive type", pos)
        pos += 1
        if skeleton[pos] == "]":
            pos += 1
            return [0]
        shapes = []
        while True:
            shapes.append(walk())
            if pos >= len(skeleton):
                raise LiteralError("expected ']'", pos)
            if skeleton[pos] == ",":
                pos += 1
                continue
            if skeleton[pos] == "]":
                pos += 1
                break
            raise LiteralError("expected ',' or ']'", pos)
        first = shapes[0]
        if any(s != first for s in shapes) or first is None:
            return None
        return [len(shapes), *first]

    try:
        shape = walk()
    except IndexError:
        raise LiteralError("unexpected end of dense literal", len(skeleton)) from None
    if pos != len(skeleton):
        raise LiteralError("unexpected text after dense literal", pos)
    return shape


def _tokens(text: str) -> tuple[list[str], list[int], str]:
    """Element tokens, their offsets and the structure with each token as `0`."""
    tokens: list[str] = []
    starts: list[int] = []
    for m in _ELEMENT.finditer(text):
        tokens.append(m.group())
        starts.append(m.start())
    skeleton = _SKELETON_WS.sub("", _ELEMENT.sub("0", text))
    return tokens, starts, skeleton


def _check_structure(text: str, tokens: list[str], starts: list[int], skeleton: str,
                     shape: Sequence[int]) -> bool:
    """True for a splat, False for a full list of `shape`; raises otherwise."""
    if skeleton == "0":
        return True
    if len(skeleton) == _skeleton_length(shape) and skeleton == _expected_skeleton(shape):
        return False
    bad = re.search(r"[^\[\],0]", skeleton)
    if bad is not None:
        # find the offending character in the original text
        stripped = _ELEMENT.sub(lambda m: " " * len(m.group()), text)
        off = next((i for i, c in enumerate(stripped) if c not in " \t\r\n[],"), 0)
        raise LiteralError("expected element literal of primitive type", off)
    inferred = _literal_shape(skeleton)
    if inferred is None:
        raise LiteralError("tensor literal is invalid; ranks are not consistent "
                           "between elements", 0)
    raise LiteralError(
        f"inferred shape of elements literal ([{', '.join(map(str, inferred))}]) "
        f"does not match type ([{', '.join(map(str, shape))}])", 0)


def _int_values(tokens: list[str], starts: list[int], t: IntegerType | IndexType
                ) -> np.ndarray:
    """Integer token texts -> storage array, checking MLIR's rules and ranges."""
    is_i1 = isinstance(t, IntegerType) and t.width.data == 1
    values: list[int] = []
    append = values.append
    for i, tok in enumerate(tokens):
        c = tok[-1]
        if c == "e" and tok in ("true", "false"):
            if not is_i1:
                raise LiteralError("expected i1 type for 'true' or 'false' values", starts[i])
            append(1 if tok == "true" else 0)
            continue
        if "x" in tok:
            neg = tok[0] == "-"
            v = int(tok.lstrip("+-"), 16)
            append(-v if neg else v)
            continue
        if "." in tok or "e" in tok or "E" in tok:
            raise LiteralError("expected integer elements, but parsed floating-point", starts[i])
        append(int(tok))
    if not values:
        return np.zeros(0, dtype=_storage_dtype(t))
    lo, hi = _int_range(t)
    vmin, vmax = min(values), max(values)
    if vmin < lo or vmax > hi:
        bad = next(i for i, v in enumerate(values) if v < lo or v > hi)
        if values[bad] < 0 and _is_unsigned(t):
            raise LiteralError("expected unsigned integer elements, but parsed negative value",
                               starts[bad])
        raise LiteralError("integer constant out of range for type", starts[bad])
    arr = np.array(values, dtype=object if vmax >= 2**63 else np.int64)
    return _normalize_ints(arr, t)


def _float_values(tokens: list[str], starts: list[int], t: AnyFloat) -> np.ndarray:
    """Float token texts -> array of IEEE bit patterns (uint of the type's size)."""
    size = t.compile_time_size
    width = t.bitwidth
    bits_dtype = _UINT_OF_BYTES[size]
    kind = float_kind(t)
    n = len(tokens)
    bits = np.zeros(n, dtype=bits_dtype)
    dec_idx: list[int] = []
    dec_val: list[float] = []
    for i, tok in enumerate(tokens):
        if "x" in tok:
            if tok[0] in "+-":
                raise LiteralError("hexadecimal float literal should not have a leading minus",
                                   starts[i])
            v = int(tok, 16)
            if v >> width:
                raise LiteralError("hexadecimal float constant out of range for type", starts[i])
            bits[i] = v
            continue
        if tok in ("true", "false"):
            raise LiteralError("expected floating-point elements, but parsed integer", starts[i])
        if "." not in tok:
            raise LiteralError("unexpected decimal integer literal for a floating point value",
                               starts[i])
        dec_idx.append(i)
        dec_val.append(float(tok))
    if dec_idx:
        src = np.array(dec_val, dtype=np.float64)
        if kind in _NUMPY_FLOAT:
            with np.errstate(over="ignore"):
                conv = src.astype(_NUMPY_FLOAT[kind])
            conv_bits = conv.view(bits_dtype)
            finite_back = np.isfinite(conv)
        else:
            enc = [t.encode_bits(v) if hasattr(t, "encode_bits")  # type: ignore[attr-defined]
                   else int.from_bytes(t.pack([v]), "little") for v in dec_val]
            conv_bits = np.array(enc, dtype=bits_dtype)
            back = [t.decode_bits(b) if hasattr(t, "decode_bits")  # type: ignore[attr-defined]
                    else t.unpack(int(b).to_bytes(size, "little"), 1)[0] for b in enc]
            finite_back = np.isfinite(np.array(back, dtype=np.float64))
        overflow = np.isfinite(src) & ~finite_back
        if overflow.any() or not np.isfinite(src).all():
            j = int(np.argmax(overflow | ~np.isfinite(src)))
            raise LiteralError(f"float literal '{tokens[dec_idx[j]]}' out of range for type "
                               f"{_type_text(t)}", starts[dec_idx[j]])
        bits[np.array(dec_idx, dtype=np.int64)] = conv_bits
    return bits


def _type_text(t: Attribute) -> str:
    out = io.StringIO()
    Printer(stream=out).print_attribute(t)
    return out.getvalue()


def supported(element: Attribute) -> bool:
    """Element types this module reads and prints (others: xDSL's own code)."""
    if isinstance(element, IndexType):
        return True
    if isinstance(element, IntegerType):
        return element.width.data <= 64
    if isinstance(element, AnyFloat):
        return element.compile_time_size in _UINT_OF_BYTES and element.bitwidth <= 64
    return False


def dense_from_text(text: str, type: Attribute) -> DenseIntOrFPElementsAttr:
    """The attribute for the text between `dense<` and `>` with the given shaped type.

    Raises LiteralError with an offset into `text`.
    """
    element = type.get_element_type()  # type: ignore[attr-defined]
    shape = list(type.get_shape())  # type: ignore[attr-defined]
    n = math.prod(shape)
    stripped = text.strip()
    if not stripped:
        if n != 0:
            raise LiteralError("parsed zero elements, but type has non-zero elements", 0)
        return DenseIntOrFPElementsAttr(type, _bytes_attr(b""))
    if stripped.startswith('"'):
        return _dense_from_hex(text, type, element, n)
    fast = _fast_dense(text, shape, element, n)
    if fast is not None:
        return DenseIntOrFPElementsAttr(type, _bytes_attr(fast))
    if isinstance(element, IntegerType | IndexType) and _width(element) > 1 and \
            not stripped.translate(_FAST_INT_CHARS) and "[" not in stripped and \
            (one := _decimal_ints([stripped], element, 1)) is not None:
        return dense_attr(type, one)  # a decimal integer splat
    tokens, starts, skeleton = _tokens(text)
    _check_structure(text, tokens, starts, skeleton, shape)
    if isinstance(element, AnyFloat):
        arr = _float_values(tokens, starts, element)
    else:
        arr = _int_values(tokens, starts, element)
    raw = arr.astype(arr.dtype.newbyteorder("<"), copy=False).tobytes()
    return dense_attr(type, raw)  # a splat: one element (qcomp.ir.splat)


_SEPARATORS_ONLY = str.maketrans("", "", "0123456789.eE+- \t\r\n")
_FAST_INT_CHARS = str.maketrans("", "", "0123456789-[], \t\r\n")
_FAST_FLOAT_CHARS = str.maketrans("", "", "0123456789.eE+-[], \t\r\n")
_BRACKETS_TO_SPACE = str.maketrans("[]", "  ")
_TOKEN_CHARS = "0123456789.eE+-"
# (substring checks are far faster than regex scans over megabytes of text)
_BAD_PAIRS = ([c + "[" for c in _TOKEN_CHARS] + ["]" + c for c in _TOKEN_CHARS]
              + [c + "." for c in "[,.eE+-"])


def _misplaced_token(text: str) -> bool:
    """A token right before `[` or after `]`, or a `.` not after a digit."""
    compact = "".join(text.split())
    return compact.startswith(".") or any(p in compact for p in _BAD_PAIRS)


def _fast_dense(text: str, shape: list[int], element: Attribute, n: int) -> bytes | None:
    """Raw storage for a full decimal list of `shape`, read by NumPy (64-bit integers
    as Python's); None when the text is anything else (splat, hex, bools, bad text):
    the token path then reads it or reports the exact error."""
    if n < 2 or not shape or "[" not in text:
        return None  # a splat: one token
    kind = float_kind(element)
    if kind in _NUMPY_FLOAT:
        if text.translate(_FAST_FLOAT_CHARS) or text.count(".") != n:
            return None
    elif isinstance(element, IntegerType | IndexType) and 1 < _width(element) <= 64:
        if text.translate(_FAST_INT_CHARS):
            return None
    else:
        return None
    separators = text.translate(_SEPARATORS_ONLY)
    if len(separators) != _skeleton_length(shape) - n or \
            separators != _expected_skeleton(shape).replace("0", ""):
        return None
    if _misplaced_token(text):
        return None
    flat = text.translate(_BRACKETS_TO_SPACE)
    if kind is None and _width(element) == 64:  # past int64: Python's integers
        return _decimal_ints(flat.split(","), element, n)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            vals = np.fromstring(flat, dtype=np.float64 if kind else np.int64, sep=",")
        except (DeprecationWarning, ValueError):
            return None
    if vals.size != n:
        return None
    if kind is not None:
        with np.errstate(over="ignore"):
            conv = vals.astype(_NUMPY_FLOAT[kind])
        if not np.isfinite(conv).all():
            return None  # the token path names the literal that overflows
        return conv.astype(conv.dtype.newbyteorder("<"), copy=False).tobytes()
    lo, hi = _int_range(element)
    if int(vals.min()) < lo or int(vals.max()) > hi:
        return None
    arr = _normalize_ints(vals, element)
    return arr.astype(arr.dtype.newbyteorder("<"), copy=False).tobytes()


def _decimal_ints(texts: list[str], element: Attribute, n: int) -> bytes | None:
    """Raw storage of `n` decimal integer texts as `_int_values` makes it; None when one
    does not read or is out of range (the token path then says which)."""
    try:
        values = [int(t) for t in texts]
    except ValueError:
        return None
    lo, hi = _int_range(element)  # type: ignore[arg-type]
    if len(values) != n or min(values) < lo or max(values) > hi:
        return None
    arr = _normalize_ints(np.array(values, dtype=object if max(values) >= 2**63
                                   else np.int64), element)  # type: ignore[arg-type]
    return arr.astype(arr.dtype.newbyteorder("<"), copy=False).tobytes()


def _bytes_attr(raw: bytes) -> BytesAttr:
    return BytesAttr(raw)


def _dense_from_hex(text: str, type: Attribute, element: Attribute, n: int
                    ) -> DenseIntOrFPElementsAttr:
    """`"0x..."`: MLIR's raw little-endian data (or one element, a splat)."""
    m = _HEX_STRING.match(text)
    if m is None:
        raise LiteralError("expected string containing hex digits starting with `0x`",
                           len(text) - len(text.lstrip()))
    digits = m.group(1)
    if len(digits) % 2:
        raise LiteralError("expected string containing hex digits starting with `0x`", 0)
    data = bytes.fromhex(digits)
    size = element.compile_time_size  # type: ignore[attr-defined]
    if len(data) != size * n and len(data) != size:
        raise LiteralError(f"elements hex data size is invalid for provided type: "
                           f"'{_type_text(type)}'", 0)
    w = None if isinstance(element, AnyFloat) else _width(element)
    if w is None or w == 8 * size:
        return dense_attr(type, data)  # MLIR's bytes are xDSL's storage
    raw = np.frombuffer(data, dtype=np.dtype(_UINT_OF_BYTES[size]).newbyteorder("<"))
    if w == 1:
        raw = (raw != 0).astype(raw.dtype)
    elif w % 8:
        raw = raw & np.array((1 << w) - 1, dtype=raw.dtype)
    vals = raw.astype(np.uint64).astype(object) if w == 64 else raw.astype(np.int64)
    return dense_attr(type, _normalize_ints(np.asarray(vals), element)
                      .astype(_storage_dtype(element).newbyteorder("<")).tobytes())


# ---------------------------------------------------------------------------
# printing


def _element_bits(attr: DenseIntOrFPElementsAttr) -> np.ndarray:
    """Per element: xDSL's stored bytes as one unsigned integer."""
    size = attr.get_element_type().compile_time_size  # type: ignore[attr-defined]
    return np.frombuffer(attr.data.data,
                         dtype=np.dtype(_UINT_OF_BYTES[size]).newbyteorder("<"))


def mlir_raw_data(attr: DenseIntOrFPElementsAttr) -> bytes:
    """The bytes MLIR keeps for the attribute (what its hex form shows)."""
    element = attr.get_element_type()
    bits = _element_bits(attr)
    if isinstance(element, IntegerType | IndexType):
        w = _width(element)
        if w == 1:
            bits = (bits & 1).astype(bits.dtype)
        elif w % 8:
            bits = bits & np.array((1 << w) - 1, dtype=bits.dtype)
    return bits.astype(bits.dtype.newbyteorder("<")).tobytes()


def element_texts(attr: DenseIntOrFPElementsAttr) -> list[str]:
    """Each element of an integer or float attribute as MLIR prints it."""
    return _element_texts(attr, _element_bits(attr))


def _element_texts(attr: DenseIntOrFPElementsAttr, values: np.ndarray) -> list[str]:
    element = attr.get_element_type()
    if isinstance(element, IntegerType | IndexType):
        if isinstance(element, IntegerType) and element.width.data == 1:
            return ["true" if v & 1 else "false" for v in values.tolist()]
        signed = values.view(_storage_dtype(element).newbyteorder("<"))
        return [str(v) for v in signed.tolist()]
    kind = float_kind(element)
    digits = 2 * element.compile_time_size  # type: ignore[attr-defined]
    out = []
    for b in values.tolist():
        if kind is None:
            out.append(_format_other_float(b, element))
            continue
        value = bits_to_float(b, kind)
        # NaN and inf print as their stored bits (a Python float loses NaN payloads)
        out.append(format_float(value, kind) if math.isfinite(value)
                   else "0x" + format(b, f"0{digits}X"))
    return out


_SMALL_FLOAT_PRECISION = {
    "f8E5M2": 3, "f8E5M2FNUZ": 3, "f8E4M3": 4, "f8E4M3FN": 4, "f8E4M3FNUZ": 4,
    "f8E4M3B11FNUZ": 4, "f8E3M4": 5, "f8E8M0FNU": 1, "f6E2M3FN": 4, "f6E3M2FN": 3,
    "f4E2M1FN": 2,
}
"""Significand bits (the hidden one included) of the small float types, by name."""


def _format_other_float(b: int, element: Attribute) -> str:
    """f8/f6/f4 formats as MLIR's `printFloatValue`: APFloat's six-digit form when it
    reads back to the same bits, else its shortest default form, else hex."""
    value = element.decode_bits(b)  # type: ignore[attr-defined]
    if math.isfinite(value):
        text = apfloat_to_string(value, 6, 0, False)
        if element.encode_bits(float(text)) == b:  # type: ignore[attr-defined]
            return text
        precision = _SMALL_FLOAT_PRECISION.get(_type_text(element), 24)
        text = apfloat_to_string(value, 2 + precision * 59 // 196, 3, True)
        if "." in text and element.encode_bits(float(text)) == b:  # type: ignore[attr-defined]
            return text
    digits = 2 * element.compile_time_size  # type: ignore[attr-defined]
    return "0x" + format(b, f"0{digits}X")


def dense_body_text(attr: DenseIntOrFPElementsAttr, hex_limit: int = HEX_PRINT_LIMIT) -> str:
    """What MLIR prints between `dense<` and `>`."""
    n = len(attr)
    if n == 0:
        return ""
    bits = _element_bits(attr)
    if bool((bits == bits[0]).all()):
        return _element_texts(attr, bits[:1])[0]
    if hex_limit >= 0 and n > hex_limit:
        return '"0x' + mlir_raw_data(attr).hex().upper() + '"'
    texts = _element_texts(attr, bits)
    shape = list(attr.get_shape())
    return _nest(texts, shape)


def _nest(texts: list[str], shape: list[int]) -> str:
    if not shape:
        return texts[0]
    level = texts
    for dim in reversed(shape[1:]):
        level = ["[" + ", ".join(level[i:i + dim]) + "]" for i in range(0, len(level), dim)]
    return "[" + ", ".join(level) + "]"
