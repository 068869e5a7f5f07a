"""lib.notebook: numbers formatted and glued at the precision shown, their unrounded values logged for the
rounding-margin report; NumPy scalars become Python numbers before glue; figures render to PNG bytes."""

import json
import math
import re
import warnings

import numpy as np
import pytest
from matplotlib.figure import Figure

from lib import notebook
from lib.notebook import figure_png, plain


def test_plain_converts_numpy_scalars():
    assert type(plain(np.float64(0.5))) is float and plain(np.float64(0.5)) == 0.5
    assert type(plain(np.int64(3))) is int and plain(np.int64(3)) == 3
    assert type(plain(np.bool_(True))) is bool
    assert type(plain(np.array(2.5))) is float
    assert repr(plain(np.float32(0.25))) == "0.25"
    assert plain("text") == "text"


def test_plain_refuses_arrays():
    with pytest.raises(TypeError, match=r"glue one number at a time, got an array of shape \(2,\)"):
        plain(np.array([1.0, 2.0]))


def test_figure_png_is_a_png_without_timestamp():
    fig = Figure(figsize=(2, 1))
    fig.add_subplot().plot([0, 1], [1, 0])
    png = figure_png(fig)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert png == figure_png(fig)  # deterministic bytes


def test_book_figures_are_drawn_at_twice_the_baseline_resolution():
    import io

    from PIL import Image

    from lib.notebook import BOOK_DPI, PNG_DPI

    fig = Figure(figsize=(2, 1))
    fig.add_subplot().plot([0, 1], [1, 0])
    baseline = Image.open(io.BytesIO(figure_png(fig)))
    book = Image.open(io.BytesIO(figure_png(fig, dpi=BOOK_DPI)))
    assert BOOK_DPI == 2 * PNG_DPI
    assert baseline.size == (2 * PNG_DPI, PNG_DPI) and book.size == (4 * PNG_DPI, 2 * PNG_DPI)


def _glued(monkeypatch):
    import myst_nb

    stored = {}
    monkeypatch.setattr(myst_nb, "glue", lambda name, value, display=False: stored.__setitem__(name, value))
    return stored


def test_glue_stores_a_float_as_the_digits_the_prose_shows(monkeypatch):
    from IPython.core.formatters import format_display_data
    from myst_nb.core.variables import format_plain_text

    stored = _glued(monkeypatch)
    notebook.glue("a", np.float64(1.34802759), 4)
    notebook.glue("b", 1.34802751, 4)  # last-digit noise of the same number: the same record
    notebook.glue("c", -0.00001, 4)  # no minus sign on a value shown as zero
    notebook.glue("d", 2.5, 0)  # Python's rounding: half to even, as format() does
    assert repr(stored["a"]) == repr(stored["b"]) == "1.3480"
    assert repr(stored["c"]) == "0.0000" and repr(stored["d"]) == "2"
    # what myst-nb stores as text/plain, and what the prose role then shows
    text = format_display_data(stored["a"])[0]["text/plain"]
    assert text == "1.3480"
    assert format_plain_text(text, ".4f") == "1.3480"


def test_glue_keeps_integers_exact_and_strings_as_markdown(monkeypatch):
    from IPython.display import Markdown

    stored = _glued(monkeypatch)
    notebook.glue("n", np.int64(38_597_376))
    notebook.glue("s", "**bold**")
    assert stored["n"] == 38_597_376 and type(stored["n"]) is int
    assert isinstance(stored["s"], Markdown) and stored["s"].data == "**bold**"


def test_glue_refuses_a_float_without_decimals_and_bad_decimals(monkeypatch):
    _glued(monkeypatch)
    with pytest.raises(TypeError, match=r"a float needs decimals.*glue\('x', value, 4\)"):
        notebook.glue("x", 0.5)
    with pytest.raises(ValueError, match=r"decimals must be an integer in \[0, 12\], got -1"):
        notebook.glue("x", 0.5, -1)
    with pytest.raises(TypeError, match="decimals is for numbers, got str"):
        notebook.glue("x", "text", 2)


@pytest.mark.parametrize("value, spec, text", [
    (2 / 3, ".4f", "0.6667"),
    (-0.00001, ".3f", "0.000"),
    (-0.00001, ">8.3f", "   0.000"),
    (1234.5678, ",.1f", "1,234.6"),
    (0.1234, ".1%", "12.3%"),
    (12345.0, ".2e", "1.23e+04"),
    (np.float32(0.1), ".3f", "0.100"),
])
def test_fmt_formats_a_number_with_an_explicit_precision(value, spec, text):
    assert notebook.fmt(value, spec) == text


def test_fmt_shows_arrays_like_numpy_does():
    assert notebook.fmt(np.array([0.8414709848, 0.5403023059]), ".3f") == "[0.841 0.540]"
    assert notebook.fmt([[1.0, -0.5], [0.25, 2.0]], ".2f") == "[[ 1.00 -0.50]\n [ 0.25  2.00]]"
    assert notebook.fmt(np.array(0.5), ".1f") == "0.5"


@pytest.mark.parametrize("spec", ["g", ".4g", "f", "4f", ".4d", "", ".4"])
def test_fmt_refuses_a_spec_without_a_fixed_precision(spec):
    with pytest.raises(ValueError, match="spec must be a format spec with a precision and type f, e or %"):
        notebook.fmt(0.5, spec)


def test_fmt_refuses_what_is_not_a_number():
    with pytest.raises(TypeError, match="value must be a real number, got str"):
        notebook.fmt("0.5")
    with pytest.raises(TypeError, match="fmt formats numbers, got an array of dtype <U3"):
        notebook.fmt(np.array(["0.5"]))
    with pytest.raises(ValueError, match=r"fmt shows 1-D and 2-D arrays, got shape \(1, 1, 1\)"):
        notebook.fmt(np.zeros((1, 1, 1)))


def test_exact_shows_a_setting_in_its_shortest_form():
    assert [notebook.exact(x) for x in (0.025, 10.0, 3, 1e-05, np.float64(0.1))] == ["0.025", "10", "3", "1e-05", "0.1"]


def test_argmax_and_argmin_pick_the_first_best_and_record_the_gap_to_the_runner_up(tmp_path, monkeypatch):
    log = tmp_path / "numbers.jsonl"
    monkeypatch.setenv(notebook.NUMBER_LOG, str(log))
    assert notebook.argmax([0.5, 0.9, 0.9, 0.7], "best") == 1  # the tie of 0.9 and 0.9 goes to the first
    assert notebook.argmin([[3.0, 1.0], [1.5, 2.0]], "least") == 1
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(e["kind"], e["name"]) for e in entries] == [("gap", "best"), ("gap", "least")]
    assert entries[0]["raw"] == pytest.approx(0.2) and entries[1]["raw"] == pytest.approx(0.5)
    with pytest.raises(ValueError, match=r"argmax of an empty array \(nothing\)"):
        notebook.argmax([], "nothing")


def test_the_number_log_holds_the_unrounded_value_of_everything_shown(tmp_path, monkeypatch):
    stored = _glued(monkeypatch)
    log = tmp_path / "numbers.jsonl"
    monkeypatch.setenv(notebook.NUMBER_LOG, str(log))
    notebook.fmt(np.array([0.12345, 0.5]), ".2f")
    notebook.glue("x", 1.23456, 3)
    notebook.exact(0.025)
    with notebook.unlogged():
        notebook.fmt(9.87, ".1f")
        notebook.record_gap("not logged", 1.0)
    notebook.record_gap("gap", 0.25)
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert entries == [
        {"kind": "fmt", "spec": ".2f", "raw": 0.12345, "shown": "0.12"},
        {"kind": "fmt", "spec": ".2f", "raw": 0.5, "shown": "0.50"},
        {"kind": "glue", "name": "x", "spec": ".3f", "raw": 1.23456, "shown": "1.235"},
        {"kind": "exact", "spec": "exact", "raw": 0.025, "shown": "0.025"},
        {"kind": "gap", "name": "gap", "raw": 0.25, "scale": 0.25},
    ]
    assert repr(stored["x"]) == "1.235"


def test_nothing_is_logged_without_the_environment_variable(tmp_path, monkeypatch):
    monkeypatch.delenv(notebook.NUMBER_LOG, raising=False)
    assert not notebook.logging_numbers()
    notebook.fmt(0.5, ".1f")
    notebook.record_gap("gap", 1.0)
    assert list(tmp_path.iterdir()) == []


def test_rounded_gives_a_figure_the_numbers_as_printed():
    assert notebook.rounded(0.21763643, 2) == 0.22 and isinstance(notebook.rounded(0.5, 1), float)
    np.testing.assert_array_equal(notebook.rounded([[0.21763, -0.00001]], 2), [[0.22, 0.0]])
    assert [notebook.fmt(x, ".2f") for x in notebook.rounded([0.217636, 0.21737], 2)] == ["0.22", "0.22"]
    with pytest.raises(TypeError, match=r"decimals must be an integer in \[0, 12\], got 1.5"):
        notebook.rounded(0.5, 1.5)
    with pytest.raises(TypeError, match=r"decimals must be an integer in \[0, 12\], got True"):
        notebook.rounded(0.5, True)
    with pytest.raises(ValueError, match=r"decimals must be an integer in \[0, 12\], got 13"):
        notebook.rounded(0.5, 13)
    # NaN and infinity stay as fmt prints them ('nan', 'inf'): the figure shows what the chapter prints
    assert [notebook.fmt(x, ".2f") for x in (np.nan, np.inf)] == ["nan", "inf"]
    out = notebook.rounded([np.nan, np.inf, -np.inf, 0.125], 2)
    assert np.isnan(out[0]) and out[1:].tolist() == [np.inf, -np.inf, 0.12]
    with pytest.raises(TypeError, match="values must hold real numbers"):
        notebook.rounded(["0.5"], 2)


@pytest.mark.parametrize("values", [[np.nan, 1.0], [1.0, np.nan], [np.inf, 1.0]])
def test_argmax_refuses_nan_and_a_winning_infinity(values):
    with pytest.raises(ValueError, match=r"values must be finite numbers \(pick\), got (NaN|\+inf) at index"):
        notebook.argmax(values, "pick")


@pytest.mark.parametrize("values", [[np.nan, 1.0], [-np.inf, 1.0]])
def test_argmin_refuses_nan_and_a_winning_infinity(values):
    with pytest.raises(ValueError, match=r"values must be finite numbers \(pick\), got (NaN|-inf) at index"):
        notebook.argmin(values, "pick")


def test_argmax_masks_minus_infinity_but_not_everything():
    assert notebook.argmax([-np.inf, 0.5, 0.7], "pick") == 2 and notebook.argmin([np.inf, 0.5, 0.7], "pick") == 1
    with pytest.raises(ValueError, match="at least one finite number"):
        notebook.argmax([-np.inf, -np.inf], "pick")


def test_runner_up_gap_refuses_nan_and_a_bad_index():
    with pytest.raises(ValueError, match="scores must not contain NaN, got NaN at index 0"):
        notebook.runner_up_gap([np.nan, 1.0], 1)
    with pytest.raises(ValueError, match=r"best must be an integer in \[0, 1\]"):
        notebook.runner_up_gap([0.5, 1.0], 2)
    assert notebook.runner_up_gap([0.5, 1.0, -np.inf], 1) == 0.5


def test_glue_display_must_be_true_or_false_and_fmt_refuses_time_spans():
    with pytest.raises(TypeError) as info:
        notebook.glue("n", 3, display="no")
    assert str(info.value) == "display must be True or False, got 'no'"
    with pytest.raises(TypeError) as info:  # NumPy counts timedelta64 as a number
        notebook.fmt(np.array([1, 2], dtype="m8[s]"), ".2f")
    assert str(info.value) == "fmt formats numbers, got an array of dtype timedelta64[s]"


def test_fmt_of_a_longdouble_a_time_and_numbers_beyond_float64():
    assert notebook.fmt(np.longdouble("1.5")) == "1.5000"  # recursed without end
    assert notebook.fmt(np.array(np.longdouble("0.25"))) == "0.2500"
    assert notebook.fmt(np.array([1.5, 2.0], dtype=np.longdouble), ".1f") == "[1.5 2.0]"
    with pytest.raises(TypeError, match="^value must be a real number, got timedelta64$"):  # was '5.0000'
        notebook.fmt(np.timedelta64(5))
    for big in (10**400, np.longdouble("1e400")):  # was OverflowError from float()
        with pytest.raises(ValueError, match=r"^value must be a real number, got .*, beyond the float64 range \(about 1.8e308\)$"):
            notebook.fmt(big)
    with pytest.raises(ValueError, match=r"^value must be a real number, got an integer of 401 digits, beyond the float64 range"):
        notebook.exact(10**400)
    with pytest.raises(ValueError, match=r"^value holds an integer of 401 digits, beyond the float64 range \(about 1.8e308\)$"):
        notebook.fmt([10**400, 1])
    with pytest.raises(ValueError, match=r"^values holds an integer of 401 digits, beyond the float64 range \(about 1.8e308\)$"):
        notebook.rounded(10**400, 2)
    # scores are ranked: an integer beyond 2**53 is refused before its size is (the rule of embedding.top_k)
    with pytest.raises(ValueError, match=r"^scores holds an integer of 401 digits, beyond 2\*\*53: float64, in which they "
                                         r"are ranked, does not hold it exactly$"):
        notebook.runner_up_gap([10**400, 1], 0)
    for choose in (notebook.argmax, notebook.argmin):
        with pytest.raises(ValueError, match=r"^values holds an integer of 401 digits, beyond 2\*\*53: .* \(rank such "
                                             r"integers with np.argsort\)$"):
            choose([10**400, 1], "x")
    assert notebook.runner_up_gap([2.0**70, 1], 0) == float(2**70) - 1.0  # a large float: fine


def test_fmt_refuses_a_masked_entry_rather_than_show_its_hidden_value():
    with pytest.raises(TypeError, match=r"^value is a NumPy masked array with 1 masked entry; lib does not read masks"):
        notebook.fmt(np.ma.array([0.5, 99.0], mask=[False, True]))
    assert notebook.fmt(np.ma.array([0.5, 2.0], mask=False), ".1f") == "[0.5 2.0]"


def test_fmt_each_writes_and_logs_each_number_as_fmt_does(tmp_path, monkeypatch):
    """lib.trace prints thousands of numbers through fmt_each: the text and the log must be fmt's, number
    by number (the sign of a value that rounds to zero dropped, NaN and infinities as Python writes them)."""
    values = np.array([0.14112, -0.0000001, -0.00005, -0.000049, 0.00005, -0.0, 1e20, -1.7e308, 5e-324,
                       np.nan, np.inf, -np.inf, -2.5, 123456.78905])
    for spec in (".4f", ".2e", ">9.1%", ",.3f"):
        expected_log, got_log = tmp_path / f"fmt{spec}.jsonl", tmp_path / f"each{spec}.jsonl"
        monkeypatch.setenv(notebook.NUMBER_LOG, str(expected_log))
        expected = [notebook.fmt(float(x), spec) for x in values]
        monkeypatch.setenv(notebook.NUMBER_LOG, str(got_log))
        assert notebook.fmt_each(values, spec) == expected
        assert got_log.read_text() == expected_log.read_text() and len(got_log.read_text().splitlines()) == 14
    assert notebook.fmt_each(values[:6], ".4f") == ["0.1411", "0.0000", "-0.0001", "0.0000", "0.0001", "0.0000"]
    with pytest.raises(TypeError, match=r"^values must be a 1-D float64 array, got ndarray of dtype float32 and shape \(2,\)$"):
        notebook.fmt_each(np.zeros(2, dtype=np.float32))
    with pytest.raises(TypeError, match="^values must be a 1-D float64 array, got list$"):
        notebook.fmt_each([0.5])
    with pytest.raises(ValueError, match="^spec must be a format spec"):
        notebook.fmt_each(values, "g")


def test_fmt_and_plain_read_a_tensor_that_requires_grad_or_is_bfloat16():
    import torch

    loss = torch.tensor(0.6931471805599453, dtype=torch.float64, requires_grad=True)
    assert plain(loss) == 0.6931471805599453  # was torch's "Can't call numpy() on Tensor that requires grad"
    assert notebook.fmt(loss, ".4f") == "0.6931"
    assert notebook.fmt(torch.tensor([0.5, -1.25], dtype=torch.bfloat16), ".2f") == "[ 0.50 -1.25]"  # exact
    with pytest.raises(TypeError, match=r"^value is a PyTorch tensor on the meta device"):
        notebook.fmt(torch.zeros(2, device="meta"), ".2f")


# --- integers beyond 2**53, gaps beyond float64, values no glue can show ----------------------------------


BEYOND_2_53 = r"beyond 2\*\*53: float64, which it is computed in, holds integers exactly only up to 2\*\*53$"


def test_integers_beyond_2_53_are_refused_not_shown_as_another_integer():
    for show in (lambda v: notebook.exact(v), lambda v: notebook.fmt(v, ".0f")):
        for big in (2**53 + 1, np.int64(2**62 + 1), -(2**53) - 1):
            with pytest.raises(ValueError, match=rf"^value is the integer {int(big)}, " + BEYOND_2_53):
                show(big)
    with pytest.raises(ValueError, match=r"^value holds the integer 9007199254740993, " + BEYOND_2_53):
        notebook.fmt(np.array([0, 2**53 + 1]), ".0f")
    with pytest.raises(ValueError, match=r"^values holds the integer 9007199254740993, " + BEYOND_2_53):
        notebook.rounded(2**53 + 1, 0)
    # 2**53 itself is held exactly: shown in full
    assert notebook.exact(2**53) == "9007199254740992"
    assert notebook.fmt(np.array([1, 2**53]), ".0f") == "[               1 9007199254740992]"
    assert notebook.rounded([2**53, 3], 0).tolist() == [9007199254740992.0, 3.0]


def test_choices_among_integers_beyond_2_53_are_refused_as_top_k_refuses_them():
    ranked = r"beyond 2\*\*53: float64, in which they are ranked, does not hold it exactly"
    with pytest.raises(ValueError, match=r"^values holds the integer 9007199254740993, " + ranked):
        notebook.argmax(np.array([2**53, 2**53 + 1]), "x")
    with pytest.raises(ValueError, match=r"^values holds the integer 9007199254740993, " + ranked):
        notebook.argmin(np.array([2**53 + 1, 2**53]), "x")
    with pytest.raises(ValueError, match=r"^scores holds the integer 9007199254740993, " + ranked):
        notebook.runner_up_gap(np.array([2**53 + 1, 2**53]), 0)
    assert notebook.argmax(np.array([2**53 - 1, 2**53]), "x") == 1  # exact up to 2**53
    assert notebook.argmin(np.array([2**53, 2**53 - 1]), "x") == 1
    assert notebook.runner_up_gap(np.array([2**53, 2**53 - 1]), 0) == 1.0


def test_runner_up_gap_beyond_float64_is_inf_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert notebook.runner_up_gap([1.7e308, -1.7e308], 0) == math.inf
        assert notebook.runner_up_gap([1.7e308, -1.0e308, 1.0], 0) == 1.7e308 - 1.0  # the nearest other


def test_glue_refuses_values_and_names_the_prose_cannot_show(monkeypatch):
    stored = _glued(monkeypatch)
    for bad in (float("nan"), float("inf"), -math.inf, np.float64("nan")):
        with pytest.raises(ValueError, match=rf"^glue 'x' value must be a finite number \(the prose would show it as "
                                             rf"text\), got {bad}$"):
            notebook.glue("x", bad, 2)
    with pytest.raises(ValueError, match=r"^glue 'x' value must be a real number, got an integer of 401 digits, beyond "
                                         r"the float64 range \(about 1.8e308\)$"):
        notebook.glue("x", 10**400, 2)
    with pytest.raises(ValueError, match=r"^glue 'x' value is the integer 9007199254740993, " + BEYOND_2_53):
        notebook.glue("x", 2**53 + 1, 0)
    for name in ("", "a b", "a`b", "x:y", "é"):
        with pytest.raises(ValueError, match=r"^glue name must be ASCII letters, digits, '_', '-' or '.'"):
            notebook.glue(name, 1)
    with pytest.raises(TypeError, match="^glue name must be a str, got int$"):
        notebook.glue(3, 1)
    assert not stored
    notebook.glue("emb-x_1.b", 2**53 + 1)  # an integer without decimals is stored exactly, as it is
    assert stored == {"emb-x_1.b": 2**53 + 1}


@pytest.mark.parametrize("spec", [".21f", ".100000000f", "89.1f", ">1000000.2e", "0100.1%"])
def test_fmt_refuses_a_spec_of_absurd_precision_or_width(spec):
    # ".100000000f" wrote a hundred million digits, "1000000.1f" a million spaces
    with pytest.raises(ValueError, match=rf"^spec must ask for at most 20 decimals and a width of at most 88, got '{re.escape(spec)}'$"):
        notebook.fmt(0.5, spec)
    assert notebook.fmt(0.5, ".20f") == "0.50000000000000000000" and len(notebook.fmt(0.5, "88.1f")) == 88


@pytest.mark.parametrize("x", [1e307, -1.7976931348623157e308, 1.8e306])
def test_a_percent_of_a_value_near_float64s_largest_is_its_exact_digits_not_inf(x):
    # Python multiplies by 100 in float64 first: fmt(1e307, ".1%") was 'inf%'
    hundred = int(x) * 100  # x is an integer in float64 at this size: exact, in Python's integers
    assert notebook.fmt(x, ".1%") == f"{hundred}.0%"
    assert notebook.fmt(x, ",.0%") == f"{hundred:,}%"
    assert notebook.fmt(x, "_.2%") == f"{hundred:_}.00%"
    assert notebook.fmt(x, "+.0%") == f"{hundred:+}%"
    assert notebook.fmt(np.array([x, 0.25]), ".0%").split() == [f"[{hundred}%", "25%]"]
    assert notebook.fmt_each(np.array([x]), ".0%") == [f"{hundred}%"]
    assert notebook.fmt(1.7e306, ".1%") == format(1.7e306, ".1%")  # below the overflow: Python's own text


def test_a_fill_character_is_no_part_of_the_number():
    # float('***-0.5***') raised ValueError in the check for a negative zero
    assert notebook.fmt(-0.5, "*^10.1f") == "***-0.5***"
    assert notebook.fmt(-0.00001, "*^10.1f") == "***0.0****"  # rounds to zero: no sign, as without a fill
    assert notebook.fmt(-0.25, "_<12,.1%") == "-25.0%______"
    assert notebook.fmt(-1e-9, "x>8.2e") == "-1.00e-09"


def test_figure_png_and_shown_name_an_argument_of_the_wrong_kind():
    # were AttributeError ('NoneType' object has no attribute 'savefig') and a repr that returned an int
    with pytest.raises(TypeError, match="^fig must be a matplotlib Figure, got NoneType$"):
        figure_png(None)
    with pytest.raises(ValueError, match=r"^dpi must be an integer in \[1, 10000\] \(dots per inch\), got 0$"):
        figure_png(Figure(), dpi=0)
    with pytest.raises(TypeError, match="^text must be a str holding a number, got int$"):
        notebook.Shown(3)
    with pytest.raises(ValueError, match="^text must be a str holding a number, got 'abc'$"):
        notebook.Shown("abc")
    shown = notebook.Shown("1.3480")
    assert repr(shown) == "1.3480" and shown.value == 1.348
