"""`--args` of qcomp-run, as stablehlo-translate --interpret reads it:

    --args="[dense<1> : tensor<2xi32>, dense<[1.5, 2.0]> : tensor<2xf32>]"

an array attribute of dense elements attributes, one per argument of the entry
function, with upstream's messages for anything else.
"""

from __future__ import annotations

from qcomp.tools.run_inputs import GivenInput

USAGE = "--args=[dense<1> : tensor<2xi32>, ...]"


class ArgsError(Exception):
    """A bad `--args` (the message is upstream's)."""


def read_args(text: str) -> list[GivenInput]:
    from xdsl.dialects.builtin import ArrayAttr, DenseIntOrFPElementsAttr

    from qcomp.interpreter.values import dense_to_array
    from qcomp.ir import QcompParser
    from qcomp.registry import make_context

    try:
        attr = QcompParser(make_context(), text, "--args").parse_attribute()
    except Exception:  # noqa: BLE001 - any parse failure is upstream's "not an array"
        attr = None
    if not isinstance(attr, ArrayAttr):
        raise ArgsError(f"expectected array attribute string for args, i.e. {USAGE}")
    values = []
    for a in attr.data:
        if not isinstance(a, DenseIntOrFPElementsAttr):
            raise ArgsError(f"expected dense elements attribute for args elements, i.e. {USAGE}")
        values.append(GivenInput(f"--args element {len(values)}", dense_to_array(a), a.type))
    return values
