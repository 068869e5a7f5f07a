"""Figures of the chapter chapters/tokenization.md.

Two figures: what the vocabulary size does to sequence length, attention cost and table size, with the table
of GPT-2 small :cite:p:`radford2019language` placed by computation (:func:`vocab_tradeoff`); and what
skip-gram training does to each row of a BPE vocabulary, by how often its token occurs
(:func:`untrained_rows`). Each takes its data as an optional argument so the chapter can pass what it has
computed; with none it computes them with the chapter's settings, once per process. Both are drawn narrow and
tall, so that their text stays legible on a phone.

The trade-off plots exact values (token counts over word counts, table sizes). The rows figure plots
thousands of float32-trained norms and distances unrounded: they differ between CPUs in far-off digits,
below a pixel, so the figure is the same to the eye on every CPU.
"""

# The figure's baseline comparison allows for those sub-pixel differences.

from __future__ import annotations

import numpy as np

from lib.chapters import tokenization as chapter
from lib.figures.style import MARKERS, PALETTE, new_figure, styled
from lib.notebook import fmt

GREY = "0.35"


def _tradeoff_points():
    tokenizer = chapter.chapter_tokenizer()
    return chapter.vocabulary_tradeoff(tokenizer, chapter.lee_split()[1])


@styled
def vocab_tradeoff(points=None, gpt2=None):
    """Three panels over the vocabulary size: tokens per held-out word, one attention layer's GFLOP for a
    1,000-word text, and the embedding table's parameters at width 768 with GPT-2 small's table marked."""
    points = _tradeoff_points() if points is None else points
    gpt2 = chapter.gpt2_point() if gpt2 is None else gpt2
    fig = new_figure(5.2, 7.4)
    axes = fig.subplots(3, 1, sharex=True)
    V = np.array([p.vocab_size for p in points])
    panels = [
        ([p.tokens_per_word for p in points], "tokens per word\n(held-out stories)", False),
        ([p.attention_gflop for p in points], f"GFLOP, one attention\nlayer, {chapter.TEXT_WORDS:,} words", True),
        ([p.parameters / 1e6 for p in points], f"table parameters\n(millions, width {chapter.WIDTH})", True),
    ]
    for i, (ax, (y, label, log)) in enumerate(zip(axes, panels)):
        ax.plot(V, y, color=PALETTE[i], marker=MARKERS[i], label="BPE on the Lee corpus")
        ax.set_ylabel(label)
        if log:
            ax.set_yscale("log")
        ax.axvline(gpt2.vocab_size, color=GREY, linestyle=":", linewidth=1)
        ax.grid(True, which="major", color="0.9", linewidth=0.6)
    top, middle, bottom = axes
    top.annotate("bytes only", (V[0], points[0].tokens_per_word), textcoords="offset points", xytext=(8, -4),
                 fontsize=10)
    top.annotate(f"{points[-1].vocab_size:,}: training\nran out of pairs", (V[-1], points[-1].tokens_per_word),
                 textcoords="offset points", xytext=(-6, 14), ha="center", fontsize=10)
    top.set_ylim(0, max(p.tokens_per_word for p in points) * 1.15)
    top.text(gpt2.vocab_size, top.get_ylim()[1] * 0.55, "GPT-2's\nvocabulary\n(not measured\nhere)", ha="right",
             va="center", fontsize=10, color=GREY, transform=top.transData)
    bottom.plot([gpt2.vocab_size], [gpt2.parameters / 1e6], color=PALETTE[7], marker="*", markersize=13,
                linestyle="none", label="GPT-2 small")
    bottom.plot([V[-1], gpt2.vocab_size], [points[-1].parameters / 1e6, gpt2.parameters / 1e6],
                color=PALETTE[2], linestyle="--", linewidth=1)
    bottom.annotate(f"GPT-2 small\n{gpt2.vocab_size:,} x {chapter.WIDTH}\n= {fmt(gpt2.parameters / 1e6, '.1f')} M",
                    (gpt2.vocab_size, gpt2.parameters / 1e6), textcoords="axes fraction", xytext=(0.9, 0.06),
                    ha="right", va="bottom", fontsize=10,
                    arrowprops=dict(arrowstyle="->", color=GREY, linewidth=0.8, shrinkB=8))
    megabytes = bottom.secondary_yaxis("right", functions=(lambda m: 4 * m, lambda mb: mb / 4))
    megabytes.set_ylabel("fp32 megabytes")
    bottom.set_xscale("log", base=2)
    ticks = [256, 1024, 4096, 16384, 65536]
    bottom.set_xticks(ticks, [f"{t:,}" for t in ticks])
    bottom.minorticks_off()
    bottom.set_xlabel("vocabulary size (tokens)")
    bottom.legend(loc="upper left", fontsize=10)
    return fig


@styled
def untrained_rows(study=None):
    """Two panels over the token's count in the training stories: each row's distance from its initial
    value and its norm after skip-gram training; tokens that never occur are drawn at the left."""
    study = chapter.untrained_rows() if study is None else study
    fig = new_figure(5.2, 6.2)
    top, bottom = fig.subplots(2, 1, sharex=True)
    counts = study.counts
    seen = counts > 0
    never = ~seen
    rng = np.random.default_rng(0)  # horizontal jitter only, so overlapping points stay visible
    x_never = 0.5 * np.exp(rng.uniform(-0.25, 0.25, never.sum()))
    x_seen = counts[seen] * np.exp(rng.uniform(-0.15, 0.15, seen.sum()))
    is_byte = np.arange(counts.shape[0]) < 256
    dim = study.result.vectors.shape[1]
    for ax, values, label in ((top, study.distance, "distance from\ninitial value"),
                              (bottom, study.norm, "row norm (log scale)")):
        ax.scatter(x_seen, values[seen], s=5, color=PALETTE[0], marker=MARKERS[0], alpha=0.35, linewidths=0,
                   label="tokens seen in training")
        ax.scatter(x_never[~is_byte[never]], values[never & ~is_byte], s=12, color=PALETTE[3], marker="x",
                   linewidths=0.8, label="merged tokens never seen")
        ax.scatter(x_never[is_byte[never]], values[never & is_byte], s=12, color=PALETTE[1], marker=MARKERS[1],
                   linewidths=0, label="byte tokens never seen")
        bands = [(1, 2), (2, 4), (4, 16), (16, 64), (64, 256), (256, 1024), (1024, counts.max() + 1)]
        centres, medians = [], []
        for lo, hi in bands:
            band = (counts >= lo) & (counts < hi)
            if band.any():
                centres.append(np.sqrt(lo * max(hi - 1, lo)))
                medians.append(np.median(values[band]))
        ax.plot(centres, medians, color=PALETTE[7], linewidth=1.5, marker="o", markersize=3, label="median by count")
        ax.set_ylabel(label)
        ax.grid(True, color="0.9", linewidth=0.6)
    init = 1 / np.sqrt(12 * dim)
    bottom.axhline(init, color=GREY, linestyle="--", linewidth=1)
    bottom.annotate(f"expected norm at initialisation, {fmt(init, '.3f')}", (2, init), textcoords="offset points",
                    xytext=(0, 5), fontsize=10, color=GREY)
    bottom.set_yscale("log")
    bottom.set_xscale("log")
    bottom.set_xticks([0.5, 1, 10, 100, 1000, 10000], ["never", "1", "10", "100", "1k", "10k"])
    bottom.minorticks_off()
    bottom.set_xlabel("occurrences in the training stories")
    top.legend(loc="upper left", fontsize=10, markerscale=1.5)
    return fig


FIGURES = {
    "tok-vocab-tradeoff": vocab_tradeoff,
    "tok-untrained-rows": untrained_rows,
}

#: Both figures train first (the tokenizer, then skip-gram on its tokens): more than a few seconds.
SLOW = {"tok-vocab-tradeoff", "tok-untrained-rows"}
