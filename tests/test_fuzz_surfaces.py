"""Fuzz the surfaces issue 29 hardened, one family each (the style of
test_fuzz_qcomp_opt.py): `.onnx` structure (nodes shuffled, dropped or duplicated,
names made non-UTF-8, attributes of the wrong kind, inputs absent, ir_version and
opsets changed, element types and shapes changed), the ONNX zoo's models
(`tests/models/onnx/`: structural and byte mutants through `qcomp-opt model.onnx` with
the README's pipeline, and `qcomp-run model.onnx --inputs x.npz`), qcomp-run's inputs (`--input`
texts, `--args` texts, `.npy` / `.npz` bytes and headers) and `--backend xla`
programs (calls, recursion, mutated tokens). Each mutant must end with a diagnostic
or success: exit 0, 1 or 2 with no `internal error`, no traceback and no Python
exception text. CI runs a few seeded mutants per family; `python tools/fuzz_surfaces.py`
runs ≥ 10,000 and prints the counts.
"""

from __future__ import annotations

import io
import os
import random
import re
import tempfile

import numpy as np
import pytest

PYTHON_WORDS = re.compile(
    r"internal error|Traceback|object has no attribute|not supported between|codec can't|"
    r"unsupported operand|NoneType|missing \d+ required|index out of range|"
    r"(?<![\w-])(?:Key|Value|Type|Index|Attribute|Recursion|Memory|Overflow|ZeroDivision|"
    r"Unicode\w*|Assertion|Runtime|OS)Error\b|Exception")
SEED = 20261127
CI_MUTANTS = {"onnx": 40, "onnx_zoo": 12, "inputs": 60, "xla": 8}


def _tool(main, argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, io.StringIO(""), out, err)
    return code, out.getvalue(), err.getvalue()


def judge(code: int, err: str) -> str | None:
    """Why a run's ending is not a diagnostic (None when it is)."""
    if code not in (0, 1, 2):
        return f"exit code {code}"
    m = PYTHON_WORDS.search(err)
    if m is not None:
        return f"Python's words {m.group(0)!r}: {err.strip().splitlines()[-1][:300]}"
    return None


# -- .onnx structure ---------------------------------------------------------------------

def _onnx_seeds() -> list:
    from onnx import TensorProto as T
    from onnx import helper as h
    from onnx import numpy_helper as nh

    s = nh.from_array(np.array(0.5, np.float32), "s")
    z = nh.from_array(np.array(3, np.uint8), "z")
    x = h.make_tensor_value_info("x", T.FLOAT, [2, 3])
    b = h.make_tensor_value_info("b", T.UINT8, [2, 3])
    qdq = h.make_graph([
        h.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], name="q"),
        h.make_node("DequantizeLinear", ["q", "s", "z"], ["d"], name="d"),
        h.make_node("Relu", ["d"], ["r"], name="relu"),
        h.make_node("QuantizeLinear", ["r", "s", "z"], ["y"], name="q2")],
        "g", [x], [h.make_tensor_value_info("y", T.UINT8, [2, 3])], [s, z])
    contrib = h.make_graph([
        h.make_node("QLinearAdd", ["b", "s", "z", "b", "s", "z", "s", "z"], ["a"],
                    domain="com.microsoft", name="add"),
        h.make_node("QLinearConcat", ["s", "z", "a", "s", "z", "b", "s", "z"], ["y"],
                    domain="com.microsoft", name="cat", axis=0)],
        "g", [b], [h.make_tensor_value_info("y", T.UINT8, [4, 3])], [s, z])
    wb = h.make_tensor("B", T.UINT8, [4, 1, 8], np.arange(32, dtype=np.uint8))
    ws = h.make_tensor("S", T.FLOAT, [4], np.ones(4, np.float32))
    nbits = h.make_graph([
        h.make_node("MatMulNBits", ["a", "B", "S"], ["y"], domain="com.microsoft",
                    name="mm", K=16, N=4, bits=4, block_size=16)],
        "g", [h.make_tensor_value_info("a", T.FLOAT, [2, 16])],
        [h.make_tensor_value_info("y", T.FLOAT, [2, 4])], [wb, ws])
    out = []
    for g in (qdq, contrib, nbits):
        m = h.make_model(g, opset_imports=[h.make_opsetid("", 21),
                                           h.make_opsetid("com.microsoft", 1)])
        m.ir_version = 10
        out.append(m)
    return out


def _mutate_onnx(model, rng: random.Random) -> bytes:
    import onnx
    from onnx import TensorProto as T
    from onnx import helper as h

    m = onnx.ModelProto.FromString(model.SerializeToString())
    g = m.graph
    nodes = list(g.node)
    kind = rng.choice(["shuffle", "drop", "duplicate", "attr", "input", "ir", "opset", "elem",
                       "shape", "rename", "bytes", "bytes", "value_info"])
    if kind == "shuffle":
        rng.shuffle(nodes)
        del g.node[:]
        g.node.extend(nodes)
        m.ir_version = rng.choice([m.ir_version, 3, 4, 7, 11])
    elif kind == "drop" and nodes:
        del g.node[rng.randrange(len(nodes))]
    elif kind == "duplicate" and nodes:
        g.node.append(nodes[rng.randrange(len(nodes))])
    elif kind == "attr" and nodes:
        n = rng.choice(nodes)
        name = rng.choice(["axis", "K", "N", "bits", "block_size", "alpha", "channels_last",
                           "saturate", "to", "block_size"] + [a.name for a in n.attribute])
        for i, a in enumerate(n.attribute):
            if a.name == name:
                del n.attribute[i]
                break
        if rng.random() < 0.8:
            value = rng.choice([1, -1, 0, 1 << 40, 1.5, float("nan"), "x", [1, 2], [0.5],
                                h.make_tensor("t", T.INT64, [], [16])])
            n.attribute.append(h.make_attribute(name, value))
    elif kind == "input" and nodes:
        n = rng.choice(nodes)
        if n.input:
            i = rng.randrange(len(n.input))
            n.input[i] = rng.choice(["", "nowhere", n.input[0], "x", "s"])
        if rng.random() < 0.3:
            n.input.append(rng.choice(["", "s", "z"]))
    elif kind == "ir":
        m.ir_version = rng.choice([0, 1, 2, 3, 4, 6, 8, 9, 11, 12, 99])
    elif kind == "opset":
        m.opset_import[rng.randrange(len(m.opset_import))].version = rng.choice(
            [0, 1, 7, 10, 13, 19, 22, 99])
    elif kind == "elem":
        vis = list(g.input) + list(g.output)
        rng.choice(vis).type.tensor_type.elem_type = rng.choice(
            [0, 1, 2, 3, 6, 7, 8, 10, 16, 17, 21, 22, 23, 25, 99])
    elif kind == "shape":
        vi = rng.choice(list(g.input) + list(g.output))
        if rng.random() < 0.3:
            vi.type.tensor_type.ClearField("shape")
        elif vi.type.tensor_type.shape.dim:
            d = rng.choice(vi.type.tensor_type.shape.dim)
            d.dim_value = rng.choice([0, 1, 7, 1 << 40])
    elif kind == "value_info":
        g.value_info.append(h.make_tensor_value_info(
            rng.choice(["q", "d", "r", "a", "y"]), rng.choice([1, 2, 3]),
            rng.choice([[2, 3], [5], None])))
    raw = m.SerializeToString()
    if kind in ("rename", "bytes"):
        names = [n.name.encode() for n in nodes if n.name] + [b"x", b"q", b"axis", b"s"]
        marker = rng.choice(names)
        if kind == "rename" and marker in raw:
            k = raw.find(marker)
            raw = raw[:k] + bytes([0xFF] * len(marker)) + raw[k + len(marker):]
        else:
            k = rng.randrange(len(raw))
            raw = raw[:k] + bytes([rng.randrange(256)]) + raw[k + 1:]
    return raw


def onnx_mutant(rng: random.Random, workdir: str, seeds) -> tuple[str, str | None]:
    from qcomp.tools.qcomp_opt import main as opt_main
    from qcomp.tools.qcomp_run import main as run_main

    raw = _mutate_onnx(rng.choice(seeds), rng)
    path = os.path.join(workdir, "m.onnx")
    with open(path, "wb") as f:
        f.write(raw)
    passes = rng.choice([[], ["--onnx-unfuse-qdq"], ["--onnx-legalize-qdq-to-quant"],
                         ["--onnx-fuse-qdq"], ["--pass-pipeline=builtin.module(onnx-unfuse-qdq,"
                                               "onnx-legalize-qdq-to-quant)"]])
    code, _, err = _tool(opt_main, [path, *passes])
    why = judge(code, err)
    if why is None and code == 0 and rng.random() < 0.3:
        code, _, err = _tool(run_main, [path, "--entry", "main_graph",
                                        f"--input={rng.choice(['2x3xf32=1', '2x3xui8=4', '2x16xf32=0.5'])}"])
        why = judge(code, err)
    return "onnx", why


# -- the ONNX zoo's models -----------------------------------------------------------------

ZOO = os.path.join(os.path.dirname(__file__), "models", "onnx")
LOWER = ["--onnx-legalize-qdq-to-quant", "--onnx-legalize-to-stablehlo",
         "--stablehlo-legalize-quant-to-math"]
"""The README's pipeline from an imported QDQ model to integer StableHLO."""


def _zoo_seeds() -> list:
    import onnx

    return [onnx.load(os.path.join(ZOO, f)) for f in sorted(os.listdir(ZOO))
            if f.endswith(".onnx")]


def _mutate_zoo(model, rng: random.Random) -> bytes:
    """A structural mutant of a zoo model (nodes dropped, swapped, renamed; attributes,
    element types, initializer shapes and types, opsets changed) or a byte mutant."""
    import onnx
    from onnx import helper as h

    m = onnx.ModelProto.FromString(model.SerializeToString())
    g = m.graph
    nodes = list(g.node)
    kind = rng.choice(["drop", "swap", "attr", "attr", "elem", "init_dims", "init_type",
                       "opset", "rename", "io", "bytes", "truncate", "generic"])
    if kind == "generic":
        return _mutate_onnx(m, rng)
    if kind == "drop" and nodes:
        del g.node[rng.randrange(len(nodes))]
    elif kind == "swap" and len(nodes) > 1:
        i, j = rng.randrange(len(nodes)), rng.randrange(len(nodes))
        nodes[i], nodes[j] = nodes[j], nodes[i]
        del g.node[:]
        g.node.extend(nodes)
    elif kind == "attr" and nodes:
        n = rng.choice(nodes)
        if n.attribute and rng.random() < 0.7:
            a = rng.choice(list(n.attribute))
            name = a.name
            n.attribute.remove(a)
        else:
            name = rng.choice(["axis", "axes", "keepdims", "perm", "kernel_shape", "pads",
                               "strides", "group", "alpha", "transB", "to", "epsilon", "K"])
        if rng.random() < 0.85:
            n.attribute.append(h.make_attribute(name, rng.choice(
                [0, 1, -1, 2, 7, -9, 1 << 40, 0.0, -1.5, float("inf"), "x", "SAME_UPPER",
                 [0], [1, 1], [-1, 5, 3], [0, 0, 0, 0], [2.5]])))
    elif kind == "elem":
        vis = [*g.input, *g.output, *g.value_info]
        if vis:
            rng.choice(vis).type.tensor_type.elem_type = rng.choice(
                [0, 1, 2, 3, 5, 6, 7, 9, 10, 11, 16, 17, 21, 22, 40])
    elif kind in ("init_dims", "init_type") and g.initializer:
        t = rng.choice(list(g.initializer))
        if kind == "init_dims":
            dims = list(t.dims)
            choice = rng.random()
            if choice < 0.3 or not dims:
                dims.append(rng.choice([1, 2, 0]))
            elif choice < 0.6:
                dims.pop(rng.randrange(len(dims)))
            else:
                dims[rng.randrange(len(dims))] = rng.choice([0, 1, 3, 1 << 33, -2])
            del t.dims[:]
            t.dims.extend(dims)
        else:
            t.data_type = rng.choice([1, 2, 3, 5, 6, 7, 9, 10, 11, 16, 21, 22, 0, 99])
    elif kind == "opset":
        o = rng.choice(list(m.opset_import))
        o.version = rng.choice([1, 9, 10, 12, 13, 17, 19, 21, 23, 25, 0, 1000])
        if rng.random() < 0.3:
            m.ir_version = rng.choice([3, 4, 7, 8, 9, 10, 11, 12])
    elif kind == "rename" and nodes:
        n = rng.choice(nodes)
        values = [*n.input, *n.output]
        target = rng.choice(["name", "value", "value", "op_type", "domain"])
        new = rng.choice(["", "x", "y", "dup", n.name, "a" * 300, "\u00e9t\u00e9"])
        if target == "name":
            n.name = new
        elif target == "op_type":
            n.op_type = rng.choice(["", "Relu", "Conv", "QLinearFoo", "MatMulNBits",
                                    "DequantizeLinear", n.op_type.lower()])
        elif target == "domain":
            n.domain = rng.choice(["", "com.microsoft", "ai.onnx", "x.y"])
        elif values:
            old = rng.choice(values)
            for field in (n.input, n.output):
                for i, v in enumerate(field):
                    if v == old:
                        field[i] = new
    elif kind == "io":
        vis = rng.choice([g.input, g.output])
        if len(vis) and rng.random() < 0.5:
            del vis[rng.randrange(len(vis))]
        else:
            vis.append(h.make_tensor_value_info(rng.choice(["x", "y", "extra"]),
                                                rng.choice([1, 2, 3]), rng.choice([[1], None])))
    raw = m.SerializeToString()
    if kind == "bytes":
        raw = bytearray(raw)
        for _ in range(rng.choice([1, 1, 2, 8])):
            raw[rng.randrange(len(raw))] = rng.randrange(256)
        raw = bytes(raw)
    elif kind == "truncate":
        raw = raw[:rng.randrange(len(raw))]
    return raw


def _zoo_inputs(model, workdir: str) -> str:
    """An `.npz` of the (unmutated) model's graph inputs: ones of their types and shapes."""
    from onnx import helper

    inits = {t.name for t in model.graph.initializer}
    arrays = {}
    for vi in model.graph.input:
        if vi.name in inits:
            continue
        tt = vi.type.tensor_type
        dims = [d.dim_value if d.HasField("dim_value") else 1 for d in tt.shape.dim]
        arrays[vi.name] = np.ones(dims, helper.tensor_dtype_to_np_dtype(tt.elem_type))
    path = os.path.join(workdir, "inputs.npz")
    np.savez(path, **arrays)
    return path


def onnx_zoo_mutant(rng: random.Random, workdir: str, seeds) -> tuple[str, str | None]:
    from qcomp.tools.qcomp_opt import main as opt_main
    from qcomp.tools.qcomp_run import main as run_main

    seed = rng.choice(seeds)
    raw = _mutate_zoo(seed, rng)
    path = os.path.join(workdir, "model.onnx")
    with open(path, "wb") as f:
        f.write(raw)
    passes = rng.choice([[], LOWER, LOWER, ["--onnx-unfuse-qdq", *LOWER], ["--onnx-fuse-qdq"]])
    code, _, err = _tool(opt_main, [path, *passes, "-o", os.path.join(workdir, "out.mlir")])
    why = judge(code, err)
    if why is None and code == 0 and rng.random() < 0.25:
        code, _, err = _tool(run_main, [path, "--inputs", _zoo_inputs(seed, workdir)])
        why = judge(code, err)
    return "onnx_zoo", why


# -- qcomp-run's inputs ------------------------------------------------------------------

RUN_PROGRAM = ("func.func @main(%a: tensor<2x3xi8>, %b: tensor<2xbf16>) -> tensor<2x3xi8> {\n"
               "  return %a : tensor<2x3xi8>\n}\n")


def _input_text(rng: random.Random) -> str:
    dims = "x".join(rng.choice(["2", "3", "0", "?", "99999999999999999999", "-1", "", "4294967296"])
                    for _ in range(rng.randrange(0, 4)))
    et = rng.choice(["i8", "i0", "i65", "ui8", "bf16", "f8E4M3FN", "i1", "f32", "!quant.uniform<i8:f32, 0.5>",
                     "!quant.any<i8<2:1>:f32>", "!quant.foobar", "tensor<2xi8>", "complex<f32>",
                     "index", "", "x", "i8<", "\udcff"])
    values = rng.choice(["1", "1,2,3,4,5,6", "[1 2 3][4 5 6]", "nan", "inf", "-129", "1e400",
                         "0x7F", "[" * 300 + "1" + "]" * 300, "", "@x", "true", "1.5"])
    return f"{dims + 'x' if dims else ''}{et}={values}"


def _args_text(rng: random.Random) -> str:
    depth = rng.choice([1, 2, 50, 200, 2000])
    inner = rng.choice(["dense<1> : tensor<2x3xi8>", "dense<[1, 2]> : tensor<2xbf16>",
                        "dense<" + "[" * depth + "1" + "]" * depth + "> : tensor<2x3xi8>",
                        "1 : i8", "\"s\"", "dense<1> : tensor<99999999999999999999xi8>",
                        "dense<> : tensor<0xi8>", "[" * depth + "]" * depth])
    return rng.choice([f"[{inner}]", f"[{inner}, {inner}]", inner, "[" * depth, ""])


def _npz_bytes(rng: random.Random) -> bytes:
    import ml_dtypes

    buf = io.BytesIO()
    arrays = {"arg0": np.zeros((2, 3), rng.choice([np.int8, np.int16, np.float32, "V1", "V2",
                                                   ml_dtypes.int4, ml_dtypes.float8_e5m2])),
              "arg1": np.zeros(2, rng.choice([ml_dtypes.bfloat16, np.float16, "V2", "V1"]))}
    (np.savez if rng.random() < 0.5 else np.savez_compressed)(buf, **arrays)
    raw = bytearray(buf.getvalue())
    for _ in range(rng.choice([0, 1, 1, 3])):
        k = rng.randrange(len(raw))
        choice = rng.random()
        if choice < 0.3:
            raw[k] = rng.randrange(256)
        elif choice < 0.5:
            del raw[k:]
        else:
            head = raw.find(b"'descr': ")
            if head >= 0:
                new = rng.choice([b"'descr': '<f1', ", b"'descr': '|V9', ", b"'descr': 'O', ",
                                  b"'descr': [('a', '<i4')], ", b"'shape': (99999999999,), ",
                                  b"'shape': (-1,), ", b"'fortran_order': 1, "])
                raw[head:head + len(new)] = new
    return bytes(raw)


def inputs_mutant(rng: random.Random, workdir: str, seeds=None) -> tuple[str, str | None]:
    from qcomp.tools.qcomp_run import main as run_main

    prog = os.path.join(workdir, "p.mlir")
    with open(prog, "w") as f:
        f.write(RUN_PROGRAM)
    kind = rng.choice(["input", "args", "npz", "npz"])
    if kind == "input":
        argv = [f"--input={_input_text(rng)}", f"--input={_input_text(rng)}"]
    elif kind == "args":
        argv = [f"--args={_args_text(rng)}"]
    else:
        path = os.path.join(workdir, "x.npz")
        with open(path, "wb") as f:
            f.write(_npz_bytes(rng))
        argv = rng.choice([["--inputs", path], [f"--input=@{path}"]])
        if rng.random() < 0.3:
            argv += ["--max-memory", rng.choice(["1", "100", "1K"])]
    if rng.random() < 0.2:
        argv += ["--output", rng.choice([prog, os.path.join(workdir, "y.npz")])]
    code, _, err = _tool(run_main, [prog, *argv])
    return "inputs", judge(code, err)


# -- --backend xla programs --------------------------------------------------------------

T = "tensor<4xi8>"
XLA_SEEDS = [
    f"func.func @main(%a: {T}) -> {T} {{\n  %0 = func.call @f(%a) : ({T}) -> {T}\n  return %0 : {T}\n}}\n"
    f"func.func private @f(%a: {T}) -> {T} {{\n  %0 = stablehlo.add %a, %a : {T}\n  return %0 : {T}\n}}\n",
    f"func.func @main(%a: {T}) -> {T} {{\n  %0 = stablehlo.multiply %a, %a : {T}\n"
    f"  %1 = stablehlo.convert %0 : ({T}) -> tensor<4xf32>\n"
    f"  %2 = stablehlo.convert %1 : (tensor<4xf32>) -> {T}\n  return %2 : {T}\n}}\n",
]


def _xla_program(rng: random.Random) -> str:
    from tests.test_fuzz_qcomp_opt import _mutate

    kind = rng.random()
    if kind < 0.3:  # a call chain, maybe closed into a cycle
        depth = rng.choice([1, 3, 20, 99, 100, 150])
        text = f"func.func @main(%a: {T}) -> {T} {{\n  %0 = func.call @f0(%a) : ({T}) -> {T}\n  return %0 : {T}\n}}\n"
        for i in range(depth):
            last = i == depth - 1
            callee = rng.choice(["main", "f0", f"f{i}"]) if last and rng.random() < 0.5 else None
            body = (f"func.call @{callee}(%a) : ({T}) -> {T}" if callee else
                    f"func.call @f{i + 1}(%a) : ({T}) -> {T}" if not last else f"stablehlo.add %a, %a : {T}")
            text += f"func.func private @f{i}(%a: {T}) -> {T} {{\n  %0 = {body}\n  return %0 : {T}\n}}\n"
        return text
    seed = rng.choice(XLA_SEEDS)
    return _mutate(seed, rng.choice(["drop", "duplicate", "swap", "truncate", "flip_digit"]), rng)


def xla_mutant(rng: random.Random, workdir: str, seeds=None) -> tuple[str, str | None]:
    from qcomp.tools.qcomp_run import main as run_main

    prog = os.path.join(workdir, "x.mlir")
    with open(prog, "w") as f:
        f.write(_xla_program(rng))
    code, _, err = _tool(run_main, [prog, "--backend", "xla", "--input=4xi8=3"])
    return "xla", judge(code, err)


FAMILIES = {"onnx": onnx_mutant, "onnx_zoo": onnx_zoo_mutant, "inputs": inputs_mutant,
            "xla": xla_mutant}


def run_family(family: str, count: int, seed: int = SEED) -> list[str]:
    """The failures among `count` mutants of `family` (empty: all ended in diagnostics)."""
    rng = random.Random(f"{seed}-{family}")
    seeds = {"onnx": _onnx_seeds, "onnx_zoo": _zoo_seeds}.get(family, lambda: None)()
    failures = []
    with tempfile.TemporaryDirectory() as d:
        for i in range(count):
            _, why = FAMILIES[family](rng, d, seeds)
            if why is not None:
                failures.append(f"{family} mutant {i}: {why}")
    return failures


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_family_sample(family):
    if family in ("onnx", "onnx_zoo"):
        pytest.importorskip("onnx")
    if family == "xla":
        from qcomp.backends import xla

        if not xla.is_available():
            pytest.skip("jax/jaxlib not installed")
    assert run_family(family, CI_MUTANTS[family]) == []
