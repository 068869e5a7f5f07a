"""Figures of the chapter chapters/lesson.md."""

from __future__ import annotations

import numpy as np

from lib import bigram, positional, toylang
from lib.chapters import lesson
from lib.figures.style import DIVERGING, MARKERS, PALETTE, new_figure, styled


@styled
def loss_by_width():
    """Validation loss of the factored bigram against its width, the book's and :ref:`Lesson 2.3 <sources>`'s, with the full table.

    Two panels: every width, and a close-up of widths 2 to 34 where the differences are thousandths of a nat.
    """
    exp = lesson.experiment()
    widths = np.array([r.width for r in exp.rows])
    val = np.array([r.val_loss for r in exp.rows])
    retrained = np.array([r.retrained for r in exp.rows])
    lw = np.array(sorted(lesson.LESSON_LOSSES))
    lv = np.array([lesson.LESSON_LOSSES[w][2] for w in lw])
    fig = new_figure(8.0, 4.0)
    axes = fig.subplots(1, 2)
    for ax, keep in ((axes[0], widths >= 1), (axes[1], widths >= 2)):
        ax.plot(widths[keep], val[keep], color=PALETTE[0], linewidth=1.2, zorder=1)
        ax.scatter(widths[keep & ~retrained], val[keep & ~retrained], color=PALETTE[0], marker=MARKERS[0], zorder=2,
                   label=f"book: lr {bigram.LR:g}, {bigram.STEPS:,} steps")
        ax.scatter(widths[keep & retrained], val[keep & retrained], color=PALETTE[3], marker=MARKERS[1], s=40,
                   zorder=2, label=f"book: lr {bigram.LR:g} diverged, so lr {bigram.FALLBACK_LR:g}, "
                                   f"{bigram.FALLBACK_STEPS:,} steps")
        lkeep = lw >= widths[keep].min()
        ax.scatter(lw[lkeep], lv[lkeep], facecolors="none", edgecolors=PALETTE[1], marker=MARKERS[2], s=60,
                   zorder=3, label="Lesson 2.3 (published)")
        ax.axhline(exp.full_val_loss, color="0.3", linestyle="--", linewidth=1, zorder=0,
                   label=f"book: full table, {exp.table.size:,} parameters")
        ax.axhline(lesson.LESSON_FULL_TABLE[2], color=PALETTE[1], linestyle=":", linewidth=1.2, zorder=0,
                   label="Lesson 2.3: full table")
        ax.set_xscale("log", base=2)
        ax.set_xticks(widths[keep], [str(w) for w in widths[keep]])
        ax.minorticks_off()
        ax.set_xlabel("width d (numbers per token)")
    axes[0].set_ylabel("validation loss (nats per token)")
    axes[0].set_title("All widths")
    axes[1].set_title("Close-up of widths 2 to 34")
    axes[1].set_ylim(exp.full_val_loss - 0.006, exp.full_val_loss + 0.016)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=2, fontsize=9)
    return fig


@styled
def cosine_heatmap():
    """Cosine similarity of every pair of the width-8 token vectors, tokens grouped by role."""
    sims, order = lesson.cosine_matrix_by_role(lesson.experiment().E)
    fig = new_figure(7.4, 6.6)
    ax = fig.add_subplot()
    im = ax.imshow(sims, cmap=DIVERGING, vmin=-1, vmax=1, interpolation="nearest")
    ticks = np.arange(len(order))
    ax.set_xticks(ticks, order, rotation=90, fontsize=8)
    ax.set_yticks(ticks, order, fontsize=8)
    roles = [toylang.ROLES[t] for t in order]
    edges = [i for i in range(1, len(roles)) if roles[i] != roles[i - 1]]
    for e in edges:  # thin lines between role groups
        ax.axhline(e - 0.5, color="black", linewidth=0.8)
        ax.axvline(e - 0.5, color="black", linewidth=0.8)
    ax.spines[["top", "right"]].set_visible(True)
    ax.set_title("Cosine similarity of the width-8 token vectors, grouped by role")
    fig.colorbar(im, ax=ax, shrink=0.8, label="cosine similarity")
    return fig


@styled
def sinusoid_columns(n_positions: int = 64, d: int = 16):
    """The ``d`` columns of the sinusoidal table against position, one small panel per column."""
    table = positional.sinusoidal_table(n_positions, d)
    wl = positional.wavelengths(d)
    fig = new_figure(8.0, 6.4)
    axes = fig.subplots(4, d // 4, sharex=True, sharey=True)
    pos = np.arange(n_positions)
    for k, ax in enumerate(axes.flat):
        colour = PALETTE[0] if k % 2 == 0 else PALETTE[3]  # sines blue, cosines vermilion
        ax.plot(pos, table[:, k], color=colour, linewidth=1.2)
        ax.axhline(0, color="0.85", linewidth=0.6, zorder=0)
        kind = "sin" if k % 2 == 0 else "cos"
        lam = wl[k // 2]
        ax.set_title(f"column {k} ({kind}), λ = {lam:,.1f}" if lam < 100 else f"column {k} ({kind}), λ = {lam:,.0f}",
                     fontsize=8)
        ax.set_ylim(-1.15, 1.15)
    for ax in axes[-1]:
        ax.set_xlabel("position")
    for ax in axes[:, 0]:
        ax.set_ylabel("value")
    fig.suptitle(f"The {d} columns of the sinusoidal table (d = {d}): λ is the wavelength in positions")
    return fig


@styled
def dot_by_offset(starts=(10, 300), max_offset: int = 64, d: int = 16, alike=(2, 6, 19)):
    """``P[start] · P[start + k]`` against the offset ``k`` from two starting positions: the curves coincide,
    and fall at first, then oscillate; the offsets ``alike`` (nearly equal dot products) are marked."""
    offsets = np.arange(max_offset + 1)
    fig = new_figure(6.4, 3.8)
    ax = fig.add_subplot()
    styles = [dict(color=PALETTE[0], linewidth=2.4, linestyle="-"), dict(color=PALETTE[1], linewidth=1.2, linestyle="--")]
    for start, style in zip(starts, styles):
        dots = positional.dot_by_offset(start, offsets, d)
        ax.plot(offsets, dots, label=f"from position {start}", **style)
    marked = np.array(alike)
    ax.scatter(marked, positional.dot_by_offset(starts[0], marked, d), color="black", marker=MARKERS[0], s=24,
               zorder=3, label=f"offsets {', '.join(map(str, alike))}: nearly equal")
    ax.set_xlabel("offset k between the two positions")
    ax.set_ylabel(f"P[pos] · P[pos + k]  (d = {d})")
    ax.set_title("Depends only on the offset k: falls at first, then oscillates")
    ax.legend(loc="upper right")
    return fig


FIGURES = {
    "lesson-loss-by-width": loss_by_width,
    "lesson-cosine-heatmap": cosine_heatmap,
    "lesson-sinusoid-columns": sinusoid_columns,
    "lesson-dot-by-offset": dot_by_offset,
}

#: Figures whose data take more than about a second: the trained experiment of chapters/lesson.md.
SLOW = frozenset({"lesson-loss-by-width", "lesson-cosine-heatmap"})
