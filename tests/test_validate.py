"""lib.validate: every check by kind of bad input, with the message written out by hand."""

import math
import re

import numpy as np
import pytest

from lib import validate


@pytest.mark.parametrize(
    "check",
    [
        lambda: validate.integer(2.0, "k"),
        lambda: validate.number("0.1", "lr"),
        lambda: validate.flag(1, "f"),
        lambda: validate.rng("x"),
        lambda: validate.window(1.5),
        lambda: validate.ids([0.0], 3),
        lambda: validate.one_id([0], 3),
        lambda: validate.vectors(["a", "b"], "x"),
    ],
)
def test_a_wrong_type_is_a_plain_type_error_never_a_value_error(check):
    with pytest.raises(TypeError) as info:
        check()
    assert type(info.value) is TypeError and not isinstance(info.value, ValueError)


@pytest.mark.parametrize("value", [3, np.int64(3), np.uint8(3)])
def test_integer_accepts_python_and_numpy_integers(value):
    got = validate.integer(value, "k", low=1, high=3)
    assert got == 3 and type(got) is int
    assert validate.integer(-1, "k", high=5) == -1 and validate.integer(-7, "k") == -7  # open bounds


@pytest.mark.parametrize(
    "value, kwargs, kind, message",
    [
        (0, dict(low=1), ValueError, "k must be an integer >= 1, got 0"),
        (4, dict(low=1, high=3), ValueError, "k must be an integer in [1, 3], got 4"),
        (6, dict(high=5), ValueError, "k must be an integer <= 5, got 6"),
        (2.0, dict(low=1), TypeError, "k must be an integer >= 1, got 2.0"),
        (True, dict(low=0), TypeError, "k must be an integer >= 0, got True"),
        ("3", {}, TypeError, "k must be an integer, got '3'"),
        (None, dict(low=1, hint="or None"), TypeError, "k must be an integer >= 1 (or None), got None"),
    ],
)
def test_integer_rejects_by_kind(value, kwargs, kind, message):
    with pytest.raises(kind) as info:
        validate.integer(value, "k", **kwargs)
    assert str(info.value) == message


@pytest.mark.parametrize(
    "value, kwargs, kind, message",
    [
        (0.0, dict(gt=0), ValueError, "lr must be a finite number > 0, got 0.0"),
        (float("inf"), dict(gt=0), ValueError, "lr must be a finite number > 0, got inf"),
        (float("nan"), {}, ValueError, "lr must be a finite number, got nan"),
        (1, dict(ge=0, lt=1), ValueError, "lr must be a finite number in [0, 1), got 1"),
        (0, dict(gt=0, le=1), ValueError, "lr must be a finite number in (0, 1], got 0"),
        (2.5, dict(le=2), ValueError, "lr must be a finite number <= 2, got 2.5"),
        ("0.1", dict(gt=0), TypeError, "lr must be a finite number > 0, got '0.1'"),
        (False, dict(ge=0), TypeError, "lr must be a finite number >= 0, got False"),
    ],
)
def test_number_rejects_by_kind(value, kwargs, kind, message):
    with pytest.raises(kind) as info:
        validate.number(value, "lr", **kwargs)
    assert str(info.value) == message


def test_number_returns_a_float_and_accepts_numpy_scalars():
    assert validate.number(np.float32(0.5), "x", gt=0) == 0.5
    assert type(validate.number(2, "x")) is float


def test_flag_choice_and_window():
    assert validate.flag(np.bool_(False), "f") is False
    with pytest.raises(TypeError, match="f must be True or False, got 1"):
        validate.flag(1, "f")
    with pytest.raises(ValueError, match=r"metric must be one of \('a', 'b'\), got \['a'\]"):
        validate.choice(["a"], "metric", ("a", "b"))  # unhashable: not an option, no TypeError from inside
    assert validate.window(None) is None and validate.window(np.int32(3)) == 3
    with pytest.raises(ValueError, match=r"window must be None \(the whole sentence\) or an integer >= 1, got 0"):
        validate.window(0)
    with pytest.raises(TypeError):
        validate.window(1.5)


def test_seed_and_rng():
    assert validate.seed(0) == 0
    with pytest.raises(ValueError, match="seed must be an integer >= 0, got -1"):
        validate.seed(-1)
    gen = np.random.default_rng(5)
    assert validate.rng(gen) is gen
    assert validate.rng(5).random() == np.random.default_rng(5).random()
    with pytest.raises(TypeError, match="seed must be an integer >= 0 or a numpy.random.Generator"):
        validate.rng("x")
    with pytest.raises(ValueError, match="got -2"):
        validate.rng(-2)


def test_ids_by_kind():
    np.testing.assert_array_equal(validate.ids([[0, 2], [1, 1]], 3), [[0, 2], [1, 1]])
    assert validate.ids([], 3).dtype == np.int64
    with pytest.raises(ValueError, match=r"token id -1 out of range for vocabulary of 3 \(allowed 0..2\)"):
        validate.ids([0, -1], 3)
    with pytest.raises(ValueError, match="row 18446744073709551615 out of range"):  # no wrap-around to -1
        validate.ids(np.array([2**64 - 1], dtype=np.uint64), 3, "row")
    with pytest.raises(TypeError, match="token ids must be integers, got dtype float64"):
        validate.ids([0.0], 3)
    with pytest.raises(ValueError, match=r"vocabulary size must be an integer in \[1, 268435456\], got 0"):
        validate.ids([0], 0)


@pytest.mark.parametrize(
    "values, message",
    [
        (2**70, "token id 1180591620717411303424 out of range for vocabulary of 3 (allowed 0..2)"),
        (-2**70, "token id -1180591620717411303424 out of range for vocabulary of 3 (allowed 0..2)"),
        (2**64, "token id 18446744073709551616 out of range for vocabulary of 3 (allowed 0..2)"),
        ([0, 2**70], "token id 1180591620717411303424 out of range for vocabulary of 3 (allowed 0..2)"),
        ([-2**63 - 1], "token id -9223372036854775809 out of range for vocabulary of 3 (allowed 0..2)"),
        ([-1, 2**63], "token id -1 out of range for vocabulary of 3 (allowed 0..2)"),  # NumPy makes this float64
        pytest.param(10**5000, "token id an integer of 5001 digits out of range for vocabulary of 3 (allowed 0..2)",
                     id="5001-digits"),
    ],
)
def test_ids_beyond_int64_are_out_of_range_not_a_type_error(values, message):
    # attack-15 F8: np.asarray(2**70) has dtype object, which was reported as "token ids must be integers"
    with pytest.raises(ValueError) as info:
        validate.ids(values, 3)
    assert str(info.value) == message
    with pytest.raises(TypeError, match="token ids must be integers, got dtype object"):
        validate.ids([1, 2**70, 1.5], 3)  # not all integers: still a type error


def test_huge_integers_are_value_errors_with_a_readable_message():
    # attack-15 F5: float(10**400) raised OverflowError from inside validate.number
    with pytest.raises(ValueError) as info:
        validate.number(10**400, "score")
    assert str(info.value) == "score must be a finite number, got an integer of 401 digits, beyond the float64 range (about 1.8e308)"
    with pytest.raises(ValueError) as info:
        validate.number(-(2**1024), "edge", gt=0)
    assert str(info.value) == "edge must be a finite number > 0, got a negative integer of 309 digits, beyond the float64 range (about 1.8e308)"
    assert validate.number(2**1023, "x") == 2.0**1023  # the largest power of two that float64 holds
    with pytest.raises(ValueError) as info:
        validate.integer(10**5000, "k", high=3)  # repr() itself refuses ints of more than 4300 digits
    assert str(info.value) == "k must be an integer <= 3, got an integer of 5001 digits"
    assert validate.shown(10**50 - 1) == repr(10**50 - 1) and validate.shown(-(10**50)) == "a negative integer of 51 digits"
    assert validate.shown(0) == "0" and validate.shown(9) == "9"


def test_vectors_and_integers():
    assert validate.vectors([1, 2], "x").dtype == np.float64
    with pytest.raises(ValueError, match=r"x must be a vector \(d,\) or a matrix \(n, d\), got shape \(2, 2, 2\)"):
        validate.vectors(np.zeros((2, 2, 2)), "x")
    with pytest.raises(ValueError, match="x contains NaN or infinity"):
        validate.vectors([1.0, np.nan], "x")
    with pytest.raises(ValueError, match=r"scales\[1\] must be an integer >= 1, got 0"):
        validate.integers([2, 0], "scales", low=1)


def test_one_id_takes_exactly_one_integer():
    assert validate.one_id(np.int64(2), 3) == 2 and type(validate.one_id(2, 3)) is int
    for bad in ([0], np.array([0]), np.array(0), 0.0, True, "0", None):
        with pytest.raises(TypeError, match=r"token id must be one integer in \[0, 2\], got"):
            validate.one_id(bad, 3)
    with pytest.raises(ValueError, match="row 3 out of range for vocabulary of 3"):
        validate.one_id(3, 3, "row")


def test_ids_of_a_ragged_nesting_is_a_value_error_as_in_every_array_check():
    for ragged in ([[0], 1], [[0, 1], [2]]):  # was a TypeError, where every other array check raises ValueError
        with pytest.raises(ValueError, match=r"^token ids must be an integer or an array of integers, got rows of "
                                             r"different lengths$"):
            validate.ids(ragged, 3)
        with pytest.raises(ValueError, match=r"^c must be an array of integers, got rows of different lengths$"):
            validate.integer_array(ragged, "c")


def test_ids_and_integer_array_read_integers_alike():
    """ids reads integers as integer_array does (one reading) and adds only its range check."""
    for values in ([2, 0], np.array([2, 0], dtype=np.uint8), np.array([2, 0], dtype=object), [], 1):
        assert validate.ids(values, 3).tolist() == np.asarray(validate.integer_array(values, "c")).tolist()
    assert validate.integer_array(np.array([2, 0], dtype=object), "c").dtype == np.int64  # was "got dtype object"
    for bad in ([True, 2], [[1], [False]]):
        with pytest.raises(TypeError, match=r"^token ids must be integers, got a bool among them \(True or False is "
                                            r"not a count or an id\)$"):
            validate.ids(bad, 3)
        with pytest.raises(TypeError, match=r"^c must be integers, got a bool among them"):
            validate.integer_array(bad, "c")
    with pytest.raises(TypeError, match=r"^c must be an array of integers \(a list, a tuple, a NumPy array\), got a "
                                        r"generator; read it into a list first: list\(...\)$"):
        validate.integer_array((i for i in [0]), "c")
    with pytest.raises(ValueError, match=r"^token id -1 out of range for vocabulary of 3 \(allowed 0..2\)$"):
        validate.ids([-1, 2**63], 3)  # NumPy reads it as float64: Python ints all the same
    with pytest.raises(ValueError, match=r"^c must fit in int64 \(-2\*\*63 to 2\*\*63 - 1\), got 9223372036854775808$"):
        validate.integer_array([-1, 2**63], "c")


@pytest.mark.parametrize(
    "values, kind, match",
    [
        ([[1.0, 2.0], [3.0]], ValueError, "rows of different lengths"),
        (["1", "2"], TypeError, "x must hold real numbers, got dtype <U1"),
        ([1 + 0j, 2.0], TypeError, "complex128"),
        ([True, False], TypeError, "dtype bool"),
        ([None, 1.0], TypeError, "dtype object"),
    ],
)
def test_vectors_of_non_numbers(values, kind, match):
    with pytest.raises(kind, match=match):
        validate.vectors(values, "x")


@pytest.mark.parametrize(
    "text, value",
    [("0", 0.0), ("-3", -3.0), ("+12", 12.0), ("007", 7.0), ("2.5", 2.5), ("-.25", -0.25), ("3.", 3.0),
     ("1e-3", 0.001), ("1E+300", 1e300)],
)
def test_read_number_accepts_plain_ascii_decimals(text, value):
    got = validate.read_number(text)
    assert got == value and type(got) is float


@pytest.mark.parametrize(
    "text",
    [
        "\u0663",  # Arabic-Indic three
        "\u06f3",  # extended Arabic-Indic (Persian) three
        "\u0969",  # Devanagari three
        "\u09e9",  # Bengali three
        "\uff13",  # full-width three
        "\u00b3",  # superscript three
        "\u2083",  # subscript three
        "\U0001d7d1",  # mathematical bold three
        "1\u0663",  # mixed scripts
        "1_000", "0x10", "1e", ".", "+", "", " 1", "1 ", "1.2.3", "--1", "\u0131nf", "infinit", "\u2212" + "1",
    ],
)
def test_read_number_refuses_everything_else(text):
    assert validate.read_number(text) is None
    assert validate.read_number(text, integer=True) is None


def test_read_number_integers_and_non_finite_spellings():
    assert validate.read_number("-12", integer=True) == -12 and type(validate.read_number("5", integer=True)) is int
    for text in ("1.0", "1e3", "nan", "inf"):
        assert validate.read_number(text, integer=True) is None
    assert np.isnan(validate.read_number("NaN")) and validate.read_number("-Infinity") == -np.inf
    assert validate.read_number("1e999") == np.inf  # too large for float64: the caller refuses it as not finite
    assert validate.digits_hint("12") == ""
    assert validate.digits_hint("\uff11\uff12") == (
        " (numbers are written with the ASCII digits 0-9: '\uff11' is U+FF11 FULLWIDTH DIGIT ONE, write 1)")
    assert validate.digits_hint("1\ufeff") == " (it holds the invisible character U+FEFF ZERO WIDTH NO-BREAK SPACE: remove it)"
    assert validate.digits_hint("\u216b") == (" (numbers are written with ASCII characters only: a sign, the digits 0-9, "
                                              "'.' and 'e'; '\u216b' is U+216B ROMAN NUMERAL TWELVE)")
    with pytest.raises(TypeError, match="text must be a str"):
        validate.read_number(3)


def test_read_number_refuses_more_than_100_digits():
    assert validate.read_number("9" * 100, integer=True) == int("9" * 100)
    for text, integer in [("9" * 101, True), ("1." + "0" * 100, False), ("9" * 5000, True), ("9" * 5000, False)]:
        with pytest.raises(ValueError, match=r"has \d+ digits; at most 100 are allowed"):
            validate.read_number(text, integer=integer)


@pytest.mark.parametrize("dtype", ["m8[s]", "m8[ns]", "M8[D]"])
def test_times_are_neither_integers_nor_real_numbers(dtype):
    # NumPy files timedelta64 under its integer types: ids, vectors and real numbers accepted a time span
    values = np.array([1], dtype=dtype)
    assert not validate.integer_dtype(values.dtype) and not validate.real_dtype(values.dtype)
    with pytest.raises(TypeError, match=re.escape(f"token ids must be integers, got dtype {values.dtype}")):
        validate.ids(values, 4)
    with pytest.raises(TypeError, match=re.escape(f"x must hold real numbers, got dtype {values.dtype}")):
        validate.vectors(values, "x")
    with pytest.raises(TypeError, match=re.escape(f"x must hold real numbers, got dtype {values.dtype}")):
        validate.real_array(values, "x")
    with pytest.raises(TypeError, match=re.escape(f"counts must be integers, got dtype {values.dtype}")):
        validate.integer_array(values, "counts")


def test_integer_and_real_dtypes():
    assert [validate.integer_dtype(t) for t in (np.int8, np.uint64, np.float32, bool, complex, object)] == [
        True, True, False, False, False, False]
    assert [validate.real_dtype(t) for t in (np.int8, np.uint64, np.float16, bool, complex, object, "U1")] == [
        True, True, True, False, False, False, False]


def test_integer_array_keeps_the_dtype_and_refuses_what_int64_cannot_hold():
    assert validate.integer_array(np.array([1, 2], dtype=np.uint64), "c").dtype == np.uint64  # range: the caller's
    assert validate.integer_array([3, 0], "c").tolist() == [3, 0]
    got = validate.integer_array([], "c")
    assert got.dtype == np.int64 and got.shape == (0,)
    for values, shown in [([1, 2**70], str(2**70)), ([-1, 2**63], str(2**63)), ([-(2**63) - 1], str(-(2**63) - 1))]:
        with pytest.raises(ValueError, match=re.escape(f"c must fit in int64 (-2**63 to 2**63 - 1), got {shown}")):
            validate.integer_array(values, "c")
    for values, dtype in [([1.0, 2.0], "float64"), ([True], "bool"), (["1"], "<U1"), ([1, None], "object")]:
        with pytest.raises(TypeError, match=re.escape(f"c must be integers, got dtype {dtype}")):
            validate.integer_array(values, "c")
    with pytest.raises(ValueError, match=r"^c must be a 1-D array of counts, got rows of different lengths$"):
        validate.integer_array([[1, 2], [3]], "c", "a 1-D array of counts")
    for values in ([True, 2], [[1, 2], [3, False]], (np.True_, 0)):  # NumPy read them as [1, 2], [[1, 2], [3, 0]]
        with pytest.raises(TypeError, match=r"^c must be integers, got a bool among them \(True or False is not a count"):
            validate.integer_array(values, "c")
        with pytest.raises(TypeError, match=r"^token ids must be integers, got a bool among them"):
            validate.ids(values, 4)


@pytest.mark.parametrize("values", [None, 3, 1.5, np.array(2)])
def test_integers_names_what_is_not_a_collection(values):
    # was "'NoneType' object is not iterable"
    with pytest.raises(TypeError, match=f"^scales must be a collection of integers, got {re.escape(repr(values))}$"):
        validate.integers(values, "scales")


def test_digits_hint_of_a_non_string_is_a_type_error_like_read_number():
    for call in (validate.digits_hint, validate.read_number):
        with pytest.raises(TypeError, match="^text must be a str, got int$"):  # was an AttributeError (isascii)
            call(5)


def test_choice_ignoring_case_returns_the_option_as_spelled():
    assert validate.choice("bca", "method", ("BCa", "basic"), ignore_case=True) == "BCa"
    assert validate.choice("BASIC", "method", ("BCa", "basic"), ignore_case=True) == "basic"
    for bad in ("bc", None, 1):
        with pytest.raises(ValueError, match=re.escape(f"method must be one of ('BCa', 'basic') (in any case), got {bad!r}")):
            validate.choice(bad, "method", ("BCa", "basic"), ignore_case=True)
    with pytest.raises(ValueError, match=re.escape("method must be one of ('BCa', 'basic'), got 'bca'")):
        validate.choice("bca", "method", ("BCa", "basic"))  # case matters unless asked


def test_id_collection_takes_a_collection_never_one_id():
    assert validate.id_collection([2, 0], 3, "items").tolist() == [2, 0]
    assert validate.id_collection(range(2), 3, "items").tolist() == [0, 1]
    assert validate.id_collection((i for i in [1]), 3, "items").tolist() == [1]
    assert validate.id_collection([], 3, "items").tolist() == []
    for one in (1, np.int64(1), np.array(1)):
        with pytest.raises(TypeError, match=rf"^items must be a collection of ids \(e\.g\. items=\[3\]\), not one int: got {re.escape(repr(one))}$"):
            validate.id_collection(one, 3, "items")
    for other in (None, 1.5, "01"):
        with pytest.raises(TypeError, match=rf"^items must be a collection of ids \(e\.g\. items=\[3\]\), got {re.escape(repr(other))}$"):
            validate.id_collection(other, 3, "items")
    with pytest.raises(ValueError, match=r"^item 3 out of range for vocabulary of 3 \(allowed 0\.\.2\)$"):
        validate.id_collection([3], 3, "items", "item")
    with pytest.raises(ValueError, match=r"^items must be a flat collection of ids, got shape \(1, 2\)$"):
        validate.id_collection([[0, 1]], 3, "items")


# --- NumPy times, arrays as options, sizes, numbers shown, longdouble ---------------------------------


@pytest.mark.parametrize("span", [np.timedelta64(2), np.timedelta64(2, "s"), np.datetime64("2020-01-01")])
def test_a_numpy_time_is_neither_an_integer_nor_a_number(span):
    # np.timedelta64 is a subclass of np.signedinteger: it passed as an integer (k = 2 generic time units)
    shown = repr(span)
    with pytest.raises(TypeError, match=f"^k must be an integer >= 1, got {re.escape(shown)}$"):
        validate.integer(span, "k", low=1)
    with pytest.raises(TypeError, match=f"^x must be a finite number, got {re.escape(shown)}$"):
        validate.number(span, "x")
    with pytest.raises(TypeError, match=f"^seed must be an integer >= 0, got {re.escape(shown)}$"):
        validate.seed(span)
    with pytest.raises(TypeError, match="^seed must be an integer >= 0 or a numpy.random.Generator, got "):
        validate.rng(span)
    with pytest.raises(TypeError, match=r"^window must be None \(the whole sentence\) or an integer >= 1, got "):
        validate.window(span)
    with pytest.raises(TypeError, match=f"^x must be a real number, got {re.escape(shown)}$"):
        validate.real(span, "x")


@pytest.mark.parametrize("value", [np.array(["dot", "cosine"]), np.array(["dot"]), np.array([]), [1], {"a": 1}])
def test_choice_refuses_an_array_or_an_unhashable_value_by_name(value):
    # an array was compared entry by entry: NumPy's "truth value ... is ambiguous", or a 1-element one taken
    with pytest.raises(ValueError, match=r"^metric must be one of \('cosine', 'dot'\), got "):
        validate.choice(value, "metric", ("cosine", "dot"))


def test_choice_returns_the_option_as_spelled():
    assert validate.choice(np.str_("dot"), "metric", ("cosine", "dot")) == "dot"
    assert type(validate.choice(np.str_("dot"), "metric", ("cosine", "dot"))) is str


def test_size_has_an_upper_bound_named_in_the_message():
    assert validate.MAX_SIZE == 2**28
    assert validate.size(2**28, "n") == 2**28
    for huge, text in ((2**28 + 1, "268435457"), (2**70, "1180591620717411303424"),
                       (np.uint64(2**64 - 1), "np.uint64(18446744073709551615)"), (10**400, "an integer of 401 digits")):
        with pytest.raises(ValueError, match=rf"^vocab_size must be an integer in \[1, 268435456\], got {re.escape(text)}$"):
            validate.size(huge, "vocab_size")
    with pytest.raises(ValueError, match=r"^steps must be an integer in \[0, 10\] \(a hint\), got 11$"):
        validate.size(11, "steps", low=0, high=10, hint="a hint")
    validate.entries((2**14, 2**14), "n")  # exactly 2**28 entries: allowed
    with pytest.raises(ValueError, match=r"^n: a result of shape \(16384, 16385\) would hold 268451840 entries; "
                                         r"at most 268435456 are allowed$"):
        validate.entries((2**14, 2**14 + 1), "n")


def test_real_shows_any_number_and_refuses_one_beyond_float64():
    assert validate.real(3, "x") == 3.0 and type(validate.real(3, "x")) is float
    assert validate.real(np.float32(0.5), "x") == 0.5
    assert np.isnan(validate.real(float("nan"), "x")) and validate.real(-np.inf, "x") == -np.inf
    assert validate.real(np.longdouble("1.5"), "x") == 1.5
    for big, text in ((10**400, "an integer of 401 digits"), (np.longdouble("1e400"), "np.longdouble('1e+400')")):
        with pytest.raises(ValueError, match=rf"^x must be a real number, got {re.escape(text)}, beyond the float64 range \(about 1.8e308\)$"):
            validate.real(big, "x")
    for bad in (True, "3", None, 1j):
        with pytest.raises(TypeError, match="^x must be a real number, got "):
            validate.real(bad, "x")


def test_longdouble_arrays_become_float64_or_a_range_error():
    out = validate.real_numbers(np.array([1.5, -2.25], dtype=np.longdouble), "x")
    assert out.dtype == np.float64 and out.tolist() == [1.5, -2.25]
    beyond = np.array([1.0, np.longdouble("1e400")], dtype=np.longdouble)
    with pytest.raises(ValueError, match=r"^x holds np.longdouble\('1e\+400'\), beyond the float64 range \(about 1.8e308\)$"):
        validate.real_numbers(beyond, "x")
    with pytest.raises(ValueError, match="^x contains NaN or infinity$"):  # a non-finite longdouble stays that
        validate.vectors(np.array([np.longdouble("inf")]), "x")



@pytest.mark.skipif(np.finfo(np.longdouble).nmant < 60, reason="np.longdouble is float64 on this platform")
def test_vectors_tables_and_scores_refuse_a_longdouble_float64_rounds_as_integers_beyond_2_53():
    L = np.longdouble
    rounded = L(1) + L(2) ** -60  # float64 makes it 1.0
    for check, where in ((validate.vectors, "in which it is computed"), (validate.real_array, "in which it is computed"),
                         (validate.ranked_numbers, "in which they are ranked")):
        for given in (np.array([rounded, L(1)]), [rounded, 1.0], [[rounded]], [[rounded, 10**30]]):
            with pytest.raises(ValueError, match=rf"^x holds (the longdouble np.longdouble\('1.0000000000000000009'\), "
                               rf"which float64 \({where}\) does not hold exactly \(it becomes 1.0\)|the integer 1{'0' * 30})"):
                check(given, "x")
        # entries float64 holds exactly are their float64 values
        assert check(np.array([L(0.1), L(-3)]), "x").tolist() == [0.1, -3.0]
    # real_numbers alone (formatting, counts) still rounds to float64
    assert validate.real_numbers(np.array([rounded]), "x").tolist() == [1.0]

def test_number_keep_int_compares_integers_exactly():
    assert validate.number(2**53 + 1, "e", keep_int=True) == 2**53 + 1  # a float would be 2**53
    assert type(validate.number(np.int64(7), "e", keep_int=True)) is int
    assert validate.number(2.5, "e", keep_int=True) == 2.5
    with pytest.raises(ValueError, match=r"^e must be a finite number > 9007199254740993, got 9007199254740993$"):
        validate.number(2**53 + 1, "e", gt=2**53 + 1, keep_int=True)
    with pytest.raises(ValueError, match=r"^e must be a finite number, got an integer of 401 digits, beyond the float64 range \(about 1.8e308\)$"):
        validate.number(10**400, "e", keep_int=True)


@pytest.mark.parametrize("call, name", [
    ("lib.corpus:token_counts([[0, 1]], N)", "vocab_size"),
    ("lib.corpus:repeat_corpus([['a']], N)", "times"),
    ("lib.positional:sinusoidal_table(N, 4)", "n_positions"),
    ("lib.positional:LearnedPositionTable(N, 2)", "max_len"),
    ("lib.positional:alibi_slopes(N)", "n_heads"),
    ("lib.positional:alibi_bias(N, 2)", "window length n"),
    ("lib.toylang:make_corpus(N)", "n_sentences"),
    ("lib.toylang:sample_sentences(N)", "n"),
    ("lib.skipgram:train_skipgram(np.array([[0, 1]]), N)", "vocab_size"),
    ("lib.tying:TinyLM(N, 4)", r"V \(vocabulary size\)"),
    ("lib.sgns:alias_draw(lib.sgns.alias_table([0.2, 0.8]), N, np.random.default_rng(0))", "size"),
    ("lib.sparse_updates:untouched_row_drift(N)", "steps"),
    ("lib.sparse_updates:sample_ids(4, N)", "batch"),
    ("lib.sparse_updates:id_probabilities(N)", r"V \(vocabulary size\)"),
    ("lib.sparse_updates:expected_touched_fraction(N, 10)", r"V \(vocabulary size\)"),
    ("lib.ppmi:cooccurrence([[0, 1]], N, sparse=True)", "vocab_size"),
    ("lib.bigram:bigram_counts([0, 1], N)", "vocab_size"),
    ("lib.bigram:init_params(N, 2)", "vocab_size"),
    ("lib.bigram:train_factored(np.ones((3, 3)), N)", "width d"),
    ("lib.provenance:seen_tokens([0, 1], N)", "vocab_size"),
    ("lib.transformer:sample_windows(np.arange(10), N, 3, 0)", "n_windows"),
])
@pytest.mark.parametrize("huge", [2**70, 10**400, np.uint64(2**64 - 1), 10**9])
def test_every_size_argument_has_an_upper_bound(call, name, huge):
    # each reached NumPy or PyTorch ("Maximum allowed dimension exceeded", an overflow) or never returned
    import importlib

    module, expression = call.split(":")
    namespace = {"np": np, "N": huge, "lib": importlib.import_module("lib")}
    namespace.update(vars(importlib.import_module(module)))
    importlib.import_module("lib.sgns")
    with pytest.raises(ValueError, match=rf"^{name} must be an integer in \[\d+, \d+\]( \([^)]*\))?, got "):
        eval(expression, namespace)


def test_collection_and_tensor_name_the_argument():
    assert validate.collection((x for x in "ab"), "tokens", "a sequence of str") == ["a", "b"]
    for bad, shown in ((None, "None"), (3, "3"), (np.array(2.0), "array(2.)")):
        with pytest.raises(TypeError, match=rf"^tokens must be a sequence of str, got {re.escape(shown)}$"):
            validate.collection(bad, "tokens", "a sequence of str")
    with pytest.raises(TypeError, match="^tokens must be a sequence of str, got a single string 'ab'$"):
        validate.collection("ab", "tokens", "a sequence of str")
    import torch

    t = torch.zeros(2)
    assert validate.tensor(t, "x") is t
    with pytest.raises(TypeError, match=r"^x must be a torch.Tensor \(B,\), got ndarray$"):
        validate.tensor(np.zeros(2), "x", "(B,)")
    # the dtype and the values, on request: PyTorch's NotImplementedError or a NaN loss otherwise
    assert validate.tensor(torch.arange(3), "counts", real=True, finite=True).tolist() == [0, 1, 2]
    with pytest.raises(TypeError, match=r"^x must be a floating-point torch.Tensor \(B,\), got dtype torch.int64$"):
        validate.tensor(torch.arange(2), "x", "(B,)", floating=True)
    with pytest.raises(TypeError, match=r"^t must be an integer torch.Tensor \(N,\), got dtype torch.bool$"):
        validate.tensor(torch.zeros(2, dtype=torch.bool), "t", "(N,)", integer=True)
    for dtype in (torch.bool, torch.complex64):
        with pytest.raises(TypeError, match=rf"^c must be a torch.Tensor of real numbers .*got dtype {dtype}$"):
            validate.tensor(torch.zeros(2, dtype=dtype), "c", real=True)
    for bad in (float("nan"), float("inf"), -float("inf")):
        with pytest.raises(ValueError, match="^x contains NaN or infinity$"):
            validate.tensor(torch.tensor([0.0, bad], requires_grad=True), "x", floating=True, finite=True)


def test_tensors_numpy_cannot_read_are_read_exactly_or_refused_by_name():
    import torch

    rows = [[0.5, -1.0], [0.25, 2.0]]  # exact in bfloat16
    # read as their values: detached from autograd (np.asarray raised), bfloat16 widened exactly (NumPy has none)
    for t in (torch.tensor(rows, requires_grad=True), torch.tensor(rows, dtype=torch.bfloat16)):
        for check in (validate.real_numbers, validate.real_array, validate.vectors):
            np.testing.assert_array_equal(check(t, "x"), rows)
    # refused by name: a tensor with no values, a sparse one, complex entries (each was PyTorch's or NumPy's error)
    meta = torch.zeros(2, 2, device="meta")
    for check in (validate.real_numbers, validate.real_array, validate.vectors, validate.integer_array,
                  lambda v, name: validate.ids(v, 4, name)):
        with pytest.raises(TypeError, match=r"^x(s)? is a PyTorch tensor on the meta device, which holds no values"):
            check(meta, "x")
        with pytest.raises(TypeError, match=r"^x(s)? is a sparse PyTorch tensor \(layout torch.sparse_coo\); pass "):
            check(torch.eye(2).to_sparse(), "x")
    with pytest.raises(TypeError, match=r"^x must hold real numbers, got dtype complex64$"):
        validate.real_numbers(torch.zeros(2, dtype=torch.complex64), "x")
    with pytest.raises(TypeError, match=r"^x must be a torch.Tensor with values, got one on the meta device$"):
        validate.tensor(meta, "x", floating=True, finite=True)  # was NotImplementedError from torch.isfinite


def test_ragged_nestings_are_named_by_every_array_check():
    ragged = [[1, 2], [3]]  # NumPy: "setting an array element with a sequence ... inhomogeneous shape"
    for check, exc in ((validate.real_numbers, ValueError), (validate.real_array, ValueError),
                       (validate.vectors, ValueError), (validate.integer_array, ValueError),
                       (validate.ranked_numbers, ValueError)):
        with pytest.raises(exc, match=r"^x must be .*, got rows of different lengths$"):
            check(ragged, "x")


def test_a_longdouble_below_float64_is_named_never_zero():
    import numpy as np
    import pytest
    from lib import validate

    tiny = np.longdouble("1e-4000")
    with pytest.raises(ValueError, match=r"^s must be a finite number, got np.longdouble\('1e-4000'\), below float64's smallest subnormal \(about 4.9e-324\), would become 0$"):
        validate.number(tiny, "s")
    with pytest.raises(ValueError, match=r"^t must be a real number, got np.longdouble\('1e-4000'\), below float64's smallest subnormal \(about 4.9e-324\), would become 0$"):
        validate.real(tiny, "t")
    with pytest.raises(ValueError, match=r"^x holds np.longdouble\('1e-4000'\), below float64's smallest subnormal \(about 4.9e-324\), would become 0$"):
        validate.real_numbers(np.array([tiny, 1], dtype=np.longdouble), "x")
    assert validate.number(np.longdouble(0), "s") == 0.0
    assert validate.real_numbers(np.array([np.longdouble("1e-320")]), "x")[0] == 1e-320  # a subnormal float64 holds it


def test_float64_problem_names_a_finite_number_float64_cannot_hold_in_one_set_of_words():
    L = np.longdouble
    assert validate.float64_problem(L("1e-4000")) == "below float64's smallest subnormal (about 4.9e-324), would become 0"
    assert validate.float64_problem(L("-1e4000")) == "beyond the float64 range (about 1.8e308)"
    assert validate.float64_problem(10**400) == "beyond the float64 range (about 1.8e308)"
    # representable, if only with fewer bits (a subnormal), or already a float64 value: no problem
    for fine in (L("1e-320"), 5e-324, 0, L(0), 2**1023, float("nan"), float("inf"), L("inf")):
        assert validate.float64_problem(fine) == ""
    # an object array (a Python int beyond int64 beside a longdouble) gets the same words, never a silent 0
    with pytest.raises(ValueError, match=r"^x holds np.longdouble\('1e-4000'\), below float64's smallest subnormal "
                                         r"\(about 4.9e-324\), would become 0$"):
        validate.real_numbers(np.array([2**70, L("1e-4000")], dtype=object), "x")
    assert validate.real_numbers(np.array([2**70, L("0.5")], dtype=object), "x").tolist() == [2.0**70, 0.5]


def test_read_number_refuses_a_nonzero_number_that_float64_would_read_as_zero():
    for text in ("1e-400", "-2e-324", "0.0001e-320", ".5e-330"):
        with pytest.raises(ValueError, match=rf"^number '{re.escape(text)}' is below float64's smallest subnormal "
                                             r"\(about 4.9e-324\), would become 0$"):
            validate.read_number(text)
    assert validate.read_number("4e-324") == 5e-324  # rounds to the smallest subnormal, not to 0
    assert validate.read_number("1e-320") == 1e-320
    for zero in ("0e-400", "-0.000e-999", "0", "00.0"):
        assert validate.read_number(zero) == 0.0


def test_confidence_level_reads_a_narrow_float_as_written():
    assert validate.confidence_level(np.float32(0.95)) == 0.95  # float(np.float32(0.95)) is 0.949999988079071
    assert validate.confidence_level(np.float16(0.9)) == 0.9
    assert validate.confidence_level(0.5) == 0.5
    for bad in (0, 1.0, np.float32(1.0), float("nan")):
        with pytest.raises(ValueError, match=r"^confidence must be a finite number in \(0, 1\), got "):
            validate.confidence_level(bad)
    with pytest.raises(TypeError, match=r"^level must be a finite number in \(0, 1\), got '0.9'$"):
        validate.confidence_level("0.9", "level")


def test_a_masked_array_is_refused_by_every_array_check_unless_nothing_is_masked():
    m = np.ma.array([1.0, 2.0, 3.0], mask=[False, True, True])
    message = (r"^x is a NumPy masked array with 2 masked entries; lib does not read masks \(the hidden values "
               r"would be used\): pass x.compressed\(\) or x.filled\(value\), or drop the masked rows$")
    for check in (validate.real_numbers, validate.vectors, validate.real_array, validate.ranked_numbers):
        with pytest.raises(TypeError, match=message):
            check(m, "x")
    ids = np.ma.array([0, 1], mask=[True, False])
    with pytest.raises(TypeError, match=r"^c is a NumPy masked array with 1 masked entry"):
        validate.integer_array(ids, "c")
    with pytest.raises(TypeError, match=r"^token ids is a NumPy masked array with 1 masked entry"):
        validate.ids(ids, 4)
    assert validate.vectors(np.ma.array([1.0, 2.0], mask=False), "x").tolist() == [1.0, 2.0]
    assert validate.ids(np.ma.array([3, 0]), 4).tolist() == [3, 0]


def test_a_tensor_is_read_as_its_values_detached_and_bfloat16_widened_exactly():
    import torch

    values = [0.5, -1.25, 3.0, 2.0**-20]  # each exact in bfloat16 (8 bits of mantissa)
    grad = torch.tensor(values, dtype=torch.float64, requires_grad=True)  # np.asarray raised RuntimeError
    bf16 = torch.tensor(values, dtype=torch.bfloat16)  # np.asarray raised "unsupported ScalarType BFloat16"
    for t, dtype in ((grad, np.float64), (bf16, np.float32)):
        got = validate.real_numbers(t, "x")
        assert got.dtype == dtype and got.tolist() == values
        assert validate.vectors(t, "x").tolist() == values
        assert validate.ranked_numbers(t, "x").tolist() == values
        assert validate.real_array(t, "x").tolist() == values
    assert validate.real_numbers(torch.tensor([1.0 / 3], dtype=torch.bfloat16), "x").tolist() == [0.333984375]
    assert validate.integer_array(torch.tensor([3, 0]), "counts").tolist() == [3, 0]
    assert validate.ids(torch.tensor([[2, 0]]), 3).tolist() == [[2, 0]]
    with pytest.raises(TypeError, match=r"^x must hold real numbers, got dtype complex64$"):
        validate.real_numbers(torch.tensor([1 + 2j]), "x")
    with pytest.raises(TypeError, match="^token ids must be integers, got dtype float32$"):
        validate.ids(torch.tensor([0.0], requires_grad=True), 3)


def test_an_object_array_of_python_ints_holds_ids_and_a_generator_is_named():
    assert validate.ids(np.array([2, 0], dtype=object), 3).tolist() == [2, 0]  # was "must fit in int64"
    assert validate.ids(np.array([[1]], dtype=object), 3).dtype == np.int64
    with pytest.raises(ValueError, match=r"^token id 3 out of range for vocabulary of 3 \(allowed 0..2\)$"):
        validate.ids(np.array([0, 3], dtype=object), 3)
    for bad, kind in (((i for i in [0]), "generator"), (iter([0]), "list_iterator"), ({0}, "set")):
        with pytest.raises(TypeError, match=rf"^token ids must be an integer or an array of integers \(a list, a tuple, "
                                            rf"a NumPy array\), got a {kind}; read it into a list first: list\(...\)$"):
            validate.ids(bad, 3)  # was "token ids must be integers, got dtype object"
    with pytest.raises(TypeError, match="^token ids must be integers, got dtype object$"):
        validate.ids(np.array([0, "a"], dtype=object), 3)


def test_exact_real_and_exact_reals_refuse_what_float64_would_round():
    assert validate.exact_real(2**53, "v") == 9007199254740992.0 and validate.exact_real(-(2**53), "v") == -(2.0**53)
    assert math.isnan(validate.exact_real(float("nan"), "v"))  # a float64 value: kept, the caller decides
    for big in (2**53 + 1, np.int64(2**62 + 1), np.uint64(2**64 - 1)):
        with pytest.raises(ValueError, match=rf"^v is the integer {int(big)}, beyond 2\*\*53"):
            validate.exact_real(big, "v")
    if np.finfo(np.longdouble).nmant > 52:  # an 80-bit longdouble (x86): 1 + 2**-60 is not 1.0 there
        with pytest.raises(ValueError, match="^v holds the longdouble"):
            validate.exact_real(np.longdouble(1) + np.longdouble(2) ** -60, "v")
    np.testing.assert_array_equal(validate.exact_reals([[1, 2**53]], "v"), [[1.0, 2.0**53]])
    assert np.isinf(validate.exact_reals([np.inf], "v")).all()
    with pytest.raises(ValueError, match=r"^v holds the integer 9007199254740993, beyond 2\*\*53"):
        validate.exact_reals([0, 2**53 + 1], "v")
    with pytest.raises(TypeError, match="^v must be a real number"):
        validate.exact_real("1", "v")
