"""lib.trace: the command language, its errors, the command line, and the mistake checker."""

import codecs
import io
import math
import os
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest

from lib import positional, trace

WORKED = trace.example("worked_trace")


def test_worked_trace_output():
    assert trace.run_file(WORKED) == [
        "POSENC 0 = [0.0000, 1.0000, 0.0000, 1.0000]",
        "POSENC 3 = [0.1411, -0.9900, 0.0300, 0.9996]",
        "LOOKUP cat = [0.5000, -0.5000, 1.0000, 0.0000]",
        "ADD 3 (cat) = [0.6411, -1.4900, 1.0300, 0.9996]",
    ]


@pytest.mark.parametrize("path", sorted(trace.EXAMPLES.glob("*.trace")), ids=lambda p: p.stem)
def test_examples_run_and_match_their_documented_output(path):
    out = trace.run_file(path)
    assert out, "an example must print something"
    documented = re.findall(r"^#   (.*)$", path.read_text(), flags=re.M)
    if documented:
        assert out == documented


def test_sim_is_cosine_of_the_two_inputs():
    program = "WIDTH 2\nTOKEN a 1 0\nTOKEN b 0 1\nSEQUENCE a b\nSIM 0 1"
    xa = np.array([1.0, 0.0]) + positional.sinusoidal_encoding(0, 2)
    xb = np.array([0.0, 1.0]) + positional.sinusoidal_encoding(1, 2)
    expected = xa @ xb / np.linalg.norm(xa) / np.linalg.norm(xb)
    assert trace.run(program) == [f"SIM 0 1 = {expected:.4f}"]


def test_comments_blank_lines_and_negative_zero():
    program = "# c\n\nWIDTH 1   # width\nTOKEN z -0.00001\nLOOKUP z\n"
    assert trace.run(program) == ["LOOKUP z = [0.0000]"]


def test_format_vector_rounds_and_drops_negative_zero():
    assert trace.format_vector([-0.0, 1.23456]) == "[0.0000, 1.2346]"


@pytest.mark.parametrize(
    "program, line, message",
    [
        ("WIDTH 2\nTOKEN a 1 2\nSEQUENCE a\nSHOW a", 4, "unknown command 'SHOW'; expected one of WIDTH"),
        ("WIDTH 2\nlookup a", 2, "commands are upper case: LOOKUP"),
        ("WIDTH 3\nTOKEN a 1 2", 2, "TOKEN a needs 3 values (the WIDTH), got 2"),
        ("WIDTH 2\nTOKEN a 1 2 3", 2, "needs 2 values (the WIDTH), got 3"),
        ("WIDTH 2\nTOKEN a 1 2\nSEQUENCE a b", 3, "unknown token 'b'; defined tokens: a"),
        ("WIDTH 2\nTOKEN a 1 2\nLOOKUP c", 3, "unknown token 'c'"),
        ("WIDTH 2\nTOKEN a 1 2\nSEQUENCE a a\nADD 2", 4, "position 2 out of range; expected 0..1"),
        ("WIDTH 2\nTOKEN a 1 2\nSEQUENCE a a\nSIM 0 -1", 4, "position -1 out of range; expected 0..1"),
        ("WIDTH 2\nTOKEN a 1 2\nPOSENC 1000001", 3, "position 1000001 out of range; expected 0..1000000"),
        ("WIDTH 0", 1, "width 0 out of range; expected 1..1024"),
        ("WIDTH 1025", 1, "width 1025 out of range"),
        ("WIDTH four", 1, "width must be an integer, got 'four'"),
        ("WIDTH 2\nTOKEN a 1 two", 2, "expected a number, got 'two'"),
        ("WIDTH 2\nTOKEN a 1 nan", 2, "expected a finite number, got 'nan'"),
        ("WIDTH 2\nTOKEN a 1 1e999", 2, "expected a finite number, got '1e999', beyond float64's range (about 1.8e308)"),
        ("WIDTH 2\nTOKEN a 1 2\nSEQUENCE a\nADD x", 4, "position must be an integer, got 'x'"),
        ("", 1, "the program is empty; expected WIDTH d"),
        ("# only a comment\n\n", 1, "the program is empty"),
        ("TOKEN a 1 2", 1, "expected WIDTH d as the first command, got TOKEN"),
        ("WIDTH 2\nWIDTH 3", 2, "WIDTH may be given only once"),
        ("WIDTH 2\nTOKEN a 1 2\nTOKEN a 3 4", 3, "token 'a' is already defined"),
        ("WIDTH 2\nTOKEN a 1 2\nADD 0", 3, "ADD needs a SEQUENCE before it"),
        ("WIDTH 2\nLOOKUP a", 2, "LOOKUP needs at least one TOKEN row before it"),
        ("WIDTH 2\nTOKEN a 1 2\nSIM 0", 3, "SIM takes 2 values, got 1"),
        ("WIDTH 2\nTOKEN a 1 2\nLOOKUP a\nTOKEN b 1 2", 4, "TOKEN rows must all come before the first query"),
    ],
)
def test_bad_programs_name_the_line_and_what_was_expected(program, line, message):
    with pytest.raises(trace.TraceError) as info:
        trace.run(program)
    assert info.value.line == line
    assert message in info.value.message
    assert trace.run_or_error(program) == [f"error: line {line}: {info.value.message}"]


def test_learner_errors_become_trace_errors():
    def broken(pos, d):
        raise ZeroDivisionError("oops")

    fns = trace.Functions(trace.REFERENCE.lookup, broken)
    with pytest.raises(trace.TraceError, match=r"line 3: pos_encoding\(1, 2\) raised ZeroDivisionError: oops"):
        trace.run("WIDTH 2\nTOKEN a 1 2\nPOSENC 1", fns)
    short = trace.Functions(trace.REFERENCE.lookup, lambda pos, d: np.zeros(d - 1))
    with pytest.raises(trace.TraceError, match=r"returned shape \(1,\), expected \(2,\)"):
        trace.run("WIDTH 2\nTOKEN a 1 2\nPOSENC 1", short)


def _cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "lib.trace", *args], capture_output=True, text=True, cwd=cwd)


@pytest.mark.slow
def test_cli_runs_a_file():
    result = _cli(str(WORKED))
    assert result.returncode == 0
    assert result.stdout.splitlines()[-1] == "ADD 3 (cat) = [0.6411, -1.4900, 1.0300, 0.9996]"


@pytest.mark.slow
@pytest.mark.parametrize(
    "text, expected",
    [
        ("WIDTH 2\nTOKEN a 1 2\nFOO", ":3: error: unknown command 'FOO'"),
        ("", ":1: error: the program is empty"),
        ("WIDTH 2\nTOKEN a 1 x", ":2: error: expected a number, got 'x'"),
    ],
)
def test_cli_bad_input_is_one_line_and_status_2(tmp_path, text, expected):
    path = tmp_path / "bad.trace"
    path.write_text(text)
    result = _cli(str(path))
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr
    assert lines[0] == f"{path}{expected}" or lines[0].startswith(f"{path}{expected}")


@pytest.mark.slow
def test_cli_missing_file_and_binary_file(tmp_path):
    result = _cli(str(tmp_path / "nope.trace"))
    assert result.returncode == 2 and "cannot read the file" in result.stderr and "Traceback" not in result.stderr
    binary = tmp_path / "bin.trace"
    binary.write_bytes(b"\xff\xfe\x00\x01")
    result = _cli(str(binary))
    assert result.returncode == 2 and "Traceback" not in result.stderr


@pytest.mark.slow
def test_cli_check_and_functions(tmp_path):
    good = tmp_path / "good.py"
    good.write_text(
        "import numpy as np\n"
        "def lookup(table, i):\n    return np.array(table[i], dtype=float)\n"
        "def pos_encoding(pos, d):\n    k = np.arange(d)\n"
        "    a = pos / 10000.0 ** (2 * (k // 2) / d)\n    return np.where(k % 2 == 0, np.sin(a), np.cos(a))\n"
    )
    result = _cli("--check", str(good))
    assert result.returncode == 0 and "12 of 12 cases pass." in result.stdout
    result = _cli("--functions", str(good), str(WORKED))
    assert result.returncode == 0 and "ADD 3 (cat) = [0.6411, -1.4900, 1.0300, 0.9996]" in result.stdout
    bad = tmp_path / "bad.py"
    bad.write_text("def lookup(table, i):\n    return table[i]\n")
    result = _cli("--check", str(bad))
    assert result.returncode == 2 and "must define pos_encoding" in result.stderr
    syntax = tmp_path / "syntax.py"
    syntax.write_text("def lookup(:\n")
    result = _cli("--check", str(syntax))
    assert result.returncode == 2 and "SyntaxError" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.slow
def test_cli_without_arguments():
    result = _cli()
    assert result.returncode == 2 and "give a trace FILE" in result.stderr


def test_reference_passes_the_checker():
    report = trace.check(trace.REFERENCE.lookup, trace.REFERENCE.pos_encoding)
    assert report.passed and report.mistakes == []
    assert "12 of 12 cases pass." in str(report)


@pytest.mark.parametrize("name", sorted(trace.MISTAKES))
def test_checker_names_each_mistake_and_only_that_one(name):
    mistake = trace.MISTAKES[name]
    report = trace.check(mistake.functions.lookup, mistake.functions.pos_encoding)
    assert not report.passed
    assert [m.name for m in report.mistakes] == [name]
    assert f"Recognised mistake: {name}:" in str(report)


@pytest.mark.parametrize("name", sorted(trace.MISTAKES))
def test_report_lines_fit_the_page_and_count_the_failures(name):
    functions = trace.MISTAKES[name].functions
    report = trace.check(functions.lookup, functions.pos_encoding)
    text = str(report)
    assert max(len(line) for line in text.splitlines()) <= trace.REPORT_WIDTH
    assert f"{len(report.cases) - report.n_failed} of {len(report.cases)} cases pass." in text
    assert 0 < report.n_failed == sum(line.startswith("FAIL") for line in text.splitlines())


def test_mistakes_change_the_encoding_as_described():
    m = trace.MISTAKES
    np.testing.assert_allclose(m["sin and cos swapped"].functions.pos_encoding(0, 4), [1, 0, 1, 0])
    np.testing.assert_allclose(m["position 0 zeroed"].functions.pos_encoding(0, 4), [0, 0, 0, 0])
    np.testing.assert_allclose(m["integer division"].functions.pos_encoding(3, 4), [np.sin(3), np.cos(3)] * 2)
    np.testing.assert_allclose(m["sine everywhere"].functions.pos_encoding(3, 4),
                               [np.sin(3), np.sin(3), np.sin(0.03), np.sin(0.03)])
    np.testing.assert_allclose(m["exponent uses k"].functions.pos_encoding(3, 4),
                               [np.sin(3), np.cos(3 / 100), np.sin(3 / 10_000), np.cos(3 / 1_000_000)])
    np.testing.assert_allclose(m["concatenated layout"].functions.pos_encoding(3, 4),
                               [np.sin(3), np.sin(0.03), np.cos(3), np.cos(0.03)])
    np.testing.assert_allclose(m["integer power"].functions.pos_encoding(5, 16)[2], np.sin(5 / 3))


def test_unknown_failure_is_reported_without_a_name():
    report = trace.check(trace.REFERENCE.lookup, lambda pos, d: positional.sinusoidal_encoding(pos, d) * 2)
    assert not report.passed and report.mistakes == []
    assert "match none of the known mistakes" in str(report)


def test_checker_survives_a_raising_learner():
    def explode(*args):
        raise RuntimeError("not written yet")

    report = trace.check(explode, explode)
    assert not report.passed
    assert "raised RuntimeError: not written yet" in str(report)


def test_unknown_example():
    with pytest.raises(ValueError, match="no example named 'nope'; examples: "):
        trace.example("nope")


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.slow
@pytest.mark.parametrize(
    "body, message",
    [
        ("def lookup(t, i):\n    return np.array(t[i])\ndef pos_encoding(p, d):\n    return np.full(d, np.nan)\n",
         "pos_encoding(0, 2) returned NaN or infinity"),
        ("def lookup(t, i):\n    return np.broadcast_to(t[i], t[i].shape)\ndef pos_encoding(p, d):\n    return np.zeros(d)\n",
         "output array is read-only; return a new, writable array"),
        ("def lookup(t, i):\n    sys.exit(3)\ndef pos_encoding(p, d):\n    return np.zeros(d)\n",
         "lookup(table, 0) raised SystemExit: 3"),
        ("def lookup(t, i):\n    return np.array(t[i])\ndef pos_encoding(p, d):\n    return np.zeros(d) + 0j\n",
         "returned dtype complex128, expected real numbers"),
        # NumPy counts timedelta64 as an integer type: a time span was taken for a vector
        ("def lookup(t, i):\n    return np.array(t[i])\ndef pos_encoding(p, d):\n    return np.zeros(d, 'm8[s]')\n",
         "returned dtype timedelta64[s], expected real numbers"),
    ],
)
def test_cli_survives_misbehaving_learner_functions(tmp_path, body, message):
    functions = _write(tmp_path, "mine.py", "import sys\nimport numpy as np\n" + body)
    program = _write(tmp_path, "p.trace", "WIDTH 2\nTOKEN a 1 2\nTOKEN b 2 1\nSEQUENCE a b\nSIM 0 1\n")
    result = _cli("--functions", functions, program)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip() == f"{program}:5: error: " + result.stderr.strip().split(": error: ", 1)[1]
    assert message in result.stderr
    checked = _cli("--check", functions)
    assert checked.returncode == 1 and "Traceback" not in checked.stderr and "cases pass." in checked.stdout


@pytest.mark.slow
def test_cli_names_the_missing_functions_file(tmp_path):
    program = _write(tmp_path, "p.trace", "WIDTH 1\nTOKEN a 1\nLOOKUP a\n")
    result = _cli("--functions", str(tmp_path / "nope.py"), program)
    assert result.returncode == 2 and result.stderr.startswith(str(tmp_path / "nope.py") + ": error: no such file")


def test_huge_values_give_a_true_similarity():
    assert trace.run("WIDTH 2\nTOKEN a 1e300 1e300\nSEQUENCE a a\nSIM 0 1") == ["SIM 0 1 = 1.0000"]


@pytest.mark.parametrize("text", ["1_0", "٣", "+-2", "0x10"])
def test_only_plain_ascii_integers(text):
    with pytest.raises(trace.TraceError, match="width must be an integer"):
        trace.run(f"WIDTH {text}")


# --- programs saved with a byte-order mark, and how lines are counted ------------------------------------

WORKED_OUTPUT = trace.run_file(WORKED)


@pytest.mark.slow
@pytest.mark.parametrize("encode", [
    lambda t: t.encode("utf-8-sig"),
    lambda t: t.encode("utf-16"),
    lambda t: t.replace("\n", "\r\n").encode("utf-8-sig"),
], ids=["utf-8 BOM", "utf-16 BOM", "utf-8 BOM CRLF"])
def test_a_program_with_a_byte_order_mark_runs(tmp_path, encode):
    path = tmp_path / "bom.trace"
    path.write_bytes(encode(WORKED.read_text(encoding="utf-8")))
    assert trace.run_file(path) == WORKED_OUTPUT  # was: unknown command '\ufeff#' / '\ufeffWIDTH'
    result = _cli(str(path))
    assert result.returncode == 0 and result.stdout.splitlines() == WORKED_OUTPUT and result.stderr == ""
    path.write_bytes(encode("WIDTH 2\nTOKEN a 1 2\nFOO\n"))
    result = _cli(str(path))
    assert result.returncode == 2 and result.stderr.startswith(f"{path}:3: error: unknown command 'FOO'")


def test_a_byte_order_mark_decoded_as_cp1252_is_named(tmp_path):
    message = ("starts with 'ï»¿', a byte-order mark decoded as cp1252 (the UTF-8 mark EF BB BF read as "
               "Windows-1252 or Latin-1, then saved again); remove it, or re-save the file as UTF-8")
    with pytest.raises(trace.TraceError) as info:
        trace.run("\u00ef\u00bb\u00bfWIDTH 1\nTOKEN a 2")  # was "unknown command 'ï»¿WIDTH'"
    assert info.value.line == 1 and info.value.message == message
    path = tmp_path / "mojibake.trace"
    path.write_bytes("\u00ef\u00bb\u00bfWIDTH 1\nTOKEN a 2\n".encode("utf-8"))
    with pytest.raises(trace.TraceError) as info:  # was a plain ValueError, which run_file does not list
        trace.run_file(path)
    assert info.value.line == 1 and info.value.message == message


@pytest.mark.parametrize("mark, said", [
    ("\ufeff", "holds a byte-order mark (U+FEFF), allowed only"),  # after the file's own: a doubled mark
    ("\ufffe", "U+FFFE, a byte-swapped byte-order mark"),
    ("\u00ef\u00bb\u00bf", "starts with 'ï»¿', a byte-order mark decoded as cp1252"),
], ids=["doubled", "U+FFFE", "mojibake"])
def test_a_stray_mark_on_line_1_is_reported_as_on_line_5(tmp_path, capsys, mark, said):
    # read_text finds one at the start of the file, parse one further on: the same TraceError, the same CLI line
    body = ["WIDTH 1", "TOKEN a 2", "SEQUENCE a", "LOOKUP a", "ADD 0"]
    for line in (1, 5):
        lines = body.copy()
        lines[line - 1] = mark + lines[line - 1]
        path = tmp_path / f"line{line}.trace"
        path.write_bytes(codecs.BOM_UTF8 + "\n".join(lines).encode("utf-8"))
        with pytest.raises(trace.TraceError) as info:
            trace.run_file(path)
        assert info.value.line == line and said in info.value.message
        assert trace.main([str(path)]) == 2
        err = capsys.readouterr().err
        assert err == f"{path}:{line}: error: {info.value.message}\n"  # was "FILE: error: ValueError: FILE, line 1: ..."


def test_an_unknown_name_with_a_look_alike_letter_names_the_letter():
    with pytest.raises(trace.TraceError) as info:  # Cyrillic А, which prints as the Latin A
        trace.run("WIDTH 1\nTOKEN a 1\nSEQUENCE a\n\u0410DD 0")
    assert info.value.line == 4 and info.value.message == (
        "unknown command '\u0410DD'; expected one of WIDTH, TOKEN, SEQUENCE, LOOKUP, POSENC, ADD, SIM (it holds the "
        "non-ASCII character '\u0410', U+0410 CYRILLIC CAPITAL LETTER A, which may look like an ASCII letter)")
    with pytest.raises(trace.TraceError) as info:
        trace.run("WIDTH 1\nTOKEN a 1\nSEQUENCE \u0430")
    assert info.value.message == ("unknown token '\u0430' (it holds the non-ASCII character '\u0430', U+0430 CYRILLIC "
                                  "SMALL LETTER A, which may look like an ASCII letter); defined tokens: a")
    with pytest.raises(trace.TraceError) as info:
        trace.run("WIDTH 1\nTOKEN a 1\nSEQUENCE a\u200b")
    assert "(it holds the non-ASCII character '\\u200b', U+200B ZERO WIDTH SPACE, which cannot be seen)" in info.value.message
    with pytest.raises(trace.TraceError) as info:  # an ASCII name gets no hint
        trace.run("WIDTH 1\nTOKEN a 1\nSEQUENCE b")
    assert info.value.message == "unknown token 'b'; defined tokens: a"


def test_a_byte_order_mark_in_a_string_program():
    assert trace.run("\ufeffWIDTH 1\nTOKEN a 2\nLOOKUP a") == ["LOOKUP a = [2.0000]"]
    with pytest.raises(trace.TraceError) as info:  # a mark that is not at the start is a stray character
        trace.run("WIDTH 1\n\ufeffTOKEN a 2")
    assert info.value.line == 2 and info.value.message.startswith("holds a byte-order mark (U+FEFF), allowed only at "
                                                                  "the start of a file (were two files joined")  # was "unknown command '\\ufeffTOKEN'"


def test_one_rule_for_a_second_byte_order_mark_and_a_byte_swapped_one(tmp_path):
    program = "WIDTH 2\nTOKEN a 1 0\nSEQUENCE a\nADD 0\n"
    path = tmp_path / "p.trace"
    path.write_bytes(codecs.BOM_UTF8 + program.encode())
    assert trace.run_file(path) == trace.run(program) == trace.run("\ufeff" + program)  # one mark: removed
    path.write_bytes(codecs.BOM_UTF8 * 2 + program.encode())  # was accepted from a file, refused in a str
    with pytest.raises(trace.TraceError) as info:
        trace.run_file(path)
    assert info.value.line == 1 and info.value.message.startswith("holds a byte-order mark (U+FEFF), allowed only")
    with pytest.raises(trace.TraceError) as info:
        trace.run("\ufeff\ufeff" + program)
    assert info.value.line == 1 and info.value.message.startswith("holds a byte-order mark (U+FEFF), allowed only")
    with pytest.raises(trace.TraceError) as info:  # was "unknown command '\ufffeWIDTH'"
        trace.run("\ufffe" + program)
    assert info.value.line == 1 and "U+FFFE, a byte-swapped byte-order mark" in info.value.message

def test_lines_are_numbered_as_an_editor_numbers_them():
    # a form feed or U+2028 inside a line does not start a new line (str.splitlines would count one): it is
    # refused where it stands, in a comment too (an editor may show a line break there)
    with pytest.raises(trace.TraceError) as info:
        trace.run("WIDTH 2\nTOKEN a 1 2\n\nSEQUENCE a \x0c")
    assert info.value.line == 4
    with pytest.raises(trace.TraceError) as info:
        trace.run("WIDTH 2\nTOKEN a 1 2 # \u2028 comment\nFOO")
    assert info.value.line == 2 and "U+2028 (LINE SEPARATOR)" in info.value.message
    with pytest.raises(trace.TraceError) as info:
        trace.run("WIDTH 2\rTOKEN a 1 2\r\nFOO")  # old Mac and Windows line ends
    assert info.value.line == 3


# --- one rule for every number: ASCII digits ------------------------------------------------------------

NOT_ASCII_DIGITS = {
    "Arabic-Indic": "\u0663",
    "extended Arabic-Indic": "\u06f3",
    "Devanagari": "\u0969",
    "Bengali": "\u09e9",
    "Thai": "\u0e53",
    "full-width": "\uff13",
    "superscript": "\u00b3",
    "subscript": "\u2083",
    "mathematical bold": "\U0001d7d1",
    "mixed with ASCII": "1\u0663",
    "Arabic decimal separator": "\u0663\u066b\u0665",
    "minus sign U+2212": "\u22121",
    "full-width minus": "\uff0d1",
}
THREE = " (numbers are written with the ASCII digits 0-9: {!r} is U+{}, write 3)"
NOT_ASCII_HINTS = {  # the first character that is not ASCII, named, and what to write instead
    "Arabic-Indic": THREE.format("\u0663", "0663 ARABIC-INDIC DIGIT THREE"),
    "extended Arabic-Indic": THREE.format("\u06f3", "06F3 EXTENDED ARABIC-INDIC DIGIT THREE"),
    "Devanagari": THREE.format("\u0969", "0969 DEVANAGARI DIGIT THREE"),
    "Bengali": THREE.format("\u09e9", "09E9 BENGALI DIGIT THREE"),
    "Thai": THREE.format("\u0e53", "0E53 THAI DIGIT THREE"),
    "full-width": THREE.format("\uff13", "FF13 FULLWIDTH DIGIT THREE"),
    "superscript": THREE.format("\u00b3", "00B3 SUPERSCRIPT THREE"),
    "subscript": THREE.format("\u2083", "2083 SUBSCRIPT THREE"),
    "mathematical bold": THREE.format("\U0001d7d1", "1D7D1 MATHEMATICAL BOLD DIGIT THREE"),
    "mixed with ASCII": THREE.format("\u0663", "0663 ARABIC-INDIC DIGIT THREE"),
    "Arabic decimal separator": THREE.format("\u0663", "0663 ARABIC-INDIC DIGIT THREE"),
    "minus sign U+2212": " (U+2212 MINUS SIGN is not ASCII: write '-')",
    "full-width minus": " (U+FF0D FULLWIDTH HYPHEN-MINUS is not ASCII: write '-')",
}
FIELDS = {  # where a number stands in a program: (program, line, message)
    "WIDTH": ("WIDTH {}", 1, "width must be an integer, got {!r}"),
    "TOKEN value": ("WIDTH 2\nTOKEN a 1 {}", 2, "expected a number, got {!r}"),
    "POSENC": ("WIDTH 1\nTOKEN a 1\nPOSENC {}", 3, "position must be an integer, got {!r}"),
    "ADD": ("WIDTH 1\nTOKEN a 1\nSEQUENCE a a a a\nADD {}", 4, "position must be an integer, got {!r}"),
    "SIM i": ("WIDTH 1\nTOKEN a 1\nSEQUENCE a a a a\nSIM {} 0", 4, "position must be an integer, got {!r}"),
    "SIM j": ("WIDTH 1\nTOKEN a 1\nSEQUENCE a a a a\nSIM 0 {}", 4, "position must be an integer, got {!r}"),
}


@pytest.mark.parametrize("field", sorted(FIELDS))
@pytest.mark.parametrize("script", sorted(NOT_ASCII_DIGITS))
def test_digits_of_other_scripts_are_refused_in_every_number(field, script):
    text = NOT_ASCII_DIGITS[script]
    template, line, message = FIELDS[field]
    with pytest.raises(trace.TraceError) as info:  # TOKEN used to accept them (float("٣") is 3.0)
        trace.run(template.format(text))
    assert info.value.line == line
    assert info.value.message == message.format(text) + NOT_ASCII_HINTS[script]


ASCII_DIGITS_ODD_CHARACTER = {  # the digits are ASCII: the hint names the character that is not, not the digits
    "\u22121": " (U+2212 MINUS SIGN is not ASCII: write '-')",
    "\uff0b2": " (U+FF0B FULLWIDTH PLUS SIGN is not ASCII: write '+')",
    "1\u066b5": " (U+066B ARABIC DECIMAL SEPARATOR is not ASCII: write '.')",
    "2\u00a0": " (it holds the space character U+00A0 NO-BREAK SPACE: remove it)",
    "\u200b2": " (it holds the invisible character U+200B ZERO WIDTH SPACE: remove it)",
    "1\u0301": " (it holds the combining mark U+0301 COMBINING ACUTE ACCENT: remove it)",
}


@pytest.mark.parametrize("field", sorted(FIELDS))
@pytest.mark.parametrize("text", sorted(ASCII_DIGITS_ODD_CHARACTER))
def test_a_number_with_ascii_digits_names_the_character_that_is_not_ascii(field, text):
    template, line, message = FIELDS[field]
    with pytest.raises(trace.TraceError) as info:
        trace.run(template.format(text))
    assert (info.value.line, info.value.message) == (line, message.format(text) + ASCII_DIGITS_ODD_CHARACTER[text])


@pytest.mark.parametrize("field", sorted(FIELDS))
@pytest.mark.parametrize("text", ["1_0", "0x1", "1e", "+-1", "--1", ".", "one"])
def test_other_spellings_are_refused_in_every_number(field, text):
    template, line, message = FIELDS[field]
    with pytest.raises(trace.TraceError) as info:
        trace.run(template.format(text))
    assert (info.value.line, info.value.message) == (line, message.format(text))


@pytest.mark.parametrize("text, value", [("3", "3.0000"), ("+3", "3.0000"), ("-0.5", "-0.5000"), (".25", "0.2500"),
                                         ("3.", "3.0000"), ("1e-3", "0.0010"), ("2E+0", "2.0000"), ("007", "7.0000")])
def test_plain_ascii_values_are_accepted(text, value):
    assert trace.run(f"WIDTH 1\nTOKEN a {text}\nLOOKUP a") == [f"LOOKUP a = [{value}]"]


def test_plain_ascii_integers_are_accepted_everywhere():
    out = trace.run("WIDTH +2\nTOKEN a 1 0\nSEQUENCE a a a\nPOSENC 01\nADD +1\nSIM 0 02")
    assert out[0] == "POSENC 1 = [0.8415, 0.5403]" and out[1].startswith("ADD 1 (a) = ")
    assert out[2].startswith("SIM 0 2 = ")
    with pytest.raises(trace.TraceError, match="width must be an integer, got '2.0'"):
        trace.run("WIDTH 2.0")


@pytest.mark.slow
def test_cli_reports_a_foreign_digit_on_one_line(tmp_path):
    path = tmp_path / "digits.trace"
    path.write_text("WIDTH 2\nTOKEN a 1 \u0663\n", encoding="utf-8")
    result = _cli(str(path))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip() == f"{path}:2: error: expected a number, got '\u0663'" + NOT_ASCII_HINTS["Arabic-Indic"]


def test_an_unknown_token_among_many_lists_the_first_ten():
    names = [f"t{i}" for i in range(12)]
    program = "WIDTH 1\n" + "".join(f"TOKEN {n} 1\n" for n in names) + "SEQUENCE t0 t11 zz"
    with pytest.raises(trace.TraceError) as info:
        trace.run(program)
    assert info.value.line == 14
    assert info.value.message == "unknown token 'zz'; defined tokens: t0, t1, t2, t3, t4, t5, t6, t7, t8, t9, ... (12 in all)"


def test_a_program_with_thousands_of_tokens_finds_each_by_name():
    n = 3000
    program = "WIDTH 1\n" + "".join(f"TOKEN t{i} {i}\n" for i in range(n)) + "SEQUENCE " + " ".join(
        f"t{i}" for i in reversed(range(n))) + "\nLOOKUP t2999\nADD 0\nADD 2999\n"
    out = trace.run(program)
    assert out[0] == "LOOKUP t2999 = [2999.0000]"
    assert out[1] == "ADD 0 (t2999) = [2999.0000]" and out[2] == f"ADD 2999 (t0) = [{np.sin(2999):.4f}]"


@pytest.mark.slow
def test_cli_names_a_file_that_is_not_text(tmp_path):
    path = tmp_path / "u16.trace"
    path.write_bytes("WIDTH 1\nTOKEN a 1\nLOOKUP a\n".encode("utf-16-le"))  # no byte-order mark
    result = _cli(str(path))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.startswith(f"{path}: error: cannot read the file (") and "UTF-16 without a byte-order mark" in result.stderr


@pytest.mark.parametrize("program, line", [("WIDTH " + "9" * 5000, 1), ("WIDTH 2\nTOKEN a 1 " + "9" * 500, 2),
                                           ("WIDTH 2\nTOKEN a 1 2\nSEQUENCE a\nADD " + "1" * 101, 4)])
def test_numbers_with_too_many_digits_are_a_trace_error_on_their_line(program, line):
    with pytest.raises(trace.TraceError, match=rf"^line {line}: number '9*1*\.\.\.' has \d+ digits; at most 100 are allowed"):
        trace.run(program)


@pytest.mark.parametrize("program, line, char", [
    ("WIDTH 2\nTOKEN a 1\u20282\nSEQUENCE a\nLOOKUP a", 2, "U+2028 (LINE SEPARATOR)"),  # ran as TOKEN a 1 2
    ("WIDTH 2\u2028TOKEN a 1 2\nSEQUENCE a\nLOOKUP a", 1, "U+2028 (LINE SEPARATOR)"),  # "WIDTH takes 1 value, got 5"
    ("WIDTH 2\nTOKEN a 1 2\x85\nSEQUENCE a", 2, "U+0085 (NEL)"),
    ("WIDTH 2\nTOKEN a 1\x0b2\nSEQUENCE a", 2, "U+000B"),
    ("WIDTH 2\nTOKEN a 1 2\x0c\nSEQUENCE a", 2, "U+000C"),
])
def test_a_line_end_an_editor_may_show_is_refused_as_in_the_benchmark_readers(program, line, char):
    assert trace.run_or_error(program) == [f"error: line {line}: holds the character {char}, a line end that this reader does not "
                                     "split at (lines end with \\n, \\r\\n or \\r); replace it with a newline"]


def test_words_are_separated_by_ascii_spaces_and_tabs_only():
    # a no-break or ideographic space separated words that no one can see
    assert trace.run_or_error("WIDTH\u30002\nTOKEN a 1 2") == [
        "error: line 1: unknown command 'WIDTH\\u30002'; expected one of WIDTH, TOKEN, SEQUENCE, LOOKUP, POSENC, ADD, SIM "
        "(it holds the non-ASCII character '\\u3000', U+3000 IDEOGRAPHIC SPACE, a space that does not separate words)"]
    assert trace.run_or_error("WIDTH 2\nTOKEN a 1\u00a02") == ["error: line 2: TOKEN a needs 2 values (the WIDTH), got 1"]
    assert trace.run_or_error("  WIDTH 2  # c\n\tTOKEN a 1 2\t\nSEQUENCE a\nLOOKUP a\n\n") == ["LOOKUP a = [1.0000, 2.0000]"]


def test_an_invisible_character_in_a_defined_name_is_shown_escaped():
    # the list showed 'a' + U+200B, which reads as 'a', beside "unknown token 'a'"
    assert trace.run_or_error("WIDTH 2\nTOKEN a\u200b 1 2\nSEQUENCE a\nLOOKUP a") == [
        "error: line 3: unknown token 'a'; defined tokens: 'a\\u200b'"]


def test_functions_must_be_a_functions_record():
    with pytest.raises(TypeError, match=r"^functions must be a lib.trace.Functions \(default the reference\), got NoneType$"):
        trace.run("WIDTH 1\nTOKEN a 1\nSEQUENCE a\nLOOKUP a", None)  # was AttributeError: no attribute 'lookup'


def test_a_token_value_that_float64_would_read_as_zero_names_its_line():
    with pytest.raises(trace.TraceError, match=r"^line 2: number '1e-400' is below float64's smallest subnormal "
                                               r"\(about 4.9e-324\), would become 0$"):
        trace.run("WIDTH 2\nTOKEN a 1e-400 1\nSEQUENCE a\nADD 0\n")


_CYRILLIC = "WIDTH 2\nTOKEN \u043a\u043e\u0442 1 0\nLOOKUP \u043a\u043e\u0442\nSEQUENCE \u043a\u043e\u0442\nADD 0\n"
_CYRILLIC_ESCAPED = ["LOOKUP \\u043a\\u043e\\u0442 = [1.0000, 0.0000]",
                     "ADD 0 (\\u043a\\u043e\\u0442) = [1.0000, 1.0000]"]


@pytest.mark.slow
def test_cli_writes_names_stdout_cannot_encode_as_escapes(tmp_path):
    """With stdout in ASCII the first line stopped the program with a bare UnicodeEncodeError and nothing was
    written; now each character ASCII lacks is written as a backslash escape, as on stderr."""
    path = tmp_path / "cyrillic.trace"
    path.write_text(_CYRILLIC, encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "lib.trace", str(path)], capture_output=True,
                            env={**os.environ, "PYTHONIOENCODING": "ascii"})
    assert (result.returncode, result.stderr) == (0, b"")
    assert result.stdout.decode("ascii").splitlines() == _CYRILLIC_ESCAPED


def test_main_escapes_what_stdout_cannot_encode_and_prints_the_rest_as_it_is(tmp_path, monkeypatch):
    path = tmp_path / "cyrillic.trace"
    path.write_text(_CYRILLIC, encoding="utf-8")
    for encoding, expected in (("ascii", _CYRILLIC_ESCAPED),
                               ("utf-8", [line.encode().decode("unicode_escape") for line in _CYRILLIC_ESCAPED])):
        raw = io.BytesIO()
        out = io.TextIOWrapper(raw, encoding=encoding, newline="\n")
        monkeypatch.setattr(sys, "stdout", out)
        assert trace.main([str(path)]) == 0
        out.flush()
        assert raw.getvalue().decode(encoding).splitlines() == expected


@pytest.mark.parametrize("defined, used, used_form, defined_form", [
    ("caf\u00e9", "cafe\u0301", "decomposed (NFD)", "composed (NFC)"),
    ("cafe\u0301", "caf\u00e9", "composed (NFC)", "decomposed (NFD)"),
])
def test_a_name_composed_otherwise_than_its_definition_is_named_so_not_a_look_alike(defined, used, used_form, defined_form):
    """café with U+00E9 and café with e + U+0301 print alike; the hint called U+0301 a letter look-alike."""
    with pytest.raises(trace.TraceError) as info:
        trace.run(f"WIDTH 1\nTOKEN {defined} 1\nTOKEN cafe 2\nSEQUENCE {used}\n")
    assert info.value.line == 4
    assert info.value.message == (
        f"unknown token {used!r} (it is written {used_form} where the defined token {defined!r} is written "
        f"{defined_form}: an accented letter as a letter followed by a combining mark, or as one character; the "
        f"two print alike but are different names, so write it as it is defined); defined tokens: {defined}, cafe")


def test_a_combining_mark_in_an_unknown_name_is_called_a_combining_mark():
    with pytest.raises(trace.TraceError) as info:  # no defined name composes to it: the mark itself is named
        trace.run("WIDTH 1\nTOKEN cafe 1\nSEQUENCE cafe\u0301\n")
    assert info.value.message == ("unknown token 'cafe\u0301' (it holds the non-ASCII character '\u0301', U+0301 "
                                  "COMBINING ACUTE ACCENT, a combining mark, which prints on the character before "
                                  "it); defined tokens: cafe")


def test_a_value_too_large_for_fixed_point_is_printed_in_exponent_form():
    # was a line of 301 digits: '1000000000000000052504760255204420248704468581108159154915854115111802457988'...
    assert trace.run("WIDTH 2\nTOKEN a 1e300 -2.5e16\nLOOKUP a") == ["LOOKUP a = [1.0000e+300, -2.5000e+16]"]
    assert trace.format_number(1e300) == "1.0000e+300"
    assert trace.format_number(-9999999999999998.0) == "-9999999999999998.0000"  # just below the limit
    assert trace.format_vector([1e16, 0.5]) == "[1.0000e+16, 0.5000]"
    # below 0.00005 in size a value is 0.0000: four decimals are the language's precision
    assert trace.format_number(1e-17) == "0.0000" and trace.format_vector([1e-17]) == "[0.0000]"


def test_format_functions_name_a_bad_value():
    for bad, message in [("0.5", "x must be a real number, got '0.5'"), (None, "x must be a real number, got None"),
                         (True, "x must be a real number, got True")]:  # were float()'s own errors, or 1.0000
        with pytest.raises(TypeError, match=f"^{re.escape(message)}$"):
            trace.format_number(bad)
    for bad, shown in ((["a"], "['a'] (dtype <U1)"), (None, "None"), ("ab", "'ab'"), ([1 + 2j], "[(1+2j)] (dtype complex128)")):
        with pytest.raises(TypeError, match=f"^{re.escape(f'v must be an array of real numbers, got {shown}')}$"):
            trace.format_vector(bad)  # was "could not convert string to float", then "v must hold ... dtype <U1"
    with pytest.raises(TypeError, match=r"^v must hold real numbers, got a bool among them"):
        trace.format_vector([0.5, True])
    with pytest.raises(ValueError, match=r"^v must be an array of numbers, got rows of different lengths$"):
        trace.format_vector([[1.0], [2.0, 3.0]])  # was NumPy's "inhomogeneous shape"


def test_functions_and_the_checker_refuse_what_is_not_a_function():
    with pytest.raises(TypeError, match=r"^lookup must be a function, got None$"):
        trace.Functions(None, positional.sinusoidal_encoding)  # was accepted, failing at the first query
    with pytest.raises(TypeError, match=r"^pos_encoding must be a function, got 3$"):
        trace.check(np.take, 3)
    with pytest.raises(TypeError, match=r"^name must be a str naming an example, got 3$"):
        trace.example(3)


def test_a_float16_learner_that_overflows_is_a_trace_error_without_a_warning():
    def lookup(table, token_id):  # float16 rows: the largest finite value is 65504
        return table[token_id].astype(np.float16)

    def pos_encoding(pos, d):  # a wrong encoding, in float16 too
        return np.full(d, 60000, dtype=np.float16)

    learner = trace.Functions(lookup, pos_encoding)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # was RuntimeWarning: overflow encountered in add, then the error
        with pytest.raises(trace.TraceError, match=r"^line 4: the input at position 0 overflows: \[inf, 60000\.0000\]$"):
            trace.run("WIDTH 2\nTOKEN a 60000 1\nSEQUENCE a\nADD 0", learner)


def test_a_learner_that_returns_torch_tensors_is_read_as_its_values():
    import torch

    def lookup(table, token_id):  # was "returned Tensor, expected an array of shape (2,)": np.asarray refused it
        return torch.tensor(table[token_id], requires_grad=True)

    def pos_encoding(pos, d):
        return torch.tensor(positional.sinusoidal_encoding(pos, d), dtype=torch.bfloat16)

    program = "WIDTH 2\nTOKEN a 0.5 -0.5\nSEQUENCE a a\nLOOKUP a\nADD 1"
    pe1 = torch.tensor(positional.sinusoidal_encoding(1, 2), dtype=torch.bfloat16).float().numpy()
    assert trace.run(program, trace.Functions(lookup, pos_encoding)) == [
        "LOOKUP a = [0.5000, -0.5000]", f"ADD 1 (a) = {trace.format_vector(np.array([0.5, -0.5]) + pe1)}"]


def test_main_reports_a_failed_write_as_such_not_as_a_file_it_cannot_read(tmp_path, monkeypatch, capsys):
    path = tmp_path / "many.trace"
    path.write_text("WIDTH 2\nTOKEN a 1 0\nSEQUENCE a a\n" + "SIM 0 1\n" * 50)

    class Failing(io.StringIO):
        def __init__(self, error):
            super().__init__()
            self.error = error

        def write(self, text):
            raise self.error

    monkeypatch.setattr(sys, "stdout", Failing(OSError(28, "No space left on device")))
    assert trace.main([str(path)]) == 2
    assert capsys.readouterr().err == f"{path}: error: cannot write the output (No space left on device)\n"


@pytest.mark.slow
def test_cli_stops_quietly_when_the_reader_closes_the_pipe(tmp_path):
    path = tmp_path / "many.trace"
    path.write_text("WIDTH 2\nTOKEN a 1 0\nSEQUENCE a a\n" + "SIM 0 1\n" * 20000)
    env = dict(os.environ, PYTHONPATH=os.getcwd(), EMBOOK_QUIET="1")
    proc = subprocess.Popen([sys.executable, "-m", "lib.trace", str(path)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    # as `| head -1` reads it: a + PE(0) = (1, 1), a + PE(1) = (1 + sin 1, cos 1), cosine 0.8776
    assert proc.stdout.readline() == b"SIM 0 1 = 0.8776\n"
    proc.stdout.close()
    err = proc.stderr.read()
    proc.stderr.close()
    assert proc.wait(timeout=60) == 1 and err == b""


INTERRUPTING = "def lookup(table, token_id):\n    raise KeyboardInterrupt\n\n\ndef pos_encoding(pos, d):\n    raise KeyboardInterrupt\n"


def test_main_stops_quietly_with_status_130_on_ctrl_c_in_the_learners_functions(tmp_path, capsys):
    # Ctrl-C in the learner's function was a traceback from the command line
    functions = tmp_path / "mine.py"
    functions.write_text(INTERRUPTING)
    program = tmp_path / "p.trace"
    program.write_text("WIDTH 2\nTOKEN a 1 0\nLOOKUP a\n")
    for argv in (["--functions", str(functions), str(program)], ["--check", str(functions)]):
        assert trace.main(argv) == trace.INTERRUPTED == 130
        captured = capsys.readouterr()
        assert captured.err == "python -m lib.trace: interrupted\n" and captured.out == ""
    functions.write_text("raise KeyboardInterrupt\n")  # while the learner's file is loaded
    assert trace.main(["--functions", str(functions), str(program)]) == 130
    assert capsys.readouterr().err == "python -m lib.trace: interrupted\n"


@pytest.mark.slow
def test_cli_stops_quietly_with_status_130_on_ctrl_c(tmp_path):
    functions = tmp_path / "mine.py"
    functions.write_text(INTERRUPTING)
    program = tmp_path / "p.trace"
    program.write_text("WIDTH 2\nTOKEN a 1 0\nLOOKUP a\n")
    result = _cli("--functions", str(functions), str(program))
    assert result.returncode == 130 and result.stderr == "python -m lib.trace: interrupted\n" and result.stdout == ""


# --- the checker's diagnoses, with functions written as a learner writes them -------------------------

def _learner_encoding(pos, d, *, divisor=lambda k, d: 10000 ** (2 * (k // 2) / d), even=math.sin, odd=math.cos):
    """An encoding written as a learner writes it: a loop over the dimensions, Python's math."""
    out = []
    for k in range(d):
        angle = pos / divisor(k, d)
        out.append(even(angle) if k % 2 == 0 else odd(angle))
    return np.array(out)


def _copy_lookup(table, token_id):
    return np.array(table[token_id], dtype=float)


def _view_lookup(table, token_id):
    return table[token_id]


def _concatenated(pos, d):
    half = (d + 1) // 2
    angles = [pos / 10000 ** (2 * i / d) for i in range(half)]
    return np.array([math.sin(a) for a in angles] + [math.cos(a) for a in angles])[:d]


def _zero_first(pos, d):
    return np.zeros(d) if pos == 0 else _learner_encoding(pos, d)


LEARNERS_WITH_ONE_MISTAKE = {
    "exponent uses k": (_copy_lookup, lambda pos, d: _learner_encoding(pos, d, divisor=lambda k, d: 10000 ** (2 * k / d))),
    "sin and cos swapped": (_copy_lookup, lambda pos, d: _learner_encoding(pos, d, even=math.cos, odd=math.sin)),
    "sine everywhere": (_copy_lookup, lambda pos, d: _learner_encoding(pos, d, odd=math.sin)),
    "integer division": (_copy_lookup, lambda pos, d: _learner_encoding(pos, d, divisor=lambda k, d: 10000 ** (2 * (k // 2) // d))),
    "integer power": (_copy_lookup, lambda pos, d: _learner_encoding(pos, d, divisor=lambda k, d: int(10000 ** (2 * (k // 2) / d)))),
    "encoding added to the table": (_view_lookup, _learner_encoding),
    "concatenated layout": (_copy_lookup, _concatenated),
    "position 0 zeroed": (_copy_lookup, _zero_first),
}


def test_every_recognised_mistake_has_a_learner_here():
    assert sorted(LEARNERS_WITH_ONE_MISTAKE) == sorted(trace.MISTAKES)
    assert trace.check(_copy_lookup, _learner_encoding).passed  # the learner's functions without a mistake


@pytest.mark.parametrize("name", sorted(LEARNERS_WITH_ONE_MISTAKE))
def test_a_learner_who_makes_one_mistake_gets_that_diagnosis_alone(name):
    report = trace.check(*LEARNERS_WITH_ONE_MISTAKE[name])
    assert not report.passed
    assert [m.name for m in report.mistakes] == [name]
    assert report.unexplained == []  # the mistake accounts for every failing case
    assert "match none of the known mistakes" not in str(report)


def _zeros_lookup(table, token_id):
    return np.zeros(len(table[token_id]))


def _cached_lookup():
    cache = {}

    def lookup(table, token_id):  # one array per token, handed out again and again: ADD changes it
        return cache.setdefault(token_id, np.array(table[token_id], dtype=float))
    return lookup


def _normalising_lookup(table, token_id):  # scales the row in place: it changes the table, ADD does not
    table[token_id] /= np.linalg.norm(table[token_id])
    return table[token_id].copy()


OTHER_MISTAKES = {
    "lookup returns zeros": (_zeros_lookup, _learner_encoding),
    "lookup returns the next row": (lambda table, i: table[(i + 1) % len(table)].copy(), _learner_encoding),
    "lookup returns a column": (lambda table, i: np.array(table.T[i]), _learner_encoding),
    "lookup reuses its arrays": (_cached_lookup(), _learner_encoding),
    "lookup changes the table": (_normalising_lookup, _learner_encoding),
    "encoding off by one position": (_copy_lookup, lambda pos, d: _learner_encoding(pos + 1, d)),
    "encoding all zeros": (_copy_lookup, lambda pos, d: np.zeros(d)),
    "encoding with base 1000": (_copy_lookup, lambda pos, d: _learner_encoding(pos, d, divisor=lambda k, d: 1000 ** (2 * (k // 2) / d))),
    "encoding as a column": (_copy_lookup, lambda pos, d: _learner_encoding(pos, d)[:, None]),
    "encoding in degrees": (_copy_lookup, lambda pos, d: _learner_encoding(pos, d, even=lambda a: math.sin(math.radians(a)),
                                                                           odd=lambda a: math.cos(math.radians(a)))),
}


@pytest.mark.parametrize("name", sorted(OTHER_MISTAKES))
def test_a_mistake_the_checker_does_not_know_gets_no_name(name):
    # "lookup returns zeros" was diagnosed as "encoding added to the table": the probe compared the row
    # after ADD with the table's, not with what lookup returned before ADD
    report = trace.check(*OTHER_MISTAKES[name])
    assert not report.passed and report.mistakes == []
    assert "The failing cases match none of the known mistakes" in str(report)
    assert "Recognised mistake" not in str(report)


def test_the_add_case_says_what_changed():
    learners = dict(OTHER_MISTAKES, **{"lookup reuses its arrays": (_cached_lookup(), _learner_encoding)})  # a new cache
    cases = {n: {c.name: c for c in trace.check(*learners[n]).cases}["ADD leaves the table unchanged"]
             for n in ("lookup returns zeros", "lookup reuses its arrays", "lookup changes the table")}
    assert cases["lookup returns zeros"].ok  # its table is unchanged: the lookup case fails instead
    assert not cases["lookup reuses its arrays"].ok
    assert cases["lookup reuses its arrays"].detail.startswith(
        "the table is unchanged, but ADD changed what lookup returns: LOOKUP a = [0.1000, 0.2000, 0.3000, 0.4000] "
        "before ADD, LOOKUP a = [")
    assert not cases["lookup changes the table"].ok
    assert cases["lookup changes the table"].detail == ("lookup changed the table it was given: return the row, "
                                                        "leaving the table as it is")


def test_two_mistakes_one_known_name_the_known_and_list_the_rest():
    # a view of the wrong row: ADD does write into the table (named), and the row is wrong (not a known mistake)
    report = trace.check(lambda table, i: table[(i + 1) % len(table)], _learner_encoding)
    assert [m.name for m in report.mistakes] == ["encoding added to the table"]
    assert report.unexplained == ["lookup(table, 1)", "worked trace (d = 4, pos = 3)"]
    text = str(report).replace("\n      ", " ")
    assert ("The other failing cases (lookup(table, 1); worked trace (d = 4, pos = 3)) match none of the known "
            "mistakes") in text
    # a known encoding mistake with a lookup that returns zeros
    report = trace.check(_zeros_lookup, LEARNERS_WITH_ONE_MISTAKE["sine everywhere"][1])
    assert [m.name for m in report.mistakes] == ["sine everywhere"]
    assert report.unexplained == ["lookup(table, 1)"]


def test_the_chapters_learner_gets_the_report_the_chapter_prints():
    # chapters/trace_exercise.md: a view of the row and the exponent on k, both named, nothing else
    def lookup(table, token_id):
        return table[token_id]

    def pos_encoding(pos, d):
        out = np.zeros(d)
        for k in range(d):
            angle = pos / 10000 ** (2 * k / d)
            out[k] = np.sin(angle) if k % 2 == 0 else np.cos(angle)
        return out

    report = trace.check(lookup, pos_encoding)
    assert [m.name for m in report.mistakes] == ["exponent uses k", "encoding added to the table"]
    assert report.unexplained == [] and report.n_failed == 9
    add = report.cases[-1]
    assert add.detail == "after ADD the table row changed: LOOKUP a = [1.9186, -0.6323, 0.3400, 2.3996]"
