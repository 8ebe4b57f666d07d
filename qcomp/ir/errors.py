"""Verifier errors in MLIR's two forms.

MLIR's `op->emitOpError(...)` writes `'<op>' op <message>`; `op->emitError(...)` writes
the message alone (the quant ops' own verifiers do: "scalar types may not use per-axis
quantization"). A verifier raises `xdsl`'s `VerifyException` for the first and
`UnprefixedVerifyException` for the second; the tools print each as MLIR does.
"""

from __future__ import annotations

from xdsl.utils.exceptions import VerifyException


class UnprefixedVerifyException(VerifyException):
    """A verifier error MLIR emits with `emitError`: no `'<op>' op ` before it."""
