"""qcomp-opt's pass pipeline: MLIR's spellings (`-pass-pipeline='builtin.module(a,b{x=1})'`,
`--a='x=1 y=2'`, `-p a,b`) turned into a list of `ModulePass` instances."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

from xdsl.passes import ModulePass, get_pass_option_infos
from xdsl.utils.arg_spec import parse_pipeline

PassFactories = dict[str, Callable[[], type[ModulePass]]]

_NESTING = re.compile(r"[A-Za-z_][\w$]*(?:\.[\w$]+)+\(")


class PipelineError(Exception):
    """A pipeline that names an unknown pass or has malformed options."""


def normalize_argv(argv: list[str]) -> list[str]:
    """MLIR's single-dash long options (`-split-input-file`) as `--split-input-file`;
    `-o=FILE` as `-o FILE`."""
    out: list[str] = []
    for a in argv:
        if a.startswith("-o=") or a.startswith("-p="):
            out.extend([a[:2], a[3:]])
        elif a.startswith("-") and not a.startswith("--") and len(a) > 2:
            out.append("-" + a)
        else:
            out.append(a)
    return out


def split_pipeline_args(argv: list[str], passes: PassFactories) -> tuple[list[str], list[str]]:
    """Pull every pipeline-building argument out of argv, in order.

    Returns (remaining argv, pipeline texts in xDSL's `a{x=1},b` form)."""
    rest: list[str] = []
    specs: list[str] = []
    i = 0
    while i < len(argv):
        a = argv[i]
        key, eq, value = a.partition("=")
        if key in ("--pass-pipeline", "-p", "--passes"):
            if not eq:
                if i + 1 >= len(argv):
                    raise PipelineError(f"option '{key}' requires a value")
                i += 1
                value = argv[i]
            specs.append(flatten_mlir_pipeline(value))
        elif key.startswith("--") and (key[2:] in passes or key[2:] in _named_pipelines()
                                        or key[2:] in _xdsl_passes()):
            name = key[2:]
            specs.append(f"{name}{{{value.strip()}}}" if eq and value.strip() else name)
        else:
            rest.append(a)
        i += 1
    return rest, [s for s in specs if s]


def flatten_mlir_pipeline(text: str) -> str:
    """Drop MLIR's op-nesting wrappers (`builtin.module(...)`, `func.func(...)`): every
    qcomp pass runs on the whole module."""
    text = text.strip()
    if text.startswith("'") and text.endswith("'") or text.startswith('"') and text.endswith('"'):
        text = text[1:-1]
    while (m := _NESTING.search(text)) is not None:
        depth = 0
        close = -1
        for j in range(m.end() - 1, len(text)):
            if text[j] == "(":
                depth += 1
            elif text[j] == ")":
                depth -= 1
                if depth == 0:
                    close = j
                    break
        if close < 0:
            raise PipelineError(f"unbalanced parentheses in pass pipeline '{text}'")
        text = text[:m.start()] + text[m.end():close] + text[close + 1:]
    return text.strip().strip(",")


def build_passes(specs: list[str], passes: PassFactories) -> list[ModulePass]:
    """Instantiate the passes named in the pipeline texts."""
    result: list[ModulePass] = []
    for text in specs:
        try:
            arg_specs = list(parse_pipeline(text))
        except BaseException as e:  # ArgSpecParseError derives from BaseException
            if isinstance(e, (KeyboardInterrupt, SystemExit)):
                raise
            raise PipelineError(f"invalid pass pipeline '{text}': "
                                f"{str(e).splitlines()[-1].strip()}") from None
        for spec in _expand_named(arg_specs):
            factory = passes.get(spec.name) or _xdsl_passes().get(spec.name)
            if factory is None:
                raise PipelineError(
                    f"'{spec.name}' does not refer to a registered pass or pass pipeline")
            cls = factory()
            try:
                result.append(cls.from_pass_spec(spec))
            except (ValueError, TypeError) as e:
                raise PipelineError(f"invalid options for pass '{spec.name}': {e}") from None
    return result


def _named_pipelines() -> dict[str, tuple[str, str]]:
    from qcomp.registry import PIPELINES

    return PIPELINES


def _xdsl_passes() -> PassFactories:
    from qcomp.registry import XDSL_PASSES

    return XDSL_PASSES


def _expand_named(arg_specs: list, depth: int = 0) -> list:
    """Replace each named pipeline (`qcomp.registry.PIPELINES`) by its passes; options
    given to a pipeline go to its first pass."""
    if depth > 8:
        raise PipelineError("pass pipelines nest too deeply")
    out = []
    for spec in arg_specs:
        if spec.name not in _named_pipelines():
            out.append(spec)
            continue
        inner = list(parse_pipeline(_named_pipelines()[spec.name][0]))
        if spec.parameters:
            first = inner[0]
            inner[0] = type(first)(first.name, {**first.parameters, **spec.parameters})
        out.extend(_expand_named(inner, depth + 1))
    return out


def summary(cls: type) -> str:
    """First line of a class docstring."""
    doc = (cls.__doc__ or "").strip()
    return doc.splitlines()[0].strip() if doc else ""


def passes_help(passes: PassFactories) -> str:
    """`--help` text for every registered pass: name, one-line summary, options."""
    lines = ["registered passes (use --<name>[='opt=value ...'] or -p/--pass-pipeline):"]
    for name in sorted(passes):
        try:
            cls = passes[name]()
        except Exception as e:  # noqa: BLE001 - a broken pass must not break --help
            lines.append(f"  --{name:<44} (cannot be loaded: {e})")
            continue
        lines.append(f"  --{name:<44} {summary(cls)}")
        if dataclasses.is_dataclass(cls):
            for info in get_pass_option_infos(cls):
                default = f" (default: {info.default_value})" if info.default_value else ""
                kind = info.expected_type.replace("'", "")
                lines.append(f"      {info.name.replace('_', '-')}: {kind}{default}")
    lines.append("named pipelines:")
    for name, (spec, text) in sorted(_named_pipelines().items()):
        lines.append(f"  --{name:<44} {text} (runs {spec})")
    lines.append("xDSL clean-up passes: " + ", ".join(f"--{n}" for n in sorted(_xdsl_passes())))
    return "\n".join(lines)
