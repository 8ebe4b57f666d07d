"""The formulas compute in IEEE arithmetic on purpose: x / scale overflowing to inf and
then clamping, inf - inf giving NaN that quantizes to 0. NumPy reports each such step
as a RuntimeWarning on stderr; the functions of `qcomp.quant` switch those reports off
(`ieee`), so a program with extreme scales runs quietly and gives the IEEE result."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TypeVar

import numpy as np

F = TypeVar("F", bound=Callable)


def ieee(fn: F) -> F:
    """`fn` run under `np.errstate(all="ignore")`."""

    @functools.wraps(fn)
    def quiet(*args, **kwargs):
        with np.errstate(all="ignore"):
            return fn(*args, **kwargs)

    return quiet  # type: ignore[return-value]
