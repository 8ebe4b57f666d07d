"""How both tools read their input: a file and stdin give the same text (UTF-8 with
U+FFFD for invalid bytes, universal newlines), a leading byte-order mark is skipped as
MLIR skips it, and a lexer error on the very first token is a diagnostic, not an
internal error. The tools run in this process (`tests/in_process.py`);
one test pipes the same bytes through the console script's real stdin."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.in_process import tool

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
TWO_FUNCS = "func.func @f() {\n  return\n}\n// a comment\nfunc.func @g() {\n  return\n}\n"


def test_console_script_reads_stdin_as_the_in_process_run_does(tmp_path, console_script):
    """The process's own stdin: a byte-order mark, CR and CRLF line ends and invalid
    UTF-8 give the output of the in-process run, which the other tests use."""
    data = (b"\xef\xbb\xbf" + b'func.func @f() {\r  "test.op"() {s = "\xff"} : () -> ()\r\n'
            b"  return\r}\n// a comment\rfunc.func @g() {\n  return\n}\n")
    argv = ["-", "--allow-unregistered-dialect"]
    real = subprocess.run([console_script("qcomp-opt"), *argv], input=data,
                          capture_output=True, env=ENV)
    here = tool("qcomp-opt", *argv, stdin=data)
    assert (real.returncode, real.stdout, real.stderr) == (here.returncode, here.stdout, here.stderr)
    assert real.returncode == 0 and real.stdout.count(b"func.func @") == 2


@pytest.mark.parametrize("newline", [b"\r", b"\r\n", b"\n"])
def test_stdin_and_file_read_alike_whatever_the_newlines(tmp_path, newline):
    data = TWO_FUNCS.encode().replace(b"\n", newline)
    f = tmp_path / "x.mlir"
    f.write_bytes(data)
    from_file = tool("qcomp-opt", str(f))
    from_stdin = tool("qcomp-opt", "-", stdin=data)
    assert from_file.returncode == from_stdin.returncode == 0
    assert from_file.stdout == from_stdin.stdout
    assert from_stdin.stdout.count(b"func.func @") == 2  # the comment ends at the CR


def test_invalid_utf8_in_a_string_reads_alike_from_stdin_and_file(tmp_path):
    data = b'func.func @f() {\n  "test.op"() {s = "\xff\xfe"} : () -> ()\n  return\n}\n'
    f = tmp_path / "u.mlir"
    f.write_bytes(data)
    a = tool("qcomp-opt", str(f), "--allow-unregistered-dialect")
    b = tool("qcomp-opt", "-", "--allow-unregistered-dialect", stdin=data)
    assert a.returncode == b.returncode == 0 and a.stdout == b.stdout
    assert b'"\\EF\\BF\\BD\\EF\\BF\\BD"' in b.stdout  # U+FFFD twice, as MLIR escapes bytes


def test_leading_byte_order_mark_is_skipped(tmp_path):
    f = tmp_path / "bom.mlir"
    f.write_bytes(b"\xef\xbb\xbf" + TWO_FUNCS.encode())
    plain = tool("qcomp-opt", "-", stdin=TWO_FUNCS.encode())
    assert tool("qcomp-opt", str(f)).stdout == plain.stdout
    assert tool("qcomp-opt", "-", stdin=b"\xef\xbb\xbf" + TWO_FUNCS.encode()).stdout == plain.stdout


@pytest.mark.parametrize("prog", ["qcomp-opt", "qcomp-run"])
@pytest.mark.parametrize("text, message, column", [
    (b"$x", "Unexpected character: $", 1),
    (b"@", "@", 1),
    (b"\x00", "Unexpected character", 1),
    (b'"abc', "expected '\"' in string literal", 5),  # MLIR's words, at the end
    (b"#", "#", 1),
])
def test_first_token_lexer_errors_are_diagnostics(prog, text, message, column):
    r = tool(prog, "-", stdin=text)
    err = r.stderr.decode()
    assert "internal error" not in err and "Traceback" not in err
    assert r.returncode in (1, 2) and err.startswith(f"<stdin>:1:{column}: error: ")
    assert message in err


@pytest.mark.parametrize("prog", ["qcomp-opt", "qcomp-run"])
def test_integer_literal_longer_than_pythons_digit_limit_is_judged_by_value(prog):
    text = "func.func @main() {\n  %0 = stablehlo.constant dense<" + "9" * 5000 + \
        "> : tensor<i32>\n  return\n}\n"
    r = tool(prog, "-", stdin=text.encode())
    assert r.stderr.decode().splitlines()[0] == \
        "<stdin>:2:33: error: integer constant out of range for type"


@pytest.mark.parametrize("text", [
    "func.func @f() {\n" + '"test.op"() ({\n' * 300 + "}) : () -> ()\n" * 300 + "return\n}\n",
    "func.func @f() attributes {x = " + "[" * 600 + "]" * 600 + "} {\n return\n}\n",
    "func.func @f(%a: tensor<1x!quant.uniform<i8:f32:{0:1}, " + "{" * 2000 + "0.5" + "}" * 2000
    + ">>) {\n  return\n}\n",
])
def test_deep_nesting_is_a_diagnostic(text):
    r = tool("qcomp-opt", "-", "--allow-unregistered-dialect", stdin=text.encode())
    err = r.stderr.decode()
    assert r.returncode == 1 and "internal error" not in err and "recursion" not in err
    assert err.startswith("<stdin>:") and ": error: nesting too deep: regions, attributes or " \
        "types are nested past the depth qcomp's parser follows" in err


def test_deeply_nested_sub_channel_parameters_print_and_read_back():
    depth = 400  # parses; printing recursed once per level and failed
    body = "{" * depth + "0.5" + "}" * depth
    text = f"func.func @f(%a: tensor<1x!quant.uniform<i8:f32:{{0:1}}, {body}>>) {{\n  return\n}}\n"
    first = tool("qcomp-opt", "-", stdin=text.encode())
    assert first.returncode == 0, first.stderr.decode()
    assert ("{" * depth + "5.000000e-01" + "}" * depth).encode() in first.stdout
    again = tool("qcomp-opt", "-", stdin=first.stdout)
    assert again.returncode == 0 and again.stdout == first.stdout
