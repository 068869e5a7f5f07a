"""The language of chapters/trace_exercise.md: a tiny command language for embeddings plus sinusoidal
positions, and a checker.

Taught in: chapters/trace_exercise.md (the exercise's language, its interpreter and its checker).

A program is plain text, one command per line; ``#`` starts a comment; blank lines are ignored::

    WIDTH 4                    # model width d (1 .. 1024), first command
    TOKEN the 0.1 0.2 0.3 0.4  # a row of the embedding table: a name, d numbers
    TOKEN cat 0.5 -0.5 1 0
    SEQUENCE the cat the cat   # the input tokens, at positions 0, 1, 2, ...
    LOOKUP cat                 # the token's row of the table
    POSENC 3                   # the sinusoidal encoding of position 3
    ADD 3                      # input at position 3: the token's row + POSENC 3
    SIM 1 3                    # cosine of the inputs at positions 1 and 3

Numbers are written with the ASCII digits 0-9: an integer (``WIDTH``, positions) as optional sign and
digits, a value of ``TOKEN`` also with a decimal point and an exponent (``-0.5``, ``1e-3``); the digits
of other scripts (``٣``, ``३``, ``３``) are an error naming the line, wherever they stand. The error names
the first character that is not ASCII by code point and says what to write instead (``U+2212 MINUS SIGN
is not ASCII: write '-'``, ``the invisible character U+200B ZERO WIDTH SPACE: remove it``;
:func:`lib.validate.digits_hint`).

Each query prints one line with values to 4 decimals, e.g. ``ADD 3 (cat) = [0.6411, -1.4900, 1.0300,
0.9996]``. The interpreter (the exercise's "starter") parses and checks everything and calls two
functions that the learner writes:

- ``lookup(table, token_id)`` → the ``(d,)`` row ``token_id`` of the ``(V, d)`` table;
- ``pos_encoding(pos, d)`` → the ``(d,)`` sinusoidal encoding :cite:p:`vaswani2017attention{§3.5}`.

``ADD`` adds the encoding **in place** to the vector that ``lookup`` returned, as a model adds to its
activations, so a ``lookup`` that returns a view of the table (``table[i]`` in NumPy) corrupts the table:
that is one of the mistakes :func:`check` recognises. The reference functions are
:func:`lib.embedding.lookup` and :func:`lib.positional.sinusoidal_encoding`.

Errors in a program raise :class:`TraceError` naming the line; the command line
(``python -m lib.trace FILE``) prints ``FILE:LINE: error: ...`` and exits with status 2, never a traceback.
Stopped with Ctrl-C (in the interpreter or in the learner's functions), it prints ``python -m lib.trace:
interrupted`` and exits with status 130 (``INTERRUPTED``: 128 + SIGINT, the status a shell gives a program
stopped by Ctrl-C).
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import os
import re
import reprlib
import sys
import textwrap
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence

import numpy as np

from lib import embedding, positional, validate
from lib.corpus import stray_byte_order_mark
from lib.datasets import StrayMarkError, other_line_end, read_text, text_lines
from lib.notebook import FIXED_POINT_LIMIT, fmt, fmt_each

MAX_WIDTH = 1024
MAX_POSITION = 1_000_000  # POSENC limit: a documented bound for the exercise, far beyond any sequence in it
COMMANDS = ("WIDTH", "TOKEN", "SEQUENCE", "LOOKUP", "POSENC", "ADD", "SIM")
EXAMPLES = Path(__file__).parent / "data" / "traces"
#: the command line's exit status after Ctrl-C: 128 + SIGINT (2), as a shell reports a program stopped by it
INTERRUPTED = 130


class TraceError(Exception):
    """An error in a trace program, at a 1-based ``line`` number (0 when no line applies)."""

    def __init__(self, line: int, message: str):
        super().__init__(f"line {line}: {message}")
        self.line, self.message = line, message


@dataclass(frozen=True)
class Functions:
    """The two functions a program runs with: ``lookup(table, token_id)`` and ``pos_encoding(pos, d)``."""

    lookup: Callable
    pos_encoding: Callable

    def __post_init__(self):
        for name in ("lookup", "pos_encoding"):
            if not callable(getattr(self, name)):
                raise TypeError(f"{name} must be a function, got {getattr(self, name)!r}")


#: The reference implementation, the functions a program runs with unless others are given:
#: :func:`lib.embedding.lookup` and :func:`lib.positional.sinusoidal_encoding`.
#:
#: :meta hide-value:
REFERENCE = Functions(lookup=embedding.lookup, pos_encoding=positional.sinusoidal_encoding)


def format_vector(v) -> str:
    """``[0.6411, -1.4900, ...]``: each entry of ``v`` (an array of real numbers, any shape, read flat) as
    :func:`format_number` writes it: 4 decimals, ``-0.0000`` written as ``0.0000``, and an entry of
    ``lib.notebook.FIXED_POINT_LIMIT`` (1e16) or more in size in exponent form. ``TypeError`` naming ``v`` for entries
    that are not real numbers (strings, bools, complex numbers, ``None``), ``ValueError`` for a ragged nesting
    (:func:`lib.validate.real_numbers`).

    >>> format_vector([0.14112, -0.0000001, 2e300])
    '[0.1411, 0.0000, 2.0000e+300]'
    """
    try:
        values = validate.real_numbers(v, "v", "an array of numbers").astype(np.float64).ravel()
    except TypeError as exc:
        if not str(exc).startswith("v must hold real numbers, got dtype"):  # a bool among numbers, a mask: as said
            raise
        raw = np.asarray(validate.array_input(v, "v"))
        dtype = f" (dtype {raw.dtype})" if raw.ndim else ""  # None, a string: no array to speak of
        raise TypeError(f"v must be an array of real numbers, got {reprlib.repr(v)}{dtype}") from None
    large = np.isfinite(values) & (np.abs(values) >= FIXED_POINT_LIMIT)
    if not large.any():
        return "[" + ", ".join(fmt_each(values, ".4f")) + "]"  # as format_number, each
    texts = np.empty(values.size, dtype=object)
    texts[~large] = fmt_each(values[~large], ".4f")
    texts[large] = fmt_each(values[large], ".4e")
    return "[" + ", ".join(texts) + "]"


def format_number(x: float) -> str:
    """One value to 4 decimals with no negative zero: the precision of the language, so a value below 0.00005
    in size is ``0.0000`` (a cosine of 1e-17 is 0 up to rounding). A value of
    ``lib.notebook.FIXED_POINT_LIMIT`` (1e16) or more in size, whose fixed-point form would show more digits
    than float64 holds (up to 309), is written in exponent form with 4 decimals. ``TypeError`` for a
    value that is not a real number, ``ValueError`` for one beyond float64 (:func:`lib.validate.real`).

    >>> format_number(-0.00001), format_number(1e300)
    ('0.0000', '1.0000e+300')
    """
    x = validate.real(x, "x")
    spec = ".4e" if math.isfinite(x) and abs(x) >= FIXED_POINT_LIMIT else ".4f"
    return fmt(x, spec)  # lib.notebook.fmt: rounded as the book prints every float


# --- parsing --------------------------------------------------------------------------------------


@dataclass
class Command:
    line: int
    name: str
    args: List[str]


_WORD_SEPARATORS = re.compile(r"[ \t]+")


def parse(text: str) -> List[Command]:
    """Split a program into commands, checking names and argument counts. Raises :class:`TraceError`.

    Lines are numbered as an editor numbers them (:func:`lib.datasets.text_lines`: a line ends at
    ``\\n``, ``\\r\\n`` or ``\\r``), and a byte-order mark at the start of ``text`` is not part of the
    first command; one anywhere else (two programs joined) is an error naming the line, the benchmark readers'
    rule (:func:`lib.corpus.stray_byte_order_mark`). A line holding another line-end character (U+2028, NEL, VT, FF:
    :func:`lib.datasets.other_line_end`, the benchmark readers' rule) is an error, since an editor may show
    a line break there; words are separated by ASCII spaces and tabs only, so a no-break or ideographic
    space is part of a word (and its error shows it escaped), never a separator that cannot be seen.
    """
    commands = []
    for number, raw in enumerate(text_lines(text), start=1):
        problem = other_line_end(raw) or stray_byte_order_mark(raw)
        if problem:
            raise TraceError(number, problem)
        words = _WORD_SEPARATORS.split(raw.split("#", 1)[0].strip(" \t"))
        words = [] if words == [""] else words
        if not words:
            continue
        name, args = words[0], words[1:]
        if name not in COMMANDS:
            hint = f" (commands are upper case: {name.upper()})" if name.upper() in COMMANDS else _non_ascii(name)
            raise TraceError(number, f"unknown command {name!r}; expected one of {', '.join(COMMANDS)}{hint}")
        expected = {"WIDTH": 1, "LOOKUP": 1, "POSENC": 1, "ADD": 1, "SIM": 2}.get(name)
        if expected is not None and len(args) != expected:
            raise TraceError(number, f"{name} takes {expected} value{'s' if expected > 1 else ''}, got {len(args)}")
        if name in ("TOKEN", "SEQUENCE") and not args:
            raise TraceError(number, f"{name} needs at least one token name")
        commands.append(Command(number, name, args))
    if not commands:
        raise TraceError(1, "the program is empty; expected WIDTH d as its first command")
    if commands[0].name != "WIDTH":
        raise TraceError(commands[0].line, f"expected WIDTH d as the first command, got {commands[0].name}")
    return commands


# Every number in a program (WIDTH, the values of TOKEN, positions) follows one rule, lib.validate.read_number:
# a sign and ASCII digits, for a value also a decimal point and an exponent. int() and float() would take
# 1_0 and the digits of every script (int("٣") is 3), so that TOKEN accepted what WIDTH refused.


def _read(cmd: Command, text: str, integer: bool = False):
    try:
        return validate.read_number(text, integer=integer)
    except ValueError as exc:  # too many digits
        raise TraceError(cmd.line, str(exc)) from None


def _integer(cmd: Command, text: str, what: str, low: int, high: int) -> int:
    value = _read(cmd, text, integer=True)
    if value is None:
        raise TraceError(cmd.line, f"{what} must be an integer, got {text!r}{validate.digits_hint(text)}")
    if not low <= value <= high:
        raise TraceError(cmd.line, f"{what} {value} out of range; expected {low}..{high}")
    return value


def _number(cmd: Command, text: str) -> float:
    value = _read(cmd, text)
    if value is None:
        raise TraceError(cmd.line, f"expected a number, got {text!r}{validate.digits_hint(text)}")
    if not math.isfinite(value):
        why = validate.non_finite_text(text)
        raise TraceError(cmd.line, f"expected a finite number, got {text!r}" + ("" if why == "not finite" else f", {why}"))
    return value


# --- running --------------------------------------------------------------------------------------


@dataclass
class State:
    """What a program has defined so far: width, token names (in id order, and ``index``: name → id, so
    that finding a token costs the same however many there are), table rows and the sequence."""

    width: int = 0
    names: List[str] = field(default_factory=list)
    index: Dict[str, int] = field(default_factory=dict)
    rows: List[List[float]] = field(default_factory=list)
    table: Optional[np.ndarray] = None  # (V, d) float64, built at the first query
    sequence: List[int] = field(default_factory=list)


def _learner(fn, args, call: str, shape, line: int) -> np.ndarray:
    """Call a learner's function; any exception or a wrong shape becomes a :class:`TraceError`. A PyTorch
    tensor is read as its values (:func:`lib.validate.array_input`: detached, a ``bfloat16`` one widened)."""
    try:
        result = fn(*args)
    except (Exception, SystemExit) as exc:  # the learner's code may raise (or exit): report it on the line
        raise TraceError(line, f"{call} raised {type(exc).__name__}: {exc}") from None
    try:
        arr = np.asarray(validate.array_input(result, call))  # a PyTorch tensor as its values (bfloat16, grad too)
    except Exception:
        raise TraceError(line, f"{call} returned {type(result).__name__}, expected an array of shape {shape}") from None
    if arr.shape != shape:
        raise TraceError(line, f"{call} returned shape {arr.shape}, expected {shape}")
    if not validate.real_dtype(arr.dtype):
        raise TraceError(line, f"{call} returned dtype {arr.dtype}, expected real numbers")
    if not np.all(np.isfinite(arr)):
        raise TraceError(line, f"{call} returned NaN or infinity: {format_vector(arr)}")
    return arr


#: an unknown token's error lists at most this many of the defined ones
SHOWN_TOKENS = 10


def _token(state: State, cmd: Command, name: str) -> int:
    token_id = state.index.get(name)
    if token_id is None:
        # a name with an invisible character (U+200B) is shown escaped, as the unknown name is
        known = ", ".join(n if n.isprintable() else repr(n) for n in state.names[:SHOWN_TOKENS]) or "none yet"
        if len(state.names) > SHOWN_TOKENS:
            known += f", ... ({len(state.names)} in all)"
        hint = _composed_differently(name, state.names) or _non_ascii(name)
        raise TraceError(cmd.line, f"unknown token {name!r}{hint}; defined tokens: {known}")
    return token_id


def _written_form(name: str) -> str:
    if unicodedata.is_normalized("NFC", name):
        return "composed (NFC)"
    if unicodedata.is_normalized("NFD", name):
        return "decomposed (NFD)"
    return "partly decomposed"


def _composed_differently(name: str, defined: Sequence[str]) -> str:
    """A hint for an unknown name that prints as a defined one because the two differ only in how their
    accented letters are written: ``café`` with U+00E9 (composed, NFC) or with ``e`` and U+0301 COMBINING
    ACUTE ACCENT (decomposed, NFD). Tokens are names as written, so the two are different names. ``""`` when
    no defined name has the NFC form of ``name``."""
    if name.isascii():
        return ""
    composed = unicodedata.normalize("NFC", name)
    match = next((n for n in defined if not n.isascii() and unicodedata.normalize("NFC", n) == composed), None)
    if match is None:
        return ""
    return (f" (it is written {_written_form(name)} where the defined token {match!r} is written "
            f"{_written_form(match)}: an accented letter as a letter followed by a combining mark, or as one "
            f"character; the two print alike but are different names, so write it as it is defined)")


def _non_ascii(name: str) -> str:
    """A hint for an unknown name that holds a character outside ASCII, naming the first one by code point
    and Unicode name: a look-alike (Cyrillic ``А`` in ``АDD``, Greek ``ο``) prints as the ASCII letter, so
    the name would look the same as the one meant; a combining mark (U+0301) prints on the character
    before it. ``""`` for an ASCII name."""
    odd = next((c for c in name if not c.isascii()), None)
    if odd is None:
        return ""
    described = f"U+{ord(odd):04X}" + (f" {unicodedata.name(odd)}" if unicodedata.name(odd, "") else "")
    if unicodedata.category(odd) == "Zs":  # a no-break or ideographic space: words are split at ASCII ones only
        looks = "a space that does not separate words"
    elif unicodedata.category(odd) in ("Mn", "Mc", "Me"):  # a combining mark: it joins the character before it
        looks = "a combining mark, which prints on the character before it"
    else:
        looks = "which may look like an ASCII letter" if odd.isprintable() else "which cannot be seen"
    return f" (it holds the non-ASCII character {odd!r}, {described}, {looks})"


def _position(state: State, cmd: Command, text: str) -> int:
    if not state.sequence:
        raise TraceError(cmd.line, f"{cmd.name} needs a SEQUENCE before it")
    return _integer(cmd, text, "position", 0, len(state.sequence) - 1)


def _input_vector(state: State, fns: Functions, cmd: Command, pos: int) -> np.ndarray:
    token_id = state.sequence[pos]
    vec = _learner(fns.lookup, (state.table, token_id), f"lookup(table, {token_id})", (state.width,), cmd.line)
    pe = _learner(fns.pos_encoding, (pos, state.width), f"pos_encoding({pos}, {state.width})", (state.width,), cmd.line)
    if not np.issubdtype(vec.dtype, np.floating):
        vec = vec.astype(np.float64)
    try:
        with np.errstate(over="ignore", invalid="ignore"):  # a float16 row may overflow: reported just below
            vec += pe  # in place, like a model adding to its activations: lookup must not hand out the table
    except ValueError as exc:  # e.g. a read-only array from lookup
        raise TraceError(cmd.line, f"cannot add the encoding to what lookup(table, {token_id}) returned: {exc}; "
                         "return a new, writable array") from None
    if not np.all(np.isfinite(vec)):
        raise TraceError(cmd.line, f"the input at position {pos} overflows: {format_vector(vec)}")
    return vec


def run(text: str, functions: Functions = REFERENCE) -> List[str]:
    """Run a program and return its output lines. Raises :class:`TraceError` on the first bad line.

    Time grows linearly with the program: a token is found by name in a dictionary, never by a scan of
    the defined names (``benchmarks/trace_interpreter.py`` measures it).

    ``functions`` is a :class:`Functions` (default the reference implementation); ``TypeError`` otherwise.

    >>> run("WIDTH 4\\nTOKEN cat 0.5 -0.5 1 0\\nSEQUENCE cat cat cat cat\\nADD 3")
    ['ADD 3 (cat) = [0.6411, -1.4900, 1.0300, 0.9996]']
    """
    if not isinstance(functions, Functions):
        raise TypeError(f"functions must be a lib.trace.Functions (default the reference), got {type(functions).__name__}")
    fns, state, out = functions, State(), []
    for cmd in parse(text):
        if cmd.name == "WIDTH":
            if state.width:
                raise TraceError(cmd.line, "WIDTH may be given only once")
            state.width = _integer(cmd, cmd.args[0], "width", 1, MAX_WIDTH)
        elif cmd.name == "TOKEN":
            if state.table is not None:
                raise TraceError(cmd.line, "TOKEN rows must all come before the first query")
            name, values = cmd.args[0], cmd.args[1:]
            if name in state.index:
                raise TraceError(cmd.line, f"token {name!r} is already defined")
            if len(values) != state.width:
                raise TraceError(cmd.line, f"TOKEN {name} needs {state.width} values (the WIDTH), got {len(values)}")
            state.index[name] = len(state.names)
            state.names.append(name)
            state.rows.append([_number(cmd, v) for v in values])
        elif cmd.name == "SEQUENCE":
            if state.sequence:
                raise TraceError(cmd.line, "SEQUENCE may be given only once")
            state.sequence = [_token(state, cmd, name) for name in cmd.args]
        else:
            if state.table is None:
                if not state.rows:
                    raise TraceError(cmd.line, f"{cmd.name} needs at least one TOKEN row before it")
                state.table = np.array(state.rows, dtype=np.float64)  # (V, d)
            out.append(_query(state, fns, cmd))
    return out


def _query(state: State, fns: Functions, cmd: Command) -> str:
    d = state.width
    if cmd.name == "LOOKUP":
        token_id = _token(state, cmd, cmd.args[0])
        vec = _learner(fns.lookup, (state.table, token_id), f"lookup(table, {token_id})", (d,), cmd.line)
        return f"LOOKUP {cmd.args[0]} = {format_vector(vec)}"
    if cmd.name == "POSENC":
        pos = _integer(cmd, cmd.args[0], "position", 0, MAX_POSITION)
        vec = _learner(fns.pos_encoding, (pos, d), f"pos_encoding({pos}, {d})", (d,), cmd.line)
        return f"POSENC {pos} = {format_vector(vec)}"
    if cmd.name == "ADD":
        pos = _position(state, cmd, cmd.args[0])
        vec = _input_vector(state, fns, cmd, pos)
        return f"ADD {pos} ({state.names[state.sequence[pos]]}) = {format_vector(vec)}"
    i, j = (_position(state, cmd, a) for a in cmd.args)  # SIM
    try:
        sim = embedding.cosine_similarity(_input_vector(state, fns, cmd, i), _input_vector(state, fns, cmd, j))
    except ValueError as exc:  # e.g. vectors too large for float64
        raise TraceError(cmd.line, f"SIM {i} {j}: {exc}") from None
    return f"SIM {i} {j} = {format_number(sim)}"


def run_or_error(text: str, functions: Functions = REFERENCE) -> List[str]:
    """Run a program; return its output lines, or the one-line error (``error: line N: ...``) it raises."""
    try:
        return run(text, functions)
    except TraceError as exc:
        return [f"error: {exc}"]


def run_file(path, functions: Functions = REFERENCE) -> List[str]:
    """Run the program in ``path``, a text file read by :func:`lib.datasets.read_text` (UTF-8, or the
    encoding a byte-order mark names, the mark removed). Raises :class:`TraceError`, ``OSError`` and
    ``UnicodeDecodeError``; a byte-order mark where none belongs is a :class:`TraceError` naming its line,
    found by :func:`lib.datasets.read_text` (a second mark, U+FFFE or ``ï»¿`` anywhere), as ``parse``
    finds one in a program given as text."""
    try:
        text = read_text(path)
    except StrayMarkError as exc:
        raise TraceError(exc.line, exc.reason) from None
    return run(text, functions)


def example(name: str) -> Path:
    """Path of a shipped example program, e.g. ``example("worked_trace")``; ``ValueError`` if unknown,
    ``TypeError`` for a ``name`` that is not a ``str``."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a str naming an example, got {name!r}")
    path = EXAMPLES / f"{name}.trace"
    if not path.exists():
        known = ", ".join(sorted(p.stem for p in EXAMPLES.glob("*.trace")))
        raise ValueError(f"no example named {name!r}; examples: {known}")
    return path


# --- the mistakes the checker recognises -----------------------------------------------------------


def _encoding(pos, d, *, divisor=None, even=np.sin, odd=np.cos, layout="interleaved", zero_first=False):
    """The sinusoidal encoding with one thing changed: a model of each mistake. ``(d,)`` float64."""
    k = np.arange(d)
    pair = k // 2
    div = 10000.0 ** (2 * pair / d) if divisor is None else divisor(k, pair, d)
    angle = pos / div
    out = np.where(k % 2 == 0, even(angle), odd(angle))
    if layout == "concatenated":  # [sin of every pair | cos of every pair]
        half = (d + 1) // 2
        pairs = np.arange(half)
        angle = pos / 10000.0 ** (2 * pairs / d)
        out = np.concatenate([np.sin(angle), np.cos(angle)])[:d]
    if zero_first and pos == 0:
        out = np.zeros(d)
    return out


def _view_lookup(table, token_id):
    return table[token_id]  # basic indexing: a view that aliases the table row


@dataclass(frozen=True)
class Mistake:
    """A known mistake: a name, what goes wrong, how to fix it, and functions that make it."""

    name: str
    description: str
    fix: str
    functions: Functions


def _pe(**changes):
    return lambda pos, d: _encoding(pos, d, **changes)


#: The eight mistakes :func:`check` recognises, each a :class:`Mistake`, by its name ("sin and cos swapped",
#: "integer division", "encoding added to the table", ...).
#:
#: :meta hide-value:
MISTAKES: Dict[str, Mistake] = {
    m.name: m
    for m in [
        Mistake("exponent uses k", "the exponent uses the dimension k instead of pair = k // 2",
                "use pair = k // 2, so dimensions 2p and 2p + 1 share one frequency",
                Functions(embedding.lookup, _pe(divisor=lambda k, pair, d: 10000.0 ** (2 * k / d)))),
        Mistake("sin and cos swapped", "even dimensions use cosine and odd dimensions sine",
                "even k: sin(angle); odd k: cos(angle)",
                Functions(embedding.lookup, _pe(even=np.cos, odd=np.sin))),
        Mistake("sine everywhere", "every dimension uses sine", "odd dimensions use cos(angle)",
                Functions(embedding.lookup, _pe(odd=np.sin))),
        Mistake("integer division", "every divisor is 1: 2 * pair / d is computed with integer division "
                "(or the divisor is left out)",
                "divide as floating point: 2 * pair / d",
                Functions(embedding.lookup, _pe(divisor=lambda k, pair, d: 10000.0 ** ((2 * pair) // d)))),
        Mistake("integer power", "10000 ** x is computed with a power function that returns an integer, "
                "truncating the divisor (10000 ** 0.125 = 3.16 becomes 3)",
                "use a floating-point power: 10000.0 ** (2 * pair / d)",
                Functions(embedding.lookup, _pe(divisor=lambda k, pair, d: np.floor(10000.0 ** (2 * pair / d))))),
        Mistake("encoding added to the table", "lookup returns a view of the table row, so adding the "
                "encoding to it changes the table itself", "return a copy of the row: table[token_id].copy()",
                Functions(_view_lookup, positional.sinusoidal_encoding)),
        Mistake("concatenated layout", "the encoding is laid out [sin of every pair | cos of every pair] "
                "instead of interleaving sin and cos", "interleave: dimension 2p is sin, dimension 2p + 1 is cos",
                Functions(embedding.lookup, _pe(layout="concatenated"))),
        Mistake("position 0 zeroed", "position 0 is returned as all zeros, but PE[0] = [0, 1, 0, 1, ...]",
                "compute position 0 with the same formula: sin 0 = 0, cos 0 = 1",
                Functions(embedding.lookup, _pe(zero_first=True))),
    ]
}

# (pos, d) cases for pos_encoding: small widths a learner can trace, odd widths, and the worked trace.
PE_CASES = [(0, 4), (1, 4), (3, 4), (7, 6), (2, 5), (0, 16), (5, 16), (12, 16), (100, 8)]
_CHECK_TABLE = np.array([[0.1, 0.2, 0.3, 0.4], [0.5, -0.5, 1.0, 0.0], [-1.0, 0.25, 0.0, 2.0]])


REPORT_WIDTH = 78  # characters per line of a printed report: what a code block of the book shows at 1280 px


@dataclass
class CaseResult:
    name: str
    ok: bool
    detail: str


@dataclass
class CheckReport:
    """The checker's verdict: one :class:`CaseResult` per case, the mistakes it recognised, and the names of
    the failing cases that none of them accounts for (``unexplained``)."""

    cases: List[CaseResult]
    mistakes: List[Mistake]
    unexplained: List[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return all(c.ok for c in self.cases)

    @property
    def n_failed(self) -> int:
        """How many cases failed."""
        return sum(not c.ok for c in self.cases)

    def __str__(self) -> str:
        """The report as text, every line at most ``REPORT_WIDTH`` characters (long lines wrap, indented)."""
        entries = [f"{'PASS' if c.ok else 'FAIL'}  {c.name}: {c.detail}" for c in self.cases]
        entries.append(f"{len(self.cases) - self.n_failed} of {len(self.cases)} cases pass.")
        for m in self.mistakes:
            entries.append(f"Recognised mistake: {m.name}: {m.description}. Fix: {m.fix}.")
        if not self.passed and not self.mistakes:
            entries.append("The failing cases match none of the known mistakes: compare your values with the "
                           "expected ones.")
        elif self.unexplained:
            entries.append(f"The other failing cases ({'; '.join(self.unexplained)}) match none of the known "
                           "mistakes: compare your values with the expected ones.")
        return "\n".join(textwrap.fill(e, REPORT_WIDTH, subsequent_indent="      ", break_on_hyphens=False)
                         for e in entries)

    def _repr_pretty_(self, printer, cycle):  # IPython shows the report as text
        printer.text(str(self))


def _call(fn, *args):
    try:
        result = np.asarray(validate.array_input(fn(*args), "the result"))  # as _learner reads it
        if not validate.real_dtype(result.dtype):
            return None, f"returned dtype {result.dtype}, expected real numbers"
        return result.astype(float), None
    except (Exception, SystemExit) as exc:  # the learner's code may raise anything; report it as a failed case
        return None, f"raised {type(exc).__name__}: {exc}"


def _pe_outputs(pos_encoding) -> List[Optional[np.ndarray]]:
    return [_call(pos_encoding, pos, d)[0] for pos, d in PE_CASES]


def _same(a, b) -> bool:
    return a is not None and b is not None and a.shape == b.shape and np.allclose(a, b, atol=1e-6)


def check(lookup: Callable, pos_encoding: Callable) -> CheckReport:
    """Run the learner's two functions on a battery of cases and name the mistakes recognised.

    Cases: ``pos_encoding`` at each ``(pos, d)`` of ``PE_CASES`` against the reference; ``lookup`` returns
    the right row; the worked trace's program gives the published output; running ``ADD`` leaves the table
    unchanged (and what ``lookup`` returns the same). A failing learner's mistakes are named only when it
    makes them: a mistake of ``pos_encoding`` when the learner's encodings equal that mistake's in every
    case, "encoding added to the table" when the table changed between two calls of ``lookup``, which only
    ``ADD`` writing through what ``lookup`` returned can do. Failing cases that no named mistake accounts for
    are listed as such (``CheckReport.unexplained``); a learner whose failures match no mistake gets no
    name at all. ``TypeError`` when ``lookup`` or ``pos_encoding`` is not a function (an error the
    functions raise is a failed case, not an exception).
    """
    Functions(lookup, pos_encoding)  # the TypeError for one that is not a function
    cases: List[CaseResult] = []
    for pos, d in PE_CASES:
        expected = positional.sinusoidal_encoding(pos, d)
        got, error = _call(pos_encoding, pos, d)
        name = f"pos_encoding({pos}, {d})"
        if error:
            cases.append(CaseResult(name, False, error))
        elif got.shape != expected.shape:
            cases.append(CaseResult(name, False, f"shape {got.shape}, expected {expected.shape}"))
        else:
            ok = np.allclose(got, expected, atol=1e-6)
            detail = format_vector(got) if ok else f"got {format_vector(got)}, expected {format_vector(expected)}"
            cases.append(CaseResult(name, ok, detail))
    table = _CHECK_TABLE.copy()
    got, error = _call(lookup, table, 1)
    ok = error is None and _same(got, _CHECK_TABLE[1])
    cases.append(CaseResult("lookup(table, 1)", ok, error or (format_vector(got) if ok else
                 f"got {format_vector(got)}, expected {format_vector(_CHECK_TABLE[1])}")))
    learner = Functions(lookup, pos_encoding)
    program = read_text(example("worked_trace"))
    try:
        got_lines, ok = run(program, learner), None
        want = run(program, REFERENCE)
        ok = got_lines == want
        detail = "matches the published trace" if ok else "; ".join(g for g, w in zip(got_lines, want) if g != w)
    except TraceError as exc:
        ok, detail = False, str(exc)
    cases.append(CaseResult(_WORKED, ok, detail))
    probe_case, changed_by_add = _add_probe(lookup)
    cases.append(probe_case)

    # a mistake is named only when the learner does what it does: the encodings of every case equal the
    # mistake's (each mistake of pos_encoding), or ADD wrote into the table through what lookup returned
    mistakes, accounted = [], set()
    if not all(c.ok for c in cases):
        learner_pe = _pe_outputs(pos_encoding)
        for m in MISTAKES.values():
            if m.functions.pos_encoding is not positional.sinusoidal_encoding:
                if all(_same(a, b) for a, b in zip(learner_pe, _pe_outputs(m.functions.pos_encoding))):
                    mistakes.append(m)
                    accounted |= {c.name for c in cases if c.name.startswith("pos_encoding(")} | {_WORKED}
        if changed_by_add:
            mistakes.append(MISTAKES["encoding added to the table"])
            accounted.add(probe_case.name)
    unexplained = [c.name for c in cases if not c.ok and c.name not in accounted]
    return CheckReport(cases, mistakes, unexplained if mistakes else [])


_WORKED = "worked trace (d = 4, pos = 3)"
_PROBE = "WIDTH 4\nTOKEN a 0.1 0.2 0.3 0.4\nSEQUENCE a a a\nLOOKUP a\nADD 2\nADD 2\nLOOKUP a\n"


def _add_probe(lookup) -> tuple:
    """Run ``_PROBE`` (LOOKUP, ADD twice, LOOKUP) with the learner's ``lookup``, watching the table it is
    given: ``(case, changed_by_add)``. ``changed_by_add`` is true when the table changed between two calls
    of ``lookup`` or after the last, which only ``ADD`` adding in place to what ``lookup`` returned can do
    (a view of the table); a ``lookup`` that changes the table itself is caught in the act, and is no such
    case. The case passes when the table is unchanged and ``LOOKUP`` and ``ADD`` print the same before and
    after."""
    calls = []  # (the table, its values before lookup, its values after)

    def watched(table, token_id):
        before = np.array(table, copy=True)
        try:
            return lookup(table, token_id)
        finally:
            calls.append((table, before, np.array(table, copy=True)))

    try:
        lines = run(_PROBE, Functions(watched, positional.sinusoidal_encoding))
    except TraceError as exc:
        return CaseResult("ADD leaves the table unchanged", False, str(exc)), False
    by_lookup = any(not np.array_equal(b, a) for _, b, a in calls)
    ends = [(a, b) for (_, _, a), (_, b, _) in zip(calls, calls[1:])] + [(calls[-1][2], calls[-1][0])]
    by_add = not by_lookup and any(not np.array_equal(a, b) for a, b in ends)
    if by_add:
        detail = "after ADD the table row changed: " + lines[3]
    elif by_lookup:
        detail = "lookup changed the table it was given: return the row, leaving the table as it is"
    elif lines[0] != lines[3] or lines[1] != lines[2]:
        detail = (f"the table is unchanged, but ADD changed what lookup returns: {lines[0]} before ADD, "
                  f"{lines[3]} after; return a new array at each call")
    else:
        return CaseResult("ADD leaves the table unchanged", True, "the table is unchanged after ADD"), False
    return CaseResult("ADD leaves the table unchanged", False, detail), by_add


# --- command line -----------------------------------------------------------------------------------


def _load_functions(path: str) -> Functions:
    spec = importlib.util.spec_from_file_location("learner_functions", path)
    if spec is None or spec.loader is None:
        raise TraceError(0, f"cannot load functions from {path!r}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except FileNotFoundError:
        raise TraceError(0, f"no such file: {path}") from None
    except (Exception, SystemExit) as exc:  # a syntax or run-time error in the learner's file
        raise TraceError(0, f"cannot load {path}: {type(exc).__name__}: {exc}") from None
    missing = [n for n in ("lookup", "pos_encoding") if not callable(getattr(module, n, None))]
    if missing:
        raise TraceError(0, f"{path} must define {' and '.join(missing)}")
    return Functions(module.lookup, module.pos_encoding)


def _print(text: str) -> None:
    """Print ``text`` to stdout, a character that stdout's encoding lacks written as a backslash escape
    (``\\u043a``), as Python writes stderr: with ``PYTHONIOENCODING=ascii`` or a redirect to a cp1252 file, a
    program whose token names that encoding lacks prints every line rather than stopping with a
    ``UnicodeEncodeError``. Text the encoding holds is printed as it is."""
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    try:
        text.encode(encoding)
    except UnicodeEncodeError:
        text = text.encode(encoding, "backslashreplace").decode(encoding)
    except LookupError:  # a stream that names no codec Python knows: print as given
        pass
    print(text)


class _OutputError(Exception):
    """Writing to stdout failed (a closed pipe, a full disk): not a problem with the file read."""

    def __init__(self, error: OSError):
        super().__init__(str(error))
        self.error = error


def _write(text: Optional[str]) -> None:
    """Print ``text`` as ``_print`` does (``None``: flush stdout); an ``OSError`` of the write is raised as an
    ``_OutputError``, so that the command line does not report it as a file it cannot read."""
    try:
        if text is None:
            sys.stdout.flush()
        else:
            _print(text)
    except OSError as exc:
        raise _OutputError(exc) from exc


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``python -m lib.trace [--functions my.py] FILE`` or ``python -m lib.trace --check my.py``."""
    parser = argparse.ArgumentParser(prog="python -m lib.trace", description=__doc__.split("\n\n")[0])
    parser.add_argument("file", nargs="?", help="a trace program (see lib/data/traces/ for examples)")
    parser.add_argument("--functions", metavar="PY", help="a Python file defining lookup and pos_encoding")
    parser.add_argument("--check", metavar="PY", help="run the checker on the functions in this Python file")
    args = parser.parse_args(argv)
    if not args.file and not args.check:
        parser.print_usage(sys.stderr)
        print("python -m lib.trace: error: give a trace FILE or --check PY", file=sys.stderr)
        return 2
    try:
        if args.check:
            fns = _load_functions(args.check)
            report = check(fns.lookup, fns.pos_encoding)
            _write(str(report))
            _write(None)
            return 0 if report.passed else 1
        fns = _load_functions(args.functions) if args.functions else REFERENCE
        for line in run_file(args.file, fns):
            _write(line)
        _write(None)
    except _OutputError as exc:
        if isinstance(exc.error, BrokenPipeError):  # the reader stopped (| head): stop quietly, as head expects
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error when Python exits
            return 1
        print(f"{args.file or args.check}: error: cannot write the output ({exc.error.strerror})", file=sys.stderr)
        return 2
    except TraceError as exc:
        # line 0: the error is not in the program but in loading the learner's file
        where = f"{args.file}:{exc.line}" if exc.line and args.file else (args.check or args.functions or args.file)
        print(f"{where}: error: {exc.message}", file=sys.stderr)
        return 2
    except (OSError, UnicodeDecodeError) as exc:
        print(f"{args.file}: error: cannot read the file ({exc.strerror if isinstance(exc, OSError) else exc})",
              file=sys.stderr)
        return 2
    except Exception as exc:  # last resort: the command line reports on one line, never with a traceback
        print(f"{args.file or args.check}: error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C, in the learner's functions too: one line and 128 + SIGINT, as a shell expects
        print(f"{parser.prog}: interrupted", file=sys.stderr)
        return INTERRUPTED
    return 0


if __name__ == "__main__":
    sys.exit(main())
