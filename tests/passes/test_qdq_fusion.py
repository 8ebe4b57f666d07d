"""stablehlo-legalize-qdq-to-quantized-op: each refusal in the lit file is refused for
the reason its comment gives, and each fusion keeps the program's meaning."""

from __future__ import annotations

import pytest
from xdsl.dialects import func

from qcomp.passes.qdq.rules import refusal
from qcomp.passes.stablehlo_legalize_qdq_to_quantized_op import (
    StablehloLegalizeQDQToQuantizedOpPass,
    fusion_plan,
)
from tests.passes.pass_helpers import case_id, lit_cases, parse, run_pass, text

PASS = "stablehlo-legalize-qdq-to-quantized-op"

EXPECTED_REASON = {
    "operand_not_defined_by_op": "not computed by an op",
    "operand_not_dequantized": "not produced by uniform_dequantize",
    "op_with_region": "regions",
    "requantize": "requantizes",
    "dot_general_rhs_zero_point": "rhs zero points must be 0 (spec C15)",
    "dot_general_rhs_axis_contracted": "contracting dimension (spec C16)",
    "dot_general_per_axis_result_per_tensor_rhs": "per-tensor result (spec C19)",
    "dot_general_per_axis_lhs": "lhs must be per-tensor",
    "dot_general_storage_mismatch": "storage types differ (spec C17)",
    "convolution_kernel_axis": "kernel output feature dimension (spec C29)",
    "multiply_per_axis": "per-tensor quantization only",
    "add_per_axis_result_only": "(spec C5)",
    "abs_storage_change": "baseline_element_type",
    "abs_storage_range_change": "baseline_element_type",
    "reshape_requantizes": "quantization must be equal",
    "no_quantized_form": "has no quantized form",
    "expressed_type_mismatch": "expressed types",
    "transpose_wrong_axis": "(spec C4)",
    "reshape_merges_axis": "(spec C3)",
    "slice_per_axis": "per-tensor quantization only",
}


def _reason(src: str) -> tuple[str, str | None]:
    module = parse(src)
    f = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    quantizes = [op for op in f.walk() if op.name == "stablehlo.uniform_quantize"]
    plan = fusion_plan(quantizes[-1])
    if isinstance(plan, str):
        return f.sym_name.data, plan
    compute, inputs = plan
    return f.sym_name.data, refusal(compute, [v.type for v in inputs], quantizes[-1].results[0].type)


@pytest.mark.parametrize("case", lit_cases(PASS, "refusals.mlir"), ids=case_id)
def test_refusal_reason(case: str):
    name, reason = _reason(case)
    assert reason is not None and EXPECTED_REASON[name] in reason, (name, reason)


def test_every_refusal_case_is_listed():
    names = {_reason(c)[0] for c in lit_cases(PASS, "refusals.mlir")}
    assert names == set(EXPECTED_REASON)


@pytest.mark.parametrize("case", lit_cases(PASS, "refusals.mlir"), ids=case_id)
def test_refusal_leaves_module_unchanged(case: str):
    before = text(parse(case))
    assert text(run_pass(StablehloLegalizeQDQToQuantizedOpPass(), case)) == before


@pytest.mark.parametrize("case", lit_cases(PASS, "fuse.mlir"), ids=case_id)
def test_fused_cases_have_no_float_pattern_left(case: str):
    out = run_pass(StablehloLegalizeQDQToQuantizedOpPass(), case)
    quantizes = [op for op in out.walk() if op.name == "stablehlo.uniform_quantize"]
    assert quantizes == []
