"""lib.tables: Markdown and plain-text tables written out by hand."""

import pytest

from lib import tables


def test_markdown_by_hand():
    assert tables.markdown(["a", "b"], [["1", "x|y"]], align="<>") == "| a | b |\n| --- | ---: |\n| 1 | x\\|y |"
    assert tables.markdown(["only"], []) == "| only |\n| --- |"


def test_text_widths_alignment_gaps_and_rules_by_hand():
    rows = [["cat", "1.5"], ["a", "10.25"]]
    assert tables.text(["word", "x"], rows, align="<>") == "word      x\ncat     1.5\na     10.25"
    assert tables.text(["word", "x"], rows, align="<>", rule="columns").splitlines()[1] == "----  -----"
    line = tables.text(["w", "x"], [["a", "b"]], widths=[3, 4], gaps=[1], rule="line").splitlines()
    assert line == ["w   x", "-----", "a   b"]  # header "w  " + " " + "x   ", trailing spaces removed


@pytest.mark.parametrize(
    "call, kind, match",
    [
        (lambda: tables.markdown(["a", "b"], [["1"]]), ValueError, "row 0 has 1 cells, the header 2"),
        (lambda: tables.markdown(["a"], [[1]]), TypeError, "formatted strings"),
        (lambda: tables.markdown(["a"], [["1"]], align="^"), ValueError, "align must be one of"),
        (lambda: tables.text(["a", "b"], [], widths=[1]), ValueError, "widths needs 2 values"),
        (lambda: tables.text(["a"], [], rule="double"), ValueError, "rule must be one of"),
        (lambda: tables.text(["a"], [["1"]], widths=[-1]), ValueError, r"^widths\[0\] must be an integer in \[0, 1000\], got -1$"),
        (lambda: tables.text(["a", "b"], [], gaps=[-2]), ValueError, r"^gaps\[0\] must be an integer in \[0, 1000\], got -2$"),
        (lambda: tables.text(["a"], [], widths=[2.5]), TypeError, r"^widths\[0\] must be an integer in \[0, 1000\], got 2.5$"),
        # were a gigabyte of spaces, and Python's "'int' object is not iterable"
        (lambda: tables.text(["a"], [], widths=[10**9]), ValueError, r"^widths\[0\] must be an integer in \[0, 1000\], got 1000000000$"),
        (lambda: tables.text(["a", "b"], [], gaps=[1001]), ValueError, r"^gaps\[0\] must be an integer in \[0, 1000\], got 1001$"),
        (lambda: tables.text(["a"], [], widths=3), TypeError, r"^widths must be a sequence of integers, one per column, got 3$"),
        (lambda: tables.text(["a", "b"], [], gaps=2), TypeError, r"^gaps must be a sequence of integers, one per gap, got 2$"),
        (lambda: tables.markdown(["a"], [], align=5), TypeError, r"^align must be one of \('<', '>'\) per column, or a string of them, got 5$"),
    ],
)
def test_bad_tables_are_rejected(call, kind, match):
    with pytest.raises(kind, match=match):
        call()


def test_a_header_or_rows_that_are_not_strings_are_named():
    import numpy as np

    with pytest.raises(TypeError, match=r"^header must be a sequence of strings, one per column, got array"):
        tables.markdown(np.eye(2), [["1", "2"]])  # was AttributeError: no attribute 'replace'
    with pytest.raises(ValueError, match=r"^align must be one of \('<', '>'\), got array\(\[1., 0.\]\)$"):
        tables.text(["a", "b"], [["1", "2"]], np.eye(2))  # was NumPy's "truth value ... is ambiguous"
    with pytest.raises(TypeError, match="^rows must be a sequence of rows of strings, got None$"):
        tables.text(["a"], None)
    with pytest.raises(TypeError, match="^row 0 must be a sequence of strings, got 'ab'$"):
        tables.markdown(["a", "b"], ["ab"])


@pytest.mark.parametrize("cell", ["x\ny", "x\r\ny", "x\u2028y", "x\x85y"])
def test_a_line_break_in_a_cell_is_refused_by_name(cell):
    # it was written into the row, ending the row there and breaking the table without a word
    for table in (tables.markdown, tables.text):
        with pytest.raises(ValueError, match=r"^row 1, column 0 holds a line break \(.*\) in .*: a table cell must be one line$"):
            table(["a", "b"], [["1", "2"], [cell, "3"]])
        with pytest.raises(ValueError, match=r"^header column 1 holds a line break"):
            table(["a", cell], [["1", "2"]])


def test_a_pipe_in_a_markdown_cell_is_escaped():
    assert tables.markdown(["a|b"], [["x|y"]]).splitlines() == ["| a\\|b |", "| --- |", "| x\\|y |"]


@pytest.mark.parametrize("table", [tables.markdown, tables.text])
def test_a_table_without_columns_is_refused_by_name(table):
    # text() said "widths needs 0 values and gaps -1", markdown() returned "|  |\n|  |", a table of no column
    for rows in ([], [[]]):
        with pytest.raises(ValueError, match=r"^header must name at least one column, got none$"):
            table([], rows)


@pytest.mark.parametrize("table", [tables.markdown, tables.text])
def test_a_header_and_rows_given_as_generators_are_read_once(table):
    # rows from a generator were used up by the checks and the table came out without them
    rows = ([word, str(len(word))] for word in ("the", "cat"))
    assert table((h for h in ("word", "n")), rows) == table(["word", "n"], [["the", "3"], ["cat", "3"]])
    assert "cat" in table(["word", "n"], (r for r in [["cat", "3"]]))
