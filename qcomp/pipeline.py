"""Pass pipelines by name: MLIR's pipeline text (`a,b{opt=v}`, `builtin.module(...)`)
turned into `ModulePass` instances, one lookup for every name qcomp answers to (its
passes and their aliases, the named pipelines, xDSL's clean-up passes), with
"did you mean" for a misspelt one. qcomp-opt, `qcomp.run_pipeline` and the xDSL plugin
all go through here.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from qcomp import registry

if TYPE_CHECKING:  # xDSL's pass machinery loads with the first pipeline text
    from xdsl.context import Context
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.passes import ModulePass
    from xdsl.utils.arg_spec import ArgSpec

_NESTING = re.compile(r"[A-Za-z_][\w$]*(?:\.[\w$]+)+\(")


class PipelineError(Exception):
    """A pipeline that names an unknown pass or has malformed options."""


def all_names() -> list[str]:
    """Every name a pass or pipeline can be run by."""
    return sorted({*registry.PASSES, *registry.PASS_ALIASES, *registry.PIPELINES,
                   *registry.XDSL_PASSES})


def is_pass_name(name: str) -> bool:
    return any(name in names for names in (registry.PASSES, registry.PASS_ALIASES,
                                           registry.PIPELINES, registry.XDSL_PASSES))


def suggestion(word: str, candidates: Iterable[str]) -> str | None:
    """The candidate closest to `word` by edit distance (at most a third of its length
    apart, as LLVM's option parser suggests), else None."""
    best, best_distance = None, max(2, len(word) // 3) + 1
    for c in sorted(candidates):
        d = edit_distance(word, c, best_distance)
        if d < best_distance:
            best, best_distance = c, d
    return best


def edit_distance(a: str, b: str, limit: int) -> int:
    """Levenshtein distance of `a` and `b`, or `limit` when it is at least that."""
    if abs(len(a) - len(b)) >= limit:
        return limit
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        row = [i]
        for j, cb in enumerate(b, 1):
            row.append(min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (ca != cb)))
        if min(row) >= limit:
            return limit
        previous = row
    return min(previous[-1], limit)


def unknown_pass(name: str) -> str:
    """MLIR's message for a pipeline naming no registered pass, with a suggestion."""
    text = f"'{name}' does not refer to a registered pass or pass pipeline"
    near = suggestion(name, all_names())
    return text + (f"; did you mean '{near}'?" if near else "")


def lookup(name: str) -> type[ModulePass]:
    """The pass class run by `name` (a pass, an alias, an xDSL clean-up pass, or a named
    pipeline as one pass: `pipeline_pass`); PipelineError otherwise."""
    if name in registry.PASSES:
        return registry.PASSES[name]()
    if name in registry.PASS_ALIASES:
        return registry.pass_class(name)
    if name in registry.XDSL_PASSES:
        return registry.XDSL_PASSES[name]()
    if name in registry.PIPELINES:
        return pipeline_pass(name)
    raise PipelineError(unknown_pass(name))


def flatten_mlir_pipeline(text: str) -> str:
    """Drop MLIR's op-nesting wrappers (`builtin.module(...)`, `func.func(...)`): every
    qcomp pass runs on the whole module."""
    text = text.strip()
    if (text.startswith("'") and text.endswith("'")) or (text.startswith('"') and text.endswith('"')):
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


def parse_specs(text: str) -> list[ArgSpec]:
    """The pass specs of a pipeline text (MLIR's nesting wrappers dropped)."""
    text = re.sub(r"\s*,\s*", ",", flatten_mlir_pipeline(text))  # MLIR allows `a, b`
    if not text:
        return []
    from xdsl.utils.arg_spec import parse_pipeline

    try:
        return list(parse_pipeline(text))
    except BaseException as e:  # ArgSpecParseError derives from BaseException
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        raise PipelineError(f"invalid pass pipeline '{text}': "
                            f"{str(e).splitlines()[-1].strip()}") from None


def build_passes(specs: list[str]) -> list[ModulePass]:
    """Instantiate the passes named in the pipeline texts (named pipelines expanded to
    their passes, aliases to their canonical pass)."""
    result: list[ModulePass] = []
    for text in specs:
        from xdsl.utils.arg_spec import ArgSpec

        for spec in _expand_named(parse_specs(text)):
            if spec.name in registry.PIPELINES or not is_pass_name(spec.name):
                raise PipelineError(unknown_pass(spec.name))
            name = registry.PASS_ALIASES.get(spec.name, spec.name)
            cls = lookup(name)
            result.append(instantiate(cls, ArgSpec(name, spec.parameters)))
    return result


def instantiate(cls: type[ModulePass], spec: ArgSpec) -> ModulePass:
    """`cls` with the options of `spec`, each checked against its allowed values."""
    if dataclasses.is_dataclass(cls):
        fields = {f.name.replace("_", "-"): f.name for f in dataclasses.fields(cls)}
        for key in spec.parameters:
            if key not in fields and key.replace("_", "-") not in fields:
                near = suggestion(key, fields)
                hint = f"; did you mean '{near}'?" if near else (
                    f" (it takes {', '.join(fields)})" if fields else " (it takes none)")
                raise PipelineError(f"pass '{spec.name}' has no option '{key}'{hint}")
    for key, allowed in getattr(cls, "OPTION_CHOICES", {}).items():
        given = spec.parameters.get(key)
        if given is not None and (len(given) != 1 or str(given[0]) not in allowed):
            value = ",".join(str(v) for v in given)
            raise PipelineError(f"invalid value '{value}' for option '{key}' of pass "
                                f"'{spec.name}' (one of {', '.join(allowed)})")
    try:
        return cls.from_pass_spec(spec)
    except (ValueError, TypeError) as e:
        raise PipelineError(f"invalid options for pass '{spec.name}': {e}") from None


def _expand_named(arg_specs: list[ArgSpec], depth: int = 0) -> list[ArgSpec]:
    """Replace each named pipeline (`qcomp.registry.PIPELINES`) by its passes; options
    given to a pipeline go to its first pass."""
    from xdsl.utils.arg_spec import ArgSpec, parse_pipeline

    if depth > 8:
        raise PipelineError("pass pipelines nest too deeply")
    out = []
    for spec in arg_specs:
        if spec.name not in registry.PIPELINES:
            out.append(spec)
            continue
        inner = list(parse_pipeline(registry.PIPELINES[spec.name][0]))
        if spec.parameters:
            first = inner[0]
            inner[0] = ArgSpec(first.name, {**first.parameters, **spec.parameters})
        out.extend(_expand_named(inner, depth + 1))
    return out


_PIPELINE_PASSES: dict[str, type[ModulePass]] = {}


def pipeline_pass(name: str) -> type[ModulePass]:
    """A named pipeline as one pass class named `name` (for the xDSL plugin, whose
    `xdsl-opt -p` knows passes only): the first pass's options, applying every pass of
    the pipeline in turn."""
    if name not in _PIPELINE_PASSES:
        from xdsl.utils.arg_spec import parse_pipeline

        first_spec, *rest_specs = parse_pipeline(registry.PIPELINES[name][0])
        first = lookup(first_spec.name)

        def apply(self: Any, ctx: Context, op: ModuleOp) -> None:
            options = {f.name: getattr(self, f.name) for f in dataclasses.fields(first)}
            first(**options).apply(ctx, op)
            for spec in rest_specs:
                instantiate(lookup(spec.name), spec).apply(ctx, op)

        doc = f"{registry.PIPELINES[name][1]}\n\nRuns: `{registry.PIPELINES[name][0]}`."
        cls = type(f"{first.__name__}Pipeline", (first,),
                   {"name": name, "apply": apply, "__doc__": doc, "__module__": __name__})
        _PIPELINE_PASSES[name] = cls
    return _PIPELINE_PASSES[name]


def pipeline_factories() -> dict[str, Callable[[], type[ModulePass]]]:
    """name -> factory for every alias and named pipeline (the xDSL plugin's extras)."""
    factories: dict[str, Callable[[], type[ModulePass]]] = {}
    for name in registry.PASS_ALIASES:
        factories[name] = lambda name=name: registry.pass_class(name)
    for name in registry.PIPELINES:
        factories[name] = lambda name=name: pipeline_pass(name)
    return factories


# ----------------------------------------------------------------- the passes described


@dataclasses.dataclass(frozen=True)
class OptionDoc:
    """One pass option as `--help` and docs/passes.md show it."""

    name: str
    type: str
    default: str
    choices: tuple[str, ...] = ()


def option_docs(cls: type[ModulePass]) -> list[OptionDoc]:
    """The options of a pass class: name (MLIR's dashes), type, default, allowed values."""
    from xdsl.passes import get_pass_option_infos

    if not dataclasses.is_dataclass(cls):
        return []
    choices = getattr(cls, "OPTION_CHOICES", {})
    docs = []
    for info, f in zip(get_pass_option_infos(cls), dataclasses.fields(cls)):
        kind = info.expected_type.replace("'", "")
        allowed = tuple(choices.get(f.name, ("true", "false") if kind == "bool" else ()))
        default = ("(required)" if f.default is dataclasses.MISSING
                   else str(f.default).lower() if isinstance(f.default, bool) else str(f.default))
        docs.append(OptionDoc(f.name.replace("_", "-"), kind, default, allowed))
    return docs


def summary(cls: type) -> str:
    """The first paragraph of a class docstring, as one line."""
    doc = (cls.__doc__ or "").strip()
    return " ".join(doc.split("\n\n")[0].split()) if doc else ""


def aliases_of(name: str) -> list[str]:
    return sorted(a for a, c in registry.PASS_ALIASES.items() if c == name)
