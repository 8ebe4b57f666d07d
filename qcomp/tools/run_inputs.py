"""qcomp-run's values on the command line, spelled as iree-run-module spells them.

Inputs (`--input`, repeatable, one per argument of the entry function, in order):

    --input=2x2xf32=1,2,3,4         SHAPExTYPE=VALUES: values separated by commas or
    --input='2x2xf32=[1 2][3 4]'    spaces, brackets ignored (a printed result reads back)
    --input=f32=1.5                 a scalar (`tensor<f32>` or `f32` argument)
    --input=4xi8=7                  one value fills the whole tensor
    --input=4xi8=1,2,3,4            a quantized argument takes its storage integers, typed
                                    by the storage type or the full `!quant.uniform<...>` type
    --input=@x.npy                  one array from a .npy file
    --input=@x.npz                  every array of a .npz file, one argument each: in the
                                    order arg0, arg1, ... when so named, else as stored

Element types are MLIR's (`f32`, `bf16`, `f16`, `f64`, `i1`, `i8`, `ui8`, `si32`, ...);
floats accept `nan`, `inf`, `-inf`. Every value is checked against its argument's shape
and type before anything runs; a mismatch is one line naming the argument.

Results are printed the same way, `SHAPExTYPE=[...]`, nested brackets per dimension
and elements separated by spaces (`2x2xf32=[[1 2][3 4]]`, a scalar `f32=1.5`); a
quantized result is its storage integers with its quantized type
(`4x!quant.uniform<i8:f32, 5.000000e-01:-3>=[1 2 3 4]`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import ComplexType, TensorType, UnrankedTensorType
from xdsl.ir import Attribute

from qcomp.dialects.quant import UniformQuantizedType
from qcomp.interpreter.errors import RunError
from qcomp.interpreter.float_rounding import to_float
from qcomp.interpreter.values import (
    element_type,
    fits_shape,
    int_info,
    is_bool,
    is_float,
    is_int,
    numpy_dtype,
    quant_of,
    shape_of,
)
from qcomp.tools.npy_files import ArrayFileError, load_arrays

MAX_PRINTED_ELEMENTS = 1024
"""Elements printed per result before `...` (iree-run-module's --print_max_element_count)."""

_SHAPE = re.compile(r"((?:[0-9]+x)*)(.*)", re.S)
_DIM_ERROR = re.compile(r"(?:[0-9?]+x)*\?x")


class InputError(Exception):
    """A command-line value that cannot be read or does not fit its argument."""


@dataclass
class GivenInput:
    """One value for one argument: the array, what the user wrote (for messages) and,
    for `SHAPExTYPE=VALUES`, the type written."""

    source: str
    array: np.ndarray
    type: TensorType | None = None

    def type_text(self) -> str:
        if self.type is not None:
            return type_text(self.type)
        return f"{_shape_text(self.array.shape)}{dtype_text(self.array.dtype)}"


# -- reading --------------------------------------------------------------------------


def read_inputs(flags: list[str], max_bytes: int = 1 << 62) -> list[GivenInput]:
    """The values of the `--input` flags, in order (an .npz gives several); a file's
    arrays must each fit in `max_bytes`."""
    values: list[GivenInput] = []
    for flag in flags:
        if flag.startswith("@"):
            values.extend(_read_file(flag[1:], max_bytes))
        else:
            values.append(parse_value(flag, len(values), max_bytes))
    return values


def parse_value(text: str, index: int = 0, max_bytes: int = 1 << 62) -> GivenInput:
    """`SHAPExTYPE=VALUES` as a typed array (for argument `index`, named in errors); the
    array must fit in `max_bytes` (checked before it is made)."""
    where = f"--input={_short(text)} (argument {index})"
    spec, eq, body = text.partition("=")
    if not eq:
        raise InputError(f"{where}: expected SHAPExTYPE=VALUES (e.g. 2x2xf32=1,2,3,4), "
                         "@file.npy or @file.npz")
    t = parse_tensor_type(spec.strip(), where)
    _check_size(t, where, max_bytes)
    e = t.get_element_type()
    shape = tuple(t.get_shape())
    tokens = [tok for tok in re.split(r"[\s,\[\]]+", body) if tok]
    n = math.prod(shape)
    if body.strip().startswith("@"):
        raise InputError(f"{where}: raw binary values are not supported; use @file.npy")
    if len(tokens) != n and not (len(tokens) == 1 and n > 0):
        raise InputError(f"{where}: {type_text(t)} needs {n} value(s), got {len(tokens)}")
    flat = _convert(tokens, e, where)
    arr = np.full(shape, flat[0], dtype=flat.dtype) if len(tokens) != n else flat.reshape(shape)
    return GivenInput(f"--input={_short(text)}", arr, t)


def parse_tensor_type(spec: str, where: str) -> TensorType:
    """`2x2xf32` (or `f32`, or `4x!quant.uniform<...>`) as `tensor<...>`."""
    from qcomp.ir import QcompParser
    from qcomp.registry import make_context

    if _DIM_ERROR.match(spec):
        raise InputError(f"{where}: dynamic dimensions ('?') are not supported")
    m = _SHAPE.fullmatch(spec)
    dims = [int(d) for d in m.group(1).split("x")[:-1]]
    etext = m.group(2).strip()
    if not etext:
        raise InputError(f"{where}: no element type in '{spec}' (e.g. 4xf32)")
    try:
        parser = QcompParser(make_context(), etext, "<--input>")
        e = parser.parse_type()
        at_end = parser._current_token.kind.name == "EOF"
    except Exception:  # noqa: BLE001 - any parser complaint is "not a type"
        e, at_end = None, False
    if e is None or not at_end or hasattr(e, "get_shape"):
        raise InputError(f"{where}: '{etext}' is not an element type (e.g. f32, i8, bf16)")
    return TensorType(e, dims)


def _check_size(t: TensorType, where: str, max_bytes: int) -> None:
    """The element type can be held and the array fits the budget (`--max-memory`)."""
    e = t.get_element_type()
    if any(d >= 1 << 63 for d in t.get_shape()):
        raise InputError(f"{where}: a dimension is larger than 2^63 - 1")
    if math.prod(d for d in t.get_shape() if d) >= 1 << 63:  # NumPy's limit, zeros aside
        raise InputError(f"{where}: the nonzero dimensions have 2^63 elements or more")
    if (is_int(e) or isinstance(e, UniformQuantizedType)) and not is_bool(e):
        width = int_info(e)[0]
        if not 1 <= width <= 64:
            raise InputError(f"{where}: element type {e} is not supported (integers of 1 to "
                             "64 bits)")
    try:
        itemsize = numpy_dtype(e).itemsize
    except RunError:
        return  # _convert names the element type
    size = math.prod(t.get_shape()) * itemsize
    if size > max_bytes:
        raise InputError(f"{where}: {type_text(t)} needs {size} bytes, over the memory limit "
                         f"of {max_bytes} (--max-memory)")


def _convert(tokens: list[str], e: Attribute, where: str) -> np.ndarray:
    """Text values as an array of element type `e` (quantized: its storage integers)."""
    q = e if isinstance(e, UniformQuantizedType) else None
    if is_bool(e):
        table = {"1": True, "0": False, "true": True, "false": False}
        bad = [t for t in tokens if t.lower() not in table]
        if bad:
            raise InputError(f"{where}: '{bad[0]}' is not an i1 value (0, 1, true, false)")
        return np.array([table[t.lower()] for t in tokens], dtype=np.bool_)
    if q is not None or is_int(e):
        if q is not None:
            lo, hi = q.storage_min, q.storage_max
        else:
            width, signed = int_info(e)
            lo, hi = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if signed else (0, (1 << width) - 1)
        values = []
        for t in tokens:
            try:
                v = int(t, 0) if t.lower().lstrip("+-").startswith("0x") else int(t)
            except ValueError:
                raise InputError(f"{where}: '{t}' is not an integer") from None
            if not lo <= v <= hi:
                raise InputError(f"{where}: {v} is out of range for {e} [{lo}, {hi}]")
            values.append(v)
        return np.array(values, dtype=numpy_dtype(e))
    if is_float(e):
        try:
            f = np.array([float(t) for t in tokens], dtype=np.float64)
        except ValueError:
            bad = next(t for t in tokens if not _is_float(t))
            raise InputError(f"{where}: '{bad}' is not a number") from None
        arr = to_float(f, numpy_dtype(e))
        with np.errstate(all="ignore"):
            overflow = np.isfinite(f) & ~np.isfinite(arr.astype(np.float64))
        if overflow.any():
            raise InputError(f"{where}: {tokens[int(np.argmax(overflow))]} is out of range for {e}")
        return arr
    if isinstance(e, ComplexType):
        raise InputError(f"{where}: complex values are not supported on the command line; "
                         "use @file.npy")
    raise InputError(f"{where}: element type {e} is not supported on the command line")


def _is_float(t: str) -> bool:
    try:
        float(t)
        return True
    except ValueError:
        return False


def _read_file(path: str, max_bytes: int) -> list[GivenInput]:
    try:
        data = load_arrays(path, max_bytes)
    except ArrayFileError as e:
        raise InputError(f"--input=@{e}") from None
    if isinstance(data, np.ndarray):
        return [_file_value(f"--input=@{path}", data)]
    names = list(data)
    numbered = [re.fullmatch(r"arg([0-9]+)", n) for n in names]
    if names and all(numbered):
        names.sort(key=lambda n: int(n[3:]))
    return [_file_value(f"--input=@{path} ('{n}')", data[n]) for n in names]


def read_archive(path: str, max_bytes: int) -> dict[str, GivenInput]:
    """`--inputs IN.npz`: its arrays by name (arg0, arg1, ...)."""
    try:
        data = load_arrays(path, max_bytes)
    except ArrayFileError as e:
        raise InputError(f"--inputs {e}") from None
    if isinstance(data, np.ndarray):
        raise InputError(f"--inputs {path}: an .npy file holds one array; --inputs takes an "
                         "archive of arrays arg0, arg1, ... (np.savez), or give the array with "
                         f"--input=@{path}")
    return {n: _file_value(f"--inputs {path} ('{n}')", a) for n, a in data.items()}


def arg_names(f) -> list[str]:
    """Each argument's name for `--inputs`: its `onnx.name` (an imported ONNX graph's
    input name) when it has one, else arg0, arg1, ..."""
    n = len(f.function_type.inputs.data)
    attrs = list(f.arg_attrs.data) if f.arg_attrs is not None else [None] * n
    names = []
    for i, d in enumerate(attrs):
        v = d.data.get("onnx.name") if d is not None else None
        names.append(v.data if v is not None and hasattr(v, "data") else f"arg{i}")
    return names


def bind_named(f, given: dict[str, GivenInput]) -> list[np.ndarray]:
    """`--inputs`' arrays for `f`'s arguments by name (`arg_names`; argN always works),
    each checked like `--input`."""
    names = arg_names(f)
    keys = [nm if nm in given else f"arg{i}" for i, nm in enumerate(names)]
    missing = [nm for nm, k in zip(names, keys) if k not in given]
    if missing:
        raise InputError(f"--inputs has no array named {', '.join(missing)} for "
                         f"@{f.sym_name.data}")
    return bind_inputs(f, [given[k] for k in keys])


def _file_value(source: str, arr: np.ndarray) -> GivenInput:
    if arr.dtype.kind not in "biufcV":
        raise InputError(f"{source}: arrays of dtype {arr.dtype} are not supported")
    return GivenInput(source, arr)


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


# -- binding to the entry's arguments -------------------------------------------------


def bind_inputs(f, given: list[GivenInput]) -> list[np.ndarray]:
    """The arrays for function `f`'s arguments, each checked against its type."""
    arg_types = list(f.function_type.inputs.data)
    name = f"@{f.sym_name.data}"
    if len(given) != len(arg_types):
        want = ", ".join(type_text(t) for t in arg_types) or "none"
        raise InputError(f"{name} takes {len(arg_types)} argument(s) ({want}), got "
                         f"{len(given)} from --input (one per argument, in order)")
    block = f.body.blocks.first
    out = []
    for i, (g, t) in enumerate(zip(given, arg_types)):
        hint = block.args[i].name_hint if block is not None else None
        label = f"{name} argument {i}" + (f" (%{hint})" if hint else "")
        out.append(_fit(g, t, label))
    return out


def _fit(g: GivenInput, t: Attribute, label: str) -> np.ndarray:
    e = element_type(t)
    q = quant_of(t)
    expected = type_text(t) + (f" (storage {_storage_text(q)})" if q is not None else "")
    mismatch = InputError(f"{label}: expected {expected}, got {g.type_text()} from {g.source}")
    if not fits_shape(tuple(g.array.shape), t):
        raise mismatch
    if g.type is not None:
        ge = g.type.get_element_type()
        if ge == e:
            return g.array
        if q is not None and q.is_float_storage and ge == q.storage_type:
            return g.array.astype(numpy_dtype(q))  # values of the float storage type
        if q is not None and is_int(ge) and not is_bool(ge) and int_info(ge) == int_info(q):
            if g.array.size and (g.array.min() < q.storage_min or g.array.max() > q.storage_max):
                raise InputError(f"{label}: {g.source} has values outside "
                                 f"[{q.storage_min}, {q.storage_max}] of {q}")
            return g.array.astype(numpy_dtype(q))
        raise mismatch
    dt = numpy_dtype(q or e)
    a = g.array
    if a.dtype.kind == "V" and a.dtype.fields is None:
        a = _from_void(a, q or e, dt, mismatch)
    if dt.kind in "iu" and a.dtype.kind in "iu" and not is_bool(e):
        # checked even when the dtype matches: an int8 array may hold 100 for an i4
        lo, hi = ((q.storage_min, q.storage_max) if q is not None else
                  _int_range(*int_info(e)))
        if a.size and (int(a.min()) < lo or int(a.max()) > hi):
            raise InputError(f"{label}: {g.source} has values outside [{lo}, {hi}] of "
                             f"{q or e}")
        return a.astype(dt, copy=False)
    if a.dtype == dt:
        return a
    raise mismatch


def _from_void(a: np.ndarray, e: Attribute, dt: np.dtype, mismatch: InputError) -> np.ndarray:
    """An array NumPy saved as raw bytes (`|V1`, `|V2`: what `np.savez` writes for
    ml_dtypes' int4, uint4, int2, uint2, float4_e2m1fn, float8_*, bfloat16) taken as
    the bits of element type `e`: a float type's bits as they are, an integer's low
    `width` bits (sign-extended when signed)."""
    if a.dtype.itemsize != dt.itemsize:
        raise mismatch
    if dt.kind not in "iu" or is_bool(e):
        return a.view(dt)
    width, signed = int_info(e)
    bits = a.view(np.dtype(f"u{dt.itemsize}")).astype(np.int64) & ((1 << width) - 1)
    if signed:
        bits = np.where(bits >= 1 << (width - 1), bits - (1 << width), bits)
    return bits.astype(dt)


def _int_range(width: int, signed: bool) -> tuple[int, int]:
    return (-(1 << (width - 1)), (1 << (width - 1)) - 1) if signed else (0, (1 << width) - 1)


def _storage_text(q: UniformQuantizedType) -> str:
    if q.is_float_storage:
        return q.storage_spelling
    return f"{'' if q.is_signed else 'u'}i{q.storage_bitwidth}"


def inputs_needed(f) -> str:
    """Why `f` cannot run without inputs, and how to give them."""
    types = [type_text(t) for t in f.function_type.inputs.data]
    example = " ".join(f"--input={t}=..." for t in types)
    return (f"@{f.sym_name.data} takes {len(types)} argument(s) ({', '.join(types)}): "
            f"pass them with {example} (in order) or --inputs IN.npz")


# -- printing -------------------------------------------------------------------------


def _shape_text(shape) -> str:
    return "".join(f"{d}x" for d in shape)


def type_text(t: Attribute) -> str:
    """`tensor<2x3xf32>` as `2x3xf32` (a scalar type as itself)."""
    try:
        shape = shape_of(t)
    except RunError:
        shape = tuple("?" if d < 0 else d for d in t.get_shape())
    return f"{_shape_text(shape)}{element_type(t)}"


def dtype_text(dt: np.dtype) -> str:
    """A NumPy dtype in MLIR's element-type spelling, where there is one."""
    if dt == np.bool_:
        return "i1"
    if dt.kind in "iu":
        return f"{'u' if dt.kind == 'u' else ''}i{dt.itemsize * 8}"
    if dt.kind == "f":
        return f"f{dt.itemsize * 8}"
    if dt.kind == "c":
        return f"complex<f{dt.itemsize * 4}>"
    return {"bfloat16": "bf16"}.get(dt.name, dt.name)


def format_value(value: np.ndarray, t: Attribute, limit: int = MAX_PRINTED_ELEMENTS) -> str:
    """`SHAPExTYPE=[...]` (see module docstring); more than `limit` elements end in `...`;
    a tuple as `(v0, v1, ...)`, a token as `!stablehlo.token`."""
    from xdsl.dialects.builtin import TupleType

    if not isinstance(t, TensorType | UnrankedTensorType):  # a tensor loads no StableHLO module
        from qcomp.dialects.stablehlo import TokenType

        if isinstance(t, TokenType):
            return "!stablehlo.token"
    if isinstance(t, TupleType):
        return "(" + ", ".join(format_value(v, et, limit) for v, et in
                               zip(value, t.types.data)) + ")"
    a = np.asarray(value)
    head = type_text(t)
    if "?" in head or isinstance(t, UnrankedTensorType):  # the run's sizes, not `?`
        head = f"{_shape_text(a.shape)}{element_type(t)}"
    if a.ndim == 0:
        return f"{head}={format_element(a[()])}"
    state = {"left": limit, "cut": False}
    return f"{head}={_nested(a, state)}"


def _nested(a: np.ndarray, state: dict) -> str:
    parts: list[str] = []
    for sub in a:
        if state["cut"]:
            break
        if state["left"] == 0:
            parts.append("...")
            state["cut"] = True
            break
        if a.ndim == 1:
            state["left"] -= 1
            parts.append(format_element(sub))
        else:
            parts.append(_nested(sub, state))
    return "[" + ("" if a.ndim > 1 else " ").join(parts) + "]"


def format_element(x) -> str:
    """One element as printed in a result (i1 as 0/1, floats shortest, `1` for 1.0)."""
    if isinstance(x, (bool, np.bool_)):
        return "1" if x else "0"
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    if isinstance(x, (complex, np.complexfloating)):
        c = complex(x)
        return f"{_float(c.real)}{'+' if c.imag >= 0 or math.isnan(c.imag) else ''}{_float(c.imag)}j"
    return _float(x)


def _float(x) -> str:
    """The shortest text that reads back as the same value of x's type."""
    dt = np.asarray(x).dtype
    if dt.kind == "f":  # NumPy's own types print their shortest round-trip text
        s = str(x)
    else:  # ml_dtypes (bf16, f8) print 6 significant digits: search the shortest
        f = float(x)
        s = repr(f)
        if math.isfinite(f):
            bits = np.asarray(x).view(np.uint8 if dt.itemsize == 1 else np.uint16)
            for digits in range(1, 10):
                s = f"{f:.{digits}g}"
                back = to_float(np.array([float(s)]), dt)
                if back.view(bits.dtype)[0] == bits:
                    break
    return s[:-2] if s.endswith(".0") else s
