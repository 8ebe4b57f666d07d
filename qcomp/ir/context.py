"""Contexts for MLIR text: builtin and func loaded, other dialects registered lazily."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import Builtin
from xdsl.dialects.func import Func
from xdsl.ir import Attribute, Dialect, Operation, TypeAttribute

Definitions = Callable[[str], Iterable[type[Operation] | type[Attribute]]]
"""An op or attribute name -> the classes to load for it (those of the module defining
it: `qcomp.ir.lazy_dialect.SourceIndex.definitions`), or none for an unknown name."""


@dataclass
class QcompContext(Context):
    """xDSL's context, loading a dialect that has `definitions` a piece at a time: the
    first op, type or attribute of it that is parsed or looked up loads the classes
    `definitions` gives for that name, not the whole dialect (which still loads whole
    when asked for by name, or for a name no piece defines)."""

    _definitions: dict[str, Definitions] = field(default_factory=dict)

    def clone(self) -> QcompContext:
        return QcompContext(self.allow_unregistered, self._loaded_dialects.copy(),
                            self._loaded_ops.copy(), self._loaded_attrs.copy(),
                            self._loaded_types.copy(), self._registered_dialects.copy(),
                            self._definitions.copy())

    def _load_definitions(self, name: str) -> None:
        dialect = name.partition(".")[0]
        definitions = self._definitions.get(dialect)
        if definitions is None or dialect in self._loaded_dialects:
            return
        for cls in definitions(name):
            self._load_once(cls)

    def _load_once(self, cls: type[Operation | Attribute]) -> None:
        if issubclass(cls, Operation):
            loaded = self._loaded_ops
        elif issubclass(cls, TypeAttribute):
            loaded = self._loaded_types
        else:
            loaded = self._loaded_attrs
        if loaded.setdefault(cls.name, cls) is not cls:
            self.load_op(cls) if loaded is self._loaded_ops else self.load_attr_or_type(cls)

    def load_registered_dialect(self, name: str) -> None:
        if name not in self._definitions:
            return super().load_registered_dialect(name)
        dialect = self._registered_dialects[name]()
        self._loaded_dialects[dialect.name] = dialect
        for cls in (*dialect.operations, *dialect.attributes):
            self._load_once(cls)

    def _get_known_op(self, name: str) -> type[Operation] | None:
        if name not in self._loaded_ops:
            self._load_definitions(name)
        return super()._get_known_op(name)

    def get_optional_type(self, name: str) -> type[TypeAttribute] | None:
        if name not in self._loaded_types:
            self._load_definitions(name)
        return super().get_optional_type(name)

    def get_optional_attr(self, name: str) -> type[Attribute] | None:
        if name not in self._loaded_attrs:
            self._load_definitions(name)
        return super().get_optional_attr(name)


def new_context(dialects: Mapping[str, Callable[[], Dialect]],
                allow_unregistered: bool = False,
                definitions: Mapping[str, Definitions] | None = None) -> QcompContext:
    """A context with builtin and func loaded and each of `dialects` (name -> factory)
    registered: imported and loaded the first time one of its ops or types is parsed or
    looked up, so a run pays only for the dialects its input uses; a dialect with
    `definitions` (name -> loader) loads only the modules defining the names used. A
    `func` entry is loaded at once in place of xDSL's."""
    ctx = QcompContext(allow_unregistered=allow_unregistered,
                       _definitions=dict(definitions or {}))
    ctx.load_dialect(Builtin)
    ctx.load_dialect(dialects["func"]() if "func" in dialects else Func)
    for name, factory in dialects.items():
        if name != "func":
            ctx.register_dialect(name, factory)
    return ctx
