"""lower-quant-ops against the spec formulas on random types and shapes (hypothesis):
per-tensor, per-axis and sub-channel; signed and unsigned storage of 2, 4, 8 and 16 bits,
narrowed storage ranges (widths StableHLO has); f16, bf16, f32 and f64 expressed types. The lowered program
runs in qcomp's interpreter; the reference is qcomp.quant's quantize/dequantize."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.dialects.builtin import IntegerType, Signedness

from qcomp.dialects.quant import UniformQuantizedType, storage_type_range
from qcomp.passes.lower_quant_ops import LowerQuantOpsPass
from tests.passes.numerics import draw, run_function, same
from tests.passes.pass_helpers import parse, run_pass, text

EXPRESSED = {"f16": "f16", "bf16": "bf16", "f32": "f32", "f64": "f64"}


@st.composite
def quant_case(draw_):
    rank = draw_(st.integers(1, 3))
    shape = draw_(st.lists(st.integers(1, 4), min_size=rank, max_size=rank))
    width = draw_(st.sampled_from([2, 4, 8, 16]))
    signed = draw_(st.booleans())
    lo, hi = storage_type_range(width, signed)
    if draw_(st.booleans()):
        a, b = sorted(draw_(st.lists(st.integers(lo, hi), min_size=2, max_size=2, unique=True)))
        lo, hi = a, b
    kind = draw_(st.sampled_from(sorted(EXPRESSED)))
    flavour = draw_(st.sampled_from(["tensor", "axis", "sub"]))
    # powers of two and awkward scales; zero points inside the storage range
    scale = st.sampled_from([2.0 ** -3, 0.5, 1.0, 3.0, 0.1, 0.37, 1e-2])
    zp = st.integers(lo, hi)
    storage = IntegerType(width, Signedness.SIGNLESS if signed else Signedness.UNSIGNED)
    from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, Float64Type

    expressed = {"f16": Float16Type, "bf16": BFloat16Type, "f32": Float32Type,
                 "f64": Float64Type}[kind]()
    if flavour == "tensor":
        q = UniformQuantizedType.per_tensor(storage, expressed, draw_(scale), draw_(zp), lo, hi)
    elif flavour == "axis":
        axis = draw_(st.integers(0, rank - 1))
        n = shape[axis]
        q = UniformQuantizedType.per_axis(storage, expressed, axis,
                                          [draw_(scale) for _ in range(n)],
                                          [draw_(zp) for _ in range(n)], lo, hi)
    else:
        dims = [d for d in range(rank) if draw_(st.booleans())] or [0]
        blocks = []
        for d in dims:
            divisors = [b for b in range(1, shape[d] + 1) if shape[d] % b == 0]
            blocks.append(draw_(st.sampled_from(divisors)))
        counts = [shape[d] // dict(zip(dims, blocks)).get(d, shape[d]) for d in range(rank)]
        n = int(np.prod(counts))
        q = UniformQuantizedType.build(storage, expressed, [draw_(scale) for _ in range(n)],
                                       [draw_(zp) for _ in range(n)], quantized_dimensions=dims,
                                       block_sizes=blocks, params_shape=counts,
                                       storage_min=lo, storage_max=hi)
        if kind != "f64":  # sub-channel scales live in the expressed type's precision
            q = parse(f"func.func private @t(tensor<{'x'.join(map(str, shape))}x{q}>)") \
                .body.block.first_op.function_type.inputs.data[0].element_type
    return shape, q, draw_(st.integers(0, 2**31))


def _program(shape, q) -> str:
    dims = "x".join(map(str, shape))
    e = str(q.expressed_type)
    t = f"tensor<{dims}x{q}>"
    f = f"tensor<{dims}x{e}>"
    return f"""
    func.func @q(%x: {f}) -> {t} {{
      %0 = quant.qcast %x : {f} to {t}
      return %0 : {t}
    }}
    func.func @d(%s: {t}) -> {f} {{
      %0 = quant.dcast %s : {t} to {f}
      return %0 : {f}
    }}"""


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(quant_case())
def test_lowering_equals_spec(case):
    shape, q, seed = case
    src = _program(shape, q)
    before = parse(src)
    after = run_pass(LowerQuantOpsPass(), src)
    assert "quant.qcast" not in text(after) and "quant.dcast" not in text(after)
    rng = np.random.default_rng(seed)
    fq = before.body.block.first_op
    x = draw(fq.function_type.inputs.data[0], rng, q)
    assert same(run_function(before, "q", [x])[0], run_function(after, "q", [x])[0])
    fd = fq.next_op
    s = draw(fd.function_type.inputs.data[0], rng)
    assert same(run_function(before, "d", [s])[0], run_function(after, "d", [s])[0])
