"""Structural mutants of the random `.tflite` models (`litert_cases`): one to three
changes each to a tensor (type, shape, buffer, name bytes), its quantization (scales
0 / NaN / inf / denormal, zero-point counts, quantized dimension), an operator (inputs,
outputs, -1, option fields, the options table's type), an opcode or a buffer; and the
judgement of what qcomp made of one (`judge`): a module that prints and parses back, or
one `ImportFailure` line, never another exception."""

from __future__ import annotations

import random
import re
import warnings

import numpy as np

from tests.importers.litert_cases import CASES
from tests.importers.tflite_models import schema

_INTS = [0, 1, -1, 2, 3, 4, 5, 99, 255, 1 << 31, -(1 << 31), 10 ** 6]
_FLOATS = [0.0, -1.0, float("nan"), float("inf"), 1e-45, 1e30, 0.5, 1e-38]
_CODES = [0, 1, 2, 3, 4, 6, 9, 14, 17, 18, 22, 25, 28, 32, 34, 39, 40, 41, 114, 150]
_OPTION_NAMES = {v: k for k, v in vars(schema.BuiltinOptions).items() if not k.startswith("_")}


def _tensor(rng, m) -> None:
    t = rng.choice(m.subgraphs[0].tensors)
    field = rng.choice(["type", "shape", "buffer", "name"])
    if field == "type":
        t.type = rng.randrange(18)
    elif field == "shape":
        t.shape = [rng.choice([0, 1, 2, 3, -1, 5, 1 << 20]) for _ in range(rng.randrange(6))]
    elif field == "buffer":
        t.buffer = rng.choice(_INTS)
    else:
        t.name = bytes(rng.randrange(256) for _ in range(3))


def _quantization(rng, m) -> None:
    t = rng.choice(m.subgraphs[0].tensors)
    if t.quantization is None:
        t.quantization = schema.QuantizationParametersT()
    q = t.quantization
    field = rng.choice(["scale", "zero_point", "dimension", "none"])
    if field == "scale":
        q.scale = [rng.choice(_FLOATS) for _ in range(rng.randrange(4))]
    elif field == "zero_point":
        q.zeroPoint = [rng.choice(_INTS) for _ in range(rng.randrange(4))]
    elif field == "dimension":
        q.quantizedDimension = rng.choice(_INTS)
    else:
        t.quantization = None


def _operands(rng, m) -> None:
    op = rng.choice(m.subgraphs[0].operators)
    ins = list(op.inputs if op.inputs is not None else [])
    outs = list(op.outputs if op.outputs is not None else [])
    field = rng.choice(["input", "output", "drop", "add"])
    if field == "input" and ins:
        ins[rng.randrange(len(ins))] = rng.choice(_INTS)
    elif field == "output" and outs:
        outs[rng.randrange(len(outs))] = rng.choice(_INTS)
    elif field == "drop" and ins:
        ins = ins[:-1]
    else:
        ins.append(rng.randrange(len(m.subgraphs[0].tensors)))
    op.inputs, op.outputs = ins, outs


def _options(rng, m) -> None:
    op = rng.choice(m.subgraphs[0].operators)
    if op.builtinOptions is not None and vars(op.builtinOptions) and rng.random() < 0.7:
        name = rng.choice(sorted(vars(op.builtinOptions)))
        old = getattr(op.builtinOptions, name)
        new = (rng.choice(_FLOATS) if isinstance(old, float) else (not old)
               if isinstance(old, bool) else rng.choice(_INTS))
        setattr(op.builtinOptions, name, new)
        return
    kind = rng.randrange(130)
    cls = getattr(schema, f"{_OPTION_NAMES.get(kind)}T", None)
    op.builtinOptionsType = kind
    op.builtinOptions = cls() if cls is not None and rng.random() < 0.8 else None


def _opcode(rng, m) -> None:
    c = rng.choice(m.operatorCodes)
    c.builtinCode = c.deprecatedBuiltinCode = rng.choice(_CODES)


def _buffer(rng, m) -> None:
    b = rng.choice(m.buffers)
    if b.data is not None and len(b.data):
        b.data = b.data[:rng.randrange(len(b.data))]


def _graph(rng, m) -> None:
    sub = m.subgraphs[0]
    ends = _INTS + list(range(len(sub.tensors)))
    chosen = [rng.choice(ends) for _ in range(rng.randrange(3))]
    if rng.random() < 0.5:
        sub.inputs = chosen
    else:
        sub.outputs = chosen


MUTATIONS = (_tensor, _quantization, _operands, _options, _opcode, _buffer, _graph)


def mutant(seed: int) -> bytes | None:
    """The mutant of `seed` (None when the schema cannot pack it)."""
    import flatbuffers

    rng = random.Random(seed)
    op = sorted(CASES)[seed % len(CASES)]
    model, _ = CASES[op](np.random.default_rng(seed))
    m = schema.ModelT.InitFromObj(schema.Model.GetRootAs(model, 0))
    for _ in range(rng.randrange(1, 4)):
        rng.choice(MUTATIONS)(rng, m)
    try:
        b = flatbuffers.Builder(1024)
        b.Finish(m.Pack(b), file_identifier=b"TFL3")
    except Exception:  # noqa: BLE001 - the schema's own packer refuses some values
        return None
    return bytes(b.Output())


EXCEPTION_TEXT = re.compile(r"Traceback|Error:|object has no attribute|\bNoneType\b|"
                            r"codec can't|invalid literal|index out of range")


def judge(model: bytes) -> str:
    """'ok' (imported, printed, parsed back and verified), 'diagnostic' (one
    ImportFailure line without Python exception text), or what went wrong."""
    from qcomp.importers.tflite import ImportFailure, import_module
    from qcomp.ir import print_module
    from qcomp.registry import make_context, parse_module

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            module = import_module(model)
        except ImportFailure as e:
            text = str(e)
            if "\n" in text or EXCEPTION_TEXT.search(text):
                return f"diagnostic with exception text: {text}"
            return "diagnostic"
        except Exception as e:  # noqa: BLE001 - what the fuzz looks for
            return f"internal error: {type(e).__name__}: {e}"
        try:
            parse_module(print_module(module), make_context()).verify()
        except Exception as e:  # noqa: BLE001
            return f"printed module does not parse back: {type(e).__name__}: {e}"
    return "ok"
