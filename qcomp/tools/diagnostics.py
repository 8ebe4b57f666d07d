"""Diagnostics for qcomp-opt: MLIR's `file:line:col: error: message` text with the
source line and a caret, and MLIR's `-verify-diagnostics` checking of
`// expected-error @+1 {{...}}` comments."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field


class SourceFile:
    """Text of one input with offset -> (line, column) lookup (both 1-based).

    `imported`: the text is a model's import (`.onnx`, `.tflite`), never seen by the
    user: diagnostics name the op's origin in the model (`origins`, offset -> the
    `loc("...")` the importer gave the op, e.g. `operator 3 (CONV_2D)`), not a line."""

    def __init__(self, name: str, text: str, imported: bool = False):
        self.name = name
        self.text = text
        self.imported = imported
        self.origins: dict[int, str] = {}
        self._line_starts: list[int] | None = None

    def note_origins(self, positions: dict) -> None:
        """Record the named location of each parsed op (op -> offset) of an import."""
        if not self.imported:
            return
        from xdsl.dialects.builtin import NameLoc

        for op, offset in positions.items():
            if isinstance(op.location, NameLoc):
                self.origins[offset] = op.location.desc.data

    @property
    def _starts(self) -> list[int]:
        """Offsets where lines start, found on first use (most chunks need none: a run of
        many `// -----` chunks would otherwise scan every chunk's padding)."""
        if self._line_starts is None:
            self._line_starts = [0] + [m.end() for m in re.finditer(r"\n", self.text)]
        return self._line_starts

    def line_col(self, offset: int) -> tuple[int, int]:
        offset = max(0, min(offset, len(self.text)))
        line = bisect.bisect_right(self._starts, offset)
        return line, offset - self._starts[line - 1] + 1

    def line_text(self, line: int) -> str:
        start = self._starts[line - 1]
        end = self.text.find("\n", start)
        return self.text[start:] if end < 0 else self.text[start:end]

    def line_count(self) -> int:
        return len(self._starts)


@dataclass
class Diagnostic:
    """One message; `offset` is None for an unknown location."""

    severity: str  # "error" | "warning" | "note" | "remark"
    message: str
    offset: int | None = None
    notes: list[Diagnostic] = field(default_factory=list)


def render(source: SourceFile, diag: Diagnostic) -> str:
    """MLIR's text for a diagnostic (and its notes), each with line and caret."""
    out = []
    for d in [diag, *diag.notes]:
        if d.offset is None:
            out.append(f"loc(unknown): {d.severity}: {d.message}\n")
            continue
        if source.imported:
            where = source.origins.get(d.offset)
            where = f" {where}:" if where else ""
            out.append(f"{source.name}:{where} {d.severity}: {d.message}\n")
            continue
        line, col = source.line_col(d.offset)
        text = source.line_text(line)
        caret = "".join(c if c == "\t" else " " for c in text[:col - 1]) + "^"
        out.append(f"{source.name}:{line}:{col}: {d.severity}: {d.message}\n{text}\n{caret}\n")
    return "".join(out)


# ---------------------------------------------------------------------------
# -verify-diagnostics

_EXPECTED = re.compile(
    r"expected-(error|note|remark|warning)(-re)? *"
    r"(?:@([+-][0-9]+|above|below|unknown))? *\{\{(.*)\}\}\s*$")


@dataclass
class Expected:
    severity: str
    text: str
    is_regex: bool
    line: int | None  # None: @unknown
    offset: int  # where the `expected-...` comment starts
    matched: bool = False

    def matches(self, message: str) -> bool:
        if not self.is_regex:
            return self.text in message
        try:
            return re.search(_mlir_regex(self.text), message) is not None
        except re.error:
            return False  # a broken pattern matches nothing: reported as not produced


def _mlir_regex(text: str) -> str:
    """`-re` text: `{{...}}` parts are regexes, the rest is literal."""
    out = []
    pos = 0
    while (start := text.find("{{", pos)) >= 0:
        end = text.find("}}", start + 2)
        if end < 0:
            break
        out.append(re.escape(text[pos:start]))
        out.append("(?:" + text[start + 2:end] + ")")
        pos = end + 2
    out.append(re.escape(text[pos:]))
    return "".join(out)


def collect_expected(source: SourceFile, first_line: int = 1, last_line: int | None = None
                     ) -> list[Expected]:
    """The `expected-*` designators on lines first_line..last_line."""
    found: list[Expected] = []
    last_plain = 0
    pending_below: list[Expected] = []
    end = source.line_count() if last_line is None else last_line
    for line in range(first_line, end + 1):
        text = source.line_text(line)
        m = _EXPECTED.search(text)
        if m is None:
            # as in MLIR, any other line (blank and comment lines too) counts
            last_plain = line
            for e in pending_below:
                e.line = line
            pending_below = []
            continue
        severity, regex, where, body = m.groups()
        offset = source._starts[line - 1] + m.start()
        e = Expected(severity, body, regex is not None, line, offset)
        if where is None:
            pass
        elif where == "unknown":
            e.line = None
        elif where == "above":
            e.line = last_plain
        elif where == "below":
            pending_below.append(e)
        else:
            e.line = line + int(where)
        found.append(e)
    return found


def check_expected(source: SourceFile, expected: list[Expected],
                   produced: list[Diagnostic]) -> list[Diagnostic]:
    """MLIR's verdict: the errors to report (empty when everything matched)."""
    problems: list[Diagnostic] = []
    for diag in produced:
        for d in [diag, *diag.notes]:
            line = None if d.offset is None else source.line_col(d.offset)[0]
            hit = next((e for e in expected if not e.matched and e.severity == d.severity
                        and e.line == line and e.matches(d.message)), None)
            if hit is None:
                problems.append(Diagnostic(
                    "error", f"unexpected {d.severity}: {d.message}", d.offset))
            else:
                hit.matched = True
    for e in expected:
        if not e.matched:
            problems.append(Diagnostic(
                "error", f'expected {e.severity} "{e.text}" was not produced', e.offset))
    return problems
