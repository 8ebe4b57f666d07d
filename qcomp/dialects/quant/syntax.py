"""The text of the quant types: MLIR's lexing of the type body (`i8<-127:127>:f32:1,
{0.2:20,0.1:10}`), its diagnostics in upstream's words, and the storage and expressed
type facts they need. `qcomp.dialects.quant` builds the types from what this reads."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping

from xdsl.dialects import builtin
from xdsl.dialects.builtin import (
    Float4E2M1FNType,
    Float8E4M3FNType,
    Float8E5M2Type,
    FloatData,
    IntegerType,
    Signedness,
)
from xdsl.ir import Attribute

from qcomp.ir.float_text import KIND_TYPES, float_kind, format_float, parse_float
from qcomp.ir.parser import UNKNOWN_TYPE_MESSAGES
from qcomp.quant.ranges import float_storage_range, storage_range

MAX_STORAGE_BITS = 32

FLOAT_STORAGE_TYPES: dict[str, type] = {
    "f8E5M2": Float8E5M2Type,
    "f8E4M3FN": Float8E4M3FNType,
    "f4E2M1FN": Float4E2M1FNType,
}
"""The float types MLIR 24 takes as quantized storage (those implementing its
QuantStorageTypeInterface); every other float type is an "illegal storage type prefix"."""

_MAX_INTEGER_WIDTH = 16777215
"""MLIR's IntegerType::kMaxWidth."""

SIGNEDNESS_OF_PREFIX = {"i": Signedness.SIGNLESS, "si": Signedness.SIGNED,
                        "ui": Signedness.UNSIGNED, "u": Signedness.SIGNLESS}
"""The builtin integer type MLIR stores for each storage spelling: `u8` is the
signless i8 with the quant type's Signed flag cleared, `ui8` the unsigned ui8."""


def storage_parts(storage: Attribute, signed: bool) -> tuple[str, int, tuple[int, int]]:
    """(spelling without the range, bit width, default [min, max]) of MLIR's storage type
    `storage` (a builtin integer type or one of FLOAT_STORAGE_TYPES) and Signed flag."""
    if isinstance(storage, IntegerType):
        width = storage.width.data
        prefix = {Signedness.SIGNLESS: "i" if signed else "u", Signedness.SIGNED: "si",
                  Signedness.UNSIGNED: "ui"}[storage.signedness.data]
        # (widths past 64 have no range here; the type's verifier refuses them)
        default = storage_range(width, signed) if 1 <= width <= 64 else (0, -1)
        return f"{prefix}{width}", width, default
    name = next(k for k, cls in FLOAT_STORAGE_TYPES.items() if isinstance(storage, cls))
    return name, storage.bitwidth, float_storage_range(name)  # pyright: ignore


def mlir_double_text(x: float) -> str:
    """A double as MLIR diagnostics write it (`raw_ostream << double`, printf `%e`)."""
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "INF" if x > 0 else "-INF"
    return f"{x:e}"


def expressed_limits(kind: str) -> tuple[float, float]:
    """(smallest positive subnormal, largest finite) of a float kind, as MLIR bounds a
    scale by its expressed type (`f8E5M2`: [1.525879e-05, 5.734400e+04])."""
    if kind in _WIDE_LIMITS:
        return _WIDE_LIMITS[kind]
    import ml_dtypes  # here: a program without narrow floats does not load ml_dtypes

    from qcomp.quant.float_storage import float_kind_dtype

    info = ml_dtypes.finfo(float_kind_dtype(NARROW_EXPRESSED[kind]))
    return float(info.smallest_subnormal), float(info.max)


_WIDE_LIMITS = {
    "f16": (2.0**-24, 65504.0),
    "bf16": (2.0**-133, 3.3895313892515355e38),
    "tf32": (2.0**-136, (2 - 2.0**-10) * 2.0**127),
    "f32": (2.0**-149, 3.4028234663852886e38),
    "f64": (5e-324, 1.7976931348623157e308),
}

NARROW_EXPRESSED = {
    "f8E5M2": "float8_e5m2", "f8E4M3FN": "float8_e4m3fn", "f8E5M2FNUZ": "float8_e5m2fnuz",
    "f8E4M3FNUZ": "float8_e4m3fnuz", "f8E4M3B11FNUZ": "float8_e4m3b11fnuz",
    "f8E4M3": "float8_e4m3", "f8E3M4": "float8_e3m4", "f8E8M0FNU": "float8_e8m0fnu",
    "f6E2M3FN": "float6_e2m3fn", "f6E3M2FN": "float6_e3m2fn", "f4E2M1FN": "float4_e2m1fn",
}
"""MLIR's narrow float types (ml_dtypes' names), legal expressed types as in MLIR."""

EXPRESSED_TYPES: dict[str, type] = {
    **KIND_TYPES, "tf32": builtin.FloatTF32Type,
    **{name: getattr(builtin, f"Float{name[1:]}Type") for name in NARROW_EXPRESSED},
}
"""Every float type MLIR takes as an expressed type, by name (f80 and f128 make MLIR
abort when it bounds the scale, so qcomp refuses them)."""


def expressed_kind(t: Attribute) -> str:
    """The name of expressed type `t` (`f32`, `f8E5M2`, ...)."""
    return float_kind(t) or str(t)


_BODY_DELIMITERS = re.compile(r'->|[<>()\[\]{}"]')
_OPENER = {">": "<", ")": "(", "]": "[", "}": "{"}


def body_end(content: str, start: int) -> int | None:
    """The offset of the `>` closing a dialect type body that starts at `start` (just
    after its `<`), found as xDSL's `_raw_scan_balanced` finds it (nested brackets
    balanced, `->` skipped) but by a regex over the delimiters only; None where that scan
    would report an error or meets a string literal (the caller then scans as xDSL does,
    for its diagnostic)."""
    nesting: list[str] = []
    for m in _BODY_DELIMITERS.finditer(content, start):
        c = m.group()
        if c in "<([{":
            nesting.append(c)
        elif c in _OPENER:
            if not nesting:
                return m.start() if c == ">" else None
            if nesting.pop() != _OPENER[c]:
                return None
        elif c == '"':
            return None
    return None


class QuantParseError(Exception):
    """A parse error at an offset inside the type body."""

    def __init__(self, offset: int, message: str):
        super().__init__(message)
        self.offset = offset
        self.message = message


_TOKEN = re.compile(
    r"\s*(?:(?P<hex>[-+]?0x[0-9a-fA-F]+)"
    r"|(?P<num>[-+]?[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?)"
    r"|(?P<ident>[A-Za-z_][A-Za-z0-9_$.]*)"
    r"|(?P<punct>[<>:,{}]))"
)


_ONLY_SPACE = re.compile(r"\s*\Z")


class _BodyParser:
    """Recursive-descent reader of a quant type body (the text inside `<...>`)."""

    def __init__(self, text: str):
        self.text = text
        self.tokens: list[tuple[str, str, int]] = []
        pos = 0
        while pos < len(text):
            if _ONLY_SPACE.match(text, pos):  # not text[pos:].strip(): linear in the text
                break
            m = _TOKEN.match(text, pos)
            if m is None or m.end() == pos:
                stripped = len(text[pos:]) - len(text[pos:].lstrip())
                raise QuantParseError(pos + stripped,
                                      f"unexpected character '{text[pos + stripped]}'")
            kind = m.lastgroup
            assert kind is not None
            self.tokens.append((kind, m.group(kind), m.start(kind)))
            pos = m.end()
        self.i = 0

    # -- token helpers -------------------------------------------------------
    def offset(self) -> int:
        if self.i < len(self.tokens):
            return self.tokens[self.i][2]
        return len(self.text)

    def peek(self) -> tuple[str, str, int] | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def error(self, message: str, offset: int | None = None) -> QuantParseError:
        return QuantParseError(self.offset() if offset is None else offset, message)

    def optional_punct(self, p: str) -> bool:
        tok = self.peek()
        if tok is not None and tok[0] == "punct" and tok[1] == p:
            self.i += 1
            return True
        return False

    def punct(self, p: str) -> None:
        if not self.optional_punct(p):
            tok = self.peek()
            got = "end of type" if tok is None else f"'{tok[1]}'"
            raise self.error(f"expected '{p}', got {got}")

    def integer(self, bits: int = 64) -> int:
        """An integer literal that fits a signed `bits`-bit integer (MLIR's
        parseInteger into an int64_t / int32_t)."""
        tok = self.peek()
        if tok is None or tok[0] != "num" or not re.fullmatch(r"[-+]?[0-9]+", tok[1]):
            raise self.error("expected integer value")
        value = int(tok[1])
        if not -(1 << (bits - 1)) <= value < 1 << (bits - 1):
            raise self.error("integer value too large")
        self.i += 1
        return value

    def float_value(self) -> float:
        tok = self.peek()
        if tok is None or tok[0] not in ("num", "hex"):
            raise self.error("expected floating point literal")
        if tok[0] == "num" and "." not in tok[1]:
            # MLIR's lexer makes `1` and `5e-3` integer tokens: no float without a '.'
            raise self.error("unexpected decimal integer literal for a floating point value")
        self.i += 1
        if tok[0] == "num":
            return float(tok[1])  # too large a literal reads as +-inf, as in MLIR
        try:
            return parse_float(tok[1], "f64")
        except ValueError as e:
            raise QuantParseError(tok[2], str(e)) from None

    def token_text(self, offset: int) -> str:
        return next(t for _, t, start in self.tokens if start == offset)

    def ident(self) -> tuple[str, int]:
        tok = self.peek()
        if tok is None or tok[0] != "ident":
            raise self.error("expected identifier")
        self.i += 1
        return tok[1], tok[2]

    def at_end(self) -> None:
        if self.i != len(self.tokens):
            raise self.error(f"unexpected '{self.tokens[self.i][1]}' at end of type")

    # -- grammar ---------------------------------------------------------------
    def storage_spec(self) -> tuple[Attribute, bool, int, int]:
        """MLIR's parseStorageType and parseStorageRange: (storage type, Signed flag,
        storage min, storage max). The storage is any builtin integer type (`i8`, `si8`,
        `ui8`, kept as written), the keyword `uN` (the signless iN, unsigned) or a float
        type of FLOAT_STORAGE_TYPES; messages and positions are LLVM 24's."""
        tok = self.peek()
        if tok is None or tok[0] != "ident":
            raise self.error("expected valid keyword")
        name, off = tok[1], tok[2]
        self.i += 1
        m = re.fullmatch(r"(si|ui|i)([0-9]+)", name)
        if m is not None:  # MLIR's lexer makes this an integer type
            width = int(m.group(2))
            if width >= 1 << 32:
                raise QuantParseError(off, "invalid integer width")
            if width > _MAX_INTEGER_WIDTH:
                raise QuantParseError(
                    off, f"integer bitwidth is limited to {_MAX_INTEGER_WIDTH} bits")
            prefix = m.group(1)
        elif name in FLOAT_STORAGE_TYPES:
            storage: Attribute = FLOAT_STORAGE_TYPES[name]()
            return (storage, True) + self.storage_range(float_storage_range(name))
        elif name.startswith("u"):
            digits = name[1:]
            if re.fullmatch(r"[0-9]+", digits) is None or int(digits) >= 1 << 32:
                raise QuantParseError(off, "expected storage type width")
            width, prefix = int(digits), "u"
        else:
            # also every other type: MLIR parses it, then finds no storage interface
            raise QuantParseError(off, "illegal storage type prefix")
        if width == 0 or width > MAX_STORAGE_BITS:
            raise QuantParseError(off, f"illegal storage type size: {width}")
        signed = prefix in ("i", "si")
        storage = IntegerType(width, SIGNEDNESS_OF_PREFIX[prefix])
        return (storage, signed) + self.storage_range(storage_range(width, signed))

    def storage_range(self, default: tuple[int, int]) -> tuple[int, int]:
        lo, hi = default
        if not self.optional_punct("<"):
            return lo, hi
        off_min = self.offset()
        smin = self.integer()
        self.punct(":")
        off_max = self.offset()
        smax = self.integer()
        self.punct(">")
        if smin < lo:
            raise QuantParseError(off_min, f"illegal storage type minimum: {smin}")
        if smax > hi:
            raise QuantParseError(off_max, f"illegal storage type maximum: {smax}")
        return smin, smax

    def expressed_type(self) -> tuple[Attribute, int]:
        name, off = self.ident()
        cls = EXPRESSED_TYPES.get(name)
        if cls is None:
            if name in ("f80", "f128"):
                raise QuantParseError(
                    off, f"unsupported expressed type {name} (MLIR aborts on it)")
            raise QuantParseError(off, "invalid kind of type specified")
        return cls(), off

    def quant_param(self) -> tuple[float, int, int]:
        off = self.offset()
        scale = self.float_value()
        zp = self.integer() if self.optional_punct(":") else 0
        return scale, zp, off

    def param_list(self) -> tuple[list[tuple[float, int, int]], list[int]]:
        """`{` already read; returns the flat params and the nested shape."""
        params: list[tuple[float, int, int]] = []
        size = 0
        inner: list[int] | None = None
        while True:
            if self.optional_punct("{"):
                sub, dims = self.param_list()
            else:
                sub, dims = [self.quant_param()], []
            if inner is not None and dims != inner:
                raise self.error(
                    "tensor literal is invalid; ranks are not consistent between elements")
            inner = dims
            params += sub
            size += 1
            if not self.optional_punct(","):
                break
        self.punct("}")
        return params, [size] + (inner or [])


_HEX_DIGITS = {"f16": 4, "bf16": 4, "f32": 8}
"""Hex digits of a bit pattern of each expressed kind below f64."""


def parse_quant_body(mnemonic: str, text: str, types: Mapping[str, type]) -> Attribute:
    """Build the quant type named `mnemonic` from its body text; `types` maps the
    mnemonics (`uniform`, `any`, `calibrated`) to the type classes (defined in
    `types.py`, which imports this module)."""
    UniformQuantizedType = types["uniform"]
    AnyQuantizedType = types["any"]
    CalibratedQuantizedType = types["calibrated"]

    p = _BodyParser(text)
    if mnemonic == "uniform":
        storage, signed, smin, smax = p.storage_spec()
        p.punct(":")
        expressed, _ = p.expressed_type()
        dims: list[int] = []
        blocks: list[int] = []
        flavour = "tensor"
        if p.optional_punct(":"):
            if p.optional_punct("{"):
                flavour = "sub-channel"
                if not p.optional_punct("}"):
                    while True:
                        dims.append(p.integer(32))
                        p.punct(":")
                        blocks.append(p.integer())
                        if not p.optional_punct(","):
                            break
                    p.punct("}")
            else:
                flavour = "axis"
                dims.append(p.integer(32))
        p.punct(",")
        if flavour == "tensor":
            params = [p.quant_param()]
            shape: list[int] = []
        else:
            p.punct("{")
            params, shape = p.param_list()
            if flavour == "axis" and len(shape) != 1:
                raise p.error("per-axis quantization parameters must be a flat list")
        p.at_end()
        kind = expressed_kind(expressed)
        if flavour == "sub-channel" and kind not in KIND_TYPES:
            raise p.error(f"sub-channel quantization with expressed type {kind} is not "
                          "supported by qcomp")
        lo, hi = expressed_limits(kind)
        scales = []
        for scale, _, off in params:
            value = scale
            if flavour == "sub-channel" and kind != "f64":
                # MLIR stores sub-channel scales in the expressed type's precision and
                # prints them in it; f16's smallest scale prints as 5.960460e-08, a hair
                # below 2^-24, which upstream then refuses to read back. qcomp checks
                # the range on the literal as upstream does, but reads its own printed
                # text of an in-range value back.
                text = p.token_text(off)
                if text.lower().startswith("0x") and len(text) - 2 <= _HEX_DIGITS[kind]:
                    # qcomp's own printed bit pattern of the expressed kind (upstream
                    # prints such scales in hex too, then reads the bits as an f64)
                    value = scale = parse_float(text, kind)
                else:
                    try:
                        value = parse_float(repr(scale), kind)
                    except ValueError:
                        value = math.inf
                    if not (lo <= scale <= hi) and format_float(value, kind) != text:
                        value = scale
            if not (lo <= value <= hi):
                raise QuantParseError(  # MLIR reports it just after the scale's token
                    off + len(p.token_text(off)),
                    f"scale {mlir_double_text(scale)} out of expressed type range "
                    f"[{mlir_double_text(lo)}, {mlir_double_text(hi)}]",
                )
            scales.append(value)
        return UniformQuantizedType.build(
            storage, expressed, scales, [z for _, z, _ in params],
            quantized_dimensions=dims, block_sizes=blocks, params_shape=shape,
            storage_min=smin, storage_max=smax, signed=signed,
        )
    if mnemonic == "any":
        storage, signed, smin, smax = p.storage_spec()
        expressed: Attribute | None = None
        if p.optional_punct(":"):
            expressed, _ = p.expressed_type()
        p.at_end()
        return AnyQuantizedType.build(storage, expressed, smin, smax, signed=signed)
    if mnemonic == "calibrated":
        expressed, off = p.expressed_type()
        p.punct("<")
        lo = p.float_value()
        p.punct(":")
        hi = p.float_value()
        p.punct(">")
        p.at_end()
        return CalibratedQuantizedType(expressed, FloatData(lo), FloatData(hi))
    raise QuantParseError(0, UNKNOWN_TYPE.format(mnemonic))


UNKNOWN_TYPE = "unknown quantized type {}"  # MLIR's QuantDialect::parseType
UNKNOWN_TYPE_MESSAGES["quant"] = UNKNOWN_TYPE  # for the parser: a !quant.NAME it lacks
