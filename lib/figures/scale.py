"""Figures of the chapter chapters/scale.md.

Five figures: the training footprint of a table by optimiser and dtype (:mod:`lib.memory`), the share of
rows one batch touches as the vocabulary grows and the drift of a row without gradient under Adam
(:mod:`lib.sparse_updates`), the bytes that row- and column-wise sharding exchange and the load on each
shard (:mod:`lib.distributed`, computed from the ids with :func:`~lib.distributed.plan_exchange`, no
processes), and validation loss of tied and untied models (:mod:`lib.tying`). The settings and the data
are the chapter's (:mod:`lib.chapters.scale`).

Functions whose data take seconds to compute accept it as an optional argument, so the chapter can pass
what it has already computed; called with no argument they
compute it themselves with the chapter's settings.
"""

from __future__ import annotations

from typing import Dict, Optional, Sequence

import numpy as np

from lib import memory, sparse_updates, tying
from lib.chapters import scale
from lib.chapters.scale import (
    DRIFT_LR,
    DRIFT_STEPS,
    EXCHANGE_CASE,
    EXCHANGE_WORLDS,
    LOAD_WORLD,
    TOUCH_BATCH,
    TOUCH_SAMPLED,
    TOUCH_SIZES,
)
from lib.figures.style import MARKERS, PALETTE, new_figure, styled

GREY = "0.35"

@styled
def footprint():
    """Stacked bars: weights, gradients, master copy and optimiser state of a 1,000,000 x 768 table."""
    configs = scale.footprint_configs()
    parts = [
        "weights",
        "gradients",
        "fp32 master weights",
        "optimizer: momentum_buffer",
        "optimizer: exp_avg",
        "optimizer: exp_avg_sq",
    ]
    names = {
        "optimizer: momentum_buffer": "momentum buffer",
        "optimizer: exp_avg": "Adam first moment",
        "optimizer: exp_avg_sq": "Adam second moment",
    }
    hatches = ["", "//", "xx", "..", "\\\\", "--"]
    fig = new_figure(7.6, 4.2)
    ax = fig.add_subplot()
    x = np.arange(len(configs))
    bottom = np.zeros(len(configs))
    for i, part in enumerate(parts):
        vals = np.array([dict(f.breakdown()).get(part, 0) for _, f in configs]) / 1e9
        if not vals.any():
            continue
        ax.bar(
            x,
            vals,
            bottom=bottom,
            color=PALETTE[i],
            hatch=hatches[i],
            edgecolor="white",
            linewidth=0.5,
            label=names.get(part, part),
            width=0.6,
        )
        bottom += vals
    for xi, (_, f) in zip(x, configs):
        ax.text(xi, f.total / 1e9 + 0.2, memory.format_bytes(f.total), ha="center", va="bottom", fontsize=9)
    ax.set_xticks(x, [label for label, _ in configs])
    ax.set_ylabel("training memory (GB, 10⁹ bytes)")
    ax.set_ylim(0, bottom.max() * 1.15)
    ax.set_title("A 1,000,000 × 768 table in training")
    fig.legend(loc="outside right upper", fontsize=9)
    return fig


@styled
def touched_fraction():
    """Share of rows one batch of 4,096 ids touches, against V: expected (lines) and sampled (markers)."""
    fig = new_figure(6.4, 4.2)
    ax = fig.add_subplot()
    for i, dist_name in enumerate(sparse_updates.DISTRIBUTIONS):
        expected = [sparse_updates.expected_touched_fraction(int(V), TOUCH_BATCH, dist_name) for V in TOUCH_SIZES]
        # a line style per distribution as well as a colour, so the two expected curves differ without colour
        ax.plot(TOUCH_SIZES, expected, color=PALETTE[i], linewidth=1.5, linestyle=("-", "-.")[i % 2],
                label=f"{dist_name} ids, expected")
        sampled = [
            sparse_updates.touched_fraction(
                sparse_updates.sample_ids(V, TOUCH_BATCH, distribution=dist_name, seed=0), V
            )
            for V in TOUCH_SAMPLED
        ]
        ax.scatter(
            TOUCH_SAMPLED,
            sampled,
            color=PALETTE[i],
            marker=MARKERS[i],
            s=40,
            zorder=3,
            label=f"{dist_name} ids, one sampled batch",
        )
    ax.plot(
        TOUCH_SIZES,
        np.minimum(1.0, TOUCH_BATCH / TOUCH_SIZES),
        color=GREY,
        linestyle="--",
        linewidth=1,
        label="batch / V (no id repeated)",
    )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("vocabulary size V (rows)")
    ax.set_ylabel("share of rows touched")
    ax.set_title(f"Rows one batch of {TOUCH_BATCH:,} ids touches")
    ax.legend(fontsize=9, loc="lower left")
    return fig


@styled
def adam_drift(drift: Optional[Dict[str, np.ndarray]] = None):
    """A row with a gradient at step 1 only: its move at each step under Adam and SparseAdam, and in total."""
    drift = sparse_updates.untouched_row_drift(DRIFT_STEPS, lr=DRIFT_LR) if drift is None else drift
    steps = np.arange(1, len(drift["adam"]) + 1)
    fig = new_figure(8.0, 3.8)
    axes = fig.subplots(1, 2)
    for i, (key, label) in enumerate((("adam", "Adam (dense gradient)"), ("sparse_adam", "SparseAdam"))):
        axes[0].plot(steps, drift[key], color=PALETTE[i], marker=MARKERS[i], markersize=4, linewidth=1.2, label=label)
        axes[1].plot(
            steps, np.cumsum(drift[key]), color=PALETTE[i], marker=MARKERS[i], markersize=4, linewidth=1.2, label=label
        )
    axes[0].set_ylabel("move at this step")
    axes[0].set_title("Each step")
    axes[1].set_ylabel("distance moved since step 0")
    axes[1].set_title("In total")
    for ax in axes:
        ax.set_xlabel("step (gradient only at step 1)")
        ax.set_ylim(bottom=0)
    axes[0].legend(fontsize=9)
    return fig


@styled
def exchange():
    """Left: bytes exchanged per batch (forward + backward, all ranks) against the number of ranks.
    Right: rows each of four row-wise shards serves, for uniform and Zipf ids."""
    data = scale.exchange_data()
    fig = new_figure(8.6, 3.9)
    axes = fig.subplots(1, 2, width_ratios=[1.3, 1])
    for i, (label, values) in enumerate(data.items()):
        axes[0].plot(
            EXCHANGE_WORLDS, np.array(values) / 1e6, color=PALETTE[i], marker=MARKERS[i], linewidth=1.2, label=label
        )
    axes[0].set_xlabel("number of ranks (world size)")
    axes[0].set_ylabel("bytes sent per batch (MB)")
    axes[0].set_xticks(EXCHANGE_WORLDS)
    axes[0].set_title(f"V = {EXCHANGE_CASE['V']:,}, d = {EXCHANGE_CASE['d']}, {EXCHANGE_CASE['batch']:,} ids per rank")
    axes[0].legend(fontsize=9)
    load = scale.load_data()
    ranks = np.arange(LOAD_WORLD)
    width = 0.38
    for i, (label, served) in enumerate(load.items()):
        axes[1].bar(
            ranks + (i - 0.5) * width,
            served,
            width=width,
            color=PALETTE[i],
            hatch=["", "//"][i],
            edgecolor="white",
            label=label,
        )
    axes[1].set_xticks(ranks, [f"rank {r}" for r in ranks])
    axes[1].set_ylabel("rows looked up for all ranks")
    axes[1].set_title(f"Load on {LOAD_WORLD} row-wise shards")
    axes[1].legend(fontsize=9)
    return fig


@styled
def tying_losses(results: Optional[Sequence[tying.TyingResult]] = None):
    """Validation loss against parameter count for untied, tied, and tied-without-hidden-layer models."""
    results = scale.compare_tying() if results is None else results
    floor = scale.entropy_floor()
    labels = {"untied": "untied (E and U separate)", "tied": "tied (U = Eᵀ)", "tied_no_hidden": "tied, no hidden layer"}
    fig = new_figure(8.6, 4.2)
    axes = fig.subplots(1, 2)
    low, high = floor - 0.012, floor + 0.035
    axes[1].set_ylim(low, high)
    # points per nat of the close-up (before the layout shrinks it a little): where the floor's dashed line
    # would run through a label set below a point
    points_per_nat = 72 * fig.get_figheight() * axes[1].get_position().height / (high - low)
    for ax, variants in ((axes[0], tying.VARIANTS), (axes[1], ("untied", "tied"))):
        for variant in variants:
            i = tying.VARIANTS.index(variant)
            rs = [r for r in results if r.variant == variant]
            ax.plot(
                [r.n_params for r in rs],
                [r.val_loss for r in rs],
                color=PALETTE[i],
                marker=MARKERS[i],
                linewidth=1.2,
                label=labels[variant],
            )
            for k, r in enumerate(rs):
                if ax is axes[0] and r.val_loss < floor + 0.1:
                    continue  # labelled in the close-up
                # Tied labels above right of their points. Untied ones below right, where neither line runs,
                # except the first, left of its point (its line leaves it down to the right, and the tied line
                # runs steeply just right of it), and a point so little above the floor that the dashed line
                # would cross a label below it: that one goes above right.
                xytext, align = (4, 6), "left"
                if variant == "untied" and k == 0:
                    xytext, align = (-6, -3), "right"
                elif variant == "untied" and not 0 < (r.val_loss - floor) * points_per_nat < 18:
                    xytext = (4, -13)
                ax.annotate(
                    f"d={r.d}",
                    (r.n_params, r.val_loss),
                    textcoords="offset points",
                    xytext=xytext,
                    horizontalalignment=align,
                    fontsize=9,
                    color=PALETTE[i],
                    annotation_clip=True,
                )
        ax.axhline(floor, color=GREY, linestyle="--", linewidth=1, label="floor: the grammar's entropy")
        ax.set_xscale("log")
        ax.set_xticks([100, 200, 400, 800], ["100", "200", "400", "800"])
        ax.minorticks_off()
        ax.set_xlabel("parameters")
    axes[0].set_ylabel("validation loss (nats per token)")
    axes[0].set_title("All models")
    axes[1].set_title("Close-up near the floor")
    handles, labs = axes[0].get_legend_handles_labels()
    fig.legend(handles, labs, loc="outside lower center", ncols=2, fontsize=9)
    return fig


FIGURES = {
    "scale-footprint": footprint,
    "scale-touched-fraction": touched_fraction,
    "scale-adam-drift": adam_drift,
    "scale-exchange": exchange,
    "scale-tying": tying_losses,
}

#: Figures whose data take more than about a second: twelve models trained (tying); the expected
#: touched fraction over many table sizes; two optimisers run step by step (drift).
SLOW = frozenset({"scale-tying", "scale-touched-fraction", "scale-adam-drift"})
