"""Passes by name (`qcomp.pipeline`): named pipelines (`qcomp.registry.PIPELINES`), xDSL
clean-up passes, aliases, "did you mean", option values, and the xDSL plugin's names."""

from __future__ import annotations

import pytest

from qcomp.pipeline import PipelineError, build_passes, edit_distance, suggestion
from qcomp.registry import PASS_ALIASES, PASSES, PIPELINES, XDSL_PASSES
from qcomp.tools.pipeline import split_pipeline_args


def _names(passes) -> list[str]:
    return [p.name for p in passes]


def test_stablehlo_lower_quant_expands_to_its_spec():
    spec, summary = PIPELINES["stablehlo-lower-quant"]
    assert spec == "stablehlo-legalize-quant-to-math,canonicalize,cse"
    assert summary and "\n" not in summary
    assert _names(build_passes(["stablehlo-lower-quant"])) == [
        "stablehlo-legalize-quant-to-math", "canonicalize", "cse"]


def test_pipeline_options_go_to_its_first_pass():
    first, *rest = build_passes(["stablehlo-lower-quant{rescale=fixed-point}"])
    assert first.rescale == "fixed-point"
    assert _names(rest) == ["canonicalize", "cse"]


def test_pipeline_inside_a_longer_pipeline():
    assert _names(build_passes(["dce,stablehlo-lower-quant,strip-func-quant-types"])) == [
        "dce", "stablehlo-legalize-quant-to-math", "canonicalize", "cse",
        "strip-func-quant-types"]


def test_flags_name_pipelines_and_xdsl_passes():
    rest, specs = split_pipeline_args(
        ["in.mlir", "--stablehlo-lower-quant=rescale=stablehlo", "--cse", "--split-input-file"])
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
        build_passes(["stablehlo-lower-quantt"])


def test_bad_pipeline_option_is_reported_against_the_pass():
    with pytest.raises(PipelineError) as e:
        build_passes(["stablehlo-lower-quant{bogus=1}"])
    assert str(e.value) == ("pass 'stablehlo-legalize-quant-to-math' has no option 'bogus' "
                            "(it takes rescale)")
    with pytest.raises(PipelineError) as e:
        build_passes(["stablehlo-legalize-quant-to-math{rescal=float}"])
    assert str(e.value) == ("pass 'stablehlo-legalize-quant-to-math' has no option 'rescal'; "
                            "did you mean 'rescale'?")


def test_bad_option_value_names_the_allowed_values():
    with pytest.raises(PipelineError) as e:
        build_passes(["stablehlo-legalize-quant-to-math{rescale=fixed}"])
    assert str(e.value) == ("invalid value 'fixed' for option 'rescale' of pass "
                            "'stablehlo-legalize-quant-to-math' (one of float, fixed-point, "
                            "stablehlo)")


def test_unknown_name_gets_the_nearest_name():
    with pytest.raises(PipelineError) as e:
        build_passes(["builtin.module(stablehlo-legalize-quant-to-mth)"])
    assert str(e.value) == ("'stablehlo-legalize-quant-to-mth' does not refer to a registered "
                            "pass or pass pipeline; did you mean "
                            "'stablehlo-legalize-quant-to-math'?")
    with pytest.raises(PipelineError) as e:
        build_passes(["quantize-everything"])
    assert "did you mean" not in str(e.value)


def test_edit_distance():
    assert edit_distance("kitten", "sitting", 10) == 3
    assert edit_distance("", "abc", 10) == 3
    assert edit_distance("abc", "abc", 10) == 0
    assert edit_distance("abcdef", "uvwxyz", 4) == 4  # stops at the limit
    assert suggestion("cse", ["cse", "dce"]) == "cse"
    assert suggestion("--verify-eac", ["--verify-each", "--verify-diagnostics"]) == "--verify-each"
    assert suggestion("xyz", ["--verify-each"]) is None


def test_an_alias_runs_the_canonical_pass():
    assert PASS_ALIASES == {"stablehlo-legalize-quant-to-int": "stablehlo-legalize-quant-to-math"}
    assert not set(PASS_ALIASES) & (set(PASSES) | set(PIPELINES) | set(XDSL_PASSES))
    assert set(PASS_ALIASES.values()) <= set(PASSES)
    (p,) = build_passes(["stablehlo-legalize-quant-to-int{rescale=stablehlo}"])
    assert type(p) is PASSES["stablehlo-legalize-quant-to-math"]()
    assert p.name == "stablehlo-legalize-quant-to-math" and p.rescale == "stablehlo"


def test_the_xdsl_plugin_runs_every_name_qcomp_opt_takes():
    """`xdsl-opt -p <name>` for each alias and pipeline: the universe's classes are named
    as the spec (xDSL checks), and they lower as qcomp-opt does."""
    from xdsl.passes import PassPipeline

    from qcomp.ir import print_module
    from qcomp.registry import make_context, parse_module
    from qcomp.universe import QCOMP_UNIVERSE

    text = ("func.func @main(%x: tensor<2x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<2xf32> {\n"
            "  %0 = stablehlo.uniform_dequantize %x : (tensor<2x!quant.uniform<i8:f32, 0.5:1>>)"
            " -> tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n")
    available = {**XDSL_PASSES, **QCOMP_UNIVERSE.all_passes}
    assert set(PASS_ALIASES) | set(PIPELINES) | set(PASSES) <= set(available)
    printed = {}
    for spec in ["stablehlo-lower-quant{rescale=stablehlo}",
                 "stablehlo-legalize-quant-to-int{rescale=stablehlo},canonicalize,cse"]:
        module = parse_module(text)
        PassPipeline.parse_spec(available, spec).apply(make_context(), module)
        printed[spec] = print_module(module)
    expected = parse_module(text)
    for p in build_passes(["stablehlo-lower-quant{rescale=stablehlo}"]):
        p.apply(make_context(), expected)
    assert set(printed.values()) == {print_module(expected)}
    assert "!quant" not in print_module(expected)
