"""Shape rules of ONNX's float ops (the operator specs' "Inputs / Outputs" text), shared
by the verifiers, `onnx-legalize-to-stablehlo` and the interpreter: NumPy-style
broadcasting, MatMul's batch broadcast, convolution and pooling windows with their
`auto_pad` / `ceil_mode` padding, and the shape-moving ops. Pure functions on tuples;
`ShapeError` says what is wrong in ONNX's words."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

Shape = tuple[int, ...]
"""A shape; -1 is an unknown (dynamic) size."""


class ShapeError(ValueError):
    pass


def _dim_eq(a: int, b: int) -> bool:
    return a == b or a < 0 or b < 0


def broadcast(*shapes: Sequence[int]) -> Shape:
    """NumPy's multidirectional broadcast (ONNX "Broadcasting in ONNX")."""
    rank = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(rank):
        dims = [s[len(s) - rank + i] for s in shapes if len(s) - rank + i >= 0]
        known = {d for d in dims if d >= 0 and d != 1}
        if len(known) > 1:
            raise ShapeError(f"shapes {' and '.join(str(list(s)) for s in shapes)} "
                             "are not broadcastable")
        if known:
            out.append(known.pop())
        elif any(d < 0 for d in dims):
            out.append(-1)
        else:
            out.append(1)
    return tuple(out)


def unidirectional(src: Sequence[int], dst: Sequence[int]) -> bool:
    """`src` broadcasts to `dst` without changing it (Gemm's C)."""
    if len(src) > len(dst):
        return False
    return all(s == 1 or _dim_eq(s, d) for s, d in zip(reversed(src), reversed(dst)))


def matmul(a: Sequence[int], b: Sequence[int]) -> Shape:
    """`numpy.matmul`'s shape: 1-D operands get a 1 prepended (a) / appended (b), which
    is dropped from the result; batch dimensions broadcast."""
    if not a or not b:
        raise ShapeError("the operands must have rank >= 1")
    a2 = (1, *a) if len(a) == 1 else tuple(a)
    b2 = (*b, 1) if len(b) == 1 else tuple(b)
    if not _dim_eq(a2[-1], b2[-2]):
        raise ShapeError(f"the contracting dimensions differ ({a2[-1]} and {b2[-2]})")
    batch = broadcast(a2[:-2], b2[:-2])
    out = [*batch, a2[-2], b2[-1]]
    if len(b) == 1:
        out.pop(-1)
    if len(a) == 1:
        out.pop(-2 if len(b) != 1 else -1)
    return tuple(out)


def gemm(a: Sequence[int], b: Sequence[int], trans_a: int, trans_b: int) -> Shape:
    if len(a) != 2 or len(b) != 2:
        raise ShapeError("A and B must be 2-D")
    m, k = (a[1], a[0]) if trans_a else (a[0], a[1])
    k2, n = (b[1], b[0]) if trans_b else (b[0], b[1])
    if not _dim_eq(k, k2):
        raise ShapeError(f"the contracting dimensions differ ({k} and {k2})")
    return (m, n)


@dataclass(frozen=True)
class Window:
    """A convolution or pooling window over the spatial dimensions, padding resolved:
    `pads[i] = (begin, end)`; `ceil_extra[i]` is padding added only so that ceil_mode's
    last window exists (it is not counted by AveragePool's count_include_pad)."""

    kernel: Shape
    strides: Shape
    dilations: Shape
    pads: tuple[tuple[int, int], ...]
    out: Shape
    ceil_extra: Shape


def window(spatial: Sequence[int], kernel: Sequence[int], strides: Sequence[int] | None,
           dilations: Sequence[int] | None, pads: Sequence[int] | None, auto_pad: str,
           ceil_mode: int = 0) -> Window:
    """ONNX's output size per spatial dimension (Conv, MaxPool, AveragePool):
    NOTSET: `floor_or_ceil((in + pb + pe - ((k-1)*d+1)) / s) + 1` (ceil_mode drops a
    last window that would start in the end padding); SAME_UPPER / SAME_LOWER:
    `ceil(in / s)`, total padding `max(0, (out-1)*s + (k-1)*d+1 - in)`, the odd one at
    the end (UPPER) or the beginning (LOWER); VALID: no padding."""
    n = len(spatial)
    k = tuple(kernel)
    if len(k) != n:
        raise ShapeError(f"kernel_shape has {len(k)} values for {n} spatial dimensions")
    s = tuple(strides) if strides else (1,) * n
    d = tuple(dilations) if dilations else (1,) * n
    if len(s) != n or len(d) != n:
        raise ShapeError(f"strides and dilations must have {n} values")
    if any(v < 1 for v in (*s, *d, *k)):
        raise ShapeError("kernel_shape, strides and dilations must be positive")
    p = tuple(pads) if pads else (0,) * (2 * n)
    if auto_pad not in ("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"):
        raise ShapeError(f"auto_pad must be NOTSET, SAME_UPPER, SAME_LOWER or VALID, got "
                         f"'{auto_pad}'")
    if len(p) != 2 * n:
        raise ShapeError(f"pads must have {2 * n} values, got {len(p)}")
    if any(v < 0 for v in p):
        raise ShapeError("pads must be non-negative")
    out, res_pads, extra = [], [], []
    for i, size in enumerate(spatial):
        dk = (k[i] - 1) * d[i] + 1
        if size < 0:
            out.append(-1)
            res_pads.append((p[i], p[i + n]))
            extra.append(0)
            continue
        if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            o = -(-size // s[i])
            total = max(0, (o - 1) * s[i] + dk - size)
            small = total // 2
            pb, pe = (small, total - small) if auto_pad == "SAME_UPPER" else (total - small, small)
        elif auto_pad == "VALID":
            pb = pe = 0
            o = (size - dk) // s[i] + 1
        else:
            pb, pe = p[i], p[i + n]
            span = size + pb + pe - dk
            o = (-(-span // s[i]) if ceil_mode else span // s[i]) + 1
            if ceil_mode and (o - 1) * s[i] >= size + pb:
                o -= 1
        if o < 1:
            raise ShapeError(f"spatial dimension {i}: the window ({dk}) does not fit the "
                             f"padded input ({size + pb + pe})")
        need = (o - 1) * s[i] + dk - (size + pb + pe)
        out.append(o)
        res_pads.append((pb, pe))
        extra.append(max(0, need))
    return Window(k, s, d, tuple(res_pads), tuple(out), tuple(extra))


def axis_in(axis: int, rank: int, what: str = "axis") -> int:
    """`axis` in [-rank, rank) normalised to [0, rank), else ShapeError."""
    if not -rank <= axis < rank:
        raise ShapeError(f"{what} {axis} is out of range for rank {rank}")
    return axis + rank if axis < 0 else axis


def reshape(data: Sequence[int], target: Sequence[int], allowzero: int) -> Shape:
    """Reshape's output: 0 copies the input's size (unless allowzero), one -1 is inferred."""
    out = list(target)
    if not allowzero:
        for i, v in enumerate(out):
            if v == 0:
                if i >= len(data):
                    raise ShapeError("a 0 in the shape has no input dimension")
                out[i] = data[i]
    if out.count(-1) > 1:
        raise ShapeError("at most one dimension of the new shape can be -1")
    if any(v < -1 for v in out):
        raise ShapeError("shape values must be >= -1")
    total = 1
    for v in data:
        total = -1 if v < 0 or total < 0 else total * v
    if -1 in out and total >= 0:
        rest = 1
        for v in out:
            rest *= v if v != -1 else 1
        if rest == 0 or total % rest:
            raise ShapeError(f"cannot reshape {list(data)} to {list(target)}")
        out[out.index(-1)] = total // rest
    elif total >= 0:
        prod = 1
        for v in out:
            prod *= v
        if prod != total:
            raise ShapeError(f"cannot reshape {list(data)} ({total} elements) to "
                             f"{list(target)}")
    return tuple(out)


def flatten(data: Sequence[int], axis: int) -> Shape:
    r = len(data)
    if not -r <= axis <= r:
        raise ShapeError(f"axis {axis} is out of range for rank {r}")
    a = axis + r if axis < 0 else axis

    def prod(ds):
        p = 1
        for v in ds:
            if v < 0:
                return -1
            p *= v
        return p

    return (prod(data[:a]), prod(data[a:]))


def transpose(data: Sequence[int], perm: Sequence[int] | None) -> Shape:
    perm = tuple(perm) if perm is not None else tuple(reversed(range(len(data))))
    if sorted(perm) != list(range(len(data))):
        raise ShapeError(f"perm {list(perm)} is not a permutation of the "
                         f"{len(data)} dimensions")
    return tuple(data[p] for p in perm)


def squeeze(data: Sequence[int], axes: Sequence[int] | None) -> Shape:
    r = len(data)
    if axes is None:
        if any(v < 0 for v in data):
            raise ShapeError("without axes the input shape must be static")
        return tuple(v for v in data if v != 1)
    norm = {axis_in(a, r, "axis") for a in axes}
    if len(norm) != len(axes):
        raise ShapeError("axes must not repeat")
    for a in norm:
        if data[a] >= 0 and data[a] != 1:
            raise ShapeError(f"dimension {a} has size {data[a]}, not 1")
    return tuple(v for i, v in enumerate(data) if i not in norm)


def unsqueeze(data: Sequence[int], axes: Sequence[int]) -> Shape:
    r = len(data) + len(axes)
    norm = {axis_in(a, r, "axis") for a in axes}
    if len(norm) != len(axes):
        raise ShapeError("axes must not repeat")
    it = iter(data)
    return tuple(1 if i in norm else next(it) for i in range(r))


def concat(shapes: Sequence[Sequence[int]], axis: int) -> Shape:
    if not shapes:
        raise ShapeError("at least one input is needed")
    r = len(shapes[0])
    a = axis_in(axis, r, "axis")
    total = 0
    for s in shapes:
        if len(s) != r:
            raise ShapeError("all inputs must have the same rank")
        for i in range(r):
            if i != a and not _dim_eq(s[i], shapes[0][i]):
                raise ShapeError(f"inputs differ in dimension {i} "
                                 f"({shapes[0][i]} and {s[i]})")
        total = -1 if s[a] < 0 or total < 0 else total + s[a]
    out = list(shapes[0])
    out[a] = total
    return tuple(out)


def gather(data: Sequence[int], indices: Sequence[int], axis: int) -> Shape:
    a = axis_in(axis, len(data), "axis")
    return (*data[:a], *indices, *data[a + 1:])
