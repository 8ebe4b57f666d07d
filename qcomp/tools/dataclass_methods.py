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

The code objects are also kept between runs, as Python keeps a module's bytecode: the
tools `save()` the texts compiled in a run to `__pycache__/dataclass_methods.<tag>.methods`
beside this module's `.pyc` (the interpreter's magic number first, then the marshalled
text -> code dict; written only when the run compiled a new text, not at all under
`PYTHONDONTWRITEBYTECODE`, atomically, errors ignored), and `install()` reads them back.
A file of another Python, or unreadable, is ignored. The key is the whole text, so a
stale entry is never used for a different method; the file is started afresh past
`MAX_ENTRIES` texts.

Installed by `qcomp.tools` (so by `qcomp-opt` and `qcomp-run`, before they import xDSL),
never by the library: a program importing `qcomp` keeps the standard `dataclasses`. Only
on the CPython versions whose `dataclasses._create_fn` this mirrors (3.10-3.12; 3.13
builds the methods differently); elsewhere nothing is changed.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import marshal
import os
import sys
from types import CodeType

_CODE: dict[str, CodeType] = {}
"""Generated method text -> its compiled code."""
_USED: set[str] = set()
"""The texts this process made methods from."""
_STORED: set[str] = set()
"""The texts read from (or last written to) the cache file."""
MAX_ENTRIES = 5000
"""Past this many texts the cache file keeps only the last run's."""


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
    _USED.add(txt)
    ns: dict[str, object] = {}
    exec(code, globals, ns)
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
    _load()
    dataclasses._create_fn = _create_fn
    return True


def cache_path() -> str:
    """The cache file: beside this module's `.pyc` (`PYTHONPYCACHEPREFIX` respected)."""
    pyc = importlib.util.cache_from_source(__file__)
    return pyc.removesuffix(".pyc").removesuffix(".opt-1").removesuffix(".opt-2") + ".methods"


def _load() -> None:
    try:
        with open(cache_path(), "rb") as f:
            data = f.read()
        if not data.startswith(importlib.util.MAGIC_NUMBER):
            return
        stored = marshal.loads(data[len(importlib.util.MAGIC_NUMBER):])
    except Exception:  # noqa: BLE001 - no file, or a damaged one: compile as usual
        return
    if isinstance(stored, dict) and all(isinstance(k, str) and isinstance(v, CodeType)
                                        for k, v in stored.items()):
        for text, code in stored.items():
            _CODE.setdefault(text, code)
        _STORED.update(stored)


def save() -> None:
    """Write the cache file if this run compiled a text it does not hold (not under
    `PYTHONDONTWRITEBYTECODE`); never raises."""
    if sys.dont_write_bytecode or dataclasses._create_fn is not _create_fn:
        return
    if _STORED.issuperset(_CODE):
        return
    path = cache_path()
    entries = _CODE if len(_CODE) <= MAX_ENTRIES else {t: _CODE[t] for t in _USED}
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(tmp, "wb") as f:
            f.write(importlib.util.MAGIC_NUMBER + marshal.dumps(dict(entries)))
        os.replace(tmp, path)
    except Exception:  # noqa: BLE001 - a read-only install: nothing kept, nothing broken
        try:
            os.unlink(tmp)
        except OSError:
            pass
        return
    _STORED.clear()
    _STORED.update(entries)
