"""TOSA RESCALE numerics: `tosa_rescale` against vectors computed by hand from the TOSA
1.0 spec pseudocode (and against the TOSA reference model when `tosa-tools` is
installed), and the two rescale passes run in qcomp's interpreter.

Spec pseudocode (RESCALE, apply_scale_32 / apply_scale_16):
    value  = in - input_zp                         (zero-extended when *_unsigned)
    round  = 1 << (shift - 1); DOUBLE_ROUND && shift > 31: round += value >= 0 ? 1<<30 : -(1<<30)
    result = (value * multiplier + round) >> shift (arithmetic shift)
    out    = clamp(result + output_zp, out_min, out_max)
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from qcomp.ir import QcompParser
from qcomp.interpreter import run
from qcomp.passes.utils.diagnostics import PassDiagnostic
from qcomp.passes.stablehlo_quant_legalize_to_tosa_rescale import StablehloQuantLegalizeToTosaRescalePass
from qcomp.passes.tosa_rescale_legalize_to_stablehlo import TosaRescaleLegalizeToStablehloPass
from qcomp.quant.fixed_point import RescaleError, multiplier_and_shift, tosa_rescale
from qcomp.registry import make_context

# -- hand-computed vectors (TOSA spec pseudocode, worked by hand) ----------------------
# (x, multiplier, shift, input_zp, output_zp, options, expected)
HAND = [
    # M = 2^30, shift 30: scale 1.0, round = 2^29 never changes an integer
    ([-128, -1, 0, 127], 1 << 30, 30, 0, 0, {}, [-128, -1, 0, 127]),
    # reference-model example (REFERENCE.md §6): M/2^31 = 0.6667, izp 3, ozp -1:
    # -128-3=-131: -131*1431655765 = -187546905215, +2^30 -> -186473163391 >> 31 = -87 (floor)
    # -1 -> (-4*M + 2^30) >> 31 = floor(-2.1666) = -3 -> -4 after ozp; 127 -> 124*0.6667=82.67 -> 83-1
    ([-128, -1, 0, 127], 1431655765, 31, 3, -1, {}, [-88, -4, -3, 82]),
    # ties round toward +inf: scale 0.5 (M = 2^30, shift 31): 1 -> 0.5 -> 1, -1 -> -0.5 -> 0,
    # 3 -> 1.5 -> 2, -3 -> -1.5 -> -1
    ([1, -1, 3, -3], 1 << 30, 31, 0, 0, {}, [1, 0, 2, -1]),
    # DOUBLE_ROUND with shift <= 31 is SINGLE_ROUND
    ([1, -1, 3, -3], 1 << 30, 31, 0, 0, {"rounding_mode": "DOUBLE_ROUND"}, [1, 0, 2, -1]),
    # DOUBLE_ROUND, shift 40, M = 2^30: scale 2^-10, round = 2^39 (+-2^30 when DOUBLE):
    # SINGLE floor((v + 512) / 1024): 511 -> 0, -512 -> 0, 512 -> 1, -513 -> -1
    # DOUBLE floor((v + 512 + 1) / 1024) for v >= 0, floor((v + 512 - 1) / 1024) for v < 0:
    #   511 -> 1024/1024 = 1, -512 -> -1/1024 -> -1, 512 -> 1, -513 -> -2/1024 -> -1
    ([511, -512, 512, -513], 1 << 30, 40, 0, 0, {}, [0, 0, 1, -1]),
    ([511, -512, 512, -513], 1 << 30, 40, 0, 0, {"rounding_mode": "DOUBLE_ROUND"}, [1, -1, 1, -1]),
    # M = 1.5 * 2^30, shift 40 (scale 1.5 * 2^-10): 1706 -> 2559/1024 = 2.499 -> SINGLE 2;
    # DOUBLE (2559 + 512 + 1) / 1024 = 3 exactly -> 3; 1707 -> 2560.5/1024 -> 3 either way
    ([1706, 1707], 1610612736, 40, 0, 0, {"out_bitwidth": 32}, [2, 3]),
    ([1706, 1707], 1610612736, 40, 0, 0, {"out_bitwidth": 32, "rounding_mode": "DOUBLE_ROUND"},
     [3, 3]),
    # shift extremes: shift 2 (|value| < 2): M = 3 -> (v*3 + 2) >> 2: 1 -> 1, -1 -> -1, -2 -> -1
    ([1, -1, -2], 3, 2, 0, 0, {}, [1, -1, -1]),
    # shift 62, M = 2^31 - 1 (scale ~ 2^-31): -2^31 -> floor(-1 + 2^-31 + 0.5) = -1,
    # 2^31 - 1 -> floor(1 - 2^-30 + 0.5) = 1, 2^30 -> floor(0.5 - 2^-32 + 0.5) = 0
    ([-(1 << 31), (1 << 31) - 1, 1 << 30], (1 << 31) - 1, 62, 0, 0, {"out_bitwidth": 32},
     [-1, 1, 0]),
    # ... DOUBLE_ROUND adds 2^30/2^62 = 2^-32: 2^30 -> floor(1 - 2^-32 + 2^-32) = 1
    ([-(1 << 31), (1 << 31) - 1, 1 << 30], (1 << 31) - 1, 62, 0, 0,
     {"out_bitwidth": 32, "rounding_mode": "DOUBLE_ROUND"}, [-1, 1, 1]),
    # saturation to i8 and i16
    ([-128, 127], 1 << 30, 28, 0, 5, {}, [-128, 127]),
    ([-32768, 32767], 1 << 30, 28, 0, 0, {"out_bitwidth": 16}, [-32768, 32767]),
    # unsigned input: 0xFF read as 255, zp 128 (stored as -128): 255-128=127, 0-128=-128
    ([-1, 0], 1 << 30, 30, 128, 0, {"input_unsigned": True, "out_bitwidth": 16, "dtype": np.int8},
     [127, -128]),
    # unsigned output: [0, 255], zp 128: -128 -> 0, 127 -> 255, 200 -> 255 (clamped)
    ([-128, 127, 200], 1 << 30, 30, 0, 128, {"output_unsigned": True}, [0, 255, 255]),
    # scale16 (i16 multiplier), 48-bit input: 2^40 * 16384 / 2^40 = 16384;
    # 3 * 2^20 * 16384 / 2^40 = 3/64 -> floor(0.047 + 0.5) = 0; -(2^40) -> -16384
    ([1 << 40, -(1 << 40), 3 << 20], 16384, 40, 0, 0, {"scale32": False, "out_bitwidth": 32},
     [16384, -16384, 0]),
]


@pytest.mark.parametrize("case", HAND, ids=[str(i) for i in range(len(HAND))])
def test_tosa_rescale_hand_vectors(case):
    x, m, s, izp, ozp, opts, expected = case
    opts = dict(opts)
    dtype = opts.pop("dtype", np.int64)
    got = tosa_rescale(np.array(x, dtype), m, s, izp, ozp, **opts)
    assert got.tolist() == expected


def test_tosa_rescale_require_value_range():
    # scale32 requires -2^(shift-1) <= value < 2^(shift-1): shift 8 allows [-128, 127]
    assert tosa_rescale(np.array([-128, 127]), 1 << 30, 8, 0, 0, out_bitwidth=32).tolist() == [
        -(1 << 29), 127 << 22]
    with pytest.raises(RescaleError):
        tosa_rescale(np.array([128]), 1 << 30, 8, 0, 0)
    with pytest.raises(RescaleError):
        tosa_rescale(np.array([0]), 1 << 30, 1, 0, 0)


# -- the TOSA reference model, when installed -----------------------------------------

def _site_schema() -> Path | None:
    exe = shutil.which("tosa_reference_model")
    if exe is None:
        return None
    for root in {Path(p) for p in sys.path if p}:
        if (root / "bin" / "tosa.fbs").exists():
            return root / "bin" / "tosa.fbs"
    return None


def _reference_model(tmp: Path, program: str, x: np.ndarray) -> np.ndarray:
    """Run a one-input `@main` TOSA program in the TOSA reference model (REFERENCE.md §6)."""
    (tmp / "r.mlir").write_text(program)
    subprocess.run(["tosa-opt", "r.mlir", "--tosa-serialize", "--tosa-flatbuffer-filename=r.tosa"],
                   cwd=tmp, check=True, capture_output=True, timeout=60)
    np.save(tmp / "in0.npy", x)
    subprocess.run(["tosa_reference_model", "--tosa_file", "r.tosa", "--ifm_name", "TosaInput_0",
                    "--ifm_file", "in0.npy", "--ofm_name", "TosaOutput_0", "--ofm_file",
                    "out0.npy", "--output_dir", ".", "--flatbuffer_dir", "."],
                   cwd=tmp, check=True, capture_output=True, timeout=60)
    return np.load(tmp / "out0.npy").astype(np.int64)


_HAVE_REFERENCE_MODEL = (shutil.which("tosa_reference_model") is not None
                         and shutil.which("tosa-opt") is not None)


@pytest.mark.skipif(not _HAVE_REFERENCE_MODEL,
                    reason="TOSA reference model not installed (pip install tosa-tools)")
@pytest.mark.parametrize("seed", range(6))
def test_tosa_rescale_matches_reference_model(tmp_path, seed):
    """`tosa_rescale` against the TOSA reference model on random valid configurations
    (per-channel, DOUBLE_ROUND, scale16, unsigned, 8/16/32-bit), inputs kept inside
    the spec's domain (the model stops on a failed REQUIRE)."""
    rng = np.random.default_rng(100 + seed)
    c = _random_rescale(rng, force_double_round=seed % 2 == 0)
    shape = (5, 3)
    program = _rescale_program(
        shape, f"i{c['in_w']}", f"i{c['out_w']}", c["mult"], c["shift"], c["izp"], c["ozp"],
        mode=c["mode"], scale32=c["scale32"], per_channel=c["per_channel"],
        input_unsigned=c["iu"], output_unsigned=c["ou"])
    xin = _inputs_in_domain(rng, c, shape)
    ref = _reference_model(tmp_path, program, xin)
    ours = _expected(c, xin)
    if c["ou"]:
        ref &= (1 << c["out_w"]) - 1
    assert ours.tolist() == ref.tolist(), c


# -- the passes, run in qcomp's interpreter ---------------------------------------------

CTX = make_context()


def _parse(text: str):
    module = QcompParser(CTX, text).parse_module()
    module.verify()
    return module


def _run(module, *inputs) -> np.ndarray:
    (r,) = run(module, list(inputs))
    assert r.error is None, r.error
    return np.asarray(r.results[0]).astype(np.int64)


def _rescale_program(shape, in_e, out_e, mult, shift, izp, ozp, *, mode="SINGLE_ROUND",
                     scale32=True, per_channel=False, input_unsigned=False,
                     output_unsigned=False) -> str:
    t_in = f"tensor<{'x'.join(map(str, shape))}x{in_e}>"
    t_out = f"tensor<{'x'.join(map(str, shape))}x{out_e}>"
    me = "i32" if scale32 else "i16"
    n = len(mult)
    b = lambda v: str(v).lower()  # noqa: E731
    return f"""func.func @main(%x: {t_in}) -> {t_out} {{
  %m = "tosa.const"() <{{values = dense<{list(mult)}> : tensor<{n}x{me}>}}> : () -> tensor<{n}x{me}>
  %s = "tosa.const"() <{{values = dense<{list(shift)}> : tensor<{n}xi8>}}> : () -> tensor<{n}xi8>
  %iz = "tosa.const"() <{{values = dense<{izp}> : tensor<1x{in_e}>}}> : () -> tensor<1x{in_e}>
  %oz = "tosa.const"() <{{values = dense<{ozp}> : tensor<1x{out_e}>}}> : () -> tensor<1x{out_e}>
  %r = tosa.rescale %x, %m, %s, %iz, %oz {{input_unsigned = {b(input_unsigned)}, output_unsigned = {b(output_unsigned)}, per_channel = {b(per_channel)}, rounding_mode = {mode}, scale32 = {b(scale32)}}} : ({t_in}, tensor<{n}x{me}>, tensor<{n}xi8>, tensor<1x{in_e}>, tensor<1x{out_e}>) -> {t_out}
  return %r : {t_out}
}}
"""


_DTYPES = {8: np.int8, 16: np.int16, 32: np.int32, 48: np.int64}


def _random_rescale(rng, force_double_round: bool = False):
    """A random valid TOSA 1.0 rescale configuration (verifier rules respected)."""
    in_w = int(rng.choice([8, 16, 32]))  # i48: test_legalized_i48_rescale_equals_tosa_rescale
    out_w = int(rng.choice([8, 16, 32]))
    scale32 = bool(rng.integers(2))
    iu = in_w in (8, 16) and out_w != 32 and bool(rng.integers(2))
    ou = not iu and out_w in (8, 16) and in_w != 32 and bool(rng.integers(2))
    per_channel = bool(rng.integers(2))
    n = 3 if per_channel else 1
    mode = str(rng.choice(["SINGLE_ROUND", "DOUBLE_ROUND", "INEXACT_ROUND"]))
    mult = [int(v) for v in rng.integers(0, 1 << (31 if scale32 else 15), n)]
    shift = [int(v) for v in rng.integers(2, 63, n)]
    if not scale32 and mode == "DOUBLE_ROUND":
        mode = "SINGLE_ROUND"  # TOSA: ERROR_IF(!scale32 && rounding_mode == DOUBLE_ROUND)
    if force_double_round:
        mode, scale32 = "DOUBLE_ROUND", True
        mult = [int(v) for v in rng.integers(1 << 30, 1 << 31, n)]
        shift = [int(v) for v in rng.integers(32, 63, n)]
    izp = int(rng.integers(-128, 128)) if in_w == 8 else (
        int(rng.choice([0, -32768])) if in_w == 16 and iu else 0)
    ozp = int(rng.integers(-128, 128)) if out_w == 8 else (
        int(rng.choice([0, -32768])) if out_w == 16 and ou else 0)
    return dict(in_w=in_w, out_w=out_w, scale32=scale32, iu=iu, ou=ou, per_channel=per_channel,
                mode=mode, mult=mult, shift=shift, izp=izp, ozp=ozp)


def _zps(c) -> tuple[int, int]:
    """Zero points as TOSA reads them (zero-extended when unsigned)."""
    izp = c["izp"] & ((1 << c["in_w"]) - 1) if c["iu"] else c["izp"]
    ozp = c["ozp"] & ((1 << c["out_w"]) - 1) if c["ou"] else c["ozp"]
    return izp, ozp


def _in_domain(c, x: int, ch: int) -> bool:
    izp, ozp = _zps(c)
    try:
        tosa_rescale(np.array([x], _DTYPES[c["in_w"]]), c["mult"][ch], c["shift"][ch], izp, ozp,
                     rounding_mode=c["mode"], scale32=c["scale32"], input_unsigned=c["iu"],
                     output_unsigned=c["ou"], out_bitwidth=c["out_w"])
    except RescaleError:
        return False
    return True


def _inputs_in_domain(rng, c, shape) -> np.ndarray:
    """Random inputs (storage extremes first, then values at the REQUIRE bound
    x - zp = 2^(shift-1) - 1 and -2^(shift-1)), each replaced by the zero point when
    outside the spec's domain."""
    lo, hi = -(1 << (c["in_w"] - 1)), (1 << (c["in_w"] - 1)) - 1
    x = rng.integers(lo, hi + 1, shape, dtype=np.int64)
    izp, _ = _zps(c)
    x[0], x[1] = lo, hi
    for ch in range(shape[-1]):
        s = c["shift"][ch if c["per_channel"] else 0]
        x[2, ch] = izp + (1 << (s - 1)) - 1
        x[3, ch] = izp - (1 << (s - 1))
    x = np.clip(x, lo if not c["iu"] else 0, hi if not c["iu"] else (1 << c["in_w"]) - 1)
    x = ((x - lo) % (1 << c["in_w"]) + lo) if c["iu"] else x   # unsigned values as stored bits
    for idx in np.ndindex(shape):
        ch = idx[-1] if c["per_channel"] else 0
        if not _in_domain(c, int(x[idx]), ch):
            x[idx] = c["izp"]
    return x.astype(_DTYPES[c["in_w"]])


def _expected(c, xin: np.ndarray) -> np.ndarray:
    izp, ozp = _zps(c)
    out = np.empty(xin.shape, np.int64)
    for idx in np.ndindex(xin.shape):
        ch = idx[-1] if c["per_channel"] else 0
        out[idx] = tosa_rescale(np.array([xin[idx]]), c["mult"][ch], c["shift"][ch], izp, ozp,
                                rounding_mode=c["mode"], scale32=c["scale32"],
                                input_unsigned=c["iu"], output_unsigned=c["ou"],
                                out_bitwidth=c["out_w"])[0]
    return out


@pytest.mark.parametrize("seed", range(40))
def test_legalized_rescale_equals_tosa_rescale(seed):
    """tosa-rescale-legalize-to-stablehlo, run in the interpreter, gives exactly
    `tosa_rescale` wherever the spec's REQUIREs hold (per-channel, DOUBLE_ROUND,
    scale16, 8/16/32-bit inputs, unsigned input/output included)."""
    rng = np.random.default_rng(seed)
    c = _random_rescale(rng)
    shape = (6, 3)
    module = _parse(_rescale_program(
        shape, f"i{c['in_w']}", f"i{c['out_w']}", c["mult"], c["shift"], c["izp"], c["ozp"],
        mode=c["mode"], scale32=c["scale32"], per_channel=c["per_channel"],
        input_unsigned=c["iu"], output_unsigned=c["ou"]))
    TosaRescaleLegalizeToStablehloPass().apply(CTX, module)
    module.verify()
    assert not any(op.name.startswith("tosa.rescale") for op in module.walk())
    xin = _inputs_in_domain(rng, c, shape)
    got = _run(module, xin)
    if c["ou"]:
        got &= (1 << c["out_w"]) - 1
    assert got.tolist() == _expected(c, xin).tolist(), c





_I48_MIN, _I48_MAX = -(1 << 47), (1 << 47) - 1


@pytest.mark.parametrize("seed", range(12))
def test_legalized_i48_rescale_equals_tosa_rescale(seed):
    """48-bit input (widened to i64 by builtin.unrealized_conversion_cast, run by the
    interpreter as a sign-extension): exactly `tosa_rescale` on i48 values, including
    +-2^47 and its neighbours and rounding ties. TOSA: scale32 = false (16-bit
    multiplier), input_zp = 0; shifts >= 33 keep |x * M / 2^shift| within i32 (the
    scale16 REQUIRE) for every i48 x, so no value is out of the spec's domain."""
    rng = np.random.default_rng(1000 + seed)
    out_w = int(rng.choice([8, 16, 32]))
    per_channel = bool(seed % 2)
    n = 3 if per_channel else 1
    mult = [int(v) for v in rng.integers(0, 1 << 15, n)]
    mult[0] = (1 << 15) - 1                      # the widest product: (2^47) * (2^15 - 1)
    shift = [int(v) for v in rng.integers(33, 63, n)]
    if per_channel:
        mult[1], shift[1] = 1, int(rng.integers(33, 48))   # ties at x = +-2^(shift-1)
    ozp = int(rng.integers(-128, 128)) if out_w == 8 else 0
    mode = "SINGLE_ROUND" if seed % 3 else "INEXACT_ROUND"
    c = dict(in_w=48, out_w=out_w, scale32=False, iu=False, ou=False, per_channel=per_channel,
             mode=mode, mult=mult, shift=shift, izp=0, ozp=ozp)
    shape = (10, 3)
    x = rng.integers(_I48_MIN, _I48_MAX + 1, shape, dtype=np.int64)
    x[0], x[1] = _I48_MIN, _I48_MAX
    x[2], x[3] = _I48_MIN + 1, _I48_MAX - 1
    x[4], x[5] = -1, 0
    for ch in range(3):   # +-2^(shift-1) (kept within i48): a tie where M = 1
        s = shift[ch if per_channel else 0]
        x[6, ch], x[7, ch] = 1 << min(s - 1, 46), -(1 << min(s - 1, 46))
    assert all(_in_domain(c, int(v), idx[-1] if per_channel else 0)
               for idx, v in np.ndenumerate(x))
    module = _parse(_rescale_program(shape, "i48", f"i{out_w}", mult, shift, 0, ozp,
                                     mode=mode, scale32=False, per_channel=per_channel))
    TosaRescaleLegalizeToStablehloPass().apply(CTX, module)
    module.verify()
    names = [op.name for op in module.walk()]
    assert "tosa.rescale" not in names
    assert names.count("builtin.unrealized_conversion_cast") == 1
    assert _run(module, x).tolist() == _expected(c, x).tolist(), c


def test_legalized_i48_rescale_at_the_ends_by_hand():
    """M = 2^15 - 1, shift 33: (x * 32767 + 2^32) >> 33, i32 output.
    2^47 - 1: (2^47 - 1) * 32767 + 2^32 = 4611545285233967105 = 536854528.4999... * 2^33
              -> 536854528;
    -2^47:    -2^47 * 32767 + 2^32 = -4611545276644065280 = -536854527.5 * 2^33
              -> floor = -536854528;
    2^17:     2^17 * 32767 + 2^32 = 8589803520 = 0.99998 * 2^33 -> 0."""
    module = _parse(_rescale_program((3,), "i48", "i32", [32767], [33], 0, 0, scale32=False))
    TosaRescaleLegalizeToStablehloPass().apply(CTX, module)
    module.verify()
    x = np.array([_I48_MAX, _I48_MIN, 1 << 17], np.int64)
    assert _run(module, x).tolist() == [536854528, -536854528, 0]
    assert tosa_rescale(x, 32767, 33, 0, 0, scale32=False, out_bitwidth=32).tolist() == \
        [536854528, -536854528, 0]


def test_i48_with_scale32_is_refused_by_the_pass():
    """The verifier rejects a 48-bit input with scale32; the pass refuses it too when
    handed an unverified module (x * M could pass 2^63 with a 31-bit multiplier)."""
    text = _rescale_program((2,), "i48", "i32", [1 << 30], [40], 0, 0, scale32=True)
    module = QcompParser(CTX, text).parse_module()
    with pytest.raises(PassDiagnostic, match=r"a 48-bit input needs scale32 = false"):
        TosaRescaleLegalizeToStablehloPass().apply(CTX, module)


def _quant_program(op: str, sl, zl, sr, zr, so, zo, n=256, storage="i8") -> str:
    q = lambda s, z: f"!quant.uniform<{storage}:f32, {s!r}:{z}>"  # noqa: E731
    tl, tr, to = (f"tensor<{n}x{n}x{q(s, z)}>" for s, z in ((sl, zl), (sr, zr), (so, zo)))
    return f"""func.func @main(%a: {tl}, %b: {tr}) -> {to} {{
  %0 = "stablehlo.{op}"(%a, %b) : ({tl}, {tr}) -> {to}
  return %0 : {to}
}}
"""


def _float_reference(op, a, b, sl, zl, sr, zr, so, zo, lo=-128, hi=127):
    x = (a.astype(np.float64) - zl) * sl
    y = (b.astype(np.float64) - zr) * sr
    with np.errstate(all="ignore"):
        r = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply,
             "divide": np.divide, "maximum": np.maximum, "minimum": np.minimum}[op](x, y)
        return np.clip(np.round(r / so) + zo, lo, hi)


_OPS = ["add", "subtract", "multiply", "divide", "maximum", "minimum"]


@pytest.mark.parametrize("op", _OPS)
def test_quant_ops_via_tosa_rescale_match_float_reference(op):
    """Every i8 pair through stablehlo-quant-legalize-to-tosa-rescale then
    tosa-rescale-legalize-to-stablehlo, in the interpreter, against dequantize → f64
    op → round → clamp. Scales are random (no exact ties), so the fixed-point result
    equals the float one everywhere; divide by a zero divisor saturates like ±inf."""
    rng = np.random.default_rng(_OPS.index(op))
    sl, sr, so = (float(v) for v in np.exp(rng.uniform(-5, 0, 3)))
    zl, zr, zo = (int(v) for v in rng.integers(-20, 20, 3))
    module = _parse(_quant_program(op, sl, zl, sr, zr, so, zo))
    StablehloQuantLegalizeToTosaRescalePass().apply(CTX, module)
    TosaRescaleLegalizeToStablehloPass().apply(CTX, module)
    module.verify()
    a = np.arange(-128, 128, dtype=np.int8)
    A, B = np.meshgrid(a, a, indexing="ij")
    got = _run(module, A, B)
    ref = _float_reference(op, A, B, sl, zl, sr, zr, so, zo)
    defined = ~np.isnan(ref)               # 0/0 only
    assert np.array_equal(got[defined], ref[defined].astype(np.int64))
    if op == "divide":
        assert np.all(got[(B == zr) & (A > zl)] == 127) and np.all(got[(B == zr) & (A < zl)] == -128)
        assert np.all(got[(B == zr) & (A == zl)] == 0)   # NaN -> storage integer 0


@pytest.mark.parametrize("op", _OPS)
def test_unsigned_quant_ops_via_tosa_rescale_match_float_reference(op):
    """u8 storage goes through i16 on both sides (TOSA has no u8 <-> i32 rescale);
    every u8 pair against the float reference."""
    rng = np.random.default_rng(_OPS.index(op) + 100)
    sl, sr, so = (float(v) for v in np.exp(rng.uniform(-5, 0, 3)))
    zl, zr, zo = (int(v) for v in rng.integers(0, 256, 3))
    module = _parse(_quant_program(op, sl, zl, sr, zr, so, zo, storage="u8"))
    StablehloQuantLegalizeToTosaRescalePass().apply(CTX, module)
    TosaRescaleLegalizeToStablehloPass().apply(CTX, module)
    module.verify()
    a = np.arange(0, 256).astype(np.uint8)
    A, B = np.meshgrid(a, a, indexing="ij")
    got = _run(module, A, B)
    ref = _float_reference(op, A, B, sl, zl, sr, zr, so, zo, 0, 255)
    defined = ~np.isnan(ref)
    assert np.array_equal(got[defined], ref[defined].astype(np.int64))


@pytest.mark.parametrize("direction", ["EQ", "NE", "GT", "GE", "LT", "LE"])
def test_compare_via_tosa_rescale_matches_float_reference(direction):
    """compare on every i8 pair against dequantize (f32) -> compare, random scales.
    (Both sides are rescaled to 2^20 steps of max(s_l, s_r): reals closer than that
    compare equal, which the f32 reference only approximates too.)"""
    rng = np.random.default_rng(["EQ", "NE", "GT", "GE", "LT", "LE"].index(direction))
    sl, sr = (float(v) for v in np.exp(rng.uniform(-5, 0, 2)))
    zl, zr = (int(v) for v in rng.integers(-20, 20, 2))
    ql, qr = f"!quant.uniform<i8:f32, {sl!r}:{zl}>", f"!quant.uniform<i8:f32, {sr!r}:{zr}>"
    tl, tr = f"tensor<256x256x{ql}>", f"tensor<256x256x{qr}>"
    module = _parse(f"""func.func @main(%a: {tl}, %b: {tr}) -> tensor<256x256xi1> {{
  %0 = stablehlo.compare {direction}, %a, %b, FLOAT : ({tl}, {tr}) -> tensor<256x256xi1>
  return %0 : tensor<256x256xi1>
}}
""")
    StablehloQuantLegalizeToTosaRescalePass().apply(CTX, module)
    TosaRescaleLegalizeToStablehloPass().apply(CTX, module)
    a = np.arange(-128, 128, dtype=np.int8)
    A, B = np.meshgrid(a, a, indexing="ij")
    got = _run(module, A, B).astype(bool)
    x = (A.astype(np.float32) - zl) * np.float32(sl)
    y = (B.astype(np.float32) - zr) * np.float32(sr)
    ref = {"EQ": np.equal, "NE": np.not_equal, "GT": np.greater, "GE": np.greater_equal,
           "LT": np.less, "LE": np.less_equal}[direction](x, y)
    assert np.array_equal(got, ref)


def test_divide_differs_only_within_the_truncation_bound_of_a_tie():
    """The truncated quotient q = trunc(v_l 2^K / v_r) is short of the real one by less
    than one unit, i.e. (s_l/s_r)/(s_res 2^K) output steps (K = 21 for i8): the result
    can round down only where the real quotient is that close above a tie. These scales
    (found by search) put one real quotient at 69.50000072, 7.2e-7 above a tie."""
    rng = np.random.default_rng(20)
    sl, sr, so = (float(v) for v in np.exp(rng.uniform(-5, 0, 3)))
    zl, zr, zo = (int(v) for v in rng.integers(-20, 20, 3))
    module = _parse(_quant_program("divide", sl, zl, sr, zr, so, zo))
    StablehloQuantLegalizeToTosaRescalePass().apply(CTX, module)
    TosaRescaleLegalizeToStablehloPass().apply(CTX, module)
    a = np.arange(-128, 128, dtype=np.int8)
    A, B = np.meshgrid(a, a, indexing="ij")
    got = _run(module, A, B)
    ref = _float_reference("divide", A, B, sl, zl, sr, zr, so, zo)
    defined = ~np.isnan(ref)
    with np.errstate(all="ignore"):
        r = (A - zl) * sl / ((B - zr) * sr) / so
    bound = (sl / sr) / (so * 2.0 ** 21) + 1e-9
    differs = defined & (got != ref)
    assert differs.sum() == 4                       # the same quotient, four times
    assert np.all(np.abs(got[differs] - ref[differs]) == 1)
    frac = np.abs(r[differs]) - np.floor(np.abs(r[differs]))
    assert np.all((frac >= 0.5) & (frac - 0.5 < bound))


def test_divide_upstream_formula_is_wrong_and_ours_is_right():
    """Upstream's divide rescales trunc(v_l / v_r) by s_l s_r / s_res; with s_l = s_r = 0.5,
    s_res = 0.25: 3 / 2 = 1.5 (quantized 6). Upstream: trunc(3/2) = 1, 1 * 0.25/0.25 = 1."""
    module = _parse(_quant_program("divide", 0.5, 0, 0.5, 0, 0.25, 0, n=1))
    StablehloQuantLegalizeToTosaRescalePass().apply(CTX, module)
    TosaRescaleLegalizeToStablehloPass().apply(CTX, module)
    got = _run(module, np.array([[6]], np.int8), np.array([[4]], np.int8))
    assert got.tolist() == [[6]]
    # upstream's arithmetic on the same values
    v = 6 // 4
    m, s = multiplier_and_shift(0.5 * 0.5 / 0.25)
    assert tosa_rescale(np.array([v]), m, s, 0, 0).tolist() == [1]


def test_divide_prescale_k():
    """The dividend pre-scale is 2^21 for i8: multiplier_and_shift(2^21) = (2^30, 9) and
    the REQUIRE |v| < 2^8 holds for every v = x - zp with zp = -1 (v in [-127, 128])."""
    assert multiplier_and_shift(float(1 << 21)) == (1 << 30, 9)
    module = _parse(_quant_program("divide", 0.025, -1, 0.075, -2, 0.15, -3, n=2))
    StablehloQuantLegalizeToTosaRescalePass().apply(CTX, module)
    shifts = [int(op.values.get_values()[0]) for op in module.walk()
              if op.name == "tosa.const" and op.output.type.element_type.width.data == 8
              and len(op.output.type.get_shape()) == 1 and op.results[0].uses
              and any(u.index == 2 for u in op.results[0].uses)]
    # lhs 2^21 (shift 9), rhs 1.0 (shift 30), output (0.025/0.075)/(0.15*2^21)
    # = 2.2222 * 2^-21 = 0.5556 * 2^-19: shift 31 + 19 = 50
    assert shifts == [9, 30, 50]


def test_refused_u16_zero_point_has_a_diagnostic():
    """u16 with zero point 0: x - 0 reaches 65535, beyond the i16 between u16 and i32."""
    t = "tensor<2x!quant.uniform<u16:f32, 0.5>>"
    module = _parse(f"""func.func @main(%a: {t}) -> {t} {{
  %0 = stablehlo.abs %a : {t}
  return %0 : {t}
}}
""")
    with pytest.raises(PassDiagnostic, match=r"spans \[0, 65535\], outside the i16"):
        StablehloQuantLegalizeToTosaRescalePass().apply(CTX, module)


_VALIDATION_PROGRAMS = {
    "add_narrow": ("add", "i8<-127:127>", (0.5, 3), (0.25, -2), (0.5, 0)),
    "mul_i16": ("multiply", "i16", (0.01, 0), (0.02, 0), (0.05, 0)),
    "div_i16": ("divide", "i16", (0.01, 0), (0.02, 0), (0.05, 0)),
    "max_u8": ("maximum", "u8", (0.3, 128), (0.1, 7), (0.2, 250)),
    "sub_i16": ("subtract", "i16", (0.7, 0), (0.01, 0), (0.3, 0)),
    # 16-bit maximum/minimum use S = 14 (upstream's 15 breaks TOSA's value REQUIRE)
    "max_i16": ("maximum", "i16", (0.013, 0), (0.021, 0), (0.017, 0)),
    "min_i16": ("minimum", "i16", (0.021, 0), (0.013, 0), (0.011, 0)),
    "min_u16": ("minimum", "u16", (0.021, 32768), (0.013, 32768), (0.011, 32768)),
}


@pytest.mark.parametrize("name", sorted(_VALIDATION_PROGRAMS))
def test_each_pass_preserves_results(name):
    """Translation validation on random inputs covering the storage range (ends, zero
    divisors): after stablehlo-quant-legalize-to-tosa-rescale (tosa.rescale run as
    `tosa_rescale`) and after tosa-rescale-legalize-to-stablehlo the storage integers
    are identical; against the program before the passes (spec semantics) they differ
    only at rounding ties. Scales here are "nice" (0.5, 0.25, ...) to hit ties."""
    op, storage, (sl, zl), (sr, zr), (so, zo) = _VALIDATION_PROGRAMS[name]
    q = lambda s, z: f"!quant.uniform<{storage}:f32, {s!r}:{z}>"  # noqa: E731
    tl, tr, to = (f"tensor<64x{q(s, z)}>" for s, z in ((sl, zl), (sr, zr), (so, zo)))
    st = storage.split("<")[0]
    raw = f"tensor<64x{'i' if st.startswith('i') else 'ui'}{st[1:]}>"
    text = f"""func.func @main(%a: {raw}, %b: {raw}) -> {raw} {{
  %qa = stablehlo.bitcast_convert %a : ({raw}) -> {tl}
  %qb = stablehlo.bitcast_convert %b : ({raw}) -> {tr}
  %0 = stablehlo.{op} %qa, %qb : ({tl}, {tr}) -> {to}
  %r = stablehlo.bitcast_convert %0 : ({to}) -> {raw}
  return %r : {raw}
}}
"""
    rng = np.random.default_rng(len(name))
    bits = int(st[1:])
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if st[0] == "i" else (0, (1 << bits) - 1)
    if storage.startswith("i8<"):
        lo, hi = -127, 127
    dtype = {"i8": np.int8, "i16": np.int16, "u8": np.uint8, "u16": np.uint16}[st]
    a = rng.integers(lo, hi + 1, 64).astype(dtype)
    b = rng.integers(lo, hi + 1, 64).astype(dtype)
    a[:4], b[:4] = [lo, hi, lo, hi], [lo, hi, hi, lo]
    b[4:8] = zr  # zero divisors
    original = _run(_parse(text), a, b)
    module = _parse(text)
    StablehloQuantLegalizeToTosaRescalePass().apply(CTX, module)
    module.verify()
    with_rescale = _run(module, a, b)
    TosaRescaleLegalizeToStablehloPass().apply(CTX, module)
    module.verify()
    lowered = _run(module, a, b)
    assert with_rescale.tolist() == lowered.tolist()      # the lowering is exact
    # TOSA rounds ties toward +inf, the spec half to even: the two may differ by one
    # step where the real result lies on (or, with decimal scales, within float error
    # of) a tie, and nowhere else.
    x = (a.astype(np.float64) - zl) * sl
    y = (b.astype(np.float64) - zr) * sr
    with np.errstate(all="ignore"):
        r = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply,
             "divide": np.divide, "maximum": np.maximum, "minimum": np.minimum}[op](x, y) / so
        near_tie = np.abs(np.abs(r - np.floor(r)) - 0.5) < 1e-6
    diff = with_rescale - original
    assert np.all(np.abs(diff) <= 1)
    assert np.all((diff == 0) | near_tie), np.nonzero((diff != 0) & ~near_tie)


# -- upstream's quantized conformance programs through the TOSA route ------------------

_CONFORMANCE = (Path(__file__).resolve().parents[2].parent / "shared" / "conformance"
                / "stablehlo" / "testdata_quantized")
_TOSA_OPS = re.compile(r'"?stablehlo\.(add|subtract|multiply|divide|maximum|minimum|abs|compare)\b')


def _conformance_programs() -> list[str]:
    if not _CONFORMANCE.is_dir():
        return []
    return sorted(p.name for p in _CONFORMANCE.glob("*.mlir")
                  if "quant.uniform" in (t := p.read_text()) and _TOSA_OPS.search(t))


@pytest.mark.skipif(not _CONFORMANCE.is_dir(),
                    reason=f"conformance data not found at {_CONFORMANCE}")
@pytest.mark.parametrize("name", _conformance_programs() or ["(none)"])
def test_conformance_programs_through_tosa_rescale(name):
    """Upstream's quantized test programs whose quantized ops this pass rewrites: after
    stablehlo-quant-legalize-to-tosa-rescale and tosa-rescale-legalize-to-stablehlo,
    every golden check still passes in qcomp's interpreter (including the
    div_singularity_* cases: x/0 saturates, 0/0 gives storage 0)."""
    module = _parse((_CONFORMANCE / name).read_text())
    StablehloQuantLegalizeToTosaRescalePass().apply(CTX, module)
    module.verify()
    assert any(op.name == "tosa.rescale" for op in module.walk())
    TosaRescaleLegalizeToStablehloPass().apply(CTX, module)
    module.verify()
    assert not any(op.name == "tosa.rescale" for op in module.walk())
    runs = run(module)
    assert runs and all(r.error is None for r in runs), [r.error for r in runs]
    checks = [c for r in runs for c in r.checks]
    assert checks and all(c.passed for c in checks)
