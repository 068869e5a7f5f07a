"""Figures of the chapter chapters/real_text.md.

Three figures, all from :func:`lib.chapters.real_text.chapter_study` (the three methods trained on the Lee corpus
with one worker, so every number is reproducible): the benchmark scores of every run by method
(:func:`seed_scores`), quality against corpus size (:func:`learning_curve`), and what frequency does
(:func:`frequency_strata`). Each function takes the study as an optional argument so the chapter can pass
the one it has computed; with no argument it uses
:func:`~lib.chapters.real_text.chapter_study`, computed once per process.

Every score is plotted as the chapter prints it (:func:`lib.notebook.rounded`: ρ and shares to 2 decimals,
accuracies to 4): the float32 training of the predictive methods differs between CPUs by a few 1e-4 in ρ,
enough to move a marker by a pixel.
"""

from __future__ import annotations

import numpy as np

from lib.chapters.real_text import chapter_study, seed_agreement, strata_scores
from lib.figures.style import MARKERS, PALETTE, new_figure, styled
from lib.notebook import rounded
from lib.race import METHODS

GREY = "0.35"
METHOD_STYLE = {name: (PALETTE[i], MARKERS[i]) for i, name in enumerate(METHODS)}


def _study(study):
    return chapter_study() if study is None else study


@styled
def seed_scores(study=None):
    """Three panels (WordSim-353 ρ, SimLex-999 ρ, analogy accuracy): one marker per run, a bar at the mean."""
    study = _study(study)
    fig = new_figure(9.0, 3.4)
    axes = fig.subplots(1, 3)
    panels = [
        ("wordsim", "WordSim-353", "Spearman's rho"),
        ("simlex", "SimLex-999", "Spearman's rho"),
        ("analogies", "analogies (3CosAdd)", "accuracy on covered questions"),
    ]
    methods = list(METHODS)
    for ax, (metric, title, ylabel) in zip(axes, panels):
        for i, method in enumerate(methods):
            colour, marker = METHOD_STYLE[method]
            raw = [sc.value(metric) for (m, _), sc in study.scores.items() if m == method]
            decimals = 4 if metric == "analogies" else 2
            values = rounded(raw, decimals)
            ax.bar(i, rounded(np.mean(raw), decimals), width=0.6, color=colour, alpha=0.35)
            offsets = np.linspace(-0.12, 0.12, len(values)) if len(values) > 1 else [0.0]
            ax.scatter(
                i + np.asarray(offsets), values, color=colour, marker=marker, s=28, zorder=3,
                edgecolor="white", linewidth=0.5,
            )
        ax.axhline(0, color=GREY, linewidth=0.8)
        ax.set_xticks(range(len(methods)), [m.replace(" ", "\n") for m in methods])
        ax.set_title(title)
        ax.set_ylabel(ylabel)
    return fig


@styled
def learning_curve(study=None):
    """WordSim-353 ρ (left) and the number of its pairs the vocabulary covers (right) against corpus size."""
    study = _study(study)
    fig = new_figure(8.4, 3.4)
    left, right = fig.subplots(1, 2)
    for method in METHODS:
        colour, marker = METHOD_STYLE[method]
        points = [p for p in study.curve if p.method == method]
        x = [p.n_tokens for p in points]
        left.plot(x, rounded([p.wordsim.rho for p in points], 2), color=colour, marker=marker, label=method)
    coverage = [p for p in study.curve if p.method == list(METHODS)[0]]
    right.plot([p.n_tokens for p in coverage], [p.wordsim.n_used for p in coverage], color=GREY, marker="o")
    for p in coverage:
        right.annotate(
            f"{p.wordsim.n_used}", (p.n_tokens, p.wordsim.n_used),
            textcoords="offset points", xytext=(0, 6), ha="center", fontsize=9,
        )
    right.axhline(coverage[0].wordsim.n_total, color=GREY, linestyle=":", linewidth=1)
    total = coverage[0].wordsim.n_total
    right.annotate(
        f"all {total} pairs", (coverage[0].n_tokens, total),
        textcoords="offset points", xytext=(0, -12), fontsize=9, color=GREY,
    )
    left.axhline(0, color=GREY, linewidth=0.8)
    ticks = [p.n_tokens for p in coverage]
    for ax in (left, right):
        ax.set_xscale("log")
        ax.minorticks_off()
        ax.set_xticks(ticks, [f"{t / 1000:.1f}k" for t in ticks])
        ax.set_xlabel("corpus size (in-vocabulary tokens)")
    left.set_ylabel("WordSim-353 Spearman's rho")
    left.set_title("Rho on the pairs each size covers")
    left.legend(loc="lower right")
    right.set_ylabel("pairs with both words in the vocabulary")
    right.set_ylim(0, coverage[0].wordsim.n_total * 1.1)
    right.set_title("Coverage grows with the corpus")
    return fig


HATCHES = ("", "//", "..")


@styled
def frequency_strata(study=None):
    """Left: WordSim-353 ρ by count of a pair's rarer word (mean and range over seeds). Right: the share of
    a word's 10 nearest neighbours that two seeds agree on, by the word's count."""
    study = _study(study)
    fig = new_figure(9.0, 3.6)
    left, right = fig.subplots(1, 2)
    strata = strata_scores(study)
    methods = list(METHODS)
    width = 0.8 / len(methods)
    labels = [row[0] for row in strata[methods[0]]]
    for i, method in enumerate(methods):
        colour, marker = METHOD_STYLE[method]
        rows = strata[method]
        x = np.arange(len(rows)) + (i - (len(methods) - 1) / 2) * width
        mean, low, high = (rounded([r[k] for r in rows], 2) for k in (1, 2, 3))
        err = np.array([mean - low, high - mean])
        # a hatch per method as well as a colour, so the bars differ without colour too
        left.bar(x, mean, width=width, color=colour, alpha=0.8, label=method, hatch=HATCHES[i % len(HATCHES)],
                 edgecolor="white")
        left.errorbar(x, mean, yerr=err, fmt=marker, color="black", markersize=3, capsize=2, linewidth=0.8)
    left.set_xticks(range(len(labels)), [f"{lab}\n({r[4]} pairs)" for lab, r in zip(labels, strata[methods[0]])])
    left.axhline(0, color=GREY, linewidth=0.8)
    left.set_xlabel("count of the rarer word of a pair")
    left.set_ylabel("WordSim-353 Spearman's rho")
    left.set_title("Similarity by frequency stratum")
    left.legend(loc="upper right", fontsize=9)
    agreement = seed_agreement(study)
    for method, rows in agreement.items():
        colour, marker = METHOD_STYLE[method]
        right.plot(range(len(rows)), rounded([r[1] for r in rows], 2), color=colour, marker=marker, label=method)
    rows = next(iter(agreement.values()))
    right.set_xticks(range(len(rows)), [f"{r[0]}\n({r[2]} words)" for r in rows])
    right.set_ylim(0, 1)
    right.set_xlabel("count of the word")
    right.set_ylabel("top-10 neighbours shared by two seeds")
    right.set_title("Neighbour stability by frequency")
    right.legend(loc="lower right", fontsize=9)
    return fig


FIGURES = {
    "real-seed-scores": seed_scores,
    "real-learning-curve": learning_curve,
    "real-frequency-strata": frequency_strata,
}

#: Figures whose data take more than about a second: the chapter's study.
SLOW = frozenset({"real-seed-scores", "real-learning-curve", "real-frequency-strata"})
