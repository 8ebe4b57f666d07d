"""`qcomp-run --args="[dense<1> : tensor<2xi32>, ...]"`: the entry's arguments as an
MLIR array of dense attributes, stablehlo-translate's `--interpret --args` spelling, with
its messages."""

from __future__ import annotations

from xdsl.dialects.builtin import ArrayAttr, DenseIntOrFPElementsAttr, TensorType

from qcomp.interpreter.errors import RunError
from qcomp.interpreter.values import dense_to_array
from qcomp.tools.run_inputs import GivenInput, InputError

NOT_ARRAY = ("expectected array attribute string for args, i.e. "  # upstream's spelling
             "--args=[dense<1> : tensor<2xi32>, ...]")
NOT_DENSE = ("expected dense elements attribute for args elements, i.e. "
             "--args=[dense<1> : tensor<2xi32>, ...]")


def read_args(text: str, max_bytes: int | None = None) -> list[GivenInput]:
    """The arrays of `--args`, one per entry argument, in order."""
    from xdsl.utils.exceptions import ParseError

    from qcomp.ir import QcompParser
    from qcomp.registry import make_context

    try:
        parser = QcompParser(make_context(), text, "--args")
        attr = parser.parse_attribute()
    except ParseError:
        raise InputError(NOT_ARRAY) from None
    except RecursionError:
        raise InputError("--args: nesting too deep: the array or its attributes are nested "
                         "past the depth qcomp's parser follows") from None
    if not isinstance(attr, ArrayAttr):
        raise InputError(NOT_ARRAY)
    values = []
    for element in attr.data:
        if not isinstance(element, DenseIntOrFPElementsAttr) or \
                not isinstance(element.get_type(), TensorType):
            raise InputError(NOT_DENSE)
        try:
            array = dense_to_array(element, element.get_type(), max_bytes)
        except RunError as e:
            raise InputError(f"--args: {e.message}") from None
        values.append(GivenInput("--args", array, element.get_type()))
    return values
