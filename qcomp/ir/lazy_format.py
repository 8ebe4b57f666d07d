"""xDSL's `irdl_op_definition`, reading an op's declarative `assembly_format` when the op
is first parsed or printed instead of when its class is defined.

Reading a format (xDSL's `FormatProgram.from_str`) is most of the cost of defining an
op class, and a program uses a few of a dialect's ops: StableHLO's elementwise module
alone defines 44 ops with formats. The op's definition (`get_irdl_definition()`, its
`assembly_format`) is unchanged; a format that does not read is an error at the op's
first use (`format_program` reads one now: `tests/ir/test_lazy_format.py` reads every
op's).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

from xdsl.ir import Operation
from xdsl.irdl import IRDLOperation
from xdsl.irdl.operations import OpDef, PyRDLOpDefinitionError, get_accessors_from_op_def
from xdsl.utils.exceptions import ParseError

OpT = TypeVar("OpT", bound=IRDLOperation)


def read_formats(ops: Iterable[type[Operation]]) -> None:
    """Read the assembly formats of `ops` now (those defined here), e.g. before a
    process forks copies of itself."""
    for op in ops:
        if "format_program" in vars(op):
            op.format_program()


def irdl_op_definition(cls: type[OpT]) -> type[OpT]:
    """xDSL's decorator of the same name, with the assembly format read on first use."""
    assert issubclass(cls, IRDLOperation), f"class {cls.__name__} should be a subclass of IRDLOperation"
    op_def = OpDef.from_pyrdl(cls)
    text, op_def.assembly_format = op_def.assembly_format, None
    new_attrs = get_accessors_from_op_def(op_def, getattr(cls, "verify_", None))
    op_def.assembly_format = text
    if text is not None:
        program = []

        def format_program():
            if not program:
                from xdsl.irdl.declarative_assembly_format import FormatProgram

                try:
                    program.append(FormatProgram.from_str(text, op_def))
                except ParseError as e:
                    raise PyRDLOpDefinitionError(
                        "Error during the parsing of the assembly format: ", e.args) from e
            return program[0]

        def parse(op_type, parser):
            return format_program().parse(parser, op_type)

        def print_(self, printer):
            return format_program().print(printer, self)

        new_attrs["parse"] = classmethod(parse)
        new_attrs["print"] = print_
        new_attrs["format_program"] = staticmethod(format_program)
    for key, value in new_attrs.items():
        setattr(cls, key, value)
    return cls
