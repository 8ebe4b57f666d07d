"""Random float32 tables for the rowwise tests: the kinds of rows that break
quantizers (shared by the torch oracle tests and the lowering tests)."""

from __future__ import annotations

import numpy as np

KINDS = ("normal", "magnitudes", "constant", "huge", "signed_zeros", "infinities", "offset")


def table(rng: np.random.Generator, kind: str, rows: int, cols: int) -> np.ndarray:
    """A NaN-free float32 [rows, cols] table of one kind:

    - normal: standard normal;
    - magnitudes: each row scaled by 10^k, k in [-40, 37] (subnormal to near FLT_MAX);
    - constant: every row one repeated value;
    - huge: uniform over (-3.4e38, 3.4e38), so max - min overflows to inf;
    - signed_zeros: 0.0, -0.0, +-1 (and all-zero rows), the sign of a zero extreme;
    - infinities: +-inf among 0, -0, 2, 7e4 (beyond float16);
    - offset: 1e4 + small noise (bias far from the values' spread)."""
    shape = (rows, cols)
    if kind == "normal":
        w = rng.standard_normal(shape)
    elif kind == "magnitudes":
        w = rng.standard_normal(shape) * 10.0 ** rng.integers(-40, 38, (rows, 1))
    elif kind == "constant":
        w = np.repeat(rng.standard_normal((rows, 1)), cols, 1)
    elif kind == "huge":
        w = rng.uniform(-3.4e38, 3.4e38, shape)
    elif kind == "signed_zeros":
        w = rng.choice(np.array([0.0, -0.0, 1.0, -1.0]), shape) * rng.choice([0.0, 1.0], (rows, 1))
        w[w == 0] = rng.choice(np.array([0.0, -0.0]), int((w == 0).sum()))
    elif kind == "infinities":
        w = rng.choice(np.array([0.0, -0.0, np.inf, -np.inf, 2.0, 7e4]), shape)
    elif kind == "offset":
        w = rng.standard_normal(shape) * 1e-3 + 1e4
    else:
        raise ValueError(kind)
    with np.errstate(over="ignore"):
        return w.astype(np.float32)


def nan_table(rng: np.random.Generator, rows: int, cols: int) -> np.ndarray:
    """A float32 [rows, cols] table of standard normal values with, in most rows, NaNs
    (quiet and signalling, either sign, random payloads), +-inf, +-0 and values far
    outside the rest (+-3e38, 1e12) at random places; some rows all NaN. NaN drops out
    of fbgemm's extremes with the values before it in its lane, so the dropped values
    quantize outside [min, max] (the rounding of fbgemm's vector blocks and scalar
    tails)."""
    w = rng.standard_normal((rows, cols)).astype(np.float32)
    bits = w.view(np.uint32)
    for r in range(rows):
        if rng.random() < 0.1:
            bits[r] = 0x7FC00000 | rng.integers(0, 1 << 22, cols, dtype=np.uint32)
            continue
        for _ in range(int(rng.integers(0, 2 + cols // 4))):
            j = int(rng.integers(0, cols))
            kind = int(rng.integers(0, 5))
            if kind == 0:    # quiet NaN, either sign
                bits[r, j] = (0x7FC00000 | int(rng.integers(0, 1 << 22))
                              | (int(rng.integers(0, 2)) << 31))
            elif kind == 1:  # signalling NaN
                bits[r, j] = 0x7F800001 | int(rng.integers(0, 1 << 22))
            else:
                w[r, j] = rng.choice(np.array([np.inf, -np.inf, -0.0, 0.0, 3e38, -3e38, 1e12],
                                              np.float32))
    return w


# torch.ops.quantized's fused rowwise operators by bit width (names: torch loads lazily)
PREPACK = {8: "embedding_bag_byte_prepack", 4: "embedding_bag_4bit_prepack",
           2: "embedding_bag_2bit_prepack"}
UNPACK = {8: "embedding_bag_byte_unpack", 4: "embedding_bag_4bit_unpack",
          2: "embedding_bag_2bit_unpack"}
BAG = {8: "embedding_bag_byte_rowwise_offsets", 4: "embedding_bag_4bit_rowwise_offsets",
       2: "embedding_bag_2bit_rowwise_offsets"}
