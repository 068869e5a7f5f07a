"""Every figure of the book against its committed baseline image.

nbval compares text outputs only and skips images, so a changed figure would pass it unnoticed. Here
each function in the ``lib.figures`` registry is drawn again and compared with
``tests/baseline/<name>.png`` by matplotlib's image comparison (RMS difference of pixel values, 0–255).
A failing comparison leaves the new image and a diff image in ``test-artifacts/figures/`` to look at.
Regenerate the baselines with ``make baselines`` after an intended change.
"""

import sys
from pathlib import Path

import pytest
from matplotlib.testing.compare import compare_images

from lib.figures import registry, slow
from lib.figures.style import crosses
from lib.notebook import book_style, figure_png

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from codepaths import FIGURE_TOLERANCE  # noqa: E402  (the same tolerance for the notebooks' images)

BASELINE = ROOT / "tests" / "baseline"
ARTIFACTS = ROOT / "test-artifacts" / "figures"
# RMS over 0-255: baselines redraw exactly (RMS 0) with the pinned matplotlib; a changed line colour is about 1
TOLERANCE = FIGURE_TOLERANCE

FIGURES = registry()
# figures whose data take more than about a second run under `make test`, not `make test-unit`
FIGURE_NAMES = [pytest.param(n, marks=pytest.mark.slow) if n in slow() else n for n in sorted(FIGURES)]


def test_registry_is_not_empty():
    assert len(FIGURES) >= 1


def test_every_baseline_has_a_figure():
    orphans = sorted(p.stem for p in BASELINE.glob("*.png") if p.stem not in FIGURES)
    assert orphans == [], f"baseline images with no figure function: {orphans}"


@pytest.mark.parametrize("name", FIGURE_NAMES)
def test_figure_matches_baseline(name):
    baseline = BASELINE / f"{name}.png"
    assert baseline.exists(), f"no baseline for {name}: run `make baselines` and commit the image"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    actual = ARTIFACTS / f"{name}.png"
    actual.write_bytes(figure_png(FIGURES[name]()))
    result = compare_images(str(baseline), str(actual), tol=TOLERANCE)
    assert result is None, result


def _lines_through_labels(fig) -> list[str]:
    """``"'label' crossed by line 'name'"`` for each text a figure writes on its axes (annotations and
    ``ax.text``: a point's label, a note) that a drawn line runs through. Axis labels, titles, ticks and
    legends sit outside the plotting area and are not checked; nor are markers, only the lines between them."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.text import Text
    from matplotlib.transforms import Bbox

    canvas = FigureCanvasAgg(fig)
    with book_style():  # laid out as the book draws it (figure_png)
        canvas.draw()
    renderer = canvas.get_renderer()
    found = []
    for ax in fig.axes:
        area = ax.get_window_extent(renderer)
        lines = [line for line in ax.get_lines() if line.get_visible() and line.get_linestyle() not in ("None", "", " ")]
        for text in ax.texts:
            if not text.get_visible() or not text.get_text().strip():
                continue
            # the text alone (an annotation's own extent takes in its arrow, which ends at a line on purpose), with
            # a pixel of slack: touching is not crossing
            box = Text.get_window_extent(text, renderer).padded(-1)
            if box.width <= 0 or box.height <= 0:
                continue
            for line in lines:
                path = line.get_transform().transform_path(line.get_path())
                xy = path.vertices
                for a, b in zip(xy[:-1], xy[1:]):
                    segment = Bbox([a, b])
                    if not (segment.overlaps(box) and segment.overlaps(area)):
                        continue
                    if crosses(box, a, b):
                        found.append(f"{text.get_text()!r} crossed by line {line.get_label()!r}")
                        break
    return sorted(set(found))


def test_label_rule_catches_a_line_through_a_label_and_spares_one_beside_it():
    from lib.figures.style import new_figure

    fig = new_figure(4, 3)
    ax = fig.subplots()
    ax.plot([0, 10], [0, 10], label="data")
    ax.axhline(5, linestyle="--", label="floor")
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 10)
    ax.annotate("on the floor", (1, 5), fontsize=9, verticalalignment="center")
    ax.annotate("clear", (8, 1), fontsize=9)
    assert _lines_through_labels(fig) == ["'on the floor' crossed by line 'floor'"]


@pytest.mark.parametrize("name", FIGURE_NAMES)
def test_no_line_runs_through_a_label(name):
    """A label written on a plot (a point's "d=4", a note) stays clear of every line drawn there (CONTRIBUTING:
    labels must not overlap): a dashed line through "d=4" makes it hard to read."""
    fig = FIGURES[name]()
    crossed = _lines_through_labels(fig)
    assert crossed == [], f"{name}: labels crossed by a line (move the label):\n" + "\n".join(crossed)
