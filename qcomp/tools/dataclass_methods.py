"""The command-line tools' start-up: each generated dataclass method compiled once per
distinct text.

`@dataclass` writes the source of every method it adds (`__init__`, `__repr__`, `__eq__`,
a frozen class's `__setattr__` / `__delattr__`, `__hash__`) and compiles it with `exec`.
xDSL defines its attributes, constraints and assembly-format directives as dataclasses
(hundreds of classes in the modules a tool imports), so compiling those texts was a
third of `qcomp-opt`'s start-up beyond `import numpy, xdsl.dialects.builtin` (CPython's
parser and compiler: 0.21 G of 1.53 G instructions). Most texts repeat: every frozen
class's `__setattr__` is the same text, and so is `__init__` / `__repr__` / `__eq__` of
classes with the same field names. `install()` makes `dataclasses` compile each distinct
text once per process and reuse the code object (immutable; each class still gets its
own function objects, made from it with the class's own globals and locals exactly as
before), nothing else changed.

Installed by `qcomp.tools` (so by `qcomp-opt` and `qcomp-run`, before they import xDSL),
never by the library: a program importing `qcomp` keeps the standard `dataclasses`. Only
on the CPython versions whose `dataclasses._create_fn` this mirrors (3.10-3.12; 3.13
builds the methods differently); elsewhere nothing is changed.
"""

from __future__ import annotations

import dataclasses
import sys

_CODE: dict[str, object] = {}
"""Generated method text -> its compiled code."""


def _create_fn(name, args, body, *, globals=None, locals=None,
               return_type=dataclasses.MISSING):
    # CPython 3.10-3.12's `dataclasses._create_fn`, with `exec` of a cached code object
    # in place of `exec` of the text
    if locals is None:
        locals = {}
    return_annotation = ""
    if return_type is not dataclasses.MISSING:
        locals["_return_type"] = return_type
        return_annotation = "->_return_type"
    args = ",".join(args)
    body = "\n".join(f"  {b}" for b in body)
    txt = f" def {name}({args}){return_annotation}:\n{body}"
    local_vars = ", ".join(locals.keys())
    txt = f"def __create_fn__({local_vars}):\n{txt}\n return {name}"
    code = _CODE.get(txt)
    if code is None:
        code = _CODE[txt] = compile(txt, "<string>", "exec")
    ns: dict[str, object] = {}
    exec(code, globals, ns)  # noqa: S102 - dataclasses' own generated text
    return ns["__create_fn__"](**locals)


def _mirrors(fn) -> bool:
    """Whether `fn` is the `_create_fn` this module copies (same arguments, same names)."""
    code = getattr(fn, "__code__", None)
    return (code is not None and code.co_argcount == 3 and code.co_kwonlyargcount == 3
            and code.co_varnames[:6] == ("name", "args", "body", "globals", "locals",
                                         "return_type")
            and "__create_fn__" in "".join(c for c in code.co_consts if isinstance(c, str)))


def install() -> bool:
    """Make `dataclasses` compile each generated method text once; False (nothing
    changed) on a Python whose `dataclasses` differs."""
    current = getattr(dataclasses, "_create_fn", None)
    if current is _create_fn:
        return True
    if not (3, 10) <= sys.version_info[:2] <= (3, 12) or not _mirrors(current):
        return False
    dataclasses._create_fn = _create_fn
    return True
