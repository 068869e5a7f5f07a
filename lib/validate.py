"""Argument checks shared by every module of ``lib``: each names the argument and the allowed range.

Used everywhere in ``lib``; not taught in a chapter. A bad argument must give a clear error, never a NaN,
a silent wrap-around or a traceback from inside NumPy or PyTorch, and every module says it the same
way: ``<name> must be <what is allowed>, got <the value>``, for example ``k must be an integer >= 1,
got 0`` or ``lr must be a finite number > 0, got nan``. Each check returns the value converted to the
plain type the caller computes with (``int``, ``float``, an ``int64`` array), so a caller writes
``k = validate.integer(k, "k", low=1)`` and goes on.

What counts as what: an integer is an ``int`` or a NumPy integer, never a ``bool`` (``True`` is an
``int`` to Python, but a flag passed where a count is expected is a mistake) and never a NumPy
``timedelta64`` (NumPy files a time span under its signed integers); a number is an integer or a float
(Python or NumPy), never a ``bool``, a time or a string, and must be finite. A size (:func:`size`: a
vocabulary, a width, a number of steps or of draws) also has an upper bound, ``MAX_SIZE``, so that an
absurd one is refused by name before NumPy or PyTorch sees it.

Kinds of error: a value of the wrong type (a float, a ``bool`` or a list where an integer is wanted, a
string where a number is) raises ``TypeError``; a value of the right type outside the allowed range
raises ``ValueError``. The two never overlap, so a caller can tell a mistake in the program (a wrong
type) from a bad value.

Numbers written in text (a trace program, a benchmark file) follow one rule, :func:`read_number`: an
optional sign and the ASCII digits 0-9, with an optional decimal point and exponent for a float. Python's
``int`` and ``float`` accept more (``1_000``, and the digits of every script: ``int("٣")`` is 3), so
that a number would be read or refused depending on which of them a reader happened to call.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import re
import sys
import unicodedata
from typing import Iterable, Optional, Sequence, Union

import numpy as np

__all__ = [
    "array_input",
    "choice",
    "collection",
    "confidence_level",
    "digits_hint",
    "non_finite_text",
    "entries",
    "exact_real",
    "exact_reals",
    "flag",
    "float64_problem",
    "not_masked",
    "id_collection",
    "ids",
    "integer",
    "integer_array",
    "integer_dtype",
    "integers",
    "number",
    "one_id",
    "read_number",
    "real",
    "real_array",
    "real_dtype",
    "ranked_numbers",
    "real_numbers",
    "rng",
    "seed",
    "shown",
    "size",
    "tensor",
    "vectors",
    "window",
    "workers",
]


#: not numbers, although Python or NumPy file them as such: ``True`` is an ``int``, and a NumPy time span
#: (``np.timedelta64``) a subclass of ``np.signedinteger``; a ``datetime64`` is refused alongside it
_NOT_NUMBERS = (bool, np.bool_, np.timedelta64, np.datetime64)


def _is_integer(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, _NOT_NUMBERS)


def _is_number(value) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, _NOT_NUMBERS)


def integer_dtype(dtype) -> bool:
    """True for a signed or unsigned integer dtype. Not for ``bool``, and not for ``timedelta64``, which
    NumPy files under its integer types (``np.issubdtype("m8", np.integer)`` is true): a time span is not
    a count or an id.

    >>> [integer_dtype(t) for t in (np.int8, np.uint64, bool, "m8[s]")]
    [True, True, False, False]
    """
    return np.dtype(dtype).kind in "iu"


def real_dtype(dtype) -> bool:
    """True for an integer dtype (:func:`integer_dtype`) or a floating one (``float16`` to ``float64``, and
    ``longdouble``, which :func:`real_numbers` converts to ``float64``). Not for ``bool``, complex,
    ``timedelta64``, ``datetime64``, strings or ``object``.

    >>> [real_dtype(t) for t in (np.float16, np.int64, complex, "m8[s]")]
    [True, True, False, False]
    """
    return np.dtype(dtype).kind in "iuf"


def _hint(hint: str) -> str:
    return f" ({hint})" if hint else ""


#: an integer with more digits than this is described in a message (:func:`shown`), not written out
MAX_SHOWN_DIGITS = 50


def shown(value) -> str:
    """``repr(value)`` for a message, except that an integer of more than ``MAX_SHOWN_DIGITS`` (50) digits is
    described by its sign and length: such a number is unreadable in a message, and beyond 4300 digits
    Python refuses to write it at all (``repr(10**5000)`` raises).

    >>> shown(7), shown("a"), shown(-10**400)
    ('7', "'a'", 'a negative integer of 401 digits')
    """
    if _is_integer(value):
        magnitude = abs(int(value))
        digits = max(1, (magnitude.bit_length() - 1) * 30103 // 100000)  # a lower bound: log10(2) > 0.30103
        while magnitude >= 10**digits:
            digits += 1
        if digits > MAX_SHOWN_DIGITS:
            return f"{'a negative' if value < 0 else 'an'} integer of {digits} digits"
    return repr(value)


def integer(value, name: str, *, low: Optional[int] = None, high: Optional[int] = None, hint: str = "") -> int:
    """``value`` as an ``int``, after checking that it is an integer in ``[low, high]`` (a bound that is
    ``None`` is open).

    Raises ``TypeError`` for a non-integer and ``ValueError`` outside the range; the message
    names ``name`` and the range, followed by ``hint`` in parentheses when one is given.

    >>> integer(3, "k", low=1)
    3
    >>> integer(0, "k", low=1)
    Traceback (most recent call last):
    ...
    ValueError: k must be an integer >= 1, got 0
    >>> integer(2.0, "k", low=1, high=3)
    Traceback (most recent call last):
    ...
    TypeError: k must be an integer in [1, 3], got 2.0
    """
    if low is not None and high is not None:
        allowed = f"an integer in [{low}, {high}]"
    elif low is not None:
        allowed = f"an integer >= {low}"
    elif high is not None:
        allowed = f"an integer <= {high}"
    else:
        allowed = "an integer"
    allowed += _hint(hint)
    if not _is_integer(value):
        raise TypeError(f"{name} must be {allowed}, got {value!r}")
    if (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(f"{name} must be {allowed}, got {shown(value)}")
    return int(value)


#: the largest size :func:`size` allows, and the most entries :func:`entries` lets one array hold: 2**28
#: (268,435,456; 2 GiB of float64), far beyond anything the book computes. A size of 2**62 or 2**70 would
#: otherwise reach NumPy or PyTorch and get their own errors ("array is too big", an overflow), and a loop
#: or an allocation of 10**9 would not return for minutes
MAX_SIZE = 2**28


def size(value, name: str, *, low: int = 1, high: int = MAX_SIZE, hint: str = "") -> int:
    """A size (a vocabulary, a width, a number of rows, steps or draws) as an ``int``: :func:`integer`
    with ``low`` (1 unless given) and the upper bound ``high`` (``MAX_SIZE``, 2**28, unless given).

    >>> size(300, "dim")
    300
    >>> size(2**40, "V")
    Traceback (most recent call last):
    ...
    ValueError: V must be an integer in [1, 268435456], got 1099511627776
    """
    return integer(value, name, low=low, high=high, hint=hint)


#: the most threads or processes :func:`workers` allows: far beyond the cores of any machine the book runs on,
#: and a bound, so that ``workers=10**6`` is refused by name instead of starting a million threads
MAX_WORKERS = 256


def workers(value, name: str, *, hint: str = "threads") -> int:
    """A number of threads or processes as an ``int``: :func:`integer` in ``[1, MAX_WORKERS]`` (256), ``hint``
    saying what is counted.

    >>> workers(2, "workers")
    2
    >>> workers(10**6, "world_size", hint="processes")
    Traceback (most recent call last):
    ...
    ValueError: world_size must be an integer in [1, 256] (processes), got 1000000
    """
    return integer(value, name, low=1, high=MAX_WORKERS, hint=hint)


def entries(shape: Sequence[int], names: str) -> None:
    """Check that an array of ``shape`` (checked sizes) holds at most ``MAX_SIZE`` entries; ``ValueError``
    naming ``names`` (the arguments that set the shape) otherwise. For a result whose sizes are each
    allowed but whose product is not (a ``(V, V)`` matrix for ``V = 10**6``).

    >>> entries((10**5, 10**5), "V")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: V: a result of shape (100000, 100000) would hold 10000000000 ...
    """
    n = math.prod(int(k) for k in shape)
    if n > MAX_SIZE:
        raise ValueError(f"{names}: a result of shape {tuple(int(k) for k in shape)} would hold {n} entries; "
                         f"at most {MAX_SIZE} are allowed")


def _interval(gt, ge, lt, le) -> str:
    low = (f"({gt}", gt) if gt is not None else (f"[{ge}", ge) if ge is not None else None
    high = (f"{lt})", lt) if lt is not None else (f"{le}]", le) if le is not None else None
    if low and high:
        return f"a finite number in {low[0]}, {high[0]}"
    if low:
        return f"a finite number {'>' if gt is not None else '>='} {low[1]}"
    if high:
        return f"a finite number {'<' if lt is not None else '<='} {high[1]}"
    return "a finite number"


_FLOAT64_MAX = int(np.finfo(np.float64).max)

#: why a finite number has no float64 value: every check in ``lib`` says it in these words
BEYOND_FLOAT64 = "beyond the float64 range (about 1.8e308)"
BELOW_FLOAT64 = "below float64's smallest subnormal (about 4.9e-324), would become 0"


def float64_problem(value) -> str:
    """Why the number ``value`` has no float64 value, or ``""`` when ``float(value)`` is ``value`` up to
    rounding (NaN and infinity included: they are float64 values). ``BEYOND_FLOAT64`` for a finite
    value above float64's largest (a Python ``int`` such as ``10**400``, a ``longdouble`` ``1e4000``), which
    would become infinity or an ``OverflowError``; ``BELOW_FLOAT64`` for a nonzero value below its
    smallest subnormal (a ``longdouble`` ``1e-4000``), which would become 0. A subnormal float64 value
    (``1e-320``, fewer bits) is rounding, not a problem. The one rule of :func:`number`, :func:`real` and
    :func:`real_numbers` for every dtype wider than float64.

    >>> float64_problem(np.longdouble("1e-4000")), float64_problem(1e-320)
    ("below float64's smallest subnormal (about 4.9e-324), would become 0", '')
    """
    try:
        with np.errstate(over="ignore", under="ignore"):
            x = float(value)
    except OverflowError:  # a Python int beyond float64: float() cannot convert it
        return BEYOND_FLOAT64
    if math.isinf(x) and bool(np.isfinite(value)):
        return BEYOND_FLOAT64
    if x == 0 and value != 0:
        return BELOW_FLOAT64
    return ""


def number(value, name: str, *, gt=None, ge=None, lt=None, le=None, hint: str = "", keep_int: bool = False):
    """``value`` as a ``float``, after checking that it is a finite number with ``value > gt``,
    ``value >= ge``, ``value < lt`` and ``value <= le`` (each bound only when given). With
    ``keep_int=True`` an integer comes back as an ``int``, exact at any size, to be compared exactly
    with other integers (a float holds integers exactly only up to 2**53).

    Raises ``TypeError`` for a non-number (a string, a ``bool``, ``None``) and ``ValueError``
    for NaN, infinity, a value out of range, a Python ``int`` too large for a float (beyond 1.8e308:
    it has no finite float value), or a nonzero ``longdouble`` too small for one (below about 4.9e-324: it
    would become 0), each said in the words of :func:`float64_problem`; ``hint`` as in :func:`integer`.

    >>> number(0.025, "lr", gt=0)
    0.025
    >>> number(float("nan"), "lr", gt=0)
    Traceback (most recent call last):
    ...
    ValueError: lr must be a finite number > 0, got nan
    >>> number(1.0, "beta", ge=0, lt=1)
    Traceback (most recent call last):
    ...
    ValueError: beta must be a finite number in [0, 1), got 1.0
    >>> number(10**400, "s")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: s must be a finite number, got an integer of 401 digits, beyond...
    """
    allowed = _interval(gt, ge, lt, le) + _hint(hint)
    if not _is_number(value):
        raise TypeError(f"{name} must be {allowed}, got {value!r}")
    if keep_int and _is_integer(value):
        exact = int(value)
        if not -_FLOAT64_MAX <= exact <= _FLOAT64_MAX:  # as for a float: finite means within float64's range
            raise ValueError(f"{name} must be {allowed}, got {shown(value)}, {BEYOND_FLOAT64}")
        for bound, ok in ((gt, lambda b: exact > b), (ge, lambda b: exact >= b), (lt, lambda b: exact < b),
                          (le, lambda b: exact <= b)):
            if bound is not None and not ok(bound):
                raise ValueError(f"{name} must be {allowed}, got {shown(value)}")
        return exact
    problem = float64_problem(value)  # 10**400, a longdouble 1e4000 or 1e-4000
    if problem:
        raise ValueError(f"{name} must be {allowed}, got {shown(value)}, {problem}")
    x = float(value)
    bad = (
        not np.isfinite(x)
        or (gt is not None and not x > gt)
        or (ge is not None and not x >= ge)
        or (lt is not None and not x < lt)
        or (le is not None and not x <= le)
    )
    if bad:
        raise ValueError(f"{name} must be {allowed}, got {value!r}")
    return x


def confidence_level(value, name: str = "confidence") -> float:
    """A confidence level: ``value`` as a ``float`` in (0, 1), checked by :func:`number` (``TypeError`` for a
    non-number, ``ValueError`` outside (0, 1)). A ``float16`` or ``float32`` level is read as the shortest
    decimal that the narrow type writes for it (``np.float32(0.95)`` is 0.95, not 0.949999988079071, the
    float64 value of its bits): the level that was written, so that an interval at ``np.float32(0.95)`` is the
    interval at 0.95, in every function that takes a confidence level.

    >>> confidence_level(np.float32(0.95)), float(np.float32(0.95))
    (0.95, 0.949999988079071)
    """
    written = np.format_float_positional(value) if isinstance(value, (np.float16, np.float32)) else None
    level = number(value, name, gt=0, lt=1)
    return float(written) if written is not None else level


def real(value, name: str) -> float:
    """``value`` as a ``float`` after checking that it is a number (an ``int`` or a float, Python or NumPy;
    not a ``bool``, a time or a string), NaN and infinity allowed: for a value that is shown or formatted,
    not computed with. ``TypeError`` for a non-number, ``ValueError`` for a finite value beyond float64's
    range (a Python ``int`` such as ``10**400``, a ``longdouble``), which would otherwise become an
    ``OverflowError`` or infinity.

    >>> real(3, "seconds"), real(float("inf"), "ratio")
    (3.0, inf)
    """
    if not _is_number(value):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    problem = float64_problem(value)  # 10**400, a longdouble 1e4000 or 1e-4000
    if problem:
        raise ValueError(f"{name} must be a real number, got {shown(value)}, {problem}")
    return float(value)


def flag(value, name: str) -> bool:
    """``value`` as a ``bool`` after checking that it is ``True`` or ``False`` (a NumPy bool too);
    ``TypeError`` otherwise (``1`` is not a flag).

    >>> flag(True, "sparse")
    True
    """
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def known_fields(cls):
    """Class decorator for a dataclass (put it above ``@dataclass``): a keyword that is not a field raises
    ``TypeError`` naming it and the fields, in the constructor and so in ``dataclasses.replace``, instead of
    Python's "__init__() got an unexpected keyword argument" without them.

    >>> @known_fields
    ... @dataclasses.dataclass(frozen=True)
    ... class Pair:
    ...     a: int = 0
    ...     b: int = 0
    >>> Pair(c=1)
    Traceback (most recent call last):
    ...
    TypeError: Pair has no field 'c'; the fields are a, b
    """
    names = [f.name for f in dataclasses.fields(cls) if f.init]
    init = cls.__init__

    @functools.wraps(init)
    def checked_init(self, *args, **kwargs):
        unknown = next((k for k in kwargs if k not in names), None)
        if unknown is not None:
            raise TypeError(f"{cls.__name__} has no field {unknown!r}; the fields are {', '.join(names)}")
        init(self, *args, **kwargs)

    cls.__init__ = checked_init
    return cls


def choice(value, name: str, options: Sequence, *, ignore_case: bool = False):
    """``value`` after checking that it is one of ``options``; ``ValueError`` naming them otherwise.

    With ``ignore_case=True`` a string matches an option whatever its case, and the option as spelled in
    ``options`` is returned (``"bca"`` gives ``"BCa"``).

    >>> choice("dot", "metric", ("cosine", "dot"))
    'dot'
    >>> choice("manhattan", "metric", ("cosine", "dot"))
    Traceback (most recent call last):
    ...
    ValueError: metric must be one of ('cosine', 'dot'), got 'manhattan'
    >>> choice("bca", "method", ("BCa", "percentile"), ignore_case=True)
    'BCa'

    The option is returned as spelled in ``options`` (a NumPy string ``np.str_("dot")`` gives ``"dot"``).
    An array is never an option, even of one entry: it compares entry by entry (``ValueError``).
    """
    if ignore_case and isinstance(value, str):
        for option in options:
            if isinstance(option, str) and option.casefold() == value.casefold():
                return option
        raise ValueError(f"{name} must be one of {tuple(options)!r} (in any case), got {value!r}")
    for option in options:
        if _equal(value, option):
            return option
    case = " (in any case)" if ignore_case else ""
    raise ValueError(f"{name} must be one of {tuple(options)!r}{case}, got {value!r}")


def _equal(value, option) -> bool:
    """``value == option`` when that is one truth value; False when it is an array (an array compared
    with an option is compared entry by entry: ``np.array(["dot"]) == "dot"`` is ``array([True])``, not
    a match) or the comparison fails."""
    if isinstance(value, np.ndarray):
        return False
    try:
        same = value == option
    except Exception:  # a comparison that raises is no match
        return False
    return isinstance(same, (bool, np.bool_)) and bool(same)


def tensor(value, name: str, shape: str = "", *, floating: bool = False, integer: bool = False,
           real: bool = False, finite: bool = False):
    """``value`` itself after checking that it is a ``torch.Tensor``: ``TypeError`` naming ``name`` (and
    ``shape``, the expected shape, when given) otherwise, rather than an ``AttributeError`` (a list has no
    ``.detach``) or PyTorch's own complaint. PyTorch is not imported here: until it is imported, nothing is a
    tensor.

    With ``floating=True`` its dtype must be a floating one (``float16``, ``bfloat16``, ``float32``,
    ``float64``), with ``integer=True`` an integer one (not ``bool``: ids, targets), with ``real=True`` a
    floating or an integer one (not ``bool`` or complex): ``TypeError``
    naming the dtype otherwise, where PyTorch would raise its own ``NotImplementedError`` ("not implemented for
    'Long'") or compute in the wrong type. A tensor on the meta device (a shape without values) is a
    ``TypeError`` too: nothing computed from it can be read. With ``finite=True`` a NaN or an infinite entry
    is a ``ValueError`` ``"{name} contains NaN or infinity"`` (the words of :func:`real_array`).

    >>> tensor([0.5], "logits", "(B, V)")
    Traceback (most recent call last):
    ...
    TypeError: logits must be a torch.Tensor (B, V), got list
    """
    torch = sys.modules.get("torch")
    described = f"torch.Tensor{' ' + shape if shape else ''}"
    if torch is None or not isinstance(value, torch.Tensor):
        raise TypeError(f"{name} must be a {described}, got {type(value).__name__}")
    if value.device.type == "meta":  # a shape without data: nothing lib computes can be read from it
        raise TypeError(f"{name} must be a {described} with values, got one on the meta device")
    if floating and not value.is_floating_point():
        raise TypeError(f"{name} must be a floating-point {described}, got dtype {value.dtype}")
    if integer and (value.is_floating_point() or value.is_complex() or value.dtype == torch.bool):
        raise TypeError(f"{name} must be an integer {described}, got dtype {value.dtype}")
    if real and (value.is_complex() or value.dtype == torch.bool):
        raise TypeError(f"{name} must be a {described} of real numbers (integer or floating), got dtype {value.dtype}")
    if finite and value.is_floating_point() and not bool(torch.isfinite(value.detach()).all()):
        raise ValueError(f"{name} contains NaN or infinity")
    return value


def seed(value, name: str = "seed") -> int:
    """A seed: an integer >= 0, returned as an ``int`` (:func:`integer` with ``low=0``).

    >>> seed(17)
    17
    """
    return integer(value, name, low=0)


def rng(value, name: str = "seed") -> np.random.Generator:
    """A NumPy ``Generator``: ``value`` itself if it is one, else ``numpy.random.default_rng(seed)`` for
    an integer seed >= 0. The global NumPy state is never used.

    >>> float(rng(0).random()) == float(np.random.default_rng(0).random())
    True
    """
    if isinstance(value, np.random.Generator):
        return value
    if not _is_integer(value):
        raise TypeError(f"{name} must be an integer >= 0 or a numpy.random.Generator, got {value!r}")
    if value < 0:
        raise ValueError(f"{name} must be an integer >= 0 or a numpy.random.Generator, got {value!r}")
    return np.random.default_rng(int(value))


def window(value) -> Optional[int]:
    """A context window: ``None`` (the whole sentence) or an integer >= 1, the largest distance between a
    centre and a context position.

    >>> window(None), window(2)
    (None, 2)
    """
    if value is None:
        return None
    if not _is_integer(value):
        raise TypeError(f"window must be None (the whole sentence) or an integer >= 1, got {value!r}")
    if value < 1:
        raise ValueError(f"window must be None (the whole sentence) or an integer >= 1, got {value!r}")
    return int(value)


def ids(values, vocab_size: int, name: str = "token id") -> np.ndarray:
    """``values`` as an ``int64`` array after checking that every id lies in ``[0, vocab_size)``.

    ``values`` may be an int or any array-like of integers, of any shape (an empty list is an empty
    array), read as :func:`integer_array` reads integers: ``TypeError`` for non-integer ids (floats, bools,
    strings, ``timedelta64``; a ``bool`` in a list of ints too: NumPy would read ``[True, 2]`` as ``[1, 2]``)
    and ``ValueError`` for a ragged nesting (``[[0], 1]``); then ``ValueError``
    naming the first bad id and the vocabulary size. The comparison is made on the ids' own dtype, so
    that a ``uint64`` id cannot wrap around to a negative number first; a Python ``int`` beyond
    ``int64`` and ``uint64`` (``2**70``, which NumPy holds as an object) is an integer too, so it gets the
    same ``ValueError``, not a complaint about its type, and an object array of Python integers
    (``np.array([0], dtype=object)``) holds ids as any other array does. A generator, an iterator or a set
    (no array-like: NumPy would make one object of it) is a ``TypeError`` saying so; :func:`id_collection`
    reads one. A PyTorch tensor is read as its values (:func:`real_numbers`).

    >>> ids([3, 0, 1], 4)
    array([3, 0, 1])
    >>> ids([3, 4], 4)
    Traceback (most recent call last):
    ...
    ValueError: token id 4 out of range for vocabulary of 4 (allowed 0..3)
    >>> ids([0, 2**70], 4)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: token id 1180591620717411303424 out of range for vocabulary of 4...
    """
    if not _is_integer(vocab_size) or not 1 <= vocab_size <= MAX_SIZE:
        raise ValueError(f"vocabulary size must be an integer in [1, {MAX_SIZE}], got {shown(vocab_size)}")
    arr, beyond = _read_integers(values, f"{name}s", "an integer or an array of integers")
    if beyond is not None:  # Python ints beyond int64 (2**70, or [-1, 2**63]): integers all the same, so a range error
        first = next(v for v in beyond if v < 0 or v >= vocab_size)
        raise ValueError(f"{name} {shown(first)} out of range for vocabulary of {vocab_size} (allowed 0..{vocab_size - 1})")
    bad = (arr < 0) | (arr >= vocab_size)
    if bad.any():
        first = int(arr[bad].flat[0])
        raise ValueError(f"{name} {shown(first)} out of range for vocabulary of {vocab_size} (allowed 0..{vocab_size - 1})")
    return arr.astype(np.int64)


def _python_integers(values) -> list:
    """The entries of ``values`` (an int or a nesting of lists) when every one is an integer, else ``[]``."""
    try:
        raw = np.asarray(values, dtype=object)
    except ValueError:
        return []
    flat = list(raw.flat)
    return flat if flat and all(_is_integer(v) for v in flat) else []


def id_collection(values, vocab_size: int, name: str, noun: str = "token id") -> np.ndarray:
    """``values``, a collection of ids (a list, tuple, set, range or 1-D array), as an ``int64`` array
    ``(n,)`` after checking each id with :func:`ids` (``noun`` names an id in its errors).

    ``TypeError`` naming ``name`` for one int (a NumPy integer, a 0-d array) or anything that is not a
    collection (``None``, ``1.5``, a string), since ``exclude=3`` is a common slip for ``exclude=[3]``;
    :func:`ids`' errors for the ids themselves, and ``ValueError`` for a nesting deeper than one level.

    >>> id_collection(range(2), 4, "items")
    array([0, 1])
    >>> id_collection(3, 4, "items")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: items must be a collection of ids (e.g. items=[3]), not one ...
    """
    if _is_integer(values) or (isinstance(values, np.ndarray) and values.ndim == 0):
        raise TypeError(f"{name} must be a collection of ids (e.g. {name}=[3]), not one int: got {values!r}")
    try:
        if isinstance(values, (str, bytes)):
            raise TypeError
        values = list(values)
    except TypeError:  # not a collection: 1.5, None, a string
        raise TypeError(f"{name} must be a collection of ids (e.g. {name}=[3]), got {values!r}") from None
    out = ids(values, vocab_size, noun)
    if out.ndim != 1:
        raise ValueError(f"{name} must be a flat collection of ids, got shape {out.shape}")
    return out


def one_id(value, vocab_size: int, name: str = "token id") -> int:
    """One id, as an ``int``, after checking that it is a single integer in ``[0, vocab_size)``.

    ``TypeError`` for anything but one integer (a list ``[0]``, an array, a float, a ``bool``) and
    ``ValueError`` as :func:`ids` for an id out of range.

    >>> one_id(2, 4)
    2
    >>> one_id([0], 4)
    Traceback (most recent call last):
    ...
    TypeError: token id must be one integer in [0, 3], got [0]
    """
    if not _is_integer(value):
        raise TypeError(f"{name} must be one integer in [0, {vocab_size - 1}], got {value!r}")
    return int(ids(value, vocab_size, name))


def vectors(values, name: str) -> np.ndarray:
    """``values`` as a ``float64`` vector ``(d,)`` or matrix ``(n, d)`` with ``d >= 1`` and finite entries.

    ``TypeError`` for entries that are not real numbers (strings, ``None``, complex numbers, bools,
    ``timedelta64``) and ``ValueError`` for another shape, a ragged nesting, NaN or infinity, an integer
    beyond 2**53 in size, which float64 would round (in an integer array, or a Python int, which NumPy
    may have turned into a float: ``[2**63, 0]``), or a ``longdouble`` entry that float64 does not hold
    exactly (``np.longdouble(1) + 2**-60`` would become 1.0 and tie with 1: the same rule). A
    ``longdouble`` that float64 holds exactly (``np.longdouble(0.5)``) is its float64 value.

    >>> vectors([[1, 2], [3, 4]], "x")
    array([[1., 2.],
           [3., 4.]])
    """
    x = real_numbers(values, name, "a vector (d,) or a matrix (n, d)")
    _exact_in_float64(x, name, values)
    x = x.astype(np.float64)
    if x.ndim not in (1, 2) or x.shape[-1] < 1:
        raise ValueError(f"{name} must be a vector (d,) or a matrix (n, d), got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{name} contains NaN or infinity")
    return x


def not_masked(values, name: str):
    """``values`` itself after checking that it is not a NumPy masked array with a masked entry:
    ``TypeError`` naming ``name`` otherwise. ``lib`` computes on plain arrays, and ``np.asarray`` drops a
    mask without a word, so the hidden values under the mask would be used as if they were data. A masked
    array with nothing masked is its data and passes. Called by :func:`real_numbers`,
    :func:`integer_array` and :func:`ids`, so every function that takes numbers or ids refuses one.

    >>> m = np.ma.array([1.0, 2.0], mask=[False, True])
    >>> not_masked(m, "x")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: x is a NumPy masked array with 1 masked entry; lib does not ...
    """
    if isinstance(values, np.ma.MaskedArray) and np.ma.is_masked(values):
        n = int(np.ma.count_masked(values))
        raise TypeError(f"{name} is a NumPy masked array with {n} masked entr{'y' if n == 1 else 'ies'}; lib does "
                        f"not read masks (the hidden values would be used): pass {name}.compressed() or "
                        f"{name}.filled(value), or drop the masked rows")
    return values


def array_input(values, name: str):
    """``values`` ready for ``np.asarray``: refused when masked (:func:`not_masked`), and a PyTorch tensor as
    its values, the one rule of every check that takes numbers or ids: detached from autograd (``np.asarray``
    raises for a tensor with ``requires_grad=True``), moved to the CPU, and a float dtype NumPy lacks
    (``bfloat16``, the ``float8`` types) widened to ``float32``, which holds each of their values exactly;
    ``TypeError`` naming ``name`` for a tensor on the meta device, which has a shape and no values (a complex
    tensor is read as it is, for the caller's dtype check to refuse) and for a sparse one (its layout has no
    NumPy form: ``.to_dense()`` it). PyTorch is not imported here: until it is imported, nothing is a tensor.
    A caller that reads an array itself (``np.asarray(array_input(values, name))``) follows the same rule.

    >>> array_input([[1, 2], [3]], "x")  # not masked, not a tensor: as given
    [[1, 2], [3]]
    """
    not_masked(values, name)
    torch = sys.modules.get("torch")
    if torch is None or not isinstance(values, torch.Tensor):
        return values
    if values.device.type == "meta":  # a shape without data: nothing to read
        raise TypeError(f"{name} is a PyTorch tensor on the meta device, which holds no values; "
                        f"pass a tensor with data (on the CPU or a GPU)")
    if values.layout != torch.strided:
        raise TypeError(f"{name} is a sparse PyTorch tensor (layout {values.layout}); pass {name}.to_dense()")
    values = values.detach().cpu()
    if values.is_floating_point() and values.dtype not in (torch.float16, torch.float32, torch.float64):
        values = values.to(torch.float32)
    return values.numpy()


def real_numbers(values, name: str, shape: str = "an array of numbers") -> np.ndarray:
    """``values`` as a NumPy array whose entries are real numbers, its integer or floating dtype kept, except
    that an array of a dtype wider than float64 (``longdouble``) or of Python numbers too large for int64
    becomes ``float64``.

    The one rule for a number float64 cannot hold, in every function of ``lib`` that takes numbers
    (vectors, tables, scores; each calls this check): ``ValueError`` ``"{name} holds 1e+4000, beyond the
    float64 range (about 1.8e308)"`` for a finite entry above float64's largest (it would become
    infinity) and ``"{name} holds 1e-4000, below float64's smallest subnormal (about 4.9e-324), would
    become 0"`` for a nonzero entry below its smallest (it would become 0, so that distinct vectors would
    tie): :func:`float64_problem`. Nothing is rescaled, for a cosine either: ``lib`` computes in float64.
    Within that range a ``longdouble`` entry is rounded to float64 here; :func:`vectors`, :func:`real_array`
    and :func:`ranked_numbers` (vectors, tables and scores) refuse one that float64 does not hold exactly.
    ``TypeError`` for a masked array with a masked entry (:func:`not_masked`). A PyTorch tensor is read as its
    values, detached from autograd and moved to the CPU, a ``bfloat16`` one widened exactly to ``float32``
    (the rule of every check of numbers or ids here: :func:`ranked_numbers`, :func:`integer_array`,
    :func:`ids`).

    ``ValueError`` for a ragged nesting (``"{name} must be {shape}, got rows of different lengths"``) and
    ``TypeError`` for entries that are not real numbers (strings, ``None``, complex numbers, bools,
    ``timedelta64`` and ``datetime64``: :func:`real_dtype`), a ``bool`` inside a list of numbers included
    (NumPy would read ``[0.5, True]`` as ``[0.5, 1.0]``).

    >>> real_numbers([[1.5, 2]], "x").dtype
    dtype('float64')
    """
    values = array_input(values, name)
    try:
        raw = np.asarray(values)
    except ValueError:  # a ragged nesting such as [[1, 2], [3]]
        raise ValueError(f"{name} must be {shape}, got rows of different lengths") from None
    if raw.dtype == object and raw.size and all(_is_number(v) for v in raw.flat):
        # Python ints beyond int64 (2**70) make an object array: they are numbers, converted one by one
        for v in raw.flat:
            problem = float64_problem(v)
            if problem:
                raise ValueError(f"{name} holds {shown(v)}, {problem}")
        return np.array([float(v) for v in raw.flat], dtype=np.float64).reshape(raw.shape)
    if not real_dtype(raw.dtype):
        raise TypeError(f"{name} must hold real numbers, got dtype {raw.dtype}")
    if isinstance(values, (list, tuple)) and _holds_bool(values):  # NumPy made [0.5, True] [0.5, 1.0]
        raise TypeError(f"{name} must hold real numbers, got a bool among them (True or False is not a number)")
    if raw.dtype.kind == "f" and raw.dtype.itemsize > 8:  # longdouble: float64 is the widest computed with
        with np.errstate(over="ignore", under="ignore"):
            narrow = raw.astype(np.float64)
        lost = (np.isfinite(raw) & ~np.isfinite(narrow)) | ((raw != 0) & (narrow == 0))
        if lost.any():
            first = raw[lost].flat[0]
            raise ValueError(f"{name} holds {first!r}, {float64_problem(first)}")
        return narrow
    return raw


def _holds_bool(values) -> bool:
    """True if a nesting of lists and tuples holds a ``bool`` (Python or NumPy) anywhere."""
    stack = [values]
    while stack:
        v = stack.pop()
        if isinstance(v, (bool, np.bool_)):
            return True
        if isinstance(v, (list, tuple)):
            stack.extend(v)
    return False


def _big_integer(values):
    """The first integer beyond 2**53 in size that ``values`` holds (an array, or a nesting of lists and
    tuples of Python or NumPy numbers), else ``None``. Python integers are read as given, before NumPy
    turns them into floats (``[2**63, 0]`` is a float64 array) or an object array (``10**30``)."""
    if isinstance(values, np.ndarray) and values.dtype != object:
        if integer_dtype(values.dtype) and values.dtype.itemsize >= 8 and values.size:  # narrower: none
            big = values[(values > 2**53) | (values < -(2**53))]
            return int(big.flat[0]) if big.size else None
        return None
    if not isinstance(values, (list, tuple, int, np.integer, np.ndarray)):
        return None
    try:
        raw = np.asarray(values, dtype=object)
    except ValueError:  # ragged: the caller names it
        return None
    return next((int(v) for v in raw.flat if _is_integer(v) and abs(int(v)) > 2**53), None)


def _written_integer(value: int) -> str:
    """``"the integer 9007199254740993"``, or :func:`shown`'s ``"an integer of 301 digits"`` for a long one."""
    written = shown(value)
    return f"the integer {written}" if written[-1].isdigit() else written


def _inexact_wide_float(values):
    """The first entry of a float dtype wider than float64 (``longdouble``) that float64 does not hold
    exactly, finite and within float64's range (``np.longdouble(1) + 2**-60`` becomes 1.0), in ``values``
    (an array, or a nesting of lists and tuples of Python or NumPy numbers), else ``None``. Where
    ``longdouble`` is float64 itself (Windows, ARM macOS) there is none."""
    if isinstance(values, np.ndarray) and values.dtype != object:
        if values.dtype.kind == "f" and values.dtype.itemsize > 8 and values.size:
            with np.errstate(over="ignore", under="ignore"):
                narrow = values.astype(np.float64)
            inexact = np.isfinite(values) & (values != narrow)
            return values[inexact].flat[0] if inexact.any() else None
        return None
    if not isinstance(values, (list, tuple, np.floating, np.ndarray)):
        return None
    try:
        raw = np.asarray(values, dtype=object)
    except ValueError:  # ragged: the caller names it
        return None
    return next((v for v in raw.flat if isinstance(v, np.floating) and v.dtype.itemsize > 8
                 and _inexact_wide_float(np.asarray(v)) is not None), None)


def _exact_in_float64(raw: np.ndarray, name: str, given=None) -> None:
    """``ValueError`` naming ``name`` when the integer array ``raw``, or the input ``given`` it was read
    from (Python integers, which NumPy may have made floats), holds an integer beyond 2**53 in size:
    float64 holds every integer exactly only up to 2**53 (2**62 + 1 becomes 2**62), the rule of
    :func:`ranked_numbers`; and when ``given`` holds a ``longdouble`` that float64 does not hold exactly
    (``_inexact_wide_float``), which would tie with its float64 neighbour (``1 + 2**-60`` and 1 at
    distance 0), the same rule."""
    big = _big_integer(raw)
    if big is None and given is not None:
        big = _big_integer(array_input(given, name))
    if big is not None:
        raise ValueError(f"{name} holds {_written_integer(big)}, beyond 2**53: float64, which "
                         f"it is computed in, holds integers exactly only up to 2**53")
    if given is not None:
        _refuse_inexact_wide_float(given, name, "in which it is computed")


def _refuse_inexact_wide_float(given, name: str, where: str) -> None:
    """``ValueError`` naming ``name`` when ``given`` holds a ``longdouble`` that float64 does not hold
    exactly (``_inexact_wide_float``); ``where`` says what float64 is used for."""
    wide = _inexact_wide_float(array_input(given, name))
    if wide is not None:
        raise ValueError(f"{name} holds the longdouble {wide!r}, which float64 ({where}) does not hold exactly "
                         f"(it becomes {float(wide)!r}), so distinct values could tie; give float64 values")


def exact_real(value, name: str, where: str = "which it is computed in") -> float:
    """One number as a ``float`` that is ``value`` exactly: :func:`real` (NaN and infinity allowed), and
    ``ValueError`` for an integer beyond 2**53 in size (2**53 + 1 would become 2**53: the rule of
    :func:`ranked_numbers` and :func:`vectors`) or a ``longdouble`` that float64 does not hold exactly; the
    message says what float64 is used for (``where``).

    >>> exact_real(3, "value")
    3.0
    >>> exact_real(2**53 + 1, "value")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: value is the integer 9007199254740993, beyond 2**53: ...
    """
    x = real(value, name)
    if _is_integer(value) and abs(int(value)) > 2**53:
        raise ValueError(f"{name} is {_written_integer(int(value))}, beyond 2**53: float64, {where}, holds integers "
                         f"exactly only up to 2**53")
    _refuse_inexact_wide_float(value, name, where)
    return x


def exact_reals(values, name: str, shape: str = "an array of numbers") -> np.ndarray:
    """``values`` as a ``float64`` array that holds each entry exactly: :func:`real_numbers` (NaN and
    infinity kept), and ``ValueError`` for an integer beyond 2**53 in size or a ``longdouble`` that float64
    does not hold exactly (the rule of :func:`real_array`, without its finiteness check).

    >>> exact_reals([1, 2**53], "values")
    array([1.00000000e+00, 9.00719925e+15])
    """
    x = real_numbers(values, name, shape)
    _exact_in_float64(x, name, values)
    return x.astype(np.float64)


def ranked_numbers(values, name: str, shape: str = "a 1-D array of scores", hint: str = "") -> np.ndarray:
    """``values`` as a ``float64`` array of real numbers that are ranked (compared with each other): as
    :func:`real_numbers`, and ``ValueError`` for an integer beyond 2**53 in size, which float64 does not hold
    exactly (2**53 + 1 becomes 2**53, so two distinct integers would tie; ``hint`` ends that message), and
    for a ``longdouble`` that float64 does not hold exactly (``np.longdouble(1) + 2**-60`` becomes 1.0).

    >>> ranked_numbers([3, 1], "scores")
    array([3., 1.])
    >>> ranked_numbers([2**53 + 1, 2**53], "scores")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: scores holds the integer 9007199254740993, beyond 2**53: ...
    """
    values = array_input(values, name)
    try:
        raw = np.asarray(values)
    except ValueError:  # ragged: real_numbers names it
        raw = None
    big = _big_integer(values) if raw is not None else None
    if big is not None:
        raise ValueError(f"{name} holds {_written_integer(big)}, beyond 2**53: float64, in which they are "
                         f"ranked, does not hold it exactly{hint}")
    ranked = real_numbers(values, name, shape).astype(np.float64)
    _refuse_inexact_wide_float(values, name, "in which they are ranked")
    return ranked


def integer_array(values, name: str, shape: str = "an array of integers") -> np.ndarray:
    """``values`` as a NumPy array of integers, its integer dtype kept (``int64`` for an empty list).

    Python integers that NumPy holds as an object array (``2**70``) or as floats (``[-1, 2**63]``, which no
    one integer dtype holds) are integers all the same: they give a ``ValueError`` saying that they do not
    fit in ``int64``, not a complaint about their type; an object array of Python integers that ``int64``
    holds (``np.array([2, 0], dtype=object)``) is read as ``int64``. ``TypeError`` for entries that are not
    integers (floats, bools, strings, ``timedelta64``), a ``bool`` inside a list of integers included (NumPy
    would read ``[True, 2]`` as ``[1, 2]``), and a generator, an iterator or a set (read it into a list
    first), and ``ValueError`` for a ragged nesting. The caller checks
    the range on the array's own dtype, so that a ``uint64`` entry cannot wrap around to a negative one.

    >>> integer_array([3, 0, 2], "counts")
    array([3, 0, 2])
    >>> integer_array([1, 2**70], "c")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: c must fit in int64 (-2**63 to 2**63 - 1), got 1180591620717...
    """
    arr, beyond = _read_integers(values, name, shape)
    if beyond is not None:
        first = next(v for v in beyond if not -(2**63) <= v < 2**63)
        raise ValueError(f"{name} must fit in int64 (-2**63 to 2**63 - 1), got {shown(first)}")
    return arr


def _read_integers(values, name: str, shape: str):
    """The one reading of integers of :func:`integer_array` and :func:`ids`: ``(array, None)``, ``array``
    the integers with their own integer dtype (``int64`` for an empty list, or for an object array of
    Python integers that ``int64`` holds), or ``(None, beyond)`` when an entry is a Python integer that no
    ``int64`` holds (``2**70``; ``[-1, 2**63]``, which NumPy reads as floats), ``beyond`` the entries as
    Python ints in order, for the caller's range error. ``ValueError`` for a ragged nesting, ``TypeError``
    for entries that are not integers, a ``bool`` among integers (NumPy reads ``[True, 2]`` as ``[1, 2]``)
    and for a generator, an iterator or a set (no array-like: NumPy would make one object of it)."""
    values = array_input(values, name)
    try:
        raw = np.asarray(values)
    except ValueError:  # a ragged nesting such as [[1, 2], [3]] or [[0], 1]
        raise ValueError(f"{name} must be {shape}, got rows of different lengths") from None
    if integer_dtype(raw.dtype):
        if isinstance(values, (list, tuple)) and _holds_bool(values):  # NumPy made [True, 2] [1, 2]
            raise TypeError(f"{name} must be integers, got a bool among them (True or False is not a count or an id)")
        return raw, None
    if raw.size == 0 and raw.dtype == np.float64:  # np.asarray([]) is float64: accept an empty list
        return raw.astype(np.int64), None
    python = _python_integers(values) if raw.dtype.kind not in "mM" else []  # NumPy gives ns times as ints
    if python:
        if all(-(2**63) <= v < 2**63 for v in python):  # an object array of Python ints: int64 holds them
            return np.array(python, dtype=np.int64).reshape(raw.shape), None
        return None, python
    if raw.dtype == object and raw.ndim == 0 and hasattr(values, "__iter__"):  # a generator, an iterator, a set
        raise TypeError(f"{name} must be {shape} (a list, a tuple, a NumPy array), got a {type(values).__name__}; "
                        f"read it into a list first: list(...)")
    raise TypeError(f"{name} must be integers, got dtype {raw.dtype}")


def within_int64(values: np.ndarray, name: str) -> np.ndarray:
    """``values`` (an integer array, from :func:`integer_array`) itself after checking that no entry is
    2**63 or more, which only a ``uint64`` array holds: ``ValueError`` naming ``name`` otherwise (such a
    count does not fit in ``int64`` and would wrap around to a negative one if converted).

    >>> big = np.array([1, 2**64 - 1], dtype=np.uint64)
    >>> within_int64(big, "counts")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: counts must be < 2**63 (at most 9223372036854775807), got ...
    """
    if values.dtype == np.uint64 and values.size and values.max() > np.iinfo(np.int64).max:
        raise ValueError(f"{name} must be < 2**63 (at most {np.iinfo(np.int64).max}), got {int(values.max())}")
    return values


def real_array(values, name: str) -> np.ndarray:
    """``values`` as a ``float64`` array of any shape with finite entries.

    ``TypeError`` for entries that are not real numbers (strings, ``None``, complex numbers, bools) and
    ``ValueError`` for a ragged nesting, NaN or infinity, an integer beyond 2**53 in size or a
    ``longdouble`` that float64 does not hold exactly (as :func:`vectors`, without its shape rule).

    >>> real_array([[[1, 2]]], "x").shape
    (1, 1, 2)
    """
    x = real_numbers(values, name)
    _exact_in_float64(x, name, values)
    x = x.astype(np.float64)
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{name} contains NaN or infinity")
    return x


def collection(values, name: str, what: str) -> list:
    """``values`` as a ``list``, after checking that it is a collection (a list, tuple, array, generator...):
    ``TypeError`` ``"{name} must be {what}, got {values!r}"`` for a string (one string is a common slip for
    a list of them) or for anything that cannot be iterated (``None``, a number, a 0-d array or tensor),
    rather than Python's "'NoneType' object is not iterable", which names no argument.

    >>> collection(("a", "b"), "tokens", "a sequence of str")
    ['a', 'b']
    >>> collection(None, "tokens", "a sequence of str")
    Traceback (most recent call last):
    ...
    TypeError: tokens must be a sequence of str, got None
    """
    if isinstance(values, (str, bytes)):
        raise TypeError(f"{name} must be {what}, got a single string {values!r}")
    try:
        return list(values)
    except TypeError:  # not iterable, or a 0-d array or tensor
        raise TypeError(f"{name} must be {what}, got {values!r}") from None


def integers(values: Iterable, name: str, *, low: Optional[int] = None) -> list:
    """Each of ``values`` checked with :func:`integer` (named ``name[i]``), as a list of ``int``.
    ``TypeError`` naming ``name`` when ``values`` is not a collection (``None``, one int, a string).

    >>> integers((1, 2, 4), "scales", low=1)
    [1, 2, 4]
    """
    values = collection(values, name, "a collection of integers")
    return [integer(v, f"{name}[{i}]", low=low) for i, v in enumerate(values)]


# --- numbers written in text -------------------------------------------------------------------------

MAX_NUMBER_DIGITS = 100  # read_number refuses longer numbers (int() refuses more than 4300 digits)
_INTEGER_TEXT = re.compile(r"[+-]?[0-9]+")
_NUMBER_TEXT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_NON_FINITE_TEXT = re.compile(r"[+-]?(?:nan|inf|infinity)", re.IGNORECASE | re.ASCII)  # ASCII: no "ınf"


def read_number(text: str, *, integer: bool = False) -> Union[int, float, None]:
    """The number written in ``text``: an ``int`` (``integer=True``) or a ``float``; ``None`` when
    ``text`` is not a number written the one way ``lib``'s text formats allow.

    An integer is an optional sign and ASCII digits (``-3``, ``+12``, ``007``); a float may add a decimal
    point and an exponent (``-0.5``, ``.25``, ``3.``, ``1e-3``), or be ``nan``, ``inf`` or ``infinity`` in
    any case, which come back as floats for the caller to refuse with a message about finiteness. Refused
    (``None``): digits of other scripts (Arabic-Indic ``٣``, Devanagari ``३``, full-width ``３``),
    superscripts, underscores (``1_0``), hexadecimal and surrounding spaces. A float too large for
    float64 (``1e999``) comes back as ``inf``, for the caller to refuse (:func:`non_finite_text`).

    Raises ``ValueError`` for a number written with more than ``MAX_NUMBER_DIGITS`` (100) digits, far
    beyond any real use (Python itself refuses to convert integers of more than 4300 digits), and for a
    nonzero number below float64's smallest subnormal (``1e-400``, ``2e-324``): ``float`` would read it as
    0.0 without a word (``"number '1e-400' is below float64's smallest subnormal (about 4.9e-324), would
    become 0"``). The readers of ``lib`` add the file and line (or the program line) to either message.

    >>> read_number("-0.5"), read_number("12", integer=True), read_number("1e999")
    (-0.5, 12, inf)
    >>> read_number("٣") is None, read_number("1_0") is None
    (True, True)
    >>> read_number("2.0", integer=True) is None
    True
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    if _INTEGER_TEXT.fullmatch(text) or _NUMBER_TEXT.fullmatch(text):
        digits = sum(c in "0123456789" for c in text)
        if digits > MAX_NUMBER_DIGITS:
            shown = text if len(text) <= 20 else text[:20] + "..."
            raise ValueError(f"number {shown!r} has {digits} digits; at most {MAX_NUMBER_DIGITS} are allowed")
    if integer:
        return int(text) if _INTEGER_TEXT.fullmatch(text) else None
    if _NON_FINITE_TEXT.fullmatch(text):
        return float(text)
    if _NUMBER_TEXT.fullmatch(text):
        value = float(text)
        if value == 0 and any(c in "123456789" for c in re.split("[eE]", text)[0]):
            raise ValueError(f"number {text!r} is {BELOW_FLOAT64}")
        return value
    return None


def non_finite_text(text: str) -> str:
    """Why the number written in ``text``, which :func:`read_number` read as NaN or infinity, is refused:
    ``"beyond float64's range (about 1.8e308)"`` for one written with digits (``1e999``, ``2e308``: a finite
    number too large for float64), ``"not finite"`` for ``nan`` or ``inf``.

    >>> non_finite_text("2e308"), non_finite_text("-inf")
    ("beyond float64's range (about 1.8e308)", 'not finite')
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    return "beyond float64's range (about 1.8e308)" if _NUMBER_TEXT.fullmatch(text) else "not finite"


def digits_hint(text: str) -> str:
    """A hint to append to an error about ``text`` that is not a number: empty for ASCII text; otherwise it
    names the first character of ``text`` that is not ASCII, by code point and Unicode name, and says what
    to write instead:

    - a digit of another script, a superscript, a full-width or mathematical digit: the ASCII digit
      (``" (numbers are written with the ASCII digits 0-9: '٣' is U+0663 ARABIC-INDIC DIGIT THREE, write 3)"``);
    - a sign or a decimal point that only looks like ASCII (U+2212 MINUS SIGN, a dash, a full-width plus
      or full stop, the Arabic decimal separator): the ASCII one, ``-``, ``+`` or ``.``;
    - an invisible character (a zero-width space, a byte-order mark, a control character), a space
      character other than the ASCII space (a no-break space) or a combining mark: remove it;
    - anything else: that numbers are written with ASCII characters only.

    Raises ``TypeError`` when ``text`` is not a ``str``.

    >>> digits_hint("12")
    ''
    >>> digits_hint("٣")[-48:]
    "'٣' is U+0663 ARABIC-INDIC DIGIT THREE, write 3)"
    >>> digits_hint("\u22121")
    " (U+2212 MINUS SIGN is not ASCII: write '-')"
    >>> digits_hint("\u200b2")
    ' (it holds the invisible character U+200B ZERO WIDTH SPACE: remove it)'
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    odd = next((c for c in text if not c.isascii()), None)
    if odd is None:
        return ""
    name = unicodedata.name(odd, "")
    code = f"U+{ord(odd):04X}" + (f" {name}" if name else "")
    digit = unicodedata.digit(odd, None)
    if digit is not None:
        return f" (numbers are written with the ASCII digits 0-9: {odd!r} is {code}, write {digit})"
    category = unicodedata.category(odd)
    if category in ("Cc", "Cf", "Zl", "Zp", "Cn", "Co", "Cs"):
        return f" (it holds the invisible character {code}: remove it)"
    if category == "Zs":
        return f" (it holds the space character {code}: remove it)"
    if category.startswith("M"):
        return f" (it holds the combining mark {code}: remove it)"
    folded = unicodedata.normalize("NFKC", odd)
    if folded in ("+", "-", "."):
        ascii_form = folded
    elif any(word in name for word in ("MINUS", "HYPHEN", "DASH")):
        ascii_form = "-"
    elif "PLUS SIGN" in name:
        ascii_form = "+"
    elif "DECIMAL SEPARATOR" in name or "FULL STOP" in name:
        ascii_form = "."
    else:
        return f" (numbers are written with ASCII characters only: a sign, the digits 0-9, '.' and 'e'; {odd!r} is {code})"
    return f" ({code} is not ASCII: write {ascii_form!r})"
