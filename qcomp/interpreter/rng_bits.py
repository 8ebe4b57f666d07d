"""`stablehlo.rng_bit_generator`'s algorithms as XLA computes them (its
RngBitGeneratorExpander over xla/hlo/builder/lib/prng: the reference interpreter leaves
the op to that decomposition), in NumPy, vectorised over the output.

The state is u64 words: `state[0]` is the key.
- THREE_FRY (Threefry-2x32, 20 rounds): counters `state[1] + i`; 32-bit outputs come
  in two halves of the shape split at its first even dimension (XLA's
  SplitShapeIntoHalves), 64-bit outputs join both words, narrower ones keep the low
  bits of 32; the new state is `[key, state[1] + counters used]`.
- PHILOX (Philox-4x32, 10 rounds): a 128-bit counter (`state[1:3]`, or for a 2-word
  state `[state[1], state[0]]`), 4 outputs per counter interleaved; the new state is
  the key and the advanced counter (its low word for a 2-word state).
- DEFAULT is PHILOX (XLA's CPU choice).
Float outputs are the bits of the same width.
"""

from __future__ import annotations

import math

import numpy as np

from qcomp.interpreter.errors import RunError

_ROTATIONS = (13, 15, 26, 6, 17, 29, 16, 24)
_U32 = np.uint32


def _rotl(v: np.ndarray, d: int) -> np.ndarray:
    return (v << _U32(d)) | (v >> _U32(32 - d))


def threefry2x32(x0: np.ndarray, x1: np.ndarray, k0: int, k1: int):
    """Threefry-2x32 with 20 rounds on counter words (x0, x1) and key (k0, k1)."""
    ks = (_U32(k0), _U32(k1), _U32(0x1BD11BDA ^ k0 ^ k1))
    with np.errstate(over="ignore"):
        x0, x1 = x0 + ks[0], x1 + ks[1]
        for block in range(5):
            for r in _ROTATIONS[4 * (block % 2):4 * (block % 2) + 4]:
                x0 = x0 + x1
                x1 = _rotl(x1, r) ^ x0
            x0 = x0 + ks[(block + 1) % 3]
            x1 = x1 + ks[(block + 2) % 3] + _U32(block + 1)
    return x0, x1


def _halves(shape: tuple[int, ...]):
    """XLA's SplitShapeIntoHalves: (half shape, split dim, concat dim)."""
    if not shape:
        return (1,), 0, 0
    even = [i for i, d in enumerate(shape) if d % 2 == 0]
    split = even[0] if even else max(range(len(shape)), key=lambda i: (shape[i], -i))
    half = list(shape)
    half[split:split + 1] = [-(-shape[split] // 2), 1]
    return tuple(half), split, split + 1


def _combine(a: np.ndarray, b: np.ndarray, shape, split: int, concat: int) -> np.ndarray:
    if not shape:
        return a.reshape(())
    joined = np.concatenate([a, b], axis=concat)
    full = list(shape)
    full[split] = joined.shape[split] * 2
    return joined.reshape(full)[tuple(slice(0, d) for d in shape)]


def _words(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    v = v.astype(np.uint64)
    return (v & np.uint64(0xFFFFFFFF)).astype(_U32), (v >> np.uint64(32)).astype(_U32)


def three_fry(state: np.ndarray, shape: tuple[int, ...], bits: int):
    """(new state, output bits as uint of `bits` width)."""
    if state.size != 2:
        raise RunError(f"THREE_FRY needs a state of 2 words, got {state.size}")
    key, counter = (int(v) for v in state)
    k0, k1 = key & 0xFFFFFFFF, key >> 32
    with np.errstate(over="ignore"):
        if bits == 64:
            n = math.prod(shape)
            c0, c1 = _words(np.uint64(counter) + np.arange(n, dtype=np.uint64))
            o0, o1 = threefry2x32(c0, c1, k0, k1)
            out = (o0.astype(np.uint64) | (o1.astype(np.uint64) << np.uint64(32))).reshape(shape)
        else:
            half, split, concat = _halves(shape)
            n = math.prod(half)
            c0, c1 = _words(np.uint64(counter) + np.arange(n, dtype=np.uint64))
            o0, o1 = threefry2x32(c0, c1, k0, k1)
            out = _combine(o0.reshape(half), o1.reshape(half), shape, split, concat)
    new_state = np.array([key, (counter + n) % 2**64], dtype=np.uint64)
    return new_state, out


def philox4x32(x: list[np.ndarray], k0: int, k1: int) -> list[np.ndarray]:
    """Philox-4x32 with 10 rounds."""
    key = [np.uint64(k0), np.uint64(k1)]
    mask = np.uint64(0xFFFFFFFF)
    for _ in range(10):  # products of two u32 fit u64
        p0 = x[0].astype(np.uint64) * np.uint64(0xD2511F53)
        p1 = x[2].astype(np.uint64) * np.uint64(0xCD9E8D57)
        hi0, lo0 = (p0 >> np.uint64(32)).astype(_U32), (p0 & mask).astype(_U32)
        hi1, lo1 = (p1 >> np.uint64(32)).astype(_U32), (p1 & mask).astype(_U32)
        k = [_U32(int(key[0]) & 0xFFFFFFFF), _U32(int(key[1]) & 0xFFFFFFFF)]
        x = [hi1 ^ x[1] ^ k[0], lo1, hi0 ^ x[3] ^ k[1], lo0]
        key = [np.uint64((int(key[0]) + 0x9E3779B9) & 0xFFFFFFFF),
               np.uint64((int(key[1]) + 0xBB67AE85) & 0xFFFFFFFF)]
    return x


def philox(state: np.ndarray, shape: tuple[int, ...], bits: int):
    """(new state, output bits as uint of `bits` width)."""
    words = [int(v) for v in state]
    if len(words) < 2:
        raise RunError(f"PHILOX needs a state of at least 2 words, got {len(words)}")
    key = words[0]
    low, high = (words[1], words[2]) if len(words) >= 3 else (words[1], words[0])
    n = math.prod(shape)
    count = -(-(2 * n if bits == 64 else n) // 4)
    i = np.arange(count, dtype=np.uint64)
    with np.errstate(over="ignore"):
        lows = np.uint64(low) + i
    highs = np.where(lows < np.uint64(low), np.uint64((high + 1) % 2**64), np.uint64(high))
    l0, l1 = _words(lows)
    h0, h1 = _words(highs)
    o = philox4x32([l0, l1, h0, h1], key & 0xFFFFFFFF, key >> 32)
    if bits == 64:
        w = [a.astype(np.uint64) | (b.astype(np.uint64) << np.uint64(32))
             for a, b in ((o[0], o[1]), (o[2], o[3]))]
        out = np.stack(w, axis=1).reshape(-1)[:n].reshape(shape)
    else:
        out = np.stack(o, axis=1).reshape(-1)[:n].reshape(shape)
    new_low = (low + count) % 2**64
    new_high = (high + (1 if low + count >= 2**64 else 0)) % 2**64
    rest = [new_low, new_high] if len(words) >= 3 else [new_low]
    new_state = np.array([key, *rest, *words[3:]], dtype=np.uint64)
    return new_state, out


def rng_bit_generator(algorithm: str, state: np.ndarray, shape: tuple[int, ...],
                      dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    """(new state in `state`'s dtype, output of `shape` and `dtype`)."""
    bits = dtype.itemsize * 8
    if dtype == np.bool_ or bits not in (8, 16, 32, 64):
        raise RunError(f"rng_bit_generator does not generate {dtype} values")
    words = np.asarray(state).reshape(-1).view(np.uint64) if np.asarray(state).dtype.itemsize == 8 \
        else np.asarray(state).reshape(-1).astype(np.uint64)
    generate = three_fry if algorithm == "THREE_FRY" else philox
    new_state, out = generate(words, tuple(shape), bits)
    if bits < 32:
        out = out.astype({8: np.uint8, 16: np.uint16}[bits])
    unsigned = np.dtype(f"u{dtype.itemsize}")
    out = out.astype(unsigned).view(dtype) if dtype.kind != "u" else out.astype(dtype)
    state_dt = np.asarray(state).dtype
    return new_state.astype(np.uint64).view(state_dt) if state_dt.itemsize == 8 else \
        new_state.astype(state_dt), out


def uniform(bits: np.ndarray, a, b, dtype: np.dtype) -> np.ndarray:
    """XLA's ConvertRandomBitsToUniform{FloatingPoint,Int}: [a, b) from random bits."""
    if dtype.kind == "f" or dtype.name == "bfloat16":
        width = bits.dtype.itemsize * 8
        mantissa = np.finfo(dtype).nmant if dtype.kind == "f" else 7
        values = (bits >> bits.dtype.type(width - mantissa)).astype(dtype)
        values = values * dtype.type(2.0 ** -mantissa)
        return (values * (dtype.type(b) - dtype.type(a)) + dtype.type(a)).astype(dtype)
    unsigned = np.dtype(f"u{dtype.itemsize}")
    with np.errstate(over="ignore"):
        span = np.asarray(b, dtype).view(unsigned) - np.asarray(a, dtype).view(unsigned)
        dist = bits.astype(unsigned) % span if span else bits.astype(unsigned)
        half = dist >> unsigned.type(1)
        return (np.asarray(a, dtype) + half.view(dtype) + (dist - half).view(dtype)).astype(dtype)


def box_muller(x0: np.ndarray, x1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """XLA's BoxMullerTransform of two uniform [0, 1) arrays."""
    u1 = np.maximum(x0, x0.dtype.type(1.0e-7))
    v1 = x1.dtype.type(2.0 * np.pi) * x1
    u2 = np.sqrt(u1.dtype.type(-2.0) * np.log(u1))
    return np.sin(v1) * u2, np.cos(v1) * u2
