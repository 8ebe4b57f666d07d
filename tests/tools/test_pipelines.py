"""Named pipelines (`qcomp.registry.PIPELINES`) and xDSL clean-up passes by name."""

from __future__ import annotations

import pytest

from qcomp.registry import PASSES, PIPELINES, XDSL_PASSES
from qcomp.tools.pipeline import PipelineError, build_passes, split_pipeline_args


def _names(passes) -> list[str]:
    return [p.name for p in passes]


def test_stablehlo_lower_quant_expands_to_its_spec():
    spec, summary = PIPELINES["stablehlo-lower-quant"]
    assert spec == "stablehlo-legalize-quant-to-math,canonicalize,cse"
    assert summary and "\n" not in summary
    assert _names(build_passes(["stablehlo-lower-quant"], PASSES)) == [
        "stablehlo-legalize-quant-to-math", "canonicalize", "cse"]


def test_pipeline_options_go_to_its_first_pass():
    first, *rest = build_passes(["stablehlo-lower-quant{rescale=fixed-point}"], PASSES)
    assert first.rescale == "fixed-point"
    assert _names(rest) == ["canonicalize", "cse"]


def test_pipeline_inside_a_longer_pipeline():
    assert _names(build_passes(["dce,stablehlo-lower-quant,strip-func-quant-types"], PASSES)) == [
        "dce", "stablehlo-legalize-quant-to-math", "canonicalize", "cse",
        "strip-func-quant-types"]


def test_flags_name_pipelines_and_xdsl_passes():
    rest, specs = split_pipeline_args(
        ["in.mlir", "--stablehlo-lower-quant=rescale=stablehlo", "--cse", "--split-input-file"],
        PASSES)
    assert rest == ["in.mlir", "--split-input-file"]
    assert specs == ["stablehlo-lower-quant{rescale=stablehlo}", "cse"]


def test_xdsl_passes_stay_out_of_passes():
    # xDSL's universe already has them: registering them again in PASSES (which
    # qcomp.universe hands to xDSL) would be a duplicate-name error
    assert set(XDSL_PASSES) == {"canonicalize", "cse", "dce"}
    assert not set(XDSL_PASSES) & set(PASSES)
    assert not set(PIPELINES) & set(PASSES)


def test_unknown_name_is_an_error():
    with pytest.raises(PipelineError, match="'stablehlo-lower-quantt' does not refer"):
        build_passes(["stablehlo-lower-quantt"], PASSES)


def test_bad_pipeline_option_is_reported_against_the_pass():
    with pytest.raises(PipelineError, match="stablehlo-legalize-quant-to-math"):
        build_passes(["stablehlo-lower-quant{bogus=1}"], PASSES)
