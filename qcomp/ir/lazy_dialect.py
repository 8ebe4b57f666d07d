"""A dialect package whose modules load one at a time, as their ops are first used.

A big dialect (StableHLO: ~120 ops and attributes in a dozen modules) costs a large part
of a tool's start-up to import whole, while a program uses a few of its ops. A
`SourceIndex` reads which of the package's modules defines each op and attribute name
(`name = "dialect.op"` in a class body) and each class (`class X`) from the modules'
source text (no import, about a millisecond), so that:
- a context (`qcomp.ir.context.QcompContext`) imports only the modules defining the ops
  and attributes a program names (`definitions`);
- the package's `__init__` hands out a class by importing only its module
  (`module_of_class`).
Each name is still written once, in its class; `tests/dialects/test_lazy_dialect.py`
checks the index against the whole dialect.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Sequence
from pathlib import Path

from xdsl.ir import Attribute, Operation


class SourceIndex:
    """Op/attribute names and class names of the modules `files` (`"ops.py"`) of the
    package `package`, whose directory is `path` -> the module defining each."""

    def __init__(self, package: str, path: Path, dialect: str, files: Sequence[str]):
        self.package = package
        self.path = path
        self.modules = tuple(file.removesuffix(".py") for file in files)
        self._dialect = dialect
        self._names: dict[str, list[str]] | None = None
        self._classes: dict[str, str] = {}

    def _read(self) -> dict[str, list[str]]:
        if self._names is None:
            names: dict[str, list[str]] = {}
            # a class's `name = "..."` and a top-level class, each at a line's start
            found = re.compile(r'\n    name = "(' + re.escape(self._dialect) +
                               r'\.[\w.]+)"|\nclass (\w+)')
            for module in self.modules:
                text = (self.path / f"{module}.py").read_text()
                for name, cls in found.findall(text):
                    if name:
                        names.setdefault(name, []).append(module)
                    else:
                        self._classes.setdefault(cls, module)
            self._names = names
        return self._names

    def names(self) -> dict[str, list[str]]:
        """Every op and attribute name -> the modules defining one of that name (an
        attribute may share an op's name: `#stablehlo.dot`)."""
        return dict(self._read())

    def module_of_class(self, name: str) -> str | None:
        self._read()
        return self._classes.get(name)

    def is_module(self, name: str) -> bool:
        return (self.path / f"{name}.py").is_file() or (self.path / name / "__init__.py").is_file()

    def definitions(self, name: str) -> list[type[Operation | Attribute]]:
        """The op and attribute classes of the modules defining `name` (imported now),
        or [] for a name no module defines."""
        names = self._read()
        found: list[type[Operation | Attribute]] = []
        for module_name in names.get(name, ()):
            module = importlib.import_module(f"{self.package}.{module_name}")
            found += [cls for cls in vars(module).values()
                      if isinstance(cls, type) and cls.__module__ == module.__name__
                      and isinstance(getattr(cls, "name", None), str)
                      and module_name in names.get(cls.name, ())
                      and issubclass(cls, Operation | Attribute)]
        return found
