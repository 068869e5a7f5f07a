"""The embeddings chapter's projection panels: no label overlaps another label, a marker, or the legend."""

import numpy as np
import pytest

from lib.figures import embeddings as emb
from lib.notebook import figure_png


def _labels_and_obstacles(fig):
    figure_png(fig)  # draw exactly as the book does
    renderer = fig.canvas.get_renderer()
    out = []
    for ax in fig.axes:
        labels = [t for t in ax.texts if t.get_gid() == emb.LABEL_GID]
        if not labels:
            continue
        boxes = [t.get_window_extent(renderer) for t in labels]
        points = np.concatenate([c.get_offsets() for c in ax.collections if len(c.get_offsets())])
        px = ax.transData.transform(points)
        legend = ax.get_legend().get_window_extent(renderer) if ax.get_legend() else None
        out.append((ax, labels, boxes, px, legend))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("name", ["emb-ppmi-svd", "emb-skipgram"])
def test_point_labels_never_overlap(name):
    fig = emb.FIGURES[name]()
    panels = _labels_and_obstacles(fig)
    assert len(panels) == 1
    ax, labels, boxes, px, legend = panels[0]
    text = " ".join(t.get_text() for t in labels)
    assert all(term in text for term in emb.FOCUS_TERMS)  # every focus term is labelled
    axes_box = ax.get_window_extent(fig.canvas.get_renderer())
    radius = np.sqrt(emb.MARKER_SIZE) / 2 * fig.dpi / 72
    for i, a in enumerate(boxes):
        assert axes_box.x0 <= a.x0 and a.x1 <= axes_box.x1 and axes_box.y0 <= a.y0 and a.y1 <= axes_box.y1
        for b in boxes[i + 1 :]:
            assert not a.overlaps(b), f"labels overlap in {name}"
        for x, y in px:  # distance from the marker centre to the box exceeds the marker radius
            dx = max(a.x0 - x, 0, x - a.x1)
            dy = max(a.y0 - y, 0, y - a.y1)
            assert np.hypot(dx, dy) > radius, f"a label covers a marker in {name}"
        if legend is not None:
            assert not a.overlaps(legend)


@pytest.mark.slow
def test_coincident_points_share_one_label():
    fig = emb.ppmi_svd()
    texts = [t.get_text() for ax in fig.axes for t in ax.texts if t.get_gid() == emb.LABEL_GID]
    assert "cat, kitten,\ndog, puppy" in texts and "car, truck" in texts


def test_context_window_lists_the_pairs_of_lib_corpus():
    fig = emb.context_window()
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert [t for t in texts if t.startswith("(")] == [
        "(carries, small)", "(carries, truck)", "(carries, heavy)", "(carries, cargo)"
    ]


def test_metrics_table_shows_the_values_the_chapter_prints():
    """Fig. "emb-metrics" and the printed table round each value once, the same way: 0.4950, not 0.49."""
    from lib.chapters.embeddings import FOUR_VECTORS
    from lib.geometry import format_metric_table, metric_table

    fig = emb.metrics()
    table = fig.axes[1].tables[0]
    cells = table.get_celld()
    n_rows = max(r for r, _ in cells)
    shown = [[cells[r, c].get_text().get_text() for c in range(4)] for r in range(1, n_rows + 1)]
    rows = metric_table(FOUR_VECTORS["reference"], {k: v for k, v in FOUR_VECTORS.items() if k != "reference"})
    printed = [line.split()[-3:] for line in format_metric_table(rows).splitlines()[1:]]
    assert [row[1:] for row in shown] == printed
    assert [row[0] for row in shown] == [r.name for r in rows]
    by_name = {row[0]: row[1:] for row in shown}
    # reference (1, 0.5), nearby (0.65, 0.85): dot 0.65 + 0.425 = 1.075, |difference| = hypot(0.35, 0.35)
    assert by_name["nearby, different angle"][2] == "1.0750"
    assert by_name["nearby, different angle"][1] == f"{np.hypot(0.35, 0.35):.4f}"
    assert by_name["opposite"] == ["-1.0000", f"{2 * np.hypot(1, 0.5):.4f}", "-1.2500"]
