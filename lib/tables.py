"""Tables as text: Markdown for the book's pages, aligned plain text for a notebook cell or a terminal.

Used by every module that shows a table (the chapters' result tables, provenance records, the toy
grammar); not taught in a chapter. Cells arrive as strings, already formatted by the caller (the caller
knows the precision a number deserves); this module only lays them out.

- :func:`markdown`: a GitHub-flavoured Markdown table, one alignment per column (``"<"`` left,
  ``">"`` right, written ``---`` and ``---:``); a ``|`` inside a cell is escaped.
- :func:`text`: columns padded to a common width and joined by gaps of spaces, trailing spaces removed;
  optionally a rule under the header (dashes under each column, or one line as long as the header).

Departure from the usual Markdown writers (``tabulate``, pandas' ``to_markdown``): no padding inside
Markdown cells, so that a table glued into a page is the same string on every machine and short enough
to read in a diff.
"""

from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

from lib import validate

__all__ = ["MAX_PAD", "markdown", "text"]

ALIGNS = ("<", ">")


#: the most spaces a width or a gap of :func:`text` may ask for: far beyond a line of any page or terminal, and a
#: bound, so that ``widths=[10**9]`` is refused by name instead of building a gigabyte of spaces
MAX_PAD = 1000


def _check(header: Sequence[str], rows: Sequence[Sequence[str]], align) -> Tuple[List[str], List[Sequence[str]], List[str]]:
    """``(header, rows, align)`` as lists, each checked (a generator of rows is read once, here)."""
    if isinstance(header, (str, bytes)) or not hasattr(header, "__iter__"):
        raise TypeError(f"header must be a sequence of strings, one per column, got {header!r}")
    given, header = header, list(header)
    if not all(isinstance(h, str) for h in header):
        raise TypeError(f"header must be a sequence of strings, one per column, got {given!r}")
    if not header:  # a table of no column: text() would compute gaps of -1, markdown() write "|  |"
        raise ValueError("header must name at least one column, got none")
    if isinstance(rows, (str, bytes)) or not hasattr(rows, "__iter__"):
        raise TypeError(f"rows must be a sequence of rows of strings, got {rows!r}")
    rows = list(rows)
    n = len(header)
    for i, row in enumerate(rows):
        if isinstance(row, (str, bytes)) or not hasattr(row, "__len__"):
            raise TypeError(f"row {i} must be a sequence of strings, got {row!r}")
        if len(row) != n:
            raise ValueError(f"row {i} has {len(row)} cells, the header {n}")
        for j, cell in enumerate(row):
            if not isinstance(cell, str):
                raise TypeError(f"cells must be formatted strings, got {cell!r} in row {i}")
            _one_line(cell, f"row {i}, column {j}")
    for j, cell in enumerate(header):
        _one_line(cell, f"header column {j}")
    if align is None:
        align = ["<"] * n
    elif isinstance(align, str):  # "<>": one character per column
        align = list(align)
    else:
        align = validate.collection(align, "align", f"one of {ALIGNS} per column, or a string of them")
    if len(align) != n:
        raise ValueError(f"align must give one of {ALIGNS} per column ({n}), got {len(align)}")
    for a in align:
        validate.choice(a, "align", ALIGNS)
    return header, rows, align


#: the characters that end a line for ``str.splitlines``: any of them inside a cell would split its row
_LINE_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"


def _one_line(cell: str, where: str) -> None:
    """``ValueError`` naming ``where`` when ``cell`` holds a line break: a table row is one line, and a break
    inside a cell would end the row there, silently breaking the table."""
    brk = next((c for c in cell if c in _LINE_BREAKS), None)
    if brk is not None:
        raise ValueError(f"{where} holds a line break ({brk!r}) in {cell!r}: a table cell must be one line")


def markdown(header: Sequence[str], rows: Sequence[Sequence[str]], align: Optional[Sequence[str]] = None) -> str:
    """A Markdown table: a header line, an alignment line and one line per row.

    ``header`` and every row hold one string per column; ``align`` one of ``"<"`` / ``">"`` per column
    (default all left); a ``|`` in a cell is escaped (``\\|``). ``header`` and ``rows`` may be any iterables
    (a generator of rows is read once). Raises ``ValueError`` for an empty ``header`` (a table has at least
    one column), a row of the wrong length, a cell (or a header) holding a line break, or an unknown
    alignment, and ``TypeError`` for a header, a row or a cell that is not a string or a sequence of them.

    >>> rows = [["the", "12"], ["a|b", "3"]]
    >>> print(markdown(["word", "count"], rows, align="<>"))
    | word | count |
    | --- | ---: |
    | the | 12 |
    | a\\|b | 3 |
    """
    header, rows, align = _check(header, rows, align)

    def line(cells):
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    rule = "| " + " | ".join("---:" if a == ">" else "---" for a in align) + " |"
    return "\n".join([line(header), rule] + [line(r) for r in rows])


def text(
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    align: Optional[Sequence[str]] = None,
    *,
    widths: Optional[Sequence[int]] = None,
    gaps: Optional[Sequence[int]] = None,
    rule: Optional[str] = None,
) -> str:
    """An aligned plain-text table: each column as wide as its widest cell (at least ``widths[i]``).

    ``align`` as in :func:`markdown`; ``gaps``: the spaces before each column but the first (default 2
    each); ``rule``: ``None`` (no rule), ``"columns"`` (dashes under each column, the last as wide as its
    widest cell) or ``"line"`` (one line of dashes as long as the header line). Trailing spaces are
    removed from every line. Raises like :func:`markdown`, ``ValueError`` for ``widths`` or ``gaps``
    of the wrong length, a width or gap below 0 or above ``MAX_PAD`` (1000; each named, ``widths[0]``) or an
    unknown ``rule``, and ``TypeError`` for ``widths`` or ``gaps`` that is not a sequence or holds a value that
    is not an integer.

    >>> rows = [["the", "12"], ["cat", "3"]]
    >>> print(text(["word", "count"], rows, align="<>", rule="columns"))
    word  count
    ----  -----
    the      12
    cat       3
    """
    header, rows, align = _check(header, rows, align)
    n = len(header)
    widths = validate.collection(widths, "widths", "a sequence of integers, one per column") if widths is not None else [0] * n
    gaps = validate.collection(gaps, "gaps", "a sequence of integers, one per gap") if gaps is not None else [2] * (n - 1)
    if len(widths) != n or len(gaps) != n - 1:
        raise ValueError(f"widths needs {n} values and gaps {n - 1}, got {len(widths)} and {len(gaps)}")
    widths = [validate.integer(w, f"widths[{i}]", low=0, high=MAX_PAD) for i, w in enumerate(widths)]
    gaps = [validate.integer(g, f"gaps[{i}]", low=0, high=MAX_PAD) for i, g in enumerate(gaps)]
    validate.choice(rule, "rule", (None, "columns", "line"))
    table = [list(header)] + [list(r) for r in rows]
    width = [max([widths[i]] + [len(r[i]) for r in table]) for i in range(n)]

    def line(cells):
        out = ""
        for i, (cell, w, a) in enumerate(zip(cells, width, align)):
            out += (" " * gaps[i - 1] if i else "") + (cell.rjust(w) if a == ">" else cell.ljust(w))
        return out.rstrip()

    lines = [line(r) for r in table]
    if rule == "columns":
        lines.insert(1, line(["-" * w for w in width]))
    elif rule == "line":
        lines.insert(1, "-" * len(lines[0]))
    return "\n".join(lines)
