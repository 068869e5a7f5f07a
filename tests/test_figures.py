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
from lib.notebook import figure_png

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
