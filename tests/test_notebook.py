"""lib.notebook: NumPy scalars become Python numbers before glue; figures render to PNG bytes."""

import numpy as np
import pytest
from matplotlib.figure import Figure

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


def test_glue_stores_floats_rounded_so_last_digit_noise_cannot_change_them(monkeypatch):
    import myst_nb

    from lib import notebook

    stored = {}
    monkeypatch.setattr(myst_nb, "glue", lambda name, value, display=False: stored.__setitem__(name, value))
    notebook.glue("a", np.float64(0.8985675159864318))
    notebook.glue("b", 0.8985675159864317)
    notebook.glue("c", 0.010000000000000004)
    notebook.glue("n", np.int64(38_597_376))
    assert stored["a"] == stored["b"] == 0.89856752
    assert repr(stored["c"]) == "0.01"
    assert stored["n"] == 38_597_376 and type(stored["n"]) is int
