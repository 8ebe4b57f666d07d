"""qcomp-opt's pass arguments: MLIR's spellings (`-pass-pipeline='builtin.module(a,b{x=1})'`,
`--a='x=1 y=2'`, `-p a,b`) pulled out of argv as pipeline texts (`qcomp.pipeline` builds
them), and the passes' part of `--help` / `--list-passes`."""

from __future__ import annotations

import textwrap

from qcomp.pipeline import (
    PipelineError,
    aliases_of,
    all_names,
    flatten_mlir_pipeline,
    is_pass_name,
    option_docs,
    summary,
)


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


def split_pipeline_args(argv: list[str]) -> tuple[list[str], list[str]]:
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
        elif key.startswith("--") and is_pass_name(key[2:]):
            name = key[2:]
            specs.append(f"{name}{{{value.strip()}}}" if eq and value.strip() else name)
        else:
            rest.append(a)
        i += 1
    return rest, [s for s in specs if s]


def _load(name: str):
    from qcomp.pipeline import lookup

    try:
        return lookup(name), None
    except Exception as e:  # noqa: BLE001 - a broken pass must not break --help
        return None, e


def list_passes() -> str:
    """`--list-passes`: every name with its one-line summary (aliases and pipelines
    say what they stand for)."""
    from qcomp.registry import PASS_ALIASES, PASSES, PIPELINES, XDSL_PASSES

    lines = []
    width = max(map(len, all_names())) + 2
    for name in all_names():
        if name in PASS_ALIASES:
            text = f"alias of {PASS_ALIASES[name]}"
        elif name in PIPELINES:
            text = f"pipeline: {PIPELINES[name][0]}"
        else:
            cls, error = _load(name)
            text = summary(cls) if cls is not None else f"(cannot be loaded: {error})"
            if name in XDSL_PASSES:
                text = f"(xDSL) {text or 'xDSL' + chr(39) + 's ' + name + ' pass'}"
            elif name not in PASSES:
                continue
        lines.append(f"{name:<{width}}{text}")
    return "\n".join(lines)


def passes_help(width: int = 88) -> str:
    """`--help`'s passes: each with its whole summary, aliases, and options (type,
    default, allowed values); the named pipelines; xDSL's clean-up passes."""
    from qcomp.registry import PASSES, PIPELINES, XDSL_PASSES

    def para(text: str, indent: str) -> list[str]:
        return textwrap.wrap(text, width, initial_indent=indent, subsequent_indent=indent,
                             break_on_hyphens=False)

    lines = ["passes (run with --<name>[='opt=value ...'] or -p/--pass-pipeline "
             "'name{opt=value}'):"]
    for name in sorted(PASSES):
        lines.append(f"  --{name}")
        cls, error = _load(name)
        if cls is None:
            lines.append(f"      (cannot be loaded: {error})")
            continue
        lines += para(summary(cls), "      ")
        if aliases := aliases_of(name):
            lines.append("      alias: " + ", ".join(f"--{a}" for a in aliases))
        for opt in option_docs(cls):
            allowed = f" ({'|'.join(opt.choices)})" if opt.choices else ""
            lines.append(f"      {opt.name}: {opt.type}{allowed}, default {opt.default}")
    lines.append("pipelines (options go to the first pass):")
    for name, (spec, text) in sorted(PIPELINES.items()):
        lines.append(f"  --{name}")
        lines += para(f"{text} Runs {spec}.", "      ")
    lines.append("xDSL's clean-up passes: " + ", ".join(f"--{n}" for n in sorted(XDSL_PASSES)))
    return "\n".join(lines)


def tool_version() -> str:
    """qcomp's version from the installed package's metadata (the checkout's pyproject
    when qcomp runs uninstalled)."""
    from importlib import metadata

    try:
        return metadata.version("qcomp")
    except metadata.PackageNotFoundError:
        return "unknown (not installed)"
