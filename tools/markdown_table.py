"""The markdown tables the zoo runners print (tools/onnx_zoo.py, tools/tflite_zoo.py): a
header, then one row per measured model as it is measured."""

from __future__ import annotations


def print_header(cols: list[str]) -> None:
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))


def print_row(row: dict, cols: list[str]) -> None:
    """`row`'s cells in `cols` order: floats to 3 significant digits, a missing cell
    empty, `|` in text (a diagnostic) as `/`."""
    cells = []
    for c in cols:
        v = row.get(c, "")
        cells.append(f"{v:.3g}" if isinstance(v, float) else str(v).replace("|", "/"))
    print("| " + " | ".join(cells) + " |", flush=True)
