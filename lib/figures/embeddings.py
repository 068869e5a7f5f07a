"""Figures of the chapter chapters/embeddings.md.

Seven figures, after the seven of :ref:`the textbook chapter Embeddings <sources>`: the lookup diagram, one-hot against dense vectors,
static against contextual representations, the context window, co-occurrence counts with their PPMI-SVD
projection, three measurements of four vectors, and the skip-gram loss with a projection of the trained
vectors. Every number drawn comes from ``lib`` (:mod:`lib.embedding`, :mod:`lib.corpus`,
:mod:`lib.ppmi`, :mod:`lib.skipgram`, :mod:`lib.geometry`).

Point labels in the two projection panels are placed by :func:`place_labels`, a small deterministic
search that never lets two labels, or a label and a marker, overlap (in any panel); points that coincide exactly (in the PPMI-SVD panel, four animal
terms share one position) get their labels fanned out around the point with leader lines.
"""

from __future__ import annotations

import math
from typing import Dict, List, Sequence

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.patches import FancyArrowPatch, Rectangle
from matplotlib.transforms import Bbox

from lib import embedding
from lib.chapters.embeddings import (
    ANIMAL_TERMS,
    ANIMAL_VEHICLE_NAME,
    FOCUS_TERMS,
    FOUR_VECTORS,
    animal_vehicle_corpus,
)
from lib.corpus import Vocabulary, context_pairs
from lib.figures.style import MARKERS, PALETTE, crosses, new_figure, styled
from lib.geometry import format_metric_table, metric_table, principal_projection
from lib.ppmi import CountEmbedding, ppmi_svd_embedding
from lib.skipgram import SkipGramResult, skipgram_embedding

GREY = "0.45"
ANIMAL_COLOUR, VEHICLE_COLOUR = PALETTE[2], PALETTE[1]  # bluish green and orange (Okabe-Ito)
ANIMAL_MARKER, VEHICLE_MARKER = MARKERS[0], MARKERS[1]
LABEL_GID = "emb-point-label"
MARKER_SIZE = 60  # scatter area in points^2

#: The items of the illustrative 6 x 3 table of the lookup figure (values from the textbook chapter *Embeddings*),
#: one per row: cat, kitten, dog, puppy, car and truck.
#:
#: :meta hide-value:
EXAMPLE_ITEMS = ("cat", "kitten", "dog", "puppy", "car", "truck")
EXAMPLE_TABLE = np.array(
    [[0.8, 0.2, -0.1], [0.7, 0.3, -0.2], [0.6, -0.4, 0.1], [0.55, -0.5, 0.15], [-0.5, 0.2, 0.8], [-0.6, 0.1, 0.75]]
)
#: Illustrative 2-D positions of the same items for the "dense" panel (not fitted: a sketch), a ``(6, 2)``
#: ``float64`` array, one row per item of :data:`EXAMPLE_ITEMS`: the animals on the left, the vehicles on the right.
#:
#: :meta hide-value:
EXAMPLE_POINTS = np.array([[-1.2, 0.7], [-1.0, 0.9], [-0.8, 0.25], [-0.65, 0.4], [1.0, -0.4], [1.25, -0.25]])
WINDOW_SENTENCE = ("the", "small", "truck", "carries", "heavy", "cargo", "today")


def _group_style(term: str):
    if term in ANIMAL_TERMS:
        return ANIMAL_COLOUR, ANIMAL_MARKER
    return VEHICLE_COLOUR, VEHICLE_MARKER


def _origin_axes(ax, xlim, ylim) -> None:
    """Grey lines through the origin and the given limits ``(low, high)`` on each axis."""
    ax.axhline(0, color=GREY, linewidth=0.8)
    ax.axvline(0, color=GREY, linewidth=0.8)
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)


def _scatter_terms(ax, pts, terms, *, pad: float) -> None:
    """One point per term in its group's colour and marker, axes through 0, limits padded by ``pad`` × span."""
    for term, (x, y) in zip(terms, pts):
        colour, marker = _group_style(term)
        ax.scatter(x, y, color=colour, marker=marker, s=MARKER_SIZE, zorder=3)
    span = np.ptp(pts, axis=0).max()
    _origin_axes(
        ax,
        (pts[:, 0].min() - pad * span, pts[:, 0].max() + pad * span),
        (pts[:, 1].min() - pad * span, pts[:, 1].max() + pad * span),
    )


# --- label placement ---------------------------------------------------------------------------------


def _offsets():
    """Candidate label offsets in points, nearest first: 8 directions at 5 radii."""
    out = []
    for radius in (7, 16, 26, 38, 52):
        for deg in (45, 135, -45, -135, 0, 180, 90, -90):
            a = math.radians(deg)
            out.append((radius * math.cos(a), radius * math.sin(a)))
    return out


def _start(c: float, d: float, size: float) -> float:
    """Where a label of ``size`` begins on one axis when its nearest edge sits at ``c + d`` (centred for d = 0)."""
    if d > 1e-9:
        return c + d
    if d < -1e-9:
        return c + d - size
    return c - size / 2


def _aligned_box(x, y, w, h, dx, dy) -> Bbox:
    """Box of a w x h label whose nearest corner/edge sits at (x + dx, y + dy) (display pixels)."""
    return Bbox.from_bounds(_start(x, dx, w), _start(y, dy, h), w, h)


def _merge_coincident(pts, labels, tol_px: float = 1.0):
    """Join the labels of points that fall on the same pixel (within ``tol_px``): one label per place."""
    keep_pts, keep_labels = [], []
    for p, lab in zip(pts, labels):
        for k, q in enumerate(keep_pts):
            if np.hypot(*(p - q)) <= tol_px:
                keep_labels[k].append(lab)
                break
        else:
            keep_pts.append(p)
            keep_labels.append([lab])
    joined = []
    for group in keep_labels:  # two names per line
        lines = [", ".join(group[i : i + 2]) for i in range(0, len(group), 2)]
        joined.append(",\n".join(lines))
    return np.array(keep_pts), joined


def place_labels(ax, points, labels: Sequence[str], *, fontsize: float = 9, pad_px: float = 2.0):
    """Annotate ``points`` ``(n, 2)`` (data coordinates) with ``labels`` so that no two labels overlap.

    The figure's layout is settled first (``draw_without_rendering``), then each label, in the order
    given, takes the first candidate offset (8 directions, growing radius) whose box stays inside the
    axes and clears every marker, every line drawn on the axes (the axes through the origin too) and every
    label already placed, with ``pad_px`` pixels to spare.
    Points that coincide on screen share one label listing their names (an exact tie is information,
    not clutter). Labels further than the first radius get a thin leader line. Deterministic: the same input gives the
    same picture. The annotations carry the gid ``"emb-point-label"`` and stay out of the layout engine,
    so the layout does not move after they are placed. Returns the list of ``Annotation`` objects.
    """
    fig = ax.figure
    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    to_px = fig.dpi / 72.0
    pts, labels = _merge_coincident(ax.transData.transform(np.asarray(points, dtype=float)), list(labels))
    marker_r = math.sqrt(MARKER_SIZE) / 2 * to_px + pad_px
    obstacles = [Bbox.from_bounds(x - marker_r, y - marker_r, 2 * marker_r, 2 * marker_r) for x, y in pts]
    if ax.get_legend() is not None:
        obstacles.append(ax.get_legend().get_window_extent(renderer))
    axes_box = ax.get_window_extent(renderer)
    segments = [(a, b) for line in ax.get_lines() if line.get_visible()
                for xy in [line.get_transform().transform_path(line.get_path()).vertices]
                for a, b in zip(xy[:-1], xy[1:])]
    placed: List[Bbox] = []
    out = []
    for (x, y), label in zip(pts, labels):
        probe = ax.text(0, 0, label, fontsize=fontsize)
        ext = probe.get_window_extent(renderer)
        probe.remove()
        w, h = ext.width + 2 * pad_px, ext.height + 2 * pad_px
        best = None
        for dx_pt, dy_pt in _offsets():
            box = _aligned_box(x, y, w, h, dx_pt * to_px, dy_pt * to_px)
            inside = box.x0 >= axes_box.x0 and box.x1 <= axes_box.x1 and box.y0 >= axes_box.y0 and box.y1 <= axes_box.y1
            if not inside:
                continue
            if any(box.overlaps(b) for b in placed) or any(box.overlaps(m) for m in obstacles):
                continue
            if any(crosses(box, a, b) for a, b in segments):
                continue
            best = (dx_pt, dy_pt, box)
            break
        if best is None:
            raise RuntimeError(f"no free place for the label {label!r}; enlarge the axes or the limits")
        dx_pt, dy_pt, box = best
        placed.append(box)
        ha = "left" if dx_pt > 1e-9 else "right" if dx_pt < -1e-9 else "center"
        va = "bottom" if dy_pt > 1e-9 else "top" if dy_pt < -1e-9 else "center"
        # the box was padded on every side: shift the text by the pad so it sits in the box's middle
        sx = pad_px / to_px * (1 if dx_pt > 1e-9 else -1 if dx_pt < -1e-9 else 0)
        sy = pad_px / to_px * (1 if dy_pt > 1e-9 else -1 if dy_pt < -1e-9 else 0)
        far = math.hypot(dx_pt, dy_pt) > 10
        ann = ax.annotate(
            label,
            xy=ax.transData.inverted().transform((x, y)),
            xytext=(dx_pt + sx, dy_pt + sy),
            textcoords="offset points",
            ha=ha,
            va=va,
            fontsize=fontsize,
            gid=LABEL_GID,
            arrowprops={"arrowstyle": "-", "color": GREY, "linewidth": 0.6, "shrinkA": 1, "shrinkB": 4} if far else None,
        )
        ann.set_in_layout(False)
        out.append(ann)
    return out


# --- the seven figures ---------------------------------------------------------------------------------


@styled
def lookup_diagram(selected: int = 3):
    """An id selects one row of the 6 x 3 example table; the row is copied out (lib.embedding.lookup)."""
    row = embedding.lookup(EXAMPLE_TABLE, selected)
    fig = new_figure(8.0, 3.8)
    ax = fig.add_subplot()
    ax.axis("off")
    top, step, cw = 5.3, 0.78, 0.85
    for i, name in enumerate(EXAMPLE_ITEMS):
        y = top - i * step
        hot = i == selected
        ax.text(0.15, y, f"id {i}: {name}", va="center", fontweight="bold" if hot else "normal")
        for j, value in enumerate(EXAMPLE_TABLE[i]):
            ax.add_patch(Rectangle((2.0 + j * cw, y - 0.27), 0.75, 0.54, facecolor=PALETTE[1] if hot else PALETTE[0], edgecolor="white"))
            ax.text(2.375 + j * cw, y, f"{value:.2f}", ha="center", va="center", color="black" if hot else "white")
    ax.add_patch(
        FancyArrowPatch((4.65, top - selected * step), (5.95, 3.0), arrowstyle="-|>", mutation_scale=16, color=GREY)
    )
    for j, value in enumerate(row):
        ax.add_patch(Rectangle((6.1 + j * 0.9, 2.7), 0.8, 0.6, facecolor=PALETTE[1], edgecolor="white"))
        ax.text(6.5 + j * 0.9, 3.0, f"{value:.2f}", ha="center", va="center")
    ax.text(3.0, 6.0, "trainable matrix E (6 × 3)", ha="center", fontsize=11)
    ax.text(7.4, 3.6, f"selected vector E[{selected}]", ha="center", fontsize=11)
    ax.text(7.4, 2.3, "no magnitude of the id is used", ha="center", fontsize=9, color=GREY)
    ax.set_xlim(-0.1, 9.1)
    ax.set_ylim(0.5, 6.35)
    return fig


@styled
def onehot_dense():
    """Left: one-hot rows (lib.embedding.onehot). Right: an illustrative dense 2-D layout by group."""
    n = len(EXAMPLE_ITEMS)
    fig = new_figure(8.0, 3.6)
    left, right = fig.subplots(1, 2)
    left.imshow(embedding.onehot(np.arange(n), n), cmap="Blues", vmin=0, vmax=1, aspect="auto")
    left.set_yticks(range(n), EXAMPLE_ITEMS)
    left.set_xticks(range(n), range(n))
    left.set_xlabel("one-hot coordinate")
    left.set_title("One-hot: every pair orthogonal")
    for group, rows in (("animal", range(0, 4)), ("vehicle", range(4, 6))):
        colour, marker = _group_style("cat" if group == "animal" else "car")
        pts = EXAMPLE_POINTS[list(rows)]
        right.scatter(pts[:, 0], pts[:, 1], color=colour, marker=marker, s=70, label=group, zorder=3)
    for name, (x, y) in zip(EXAMPLE_ITEMS, EXAMPLE_POINTS):
        right.annotate(name, (x, y), xytext=(5, 4), textcoords="offset points", fontsize=9)
    _origin_axes(right, (-1.6, 1.7), (-0.8, 1.2))
    right.set_xlabel("embedding coordinate 1")
    right.set_ylabel("embedding coordinate 2")
    right.set_title("Dense (a sketch): geometry is learned")
    right.legend(loc="lower left")
    return fig


@styled
def static_contextual():
    """Three occurrences of "bank": one static row against context-dependent vectors."""
    fig = new_figure(8.0, 3.0)
    axes = fig.subplots(1, 2)
    contexts = ["river bank", "bank approved loan", "muddy bank"]
    for ax, title in zip(axes, ["Static embedding", "Contextual representations"]):
        ax.set_title(title)
        ax.axis("off")
        ax.set_xlim(0, 10)
        ax.set_ylim(0, 6)
    for i, text in enumerate(contexts):
        y = 4.8 - i * 1.7
        axes[0].text(0.2, y, text, va="center")
        axes[0].add_patch(FancyArrowPatch((4.4, y), (6.3, 3.1), arrowstyle="-|>", mutation_scale=13, color=GREY))
    axes[0].add_patch(Rectangle((6.4, 2.6), 3.4, 1.0, facecolor=PALETTE[4]))
    axes[0].text(8.1, 3.1, "one 'bank' row", ha="center", va="center")
    senses = {"river": (8.1, 4.4, ANIMAL_COLOUR, "river sense"), "money": (8.1, 1.6, VEHICLE_COLOUR, "financial sense")}
    for i, text in enumerate(contexts):
        y = 4.8 - i * 1.7
        x, ty, _, _ = senses["money" if "loan" in text else "river"]
        axes[1].text(0.2, y, text, va="center")
        axes[1].add_patch(FancyArrowPatch((4.4, y), (x - 1.9, ty), arrowstyle="-|>", mutation_scale=13, color=GREY))
    for x, y, colour, label in senses.values():
        axes[1].add_patch(Rectangle((x - 1.8, y - 0.45), 3.7, 0.9, facecolor=colour))
        axes[1].text(x, y, label, ha="center", va="center")
    return fig


@styled
def context_window(centre: int = 3, window: int = 2):
    """A 7-token sentence with the centre and its ±window context; pairs from lib.corpus.context_pairs."""
    vocab = Vocabulary(WINDOW_SENTENCE)
    pairs = context_pairs([vocab.encode(WINDOW_SENTENCE)], window)
    mine = pairs[pairs[:, 0] == centre]  # the sentence has no repeated word, so ids are positions
    fig = new_figure(8.0, 3.2)
    ax = fig.add_subplot()
    ax.axis("off")
    for i, token in enumerate(WINDOW_SENTENCE):
        colour = PALETTE[1] if i == centre else (PALETTE[5] if abs(i - centre) <= window else "0.88")
        ax.add_patch(Rectangle((0.4 + i * 1.35, 2.5), 1.15, 0.7, facecolor=colour, edgecolor="white"))
        ax.text(0.975 + i * 1.35, 2.85, token, ha="center", va="center")
    ax.text(0.975 + centre * 1.35, 3.4, "centre", ha="center", fontsize=9)
    lo, hi = max(centre - window, 0), min(centre + window, len(WINDOW_SENTENCE) - 1)
    ax.annotate("", xy=(0.4 + lo * 1.35, 2.35), xytext=(0.4 + (hi + 1) * 1.35 - 0.2, 2.35),
                arrowprops={"arrowstyle": "<->", "color": GREY})
    ax.text(0.4, 1.75, "training pairs:", fontsize=10, fontweight="bold")
    for row, (c, x) in enumerate(mine):
        ax.text(2.6 + row * 1.9, 1.75, f"({vocab.token(c)}, {vocab.token(x)})", fontsize=10)
    ax.set_xlim(0, 10.2)
    ax.set_ylim(1.3, 3.7)
    ax.set_title(f"Window of ±{window} positions around the centre word")
    return fig


@styled
def ppmi_svd(result: CountEmbedding | None = None, focus: Sequence[str] = FOCUS_TERMS):
    """Left: counts among the focus terms. Right: the 2-D PPMI-SVD vectors with non-overlapping labels.

    ``result`` defaults to :func:`lib.ppmi.ppmi_svd_embedding` on the constructed corpus (whole-sentence
    context, α = 1, k = 2, p = 0.5), as the chapter computes it.
    """
    corpus = animal_vehicle_corpus()
    vocab = Vocabulary.from_sentences(corpus, order="alphabetical")
    if result is None:
        result = ppmi_svd_embedding(corpus, vocab, corpus=ANIMAL_VEHICLE_NAME)
    idx = [vocab.id(t) for t in focus]
    counts = np.asarray(result.counts.toarray() if hasattr(result.counts, "toarray") else result.counts)[np.ix_(idx, idx)]
    fig = new_figure(8.6, 4.2)
    left, right = fig.subplots(1, 2, width_ratios=[1, 1.15])
    im = left.imshow(counts, cmap="Blues", vmin=0)
    left.set_xticks(range(len(focus)), focus, rotation=45, ha="right")
    left.set_yticks(range(len(focus)), focus)
    for i in range(len(focus)):
        for j in range(len(focus)):
            value = int(counts[i, j])
            left.text(j, i, str(value), ha="center", va="center", fontsize=9, color="white" if value > counts.max() / 2 else "black")
    left.set_title("Co-occurrence counts (whole sentence)")
    bar = fig.colorbar(im, ax=left, shrink=0.75, label="count")
    bar.set_ticks(range(int(counts.max()) + 1))
    pts = result.vectors[idx]
    _scatter_terms(right, pts, focus, pad=0.35)
    right.set_xlabel("SVD coordinate 1")
    right.set_ylabel("SVD coordinate 2")
    right.set_title("Two SVD coordinates of PPMI")
    right.scatter([], [], color=ANIMAL_COLOUR, marker=ANIMAL_MARKER, label="animal terms")
    right.scatter([], [], color=VEHICLE_COLOUR, marker=VEHICLE_MARKER, label="vehicle terms")
    right.legend(loc="upper right")
    place_labels(right, pts, list(focus))
    return fig


@styled
def metrics(vectors: Dict[str, Sequence[float]] | None = None):
    """Four 2-D vectors as arrows, with their cosine, Euclidean distance and dot product to the reference.

    The table shows the values exactly as :func:`lib.geometry.format_metric_table` prints them (four
    decimals), so that the figure and the chapter's printed table never show two roundings of one number."""
    vectors = dict(FOUR_VECTORS if vectors is None else vectors)
    names = list(vectors)
    rows = metric_table(vectors[names[0]], {n: vectors[n] for n in names[1:]})
    fig = new_figure(8.6, 3.2)
    ax, tab = fig.subplots(1, 2, width_ratios=[1, 1.25])
    # label offsets (points) and alignment, chosen for FOUR_VECTORS; other vectors get a default
    # (the third one on two lines above its arrow, between the vertical axis and the longest arrow)
    where = {names[0]: ((4, -6), "left", "top"), names[1]: ((0, 6), "right", "bottom"),
             names[2]: ((-26, 8), "left", "bottom"), names[3]: ((0, -6), "center", "top")}
    order = sorted(range(len(names)), key=lambda i: -np.hypot(*vectors[names[i]]))  # long arrows first
    for i in order:
        name, v = names[i], vectors[names[i]]
        ax.annotate("", xy=v, xytext=(0, 0), arrowprops={"arrowstyle": "-|>", "color": PALETTE[i], "linewidth": 2.2})
        (dx, dy), ha, va = where.get(name, ((4, 4), "left", "bottom"))
        text = name.replace(", ", ",\n") if name == names[2] else name
        ax.annotate(text, v, xytext=(dx, dy), textcoords="offset points", fontsize=9, ha=ha, va=va)
    _origin_axes(ax, (-1.5, 3.6), (-1.1, 2.0))
    ax.set_aspect("equal")
    ax.set_title("One reference, three comparisons")
    tab.axis("off")
    printed = format_metric_table(rows).splitlines()[-len(rows):]  # one line per row, values last
    cell = [[r.name, *line.split()[-3:]] for r, line in zip(rows, printed)]
    table = tab.table(cellText=cell, colLabels=["vs. reference", "cosine", "Euclidean", "dot"], loc="center", cellLoc="center")
    table.auto_set_font_size(False)
    table.set_fontsize(9)
    for box in table.get_celld().values():
        box.PAD = 0.14  # room beside the widest value of a column (a fraction of the cell's width)
    table.auto_set_column_width(range(4))
    table.scale(1, 1.6)
    return fig


@styled
def skipgram(result: SkipGramResult | None = None, focus: Sequence[str] = FOCUS_TERMS):
    """Left: the full-softmax loss per step. Right: PCA of the row-normalised trained input vectors.

    ``result`` defaults to :func:`lib.skipgram.skipgram_embedding` with the chapter's settings (seed 17,
    D = 8, Adam 0.04, 350 full-batch steps, whole-sentence context). The projection uses
    :func:`lib.geometry.principal_projection` (fixed sign).
    """
    corpus = animal_vehicle_corpus()
    vocab = Vocabulary.from_sentences(corpus, order="alphabetical")
    if result is None:
        result = skipgram_embedding(corpus, vocab, corpus=ANIMAL_VEHICLE_NAME)
    proj = principal_projection(result.input_vectors, 2)
    fig = new_figure(8.6, 3.8)
    left, right = fig.subplots(1, 2)
    left.plot(np.arange(1, len(result.losses) + 1), result.losses, color=PALETTE[0], linewidth=2)
    left.set_xlabel("optimiser step")
    left.set_ylabel("cross-entropy loss (nats)")
    left.set_title("Full-softmax training, all 78 pairs per step" if result.provenance.n_pairs == 78 else "Training loss")
    idx = [vocab.id(t) for t in focus]
    pts = proj[idx]
    _scatter_terms(right, pts, focus, pad=0.3)
    right.set_xlabel("principal coordinate 1")
    right.set_ylabel("principal coordinate 2")
    right.set_title("Trained vectors, two principal coordinates")
    place_labels(right, pts, list(focus))
    return fig


FIGURES = {
    "emb-lookup": lookup_diagram,
    "emb-onehot-dense": onehot_dense,
    "emb-static-contextual": static_contextual,
    "emb-context-window": context_window,
    "emb-ppmi-svd": ppmi_svd,
    "emb-metrics": metrics,
    "emb-skipgram": skipgram,
}

#: Figures whose data take more than about a second: trained skip-gram and PPMI-SVD tables.
SLOW = frozenset({"emb-skipgram", "emb-ppmi-svd"})
