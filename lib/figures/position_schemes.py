"""Figures of the chapter chapters/position_schemes.md.

Every figure reads the chapter's study (:func:`lib.chapters.position_schemes.study`, trained once per
process) or takes one as an argument. Sized for a phone: 5 inches wide, panels stacked, no text below 10 pt,
so that at a 390-pixel screen the smallest letters stay about 10 pixels high.
"""

from __future__ import annotations

import numpy as np

from lib import positional
from lib.chapters import position_schemes as ps
from lib.figures.style import DIVERGING, MARKERS, PALETTE, new_figure, styled

WIDTH = 5.0  # inches
STYLE = {scheme: (PALETTE[i], MARKERS[i]) for i, scheme in enumerate(ps.SCHEMES)}
QUERY = 56  # the query of the attention figure: L + 24, beyond where RoPE holds


def _study(st):
    return ps.study() if st is None else st


def _mark_training_length(ax, label: bool = True):
    ax.axvline(ps.L - 0.5, color="0.3", linestyle="--", linewidth=1, zorder=0)
    if label:
        # left of the line, where every model is still inside its training length and the curves lie low
        ax.annotate(f"L = {ps.L}", (ps.L - 2, 1.0), xycoords=("data", "axes fraction"), ha="right", va="top",
                    fontsize=10)


@styled
def loss_by_position(st=None):
    """Excess over the floor at every position of the ``4L`` evaluation windows, mean over seeds, one line per
    scheme; one panel per depth."""
    st = _study(st)
    fig = new_figure(WIDTH, 7.0)
    axes = fig.subplots(2, 1, sharex=True, sharey=True)
    pos = np.arange(ps.LENGTHS[-1])
    for ax, depth in zip(axes, ps.DEPTHS):
        for scheme in ps.SCHEMES:
            colour, marker = STYLE[scheme]
            curve = ps.excess_by_position(st, scheme, depth).mean(axis=0)
            ax.plot(pos, curve, color=colour, marker=marker, markevery=(4 + 2 * ps.SCHEMES.index(scheme), 12),
                    markersize=6, linewidth=1.4, label=ps.LABELS[scheme])
        ax.axhline(0, color="0.6", linewidth=0.8, zorder=0)
        _mark_training_length(ax)
        ax.set_title(f"{depth} layer{'s' if depth > 1 else ''}")
        ax.set_ylabel("loss − floor (nats)")
    axes[-1].set_xlabel("position in the window")
    axes[-1].set_xticks([0, 32, 64, 96, 127])
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=3, fontsize=10)
    return fig


@styled
def rope_extension(st=None):
    """RoPE beyond ``L``: excess by position at ``4L`` as trained, with the NTK-aware base and with position
    interpolation (``s = 4``); and the loss at ``2L`` while fine-tuning with interpolation (``s = 2``)."""
    st = _study(st)
    fig = new_figure(WIDTH, 7.0)
    top, bottom = fig.subplots(2, 1)
    n = ps.LENGTHS[-1]
    pos = np.arange(n)
    for i, method in enumerate(ps.EXTENSIONS):
        curve = ps.rope_extension_by_position(st, method, n)
        top.plot(pos, curve, color=PALETTE[i], marker=MARKERS[i], markevery=(4 + 4 * i, 12), markersize=6,
                 linewidth=1.4, label=method + (" (s = 4)" if method != "as trained" else ""))
    top.axhline(0, color="0.6", linewidth=0.8, zorder=0)
    _mark_training_length(top)
    top.set_xticks([0, 32, 64, 96, 127])
    top.set_xlabel("position in the window")
    top.set_ylabel("loss − floor (nats)")
    top.set_title(f"RoPE, 1 layer, windows of {n}")
    top.set_ylim(-0.05, 1.5)
    top.legend(loc="upper right", fontsize=10)

    steps = np.array(ps.FINETUNE_STEPS)
    curve = ps.finetune_curve(st)  # (steps, seeds)
    for j, seed in enumerate(st.seeds()):
        bottom.plot(steps, curve[:, j], color=PALETTE[3], marker=MARKERS[j + 3], linestyle=":", markersize=6,
                    linewidth=1, label=f"seed {seed}")
    bottom.axhline(ps.floor_at(st, 2 * ps.L), color="black", linestyle="--", linewidth=1, label="floor at 64")
    bottom.set_yscale("log")
    bottom.set_yticks([1.0, 1.2, 1.4, 1.6], ["1.0", "1.2", "1.4", "1.6"])
    bottom.minorticks_off()
    bottom.set_xlabel("fine-tuning steps with interpolation (s = 2)")
    bottom.set_ylabel("loss at 64 (nats)")
    bottom.set_title("Interpolation needs a short fine-tune")
    bottom.legend(loc="upper right", fontsize=10)
    return fig


@styled
def learned_table(st=None, seed: int = 0):
    """Cosine similarity of the rows of a trained learned table and of the sinusoidal table (``4L`` rows each),
    and the trained rows' first principal component against position for every seed."""
    st = _study(st)
    fig = new_figure(WIDTH, 6.5)
    grid = fig.add_gridspec(2, 2, height_ratios=[1.15, 1.0])
    left, right = fig.add_subplot(grid[0, 0]), fig.add_subplot(grid[0, 1])
    n = ps.LENGTHS[-1]
    learned = ps.learned_table(st, seed=seed)
    sinus = positional.sinusoidal_table(n, learned.shape[1])
    for ax, rows, title in ((left, learned, "learned (trained)"), (right, sinus, "sinusoidal")):
        im = ax.imshow(ps.cosine_matrix(rows), cmap=DIVERGING, vmin=-1, vmax=1, interpolation="nearest")
        ax.set_title(title)
        ax.set_xticks([0, 32, 64, 127])
        ax.set_yticks([0, 32, 64, 127])
        ax.spines[["top", "right"]].set_visible(True)
    left.set_ylabel("position")
    fig.colorbar(im, ax=[left, right], location="bottom", shrink=0.7, aspect=30, label="cosine similarity")

    bottom = fig.add_subplot(grid[1, :])
    pos = np.arange(n)
    for j, s in enumerate(st.seeds()):
        rows = ps.learned_table(st, seed=s)
        _, _, direction = ps.principal_component(rows[: ps.L])
        projected = (rows - rows[: ps.L].mean(axis=0)) @ direction  # every row on the trained rows' component
        colour, marker = PALETTE[j], MARKERS[j]
        bottom.plot(pos[: ps.L], projected[: ps.L], color=colour, marker=marker, markersize=4, linewidth=1,
                    label=f"seed {s}")
        bottom.plot(pos[ps.L:], projected[ps.L:], color=colour, marker=marker, markersize=3, linestyle="none",
                    markerfacecolor="none", alpha=0.7)
    _mark_training_length(bottom, label=False)
    bottom.set_xticks([0, 32, 64, 96, 127])
    bottom.set_xlabel("position (hollow: rows never trained)")
    bottom.set_ylabel("1st principal comp.")
    bottom.set_title("Trained rows fall on a ramp")
    bottom.legend(loc="upper right", fontsize=10)
    return fig


@styled
def attention_beyond(st=None, query: int = QUERY):
    """Attention against distance for one head per scheme (the head that looks hardest at the two previous
    tokens), for a query inside the training length and one beyond it (one layer, seed 0)."""
    st = _study(st)
    fig = new_figure(WIDTH, 8.0)
    axes = fig.subplots(len(ps.SCHEMES), 1, sharex=True, sharey=True)
    inside = ps.L - 1
    for ax, scheme in zip(axes, ps.SCHEMES):
        head = ps.sharpest_head(st, scheme)
        near = ps.attention_by_distance(st, scheme, inside, head)
        far = ps.attention_by_distance(st, scheme, query, head)
        ax.plot(np.arange(inside + 1), near, color=PALETTE[0], marker=MARKERS[0], markersize=3, linewidth=1.2,
                label=f"query at {inside} (inside L)")
        ax.plot(np.arange(query + 1), far, color=PALETTE[3], marker=MARKERS[3], markersize=3, linewidth=1.2,
                linestyle="--", label=f"query at {query} (beyond L)")
        ax.axvline(ps.L - 0.5, color="0.3", linestyle=":", linewidth=1, zorder=0)
        ax.set_title(f"{ps.LABELS[scheme]}, head {head}", fontsize=10, loc="left")
        ax.set_ylabel("weight")
    axes[-1].set_xlabel(f"distance back from the query (dotted: {ps.L})")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside upper center", ncols=1, fontsize=10)
    return fig


FIGURES = {
    "position-schemes-loss-by-position": loss_by_position,
    "position-schemes-rope-extension": rope_extension,
    "position-schemes-learned-table": learned_table,
    "position-schemes-attention": attention_beyond,
}
# Every figure reads the chapter's study: the first one drawn in a process trains it (tens of CPU seconds).
SLOW = frozenset(FIGURES)
