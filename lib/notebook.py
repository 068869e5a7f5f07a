"""Helpers for chapter notebooks: format a number, put it into the prose, show a figure.

Used by every chapter (its imports cell) and by the ``lib`` code that writes text for a chapter; not taught
in a chapter.

The book's rule for numbers: every float a chapter prints or puts into its prose is rounded here, once, to
the precision the chapter shows. A float that went through float32 arithmetic, a BLAS reduction, an
iterative solver or training differs between CPUs and their SIMD code paths in its last digits; rounded to
the digits a reader sees it is the same everywhere, unless it sits on a rounding boundary (see "Rounding
margins" below), so that a reader who runs a chapter on their own machine sees the numbers of its page.
Integers are exact and are printed and glued as they are.

- :func:`fmt` formats a number, or a 1-D / 2-D array of numbers, with a format spec that states its
  precision (``".4f"``, ``">7.3f"``, ``".1%"``, ``".2e"``).
- :func:`glue` puts a computed value into the prose, through myst-nb's ``{glue:text}`` role. A float needs
  ``decimals``: it is rounded to them as it is glued (``glue("x", 1.34802, 4)`` holds ``1.3480``), and the
  prose shows exactly those digits, ``{glue:text}`x:.4f```.
- :func:`exact` shows a setting typed in the source (a learning rate of 0.1) in its shortest form.
- :func:`rounded` gives a figure the numbers as the chapter prints them, so that a point does not move by a
  pixel from one CPU to another.
- :func:`argmax` / :func:`argmin` pick the best item, and :func:`record_gap` notes how close a discrete
  choice (a ranking, an argmax) was to going the other way.

Rounding margins: a number rounded to the digits shown could still come out otherwise on another CPU if
its unrounded value lay closer to a rounding boundary than CPUs differ (a value near 0.12345, shown at four
decimals as ``0.1234`` or ``0.1235``). :func:`fmt`, :func:`exact`, :func:`glue` and :func:`record_gap` can
keep each unrounded value beside the text shown, when this is switched on for the process
(:func:`logging_numbers`; it never changes the text shown), so that the distance of every shown number from
its nearest boundary can be measured. Every number the book shows lies farther from its nearest boundary
than it varies between the CPU code paths the book was run under.

Two problems of showing results in a notebook are solved here too:

- A figure shown the usual way prints a line such as ``<Figure size 640x480 with 1 Axes>`` beside the
  image, whose text changes between matplotlib versions. :func:`show` emits the PNG alone.
- ``glue`` on a NumPy scalar stores ``np.float64(...)`` and mis-handles format specs.
  :func:`glue` converts NumPy scalars to Python numbers first.

Outside a notebook (a plain Python script) :func:`show` and :func:`glue` do nothing visible.
"""

# The rule for numbers is CONTRIBUTING.md, "Numbers a reader sees"; the glue problem is MyST-NB#610.

from __future__ import annotations

import atexit
import base64
import io
import json
import math
import numbers
import os
import re
from contextlib import contextmanager
from decimal import Decimal
from typing import Iterator

import numpy as np
from IPython.display import Markdown, display

from lib import validate
from lib.figures.style import book_style

try:  # myst-nb stores glued values for the book; on a reader's machine without it (Colab) glue stores nothing
    import myst_nb
except ImportError:
    myst_nb = None

PNG_DPI = 100  # the baseline images' resolution (tests/test_figures.py compares drawings at it)
# The book's and the notebooks' figures are drawn at twice that: the page shows a figure at the width of
# the text column, and a reader on a phone taps it to open the image itself, whose text then stays sharp
# when zoomed (tests/test_reader_page.py measures both).
BOOK_DPI = 2 * PNG_DPI
NUMBER_LOG = "EMBOOK_NUMBER_LOG"  # environment variable: a file to log every formatted number to
#: from this size on, a number written in fixed point shows more digits before the point than float64 holds
#: (about 16): the formatters of lib.race and lib.trace write one this large in exponent form instead of a
#: line of up to 309 digits
FIXED_POINT_LIMIT = 1e16

# [[fill]align][sign][width][,][.precision]type, with a precision and one of the types below: a spec
# that says how many digits a reader sees (no "g", whose digits depend on the value, no bare "f")
_SPEC = re.compile(r"(?P<align>.?[<>=^])?(?P<sign>[+\- ]?)(?P<width>\d*)(?P<group>[,_]?)\.(?P<precision>\d+)"
                   r"(?P<type>[fFeE%])")
#: the most decimals a spec may ask for: more than float64 holds (17 significant digits), and a bound, so that
#: ``".100000000f"`` is refused by name instead of writing a hundred million digits
MAX_PRECISION = 20
#: the widest field a spec may ask for: a printed line of a chapter fits in 88 characters
MAX_WIDTH = 88


def figure_png(fig, dpi: int = PNG_DPI) -> bytes:
    """Render a matplotlib ``Figure`` to PNG bytes at ``dpi`` dots per inch, with no timestamp metadata.
    Raises ``TypeError`` for a ``fig`` without a ``savefig`` method (not a figure) and for a non-integer ``dpi``,
    ``ValueError`` for a ``dpi`` outside ``[1, 10000]``."""
    if not callable(getattr(fig, "savefig", None)):  # no matplotlib import here: only lib/figures imports it
        raise TypeError(f"fig must be a matplotlib Figure, got {type(fig).__name__}")
    dpi = validate.integer(dpi, "dpi", low=1, high=10_000, hint="dots per inch")
    buf = io.BytesIO()
    with book_style():
        fig.savefig(buf, format="png", dpi=dpi, metadata={"Software": None})
    return buf.getvalue()


def show(fig) -> None:
    """Display ``fig`` in the notebook as a PNG at ``BOOK_DPI`` and nothing else (no ``<Figure ...>`` text)."""
    data = base64.b64encode(figure_png(fig, dpi=BOOK_DPI)).decode("ascii")
    display({"image/png": data}, raw=True)


def plain(value):
    """Return ``value`` with NumPy scalars (and one-element arrays or tensors) turned into Python ``float`` /
    ``int`` / ``bool``.

    Raises ``TypeError`` for arrays of more than one element: glue one number at a time. A tensor is read as
    its value, detached from autograd and on the CPU (:func:`lib.validate.array_input`).

    >>> plain(np.float64(0.5)), plain(np.int64(3))
    (0.5, 3)
    """
    if not isinstance(value, np.ndarray) and hasattr(value, "__array__") and hasattr(value, "item"):
        value = np.asarray(validate.array_input(value, "value"))  # a PyTorch tensor (requires_grad, bfloat16 too)
    if isinstance(value, np.ndarray):
        if value.size != 1:
            raise TypeError(f"glue one number at a time, got an array of shape {value.shape}")
        value = value.item()
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    return value


# --- the number log ---------------------------------------------------------------------------------

_log_file = None
_log_path = None
_paused = 0  # > 0 inside unlogged()


def logging_numbers() -> bool:
    """True when the helpers here record the numbers they show (see "Rounding margins" in the module's
    description): recording is switched on for the whole process, and off inside :func:`unlogged`."""
    # switched on by the environment variable NUMBER_LOG names (EMBOOK_NUMBER_LOG), set by tools/codepaths.py
    return bool(os.environ.get(NUMBER_LOG)) and not _paused


@contextmanager
def unlogged() -> Iterator[None]:
    """Log nothing inside the block: for computations whose results are measured, never printed, and
    differ from run to run by design (several threads updating one table), such as a timed race."""
    global _paused
    _paused += 1
    try:
        yield
    finally:
        _paused -= 1


@atexit.register
def _close_log() -> None:
    """Close the record's file at exit (it stays open between calls, since every printed number appends)."""
    global _log_file, _log_path
    if _log_file is not None:
        _log_file.close()
        _log_file, _log_path = None, None


def _log(entry: dict) -> None:
    global _log_file, _log_path
    path = os.environ.get(NUMBER_LOG)
    if not path or _paused:
        return
    if _log_file is None or _log_path != path:
        if _log_file is not None:
            _log_file.close()
        _log_file, _log_path = open(path, "a", encoding="utf-8"), path
    _log_file.write(json.dumps(entry) + "\n")
    _log_file.flush()  # the reader of the log counts lines after every cell


def log_shown(raw: float, spec: str, shown: str) -> None:
    """Log a number that code outside this module formatted itself (``raw`` the unrounded value, ``spec``
    the precision it was shown at, ``shown`` the text), so that its rounding margin is recorded like
    those of the numbers :func:`fmt` prints. Does nothing unless :func:`logging_numbers` is true."""
    _log({"kind": "fmt", "spec": spec, "raw": raw, "shown": shown})


# --- formatting -------------------------------------------------------------------------------------


def check_spec(spec: str) -> str:
    """Return ``spec`` if it is a format spec with an explicit precision and a type among ``f F e E %``.

    Raises ``ValueError`` otherwise (``"g"``, a bare ``"f"`` or no precision would let the digits a reader
    sees depend on the value, so they are refused), and for a precision above ``MAX_PRECISION`` (20) or a
    width above ``MAX_WIDTH`` (88, the width of a printed line).
    """
    match = _SPEC.fullmatch(spec) if isinstance(spec, str) else None
    if match is None:
        raise ValueError(
            f"spec must be a format spec with a precision and type f, e or %, such as '.4f' or '>7.3f', got {spec!r}"
        )
    precision, width = int(match["precision"]), int(match["width"] or 0)
    if precision > MAX_PRECISION or width > MAX_WIDTH:
        raise ValueError(f"spec must ask for at most {MAX_PRECISION} decimals and a width of at most {MAX_WIDTH}, "
                         f"got {spec!r}")
    return spec


def _format_one(x: float, spec: str) -> str:
    huge = spec.endswith("%") and math.isfinite(x) and math.isinf(x * 100.0)
    text = _huge_percent(x, spec) if huge else format(x, spec)
    if math.isfinite(x) and math.copysign(1.0, x) < 0 and not huge:  # -0.0 too
        # the number alone, without fill, width or grouping (a fill such as '*' is no part of it)
        core = _SPEC.fullmatch(spec)
        if float(format(x, f".{core['precision']}{core['type']}").rstrip("%")) == 0:
            text = format(0.0, spec)  # a value that rounds to zero shows no sign: -0.0000 would depend on noise
    return text


def _huge_percent(x: float, spec: str) -> str:
    """``x`` (finite, above about 1.8e306 in size) formatted with the percent ``spec``: Python multiplies by 100
    in float64 and writes ``inf%``; ``Decimal`` scales the exact value. Its formatting (in Python 3.11) has no
    ``_`` grouping, so ``,`` stands in for it, turned back between digits."""
    parts = _SPEC.fullmatch(spec)
    text = format(Decimal(x), f"{parts['align'] or ''}{parts['sign']}{parts['width']}"
                              f"{',' if parts['group'] else ''}.{parts['precision']}%")
    return re.sub(r"(?<=\d),(?=\d)", "_", text) if parts["group"] == "_" else text


def _scalar(value, what: str) -> float:
    """One number as a ``float``: ``TypeError`` naming ``what`` for a non-number (a ``bool``, a string, a
    NumPy time), ``ValueError`` for a finite value beyond float64 (``10**400``, a ``longdouble``) or one
    that float64 does not hold exactly (an integer beyond 2**53: :func:`lib.validate.exact_real`)."""
    if not isinstance(value, np.generic):  # a NumPy scalar is kept: plain() would take a time span for an int
        value = plain(value)
    if isinstance(value, (bool, np.bool_, np.timedelta64, np.datetime64)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{what} must be a real number, got {type(value).__name__}")
    return validate.exact_real(value, what)


def fmt(value, spec: str = ".4f") -> str:
    """``value`` formatted with ``spec``, the one way a chapter prints a float.

    ``value``: a number, or a 1-D / 2-D array of numbers, which is shown like NumPy prints it
    (``[0.841 0.540]``; a 2-D array one row per line, columns aligned). ``spec``: a format spec with a
    precision and type ``f``, ``e`` or ``%`` (:func:`check_spec`); fill, alignment, sign, width and a
    thousands separator are allowed. A value that rounds to zero is shown without a minus sign. Records each
    number when recording is on (:func:`logging_numbers`). Raises ``ValueError`` for a bad spec, an array of more than
    two dimensions, a finite value beyond float64 (``10**400``, a ``longdouble``) or one that float64 does
    not hold exactly (an integer beyond 2**53, which would be shown as another integer: 2**53 + 1 as
    9007199254740992; :func:`lib.validate.exact_real`), ``TypeError`` for a
    value that is not a number (a string, a ``bool``, a NumPy time) or a masked array with a masked entry
    (its hidden values would be shown: :func:`lib.validate.not_masked`).

    >>> fmt(2.0 / 3.0, ".4f")
    '0.6667'
    >>> fmt(-0.00001, ".3f")
    '0.000'
    >>> fmt([[1.0, -0.5], [0.25, 2.0]], ".2f")
    '[[ 1.00 -0.50]\\n [ 0.25  2.00]]'
    """
    check_spec(spec)
    if isinstance(value, (list, tuple, np.ndarray)) or (hasattr(value, "__array__") and not isinstance(value, np.generic)):
        array = np.asarray(validate.array_input(value, "value"))  # no masked array; a tensor as its values
        if array.ndim == 0:
            return fmt(array[()], spec)  # a NumPy scalar (or the object held), formatted below
        if array.ndim > 2:
            raise ValueError(f"fmt shows 1-D and 2-D arrays, got shape {array.shape}")
        if array.dtype == object or array.dtype.kind in "iu" or array.dtype.kind == "f" and array.dtype.itemsize > 8:
            array = validate.exact_reals(value, "value")  # ints, longdouble: float64 exactly, or a ValueError
        if not validate.real_dtype(array.dtype):
            raise TypeError(f"fmt formats numbers, got an array of dtype {array.dtype}")
        cells = [[_format_one(float(x), spec) for x in row] for row in np.atleast_2d(array)]
        for row, texts in zip(np.atleast_2d(array), cells):
            for x, text in zip(row, texts):
                _log({"kind": "fmt", "spec": spec, "raw": float(x), "shown": text.strip()})
        width = max((len(t) for row in cells for t in row), default=0)
        lines = ["[" + " ".join(t.rjust(width) for t in row) + "]" for row in cells]
        if array.ndim == 1:
            return lines[0]
        return "[" + "\n ".join(lines) + "]"
    x = _scalar(value, "value")
    text = _format_one(x, spec)
    _log({"kind": "fmt", "spec": spec, "raw": x, "shown": text.strip()})
    return text


def fmt_each(values, spec: str = ".4f") -> list:
    """Each number of ``values``, a 1-D ``float64`` array, formatted with ``spec`` exactly as :func:`fmt`
    formats it alone: the same text (a value that rounds to zero without a minus sign), logged alike, in
    order. One call for many numbers, for output that prints thousands of them: a ``float64`` needs none
    of the checks :func:`fmt` makes of each value. Raises ``ValueError`` for a bad spec (:func:`check_spec`)
    and ``TypeError`` for ``values`` that is not a 1-D ``float64`` array.

    >>> fmt_each(np.array([0.14112, -0.0000001]), ".4f")
    ['0.1411', '0.0000']
    """
    check_spec(spec)
    if not isinstance(values, np.ndarray) or values.dtype != np.float64 or values.ndim != 1:
        raise TypeError(f"values must be a 1-D float64 array, got {type(values).__name__}"
                        + (f" of dtype {values.dtype} and shape {values.shape}" if isinstance(values, np.ndarray) else ""))
    floats = values.tolist()  # Python floats: what fmt(float(x), spec) formats
    texts = [_format_one(x, spec) for x in floats]
    if logging_numbers():
        for x, text in zip(floats, texts):
            _log({"kind": "fmt", "spec": spec, "raw": x, "shown": text.strip()})
    return texts


def exact(value) -> str:
    """A number that is exact by construction, shown in its shortest form: ``exact(0.1)`` is ``'0.1'``.

    For settings and constants typed in the source (a learning rate, a smoothing exponent), never for a
    computed value. Recorded like :func:`fmt` (kind ``exact``), when recording is on: the
    value typed in is the same on every machine. Raises ``TypeError`` for a value that is not a number,
    ``ValueError`` for one that float64 does not hold exactly (an integer beyond 2**53) or that is beyond
    it, as :func:`fmt`.

    >>> exact(0.025), exact(10.0), exact(3)
    ('0.025', '10', '3')
    """
    x = _scalar(value, "value")
    text = str(int(x)) if math.isfinite(x) and x.is_integer() and abs(x) < 1e16 else repr(x)
    _log({"kind": "exact", "spec": "exact", "raw": x, "shown": text})
    return text


def rounded(values, decimals: int):
    """``values`` (a number, or an array of any shape) rounded to ``decimals`` places as :func:`fmt` rounds
    them, as floats: for a figure that plots a number the chapter prints at that precision, so that a point
    sits where the printed number says and does not move by a pixel from one CPU to another. Logged like
    :func:`fmt`. NaN and infinity stay as they are, as :func:`fmt` prints them (``nan``, ``inf``), so a
    figure shows what the chapter prints. Raises ``ValueError`` for ``decimals`` that is not an integer in
    [0, 12] and, as :func:`fmt` does, for a finite value beyond float64 or an integer beyond 2**53;
    ``TypeError`` for a value that is not a number.

    >>> rounded([0.21763, 0.2174], 2)
    array([0.22, 0.22])
    """
    decimals = validate.integer(decimals, "decimals", low=0, high=12)
    array = validate.exact_reals(values, "values")
    out = np.array([float(fmt(x, f".{decimals}f")) for x in array.ravel()]).reshape(array.shape)
    return float(out) if out.ndim == 0 else out


class Shown:
    """A number as the prose shows it: ``repr`` is the rounded text (``"1.3480"``), the text that myst-nb
    puts into the prose. ``value`` holds the rounded float. Raises ``TypeError`` for a ``text`` that is not a
    ``str`` and ``ValueError`` for one that is not a number."""

    def __init__(self, text: str):
        if not isinstance(text, str):
            raise TypeError(f"text must be a str holding a number, got {type(text).__name__}")
        try:
            self.value = float(text)
        except ValueError:
            raise ValueError(f"text must be a str holding a number, got {text!r}") from None
        self.text = text

    def __repr__(self) -> str:
        return self.text

    def _repr_pretty_(self, p, cycle) -> None:  # IPython's display formatter
        p.text(self.text)


#: A glue name that ``{glue:text}`name``` can reference: one or more ASCII letters, digits, ``_``, ``-`` and ``.``
#: (the compiled regular expression ``[A-Za-z0-9_.-]+``).
#:
#: :meta hide-value:
GLUE_NAME = re.compile(r"[A-Za-z0-9_.-]+")


def glue(name: str, value, decimals: int | None = None, display: bool = False) -> None:
    """Store ``value`` under ``name`` for myst-nb's ``{glue:text}`` and ``{glue:md}`` roles.

    - A float needs ``decimals``, the number of decimals the prose shows: the record holds the value
      rounded to them (``glue("x", 1.34802, 4)`` stores ``1.3480``) and the prose must show exactly those,
      ``{glue:text}`x:.4f``` (every chapter does). ``decimals`` may be given for an integer
      too, which is then shown as a float.
    - An integer or a bool is stored as it is (exact); the prose may format it (``{glue:text}`n:,```).
    - A string is stored as Markdown, shown with ``{glue:md}`name```.

    NumPy scalars are converted with :func:`plain`. Where myst-nb is not installed (Colab), nothing is
    stored. Returns ``None``, so that a glue call ending a cell prints nothing. Raises ``TypeError`` for a
    ``name`` that is not a string, a float without ``decimals`` or a ``display`` that is not ``True`` or
    ``False``, and ``ValueError`` for a ``name`` that a role cannot reference (empty, or a character other
    than ASCII letters, digits, ``_``, ``-`` and ``.``), ``decimals`` that is not an integer in [0, 12],
    or, with ``decimals``, a value that is NaN or infinite (the prose would show ``nan``), beyond float64
    (``10**400``) or not held exactly by it (an integer beyond 2**53).
    """
    if not isinstance(name, str):
        raise TypeError(f"glue name must be a str, got {type(name).__name__}")
    if not GLUE_NAME.fullmatch(name):
        raise ValueError(f"glue name must be ASCII letters, digits, '_', '-' or '.' (a name that {{glue:text}}`name` "
                         f"can reference), got {name!r}")
    display = validate.flag(display, "display")
    stored = plain(value)
    if decimals is not None:
        decimals = validate.integer(decimals, "decimals", low=0, high=12)
        if isinstance(stored, bool) or not isinstance(stored, numbers.Real):
            raise TypeError(f"glue {name!r}: decimals is for numbers, got {type(stored).__name__}")
        x = validate.exact_real(stored, f"glue {name!r} value")
        if not math.isfinite(x):
            raise ValueError(f"glue {name!r} value must be a finite number (the prose would show it as text), got {x}")
        text = _format_one(x, f".{decimals}f")
        _log({"kind": "glue", "name": name, "spec": f".{decimals}f", "raw": x, "shown": text})
        stored = Shown(text)
    elif isinstance(stored, float):
        raise TypeError(
            f"glue {name!r}: a float needs decimals, the number of decimals the prose shows "
            f"(glue({name!r}, value, 4) and {{glue:text}}`{name}:.4f`)"
        )
    if myst_nb is None:  # only on a reader's machine without myst-nb (Colab)
        return None
    if isinstance(stored, str):
        stored = Markdown(stored)
    myst_nb.glue(name, stored, display=display)


def runner_up_gap(scores, best: int) -> float:
    """How far ``scores[best]`` is ahead of the best *other* value, ignoring values exactly equal to it.

    Exactly equal values are a tie that a fixed rule breaks (the first index), the same on every machine;
    what could flip is a value that is close but not equal. Returns ``inf`` when there is no other value,
    or when the gap is beyond float64's range (``1.7e308`` against ``-1.7e308``: nothing close could flip).
    Raises ``ValueError`` for NaN among ``scores``, ``best`` out of range, ``scores[best]`` not finite, or
    an integer score beyond 2**53 (:func:`lib.validate.ranked_numbers`).

    >>> runner_up_gap([0.5, 0.9, 0.9, 0.7], 1)
    0.20000000000000007
    """
    scores = validate.ranked_numbers(scores, "scores", "an array of scores").ravel()
    if np.isnan(scores).any():
        raise ValueError(f"scores must not contain NaN, got NaN at index {int(np.flatnonzero(np.isnan(scores))[0])}")
    best = validate.integer(best, "best", low=0, high=scores.size - 1)
    top = scores[best]
    if not np.isfinite(top):
        raise ValueError(f"scores[best] must be finite, got {top}")
    others = scores[scores != top]
    with np.errstate(over="ignore"):  # a gap beyond float64 is inf
        return float(np.min(np.abs(top - others))) if others.size else math.inf


RANK_HINT = " (rank such integers with np.argsort)"


def argmax(values, what: str) -> int:
    """``numpy.argmax`` of the flattened ``values`` (the first maximum), recording the gap to the runner-up.

    A chapter that prints the item with the largest score uses this, so that the record of rounding margins
    (:func:`record_gap`) shows how close another item came to being printed instead. ``what`` names
    the choice there. ``-inf`` marks an item that cannot win (a masked entry). Raises
    ``ValueError`` for an empty array, NaN or ``+inf`` among ``values``, ``values`` all ``-inf``, or an
    integer beyond 2**53 (:func:`lib.validate.ranked_numbers`: float64 would tie 2**53 and 2**53 + 1).
    """
    scores = validate.ranked_numbers(values, "values", "an array of scores", RANK_HINT).ravel()
    if scores.size == 0:
        raise ValueError(f"argmax of an empty array ({what})")
    _check_choice_scores(scores, what, "+inf")
    best = int(np.argmax(scores))
    if logging_numbers():
        record_gap(what, runner_up_gap(scores, best), np.abs(scores[np.isfinite(scores)]).max(initial=0.0))
    return best


def argmin(values, what: str) -> int:
    """``numpy.argmin`` of the flattened ``values``, recording the gap to the runner-up (see :func:`argmax`).
    ``+inf`` marks an item that cannot win; ``ValueError`` for NaN or ``-inf`` among ``values``, all ``+inf``,
    or an integer beyond 2**53."""
    scores = validate.ranked_numbers(values, "values", "an array of scores", RANK_HINT).ravel()
    if scores.size == 0:
        raise ValueError(f"argmin of an empty array ({what})")
    _check_choice_scores(-scores, what, "-inf")
    return argmax(-scores, what)


def _check_choice_scores(scores, what: str, winning_infinity: str) -> None:
    """Refuse ``scores`` (to be maximised) holding NaN or ``+inf`` (``winning_infinity`` as the caller's
    values spell it), or nothing but ``-inf``: NumPy would pick the NaN, or an arbitrary first item."""
    if np.isnan(scores).any():
        i = int(np.flatnonzero(np.isnan(scores))[0])
        raise ValueError(f"values must be finite numbers ({what}), got NaN at index {i}")
    if np.isposinf(scores).any():
        i = int(np.flatnonzero(np.isposinf(scores))[0])
        raise ValueError(f"values must be finite numbers ({what}), got {winning_infinity} at index {i}")
    if np.isneginf(scores).all():
        raise ValueError(f"values must hold at least one finite number ({what}), got only masked (infinite) entries")


def record_gap(what: str, gap, scale=None) -> None:
    """Record how far a discrete choice was from going the other way, among the rounding margins.

    ``gap`` (a float, in the units of the scores compared) is the difference between the score that won
    and the one that would have won instead, e.g. between the k-th and (k+1)-th nearest neighbour, or
    between the best and second-best answer of an analogy. ``what`` names the choice. A gap of exactly 0
    is a tie that the caller breaks by a fixed rule (row index). ``scale``, the size of the scores compared
    (default: ``|gap|``), lets the report tell a gap from rounding noise (a gap of 1e-16 between scores near 1
    is noise). Does nothing unless recording is on; callers compute a gap only when
    :func:`logging_numbers` is true.
    """
    if logging_numbers():
        gap = _scalar(gap, "gap")
        scale = abs(gap) if scale is None else abs(_scalar(scale, "scale"))
        if math.isfinite(gap):
            _log({"kind": "gap", "name": str(what), "raw": gap, "scale": scale})
