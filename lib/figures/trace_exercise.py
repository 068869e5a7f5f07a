"""Figures of the chapter chapters/trace_exercise.md."""

from __future__ import annotations

import numpy as np

from lib import positional, trace
from lib.figures.style import DIVERGING, MARKERS, PALETTE, new_figure, styled


@styled
def pe_heatmap(n_positions: int = 64, d: int = 32):
    """The sinusoidal table as an image: positions down, dimensions across, values in [-1, 1]."""
    table = positional.sinusoidal_table(n_positions, d)  # (n, d)
    fig = new_figure(6.4, 4.2)
    ax = fig.add_subplot()
    im = ax.imshow(table, cmap=DIVERGING, vmin=-1, vmax=1, aspect="auto", interpolation="nearest")
    ax.set_xlabel("dimension k (pairs 2p, 2p+1 share a frequency)")
    ax.set_ylabel("position")
    ax.set_title(f"Sinusoidal encoding, d = {d}, positions 0–{n_positions - 1}")
    fig.colorbar(im, ax=ax, label="PE[pos, k]")
    return fig


@styled
def pair_rotation(d: int = 16, pairs=(0, 2), n_positions: int = 8, shift: int = 3):
    """Each (sin, cos) pair traces the unit circle; a shift by ``shift`` is the same turn from any start."""
    table = positional.sinusoidal_table(n_positions + shift, d)
    fig = new_figure(7.2, 3.8)
    axes = fig.subplots(1, len(pairs))
    circle = np.linspace(0, 2 * np.pi, 200)
    for ax, pair, colour in zip(axes, pairs, PALETTE):
        ax.plot(np.sin(circle), np.cos(circle), color="0.8", linewidth=1)
        xs, ys = table[:n_positions, 2 * pair], table[:n_positions, 2 * pair + 1]
        ax.plot(xs, ys, linestyle="none", marker=MARKERS[0], color=colour, markersize=6)
        for pos, (x, y) in enumerate(zip(xs, ys)):
            ax.annotate(str(pos), (x, y), xytext=(1.16 * x, 1.16 * y), ha="center", va="center", fontsize=8)
        for start, style in ((0, "-"), (2, "--")):  # the same shift drawn from two starting positions
            a, b = table[start, 2 * pair : 2 * pair + 2], table[start + shift, 2 * pair : 2 * pair + 2]
            ax.annotate("", xy=b, xytext=a, arrowprops={"arrowstyle": "->", "color": "0.2", "linestyle": style})
        omega = positional.angular_frequencies(d)[2 * pair]
        ax.set_title(f"pair {pair} (dims {2 * pair}, {2 * pair + 1}): ω = {omega:.3f} rad/pos", fontsize=10)
        ax.set_xlabel(f"PE[pos, {2 * pair}] = sin")
        ax.set_ylabel(f"PE[pos, {2 * pair + 1}] = cos")
        ax.set_aspect("equal")
        ax.set_xlim(-1.35, 1.35)
        ax.set_ylim(-1.35, 1.35)
    fig.suptitle(f"A shift by {shift} positions turns every pair by a fixed angle (arrows: 0→{shift}, 2→{2 + shift})")
    return fig


@styled
def mistakes_grid(n_positions: int = 24, d: int = 16):
    """The correct table beside the table each known mistake produces (same colour scale)."""
    panels = [("correct", trace.REFERENCE.pos_encoding)] + [
        (m.name, m.functions.pos_encoding) for m in trace.MISTAKES.values()
        if m.functions.pos_encoding is not positional.sinusoidal_encoding
    ]
    fig = new_figure(8.0, 6.4)
    axes = fig.subplots(2, 4, sharex=True, sharey=True)
    for ax, (name, fn) in zip(axes.flat, panels):
        table = np.stack([fn(pos, d) for pos in range(n_positions)])
        im = ax.imshow(table, cmap=DIVERGING, vmin=-1, vmax=1, aspect="auto", interpolation="nearest")
        ax.set_title(name, fontsize=9, fontweight="bold" if name == "correct" else "normal")
    for ax in axes[1]:
        ax.set_xlabel("dimension")
    for ax in axes[:, 0]:
        ax.set_ylabel("position")
    fig.colorbar(im, ax=axes, shrink=0.8, label="value")
    fig.suptitle(f"The encoding at d = {d} for positions 0–{n_positions - 1}: the right table and seven mistakes")
    return fig


FIGURES = {
    "trace-pe-heatmap": pe_heatmap,
    "trace-pair-rotation": pair_rotation,
    "trace-mistakes": mistakes_grid,
}
