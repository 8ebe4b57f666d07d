"""Errors from custom parsers: MLIR prefixes them with `custom op '<name>' `.

`custom_parser` marks an op's custom parser; `op_error` raises a parse error with the
prefix of the op being parsed. Below `attrs.py` and `format.py`, which both raise them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import NoReturn

from xdsl.parser import AttrParser, Parser

_parsing: list[str] = []


@contextmanager
def parsing_op(cls) -> Iterator[None]:
    """Within this block `op_error` prefixes its messages with `cls`'s name (a custom
    parser, or a custom directive of a declarative format)."""
    _parsing.append(cls.name)
    try:
        yield
    finally:
        _parsing.pop()


def custom_parser(fn: Callable) -> Callable:
    """Mark `fn(cls, parser)` as the custom parser of `cls` (for `op_error`'s prefix)."""
    @functools.wraps(fn)
    def wrapper(cls, parser: Parser):
        with parsing_op(cls):
            return fn(cls, parser)

    return wrapper


def op_error(parser: Parser | AttrParser, message: str, pos: int | None = None) -> NoReturn:
    """Raise a parse error, prefixed like MLIR's when inside an op's custom parser."""
    prefix = f"custom op '{_parsing[-1]}' " if _parsing else ""
    parser.raise_error(prefix + message, pos)
