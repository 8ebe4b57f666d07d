"""Small quantized StableHLO programs for the quant-to-math numeric tests.

Each builder draws its parameters from a hypothesis `data` object and returns
`(source, inputs)`: a module whose `@main` takes f32 tensors, quantizes them, runs
the op under test and returns the quantized result (so results compare as stored
integers, bit for bit).
"""

from __future__ import annotations

import re

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st

STORAGE = {"i8": (-128, 127), "u8": (0, 255), "i16": (-32768, 32767), "i4": (-8, 7),
           "i32": (-(1 << 31), (1 << 31) - 1), "i8<-127:127>": (-127, 127),
           "u8<1:200>": (1, 200)}


def qtype(storage: str, scale: float, zp: int) -> str:
    return f"!quant.uniform<{storage}:f32, {scale!r}:{zp}>"


def qaxis(storage: str, axis: int, scales, zps) -> str:
    body = ", ".join(f"{s!r}:{z}" for s, z in zip(scales, zps))
    return f"!quant.uniform<{storage}:f32:{axis}, {{{body}}}>"


def tensor(shape, elem: str) -> str:
    """`tensor<2x3xelem>`; a storage name like `u8` becomes the builtin `ui8`."""
    if re.fullmatch(r"u\d+", elem):
        elem = "ui" + elem[1:]
    return "tensor<" + "".join(f"{n}x" for n in shape) + elem + ">"


def scales(data, n: int = 1) -> list[float]:
    pick = st.sampled_from([0.25, 0.5, 1.0, 2.0, 0.1, 0.03, 0.7, 1.5, 0.013])
    return [data.draw(pick) for _ in range(n)]


def zp(data, storage: str, zero: bool = False) -> int:
    if zero:
        return 0
    lo, hi = STORAGE[storage]
    return data.draw(st.integers(max(lo, -20), min(hi, 20)))


def values(data, shape, spread: float) -> np.ndarray:
    """f32 inputs covering ties (multiples of spread/8) and saturation (±4 spread)."""
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    steps = rng.integers(-32, 33, size=shape)
    return (steps * (spread / 8.0)).astype(np.float32)


def main(args: list[str], body: list[str], result: str) -> str:
    params = ", ".join(f"%arg{i}: {t}" for i, t in enumerate(args))
    lines = "\n".join("    " + b for b in body)
    return f"func.func @main({params}) -> {result} {{\n{lines}\n    func.return %r : {result}\n}}\n"


def quantize_line(name: str, arg: str, shape, qt: str) -> str:
    return (f"%{name} = stablehlo.uniform_quantize %{arg} : ({tensor(shape, 'f32')}) -> "
            f"{tensor(shape, qt)}")


# ---------------------------------------------------------------------------
def quantize_requantize(data):
    """f32 -> q (per-tensor or per-axis) -> q' (per-tensor or per-axis, same axis)."""
    shape = data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=3))
    axis = data.draw(st.integers(0, len(shape) - 1))
    kinds = ["i8", "u8", "i16", "i4", "i8<-127:127>", "u8<1:200>"]
    s_in, s_out = data.draw(st.sampled_from(kinds)), data.draw(st.sampled_from(kinds))

    def make(storage):
        if data.draw(st.booleans()):
            return qaxis(storage, axis, scales(data, shape[axis]),
                         [zp(data, storage) for _ in range(shape[axis])])
        return qtype(storage, scales(data)[0], zp(data, storage))

    qi, qo = make(s_in), make(s_out)
    body = [quantize_line("q", "arg0", shape, qi),
            f"%r = stablehlo.uniform_quantize %q : ({tensor(shape, qi)}) -> {tensor(shape, qo)}"]
    return main([tensor(shape, "f32")], body, tensor(shape, qo)), [values(data, shape, 40.0)]


def add(data):
    """Per-tensor add with three different parameter sets."""
    shape = data.draw(st.lists(st.integers(1, 5), min_size=1, max_size=2))
    storage = data.draw(st.sampled_from(["i8", "i16", "u8"]))
    ql, qr, qo = (qtype(storage, scales(data)[0], zp(data, storage)) for _ in range(3))
    body = [quantize_line("a", "arg0", shape, ql), quantize_line("b", "arg1", shape, qr),
            f"%r = stablehlo.add %a, %b : ({tensor(shape, ql)}, {tensor(shape, qr)}) -> "
            f"{tensor(shape, qo)}"]
    return (main([tensor(shape, "f32")] * 2, body, tensor(shape, qo)),
            [values(data, shape, 20.0), values(data, shape, 20.0)])


def _weights(data, shape, storage, rhs_q: str, name: str, args: list[str], body: list[str],
             inputs: list[np.ndarray]):
    """The rhs as a quantized constant (folded sums) or as a quantized argument."""
    lo, hi = STORAGE[storage]
    if data.draw(st.booleans()):
        rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
        w = rng.integers(lo, hi + 1, size=shape)
        dense = np.array2string(w, separator=", ", threshold=10**6).replace("\n", "")
        body.append(f'%{name} = stablehlo.constant() <{{value = dense<{dense}> : '
                    f'{tensor(shape, storage)}}}> : () -> {tensor(shape, rhs_q)}')
    else:
        args.append(tensor(shape, "f32"))
        inputs.append(values(data, shape, 10.0))
        body.append(quantize_line(name, f"arg{len(args) - 1}", shape, rhs_q))


def dot_general(data, ordered_batching: bool = False):
    """dot_general with batching and contracting dims in any order; i8 or i4 storage;
    per-tensor or per-axis rhs; i8 or i32 result; lhs zero point any, rhs zero point 0."""
    nb, nc = data.draw(st.integers(0, 2)), data.draw(st.integers(1, 2))
    nlf, nrf = data.draw(st.integers(0, 2)), data.draw(st.integers(0, 2))
    size = st.integers(1, 3)
    b = [data.draw(size) for _ in range(nb)]
    c = [data.draw(size) for _ in range(nc)]
    lf = [data.draw(size) for _ in range(nlf)]
    rf = [data.draw(size) for _ in range(nrf)]
    lperm = data.draw(st.permutations(range(nb + nc + nlf)))
    rperm = data.draw(st.permutations(range(nb + nc + nrf)))
    # logical lhs dims: batch..., contracting..., free...; placed at lperm positions
    lshape = [0] * len(lperm)
    for logical, pos in enumerate(lperm):
        lshape[pos] = (b + c + lf)[logical]
    rshape = [0] * len(rperm)
    for logical, pos in enumerate(rperm):
        rshape[pos] = (b + c + rf)[logical]
    lb, lc = [lperm[i] for i in range(nb)], [lperm[nb + i] for i in range(nc)]
    rb, rc = [rperm[i] for i in range(nb)], [rperm[nb + i] for i in range(nc)]
    if ordered_batching:
        assume(lb == sorted(lb) and rb == sorted(rb))
    rfree = [rperm[nb + nc + i] for i in range(nrf)]
    out_shape = b + [lshape[d] for d in range(len(lshape)) if d not in lb + lc] + \
        [rshape[d] for d in range(len(rshape)) if d not in rb + rc]
    storage = data.draw(st.sampled_from(["i8", "i4"]))
    res_storage = data.draw(st.sampled_from(["i8", "i32"]))
    ql = qtype(storage, scales(data)[0], zp(data, storage))
    per_axis = bool(rfree) and data.draw(st.booleans())
    if per_axis:
        axis = data.draw(st.sampled_from(rfree))
        n = rshape[axis]
        rs = scales(data, n)
        qr = qaxis(storage, axis, rs, [0] * n)
        res_axis = nb + nlf + sorted(rfree).index(axis)
        ratio = scales(data)[0]
        qo = qaxis(res_storage, res_axis, [s * ratio for s in rs],
                   [0] * n)
    else:
        qr = qtype(storage, scales(data)[0], 0)
        qo = qtype(res_storage, scales(data)[0], zp(data, res_storage))
    args, inputs = [tensor(lshape, "f32")], [values(data, lshape, 10.0)]
    body = [quantize_line("l", "arg0", lshape, ql)]
    _weights(data, rshape, storage, qr, "w", args, body, inputs)
    dims = []
    if nb:
        dims.append(f"batching_dims = {lb} x {rb}")
    dims.append(f"contracting_dims = {lc} x {rc}")
    body.append(f"%r = stablehlo.dot_general %l, %w, {', '.join(dims)} : "
                f"({tensor(lshape, ql)}, {tensor(rshape, qr)}) -> {tensor(out_shape, qo)}")
    return main(args, body, tensor(out_shape, qo)), inputs


CONV_LAYOUTS = {
    "NHWC": ("[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", "bsf", "sio", "bsf"),
    "NCHW": ("[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]", "bfs", "ois", "bfs"),
}


def _layout(order: str, b: int, f: int, spatial) -> list[int]:
    out: list[int] = []
    for ch in order:
        out += [b] if ch in "bo" else [f] if ch in "fi" else list(spatial)
    return out


def convolution(data, layouts=("NHWC", "NCHW"), lhs_dilation: bool = True):
    """2-D convolution: padding (negative too), strides, rhs dilation, lhs dilation,
    feature groups, per-tensor or per-channel kernels, lhs zero point any."""
    layout = data.draw(st.sampled_from(list(layouts)))
    dn, lo, ko, oo = CONV_LAYOUTS[layout]
    groups = data.draw(st.integers(1, 2))
    cin = groups * data.draw(st.integers(1, 2))
    cout = groups * data.draw(st.integers(1, 2))
    n = data.draw(st.integers(1, 2))
    sp = [data.draw(st.integers(2, 5)) for _ in range(2)]
    k = [data.draw(st.integers(1, 3)) for _ in range(2)]
    stride = [data.draw(st.integers(1, 2)) for _ in range(2)]
    rdil = [data.draw(st.integers(1, 2)) for _ in range(2)]
    ldil = [data.draw(st.integers(1, 2)) if lhs_dilation else 1 for _ in range(2)]
    pad = [[data.draw(st.integers(-1, 2)), data.draw(st.integers(0, 2))] for _ in range(2)]
    out_sp = []
    for i in range(2):
        dilated = (sp[i] - 1) * ldil[i] + 1 + pad[i][0] + pad[i][1]
        eff = (k[i] - 1) * rdil[i] + 1
        out_sp.append(max(0, (dilated - eff) // stride[i] + 1) if dilated >= eff else 0)
    if min(out_sp) <= 0:
        out_sp = None
    lshape = _layout(lo, n, cin, sp)
    kshape = []
    for ch in ko:
        kshape += [cout] if ch == "o" else [cin // groups] if ch == "i" else list(k)
    storage = "i8"
    ql = qtype(storage, scales(data)[0], zp(data, storage))
    kaxis = ko.index("o") if ko.index("o") < ko.index("s") else ko.index("o") + 1
    oaxis = oo.index("f") if oo.index("f") < oo.index("s") else oo.index("f") + 1
    if data.draw(st.booleans()):
        ws = scales(data, cout)
        qr = qaxis(storage, kaxis, ws, [0] * cout)
        ratio = scales(data)[0]
        qo = qaxis("i8", oaxis, [s * ratio for s in ws], [0] * cout)
    else:
        qr = qtype(storage, scales(data)[0], 0)
        qo = qtype("i8", scales(data)[0], zp(data, "i8"))
    if out_sp is None:
        pad = [[0, 0], [0, 0]]
        stride, rdil, ldil, k = [1, 1], [1, 1], [1, 1], [1, 1]
        kshape = []
        for ch in ko:
            kshape += [cout] if ch == "o" else [cin // groups] if ch == "i" else list(k)
        out_sp = list(sp)
    oshape = _layout(oo, n, cout, out_sp)
    args, inputs = [tensor(lshape, "f32")], [values(data, lshape, 10.0)]
    body = [quantize_line("l", "arg0", lshape, ql)]
    _weights(data, kshape, storage, qr, "w", args, body, inputs)
    window = (f"stride = {stride}, pad = {pad}, lhs_dilate = {ldil}, rhs_dilate = {rdil}")
    body.append(f"%r = stablehlo.convolution(%l, %w) dim_numbers = {dn}, window = {{{window}}} "
                f"{{batch_group_count = 1 : i64, feature_group_count = {groups} : i64}} : "
                f"({tensor(lshape, ql)}, {tensor(kshape, qr)}) -> {tensor(oshape, qo)}")
    return main(args, body, tensor(oshape, qo)), inputs


def elementwise(data):
    """dequantize -> op -> quantize ops, max/min/select on one type, type-only ops."""
    shape = [data.draw(st.integers(1, 3)), 4]
    qa = qtype("i8", scales(data)[0], zp(data, "i8"))
    qo = qtype("i8", scales(data)[0], zp(data, "i8"))
    t, to = tensor(shape, qa), tensor(shape, qo)
    body = [quantize_line("a", "arg0", shape, qa), quantize_line("b", "arg1", shape, qa)]
    kind = data.draw(st.sampled_from(["tanh", "multiply", "max", "select", "moves", "abs"]))
    if kind == "tanh":
        body.append(f"%r = stablehlo.tanh %a : ({t}) -> {to}")
        result = to
    elif kind == "abs":
        body.append(f"%r = stablehlo.abs %a : ({t}) -> {to}")
        result = to
    elif kind == "multiply":
        body.append(f"%r = stablehlo.multiply %a, %b : ({t}, {t}) -> {to}")
        result = to
    elif kind == "max":
        body.append(f"%m = stablehlo.maximum %a, %b : {t}")
        body.append(f"%r = stablehlo.minimum %m, %a : {t}")
        result = t
    elif kind == "select":
        body.append(f"%p = stablehlo.compare GT, %a, %b : ({t}, {t}) -> {tensor(shape, 'i1')}")
        body.append(f"%r = stablehlo.select %p, %a, %b : {tensor(shape, 'i1')}, {t}")
        result = t
    else:
        rows = shape[0]
        body += [
            f"%t = stablehlo.transpose %a, dims = [1, 0] : ({t}) -> {tensor([4, rows], qa)}",
            f"%s = stablehlo.reshape %t : ({tensor([4, rows], qa)}) -> {tensor([4 * rows], qa)}",
            f"%c = stablehlo.concatenate %s, %s, dim = 0 : ({tensor([4 * rows], qa)}, "
            f"{tensor([4 * rows], qa)}) -> {tensor([8 * rows], qa)}",
            f"%l = stablehlo.slice %c [1:{8 * rows}:2] : ({tensor([8 * rows], qa)}) -> "
            f"{tensor([4 * rows], qa)}",
            f"%r = stablehlo.broadcast_in_dim %l, dims = [1] : ({tensor([4 * rows], qa)}) -> "
            f"{tensor([2, 4 * rows], qa)}",
        ]
        result = tensor([2, 4 * rows], qa)
    return (main([tensor(shape, "f32")] * 2, body, result),
            [values(data, shape, 20.0), values(data, shape, 20.0)])


def hybrid_dot(data):
    """f32 lhs · quantized rhs (per-tensor or per-axis, zero points 0) -> f32."""
    m, kk, n = (data.draw(st.integers(1, 4)) for _ in range(3))
    if data.draw(st.booleans()):
        qr = qaxis("i8", 1, scales(data, n), [0] * n)
    else:
        qr = qtype("i8", scales(data)[0], 0)
    args, inputs = [tensor([m, kk], "f32")], [values(data, [m, kk], 4.0)]
    body: list[str] = []
    _weights(data, [kk, n], "i8", qr, "w", args, body, inputs)
    body.append(f"%r = stablehlo.dot_general %arg0, %w, contracting_dims = [1] x [0] : "
                f"({tensor([m, kk], 'f32')}, {tensor([kk, n], qr)}) -> {tensor([m, n], 'f32')}")
    return main(args, body, tensor([m, n], "f32")), inputs


FAMILIES = {
    "quantize_requantize": quantize_requantize, "add": add, "dot_general": dot_general,
    "convolution": convolution, "elementwise": elementwise, "hybrid_dot": hybrid_dot,
}
