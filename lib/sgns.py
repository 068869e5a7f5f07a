"""Skip-gram with negative sampling for real corpora: word2vec's training loop, in blocks, in PyTorch.

Taught in: chapters/real_text.md (the book's skip-gram with negative sampling, against gensim).

:func:`lib.skipgram.train_skipgram` trains on a toy corpus with autograd and Adam, one full batch per
step. On tens of thousands of words that is far too slow and not what word2vec does. This module
follows word2vec :cite:p:`mikolov2013negative{§2.2–2.3}`, and the C tool ``word2vec.c`` and gensim's
``word2vec_inner.pyx`` for the details the paper leaves out:

- **subsampling** of frequent words before the windows are formed, with the C tool's keep probability
  ``(sqrt(f/τ) + 1) · τ/f`` (τ the threshold ``sample``) (:func:`lib.corpus.keep_probability` with ``formula="word2vec"``);
- **dynamic window**: each centre word draws its window size ``b`` uniformly from ``1 .. window``
  (word2vec's "reduced window", ``b = window - r`` with ``r`` uniform in ``0 .. window-1``), so near
  words are seen more often (or a fixed ``±window`` with ``dynamic_window=False``); windows never cross
  a document boundary;
- **noise distribution** ``count^0.75 / Z`` (:func:`lib.skipgram.noise_distribution`), drawn from an
  **alias table** :cite:p:`walker1977efficient,vose1991linear` (:func:`alias_table`), O(1) per draw
  and exact, where word2vec uses a 10⁸-entry unigram table and gensim a cumulative table with bisection; a
  negative equal to the positive is left out (both tools ``continue`` past it);
- **plain SGD** with a **learning rate decaying linearly** from ``alpha`` to ``min_alpha`` over all
  the words of all epochs, input table initialised uniform in ``±0.5/dim``, output table zero;
- **hand-written updates**: for a score ``s = x·y`` with label ``ℓ`` (1 for the observed pair, 0 for a
  negative), ``g = lr · (ℓ - σ(s))``, then ``x ← x + g·y`` and ``y ← y + g·x``, both from the old ``x``
  and ``y`` (gradient ascent on ``log σ(s)`` and ``log σ(-s)``, equation 4 of the paper). No autograd,
  no optimiser object.

Roles, as in ``word2vec.c`` and gensim: for a window around centre word ``w``, the *input* vectors are
those of the context words and the *output* vectors those of ``w`` (the positive) and of the negatives.
That swaps the paper's notation; since the window relation is symmetric it changes nothing in what is
learned, and it is what makes the blocks below possible. The returned embedding is the input table.

**Blocks.** word2vec takes one (centre, context) pair at a time and draws ``K`` fresh negatives for it.
This module cuts the subsampled text into blocks of ``B = block_windows`` consecutive centre words
(:func:`epoch_blocks`). A block reads each input row once: its *span* is its ``B`` centres and the
``window`` words on either side, ``B + 2·window`` rows. Its output rows are its ``B`` centres and
``N = block_negatives`` negatives drawn once for the whole block. One ``(B + N) × (B + 2·window)``
matrix of scores then holds everything the block needs (:func:`sgd_step`):

- the centre rows hold the observed pairs, on a band: centre ``i`` against the span words inside its
  window, weighted by the learning rate, and 0 elsewhere;
- the negative rows hold every negative against every span word, weighted by ``K/N`` times the summed
  learning rates of the pairs in which that span word is the context, leaving out the pairs whose
  centre is that negative.

So every pair meets all ``N`` negatives of its block at weight ``K/N``: in expectation, ``K`` negatives
from the noise distribution, as in word2vec. A step takes ``batch_windows / B`` blocks at once, as
three large batched matrix products (scores, input updates, output updates) and a small one (the
negatives' learning rates; two more small ones for the damped step), two gathers into buffers
allocated once (``index_select(out=...)``) and two scatters (``index_add_``). This is the
"minibatching and negative sample sharing" of :cite:t:`ji2016parallelizing` ("Parallelizing Word2Vec in Shared
and Distributed Memory", §3) carried from one window to ``B`` windows: rows are read once per block
instead of once per pair, and the products are matrix products instead of dot products.
``block_windows=1`` with ``block_negatives=negatives`` is their per-window sharing.

``workers > 1`` runs that many threads on disjoint steps of each epoch, updating the shared tables
without locks, as word2vec and gensim do ("Hogwild" :cite:p:`recht2011hogwild`); results then vary slightly
from run to run, so the chapter trains with ``workers=1``, which is deterministic. Each worker starts on its
own run of consecutive steps and, once done, takes steps from the end of the run with the most left
(:class:`StepQueue`), so that no core waits at the end of an epoch while the other still works.

Departures from word2vec, stated:

- negatives are shared by the ``B`` windows of a block, ``N`` of them at weight ``K/N`` each, where
  word2vec draws ``K`` per pair: the same expected gradient, with draws correlated inside a block;
- the updates of one step are summed, so a row met ``m`` times in a step gets ``m`` updates computed
  from the same old values, where word2vec applies them one after the other;
- to make up for that, the summed update of each centre's output row and of each input row is damped,
  divided by ``1 + Σ lr·σ'(s)·|v|²`` over its pairs (the linearised implicit step, :func:`sgd_step`);
  ``damped=False`` gives the plain gradient step;
- the exact logistic function instead of word2vec's 1,000-entry table with no update when ``|s| ≥ 6``;
- the learning rate decays per centre word rather than per 10,000 words.

What these cost in quality was measured on the corpus of chapters/real_text.md (the Lee corpus, and the same
text repeated 4 and 16 times, a longer training on the same vocabulary; WordSim-353 ρ over seeds,
``benchmarks/sgns_quality.py``, the table in ``benchmarks/README.md``). The effects of word2vec's logistic
table and of its schedule in steps of 10,000 words were not measured apart. Sharing the negatives moves it by less than
its standard error (0.003 ± 0.006 at 4×). Summing is what counts, and only as training grows long:
against word2vec's sequential loop run on the same random draws, the plain summed step is level at 1×
(+0.003 ± 0.004), 0.009 ± 0.005 lower at 4× (the same shared negatives, taken one pair at a time) and
0.05 ± 0.02 lower at 16× (4 seeds). The cause is the size of the summed step. A row's ``m`` updates,
computed from the same old values, add up to a step of about ``lr · σ'(s) · m · |v|²``. The vectors grow
with training (mean input norm 1.5 after 20 epochs at 1×, 4.0 at 4×, 5.8 at 16×), so that step stays far
below 1 at 1× and nears 1 at 16×, where summed updates overshoot and sequential ones do not. Neither the
number of windows per step (64 to 1024) nor the block's shape changes ``m`` for the rows that matter, and
neither moves ρ. Halving the learning rate raises ρ at 4× by 0.012 ± 0.006 but lowers it at 1× by 0.145.
The damping divides each summed step by one plus its own size: with the same settings it raises ρ at 4×
by 0.018 ± 0.007 (7 seeds), leaves 16× where it was (+0.002 ± 0.015, 5 seeds) with a narrower spread,
and costs 0.006 ± 0.003 at 1× (6 seeds), where the plain step was level with gensim. At 16× the number of
windows one step sums matters as well: 256 instead of 512 raise ρ by 0.014 ± 0.007 (4 seeds; no change at
1× and 4×), at about a third more time per word, so the gap at 16× is left open; damping by each row's
totals over the whole step lowers ρ instead (``benchmarks/README.md``).
"""

from __future__ import annotations

import math
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Iterable, Iterator, NamedTuple, Optional, Sequence, Tuple

import numpy as np
import torch

from lib import validate
from lib.corpus import check_counts, describe_context, keep_probability
from lib.notebook import exact
from lib.progress import progress
from lib.provenance import Provenance, for_corpus, software_versions, worker_threads
from lib.skipgram import noise_distribution
from lib.threads import torch_threads


# --- configuration ------------------------------------------------------------------------------------


#: the largest learning rate ``alpha`` of :class:`SGNSConfig`: the rates are cast to float32 (largest about 3.4e38)
ALPHA_MAX = 1e37


@validate.known_fields
@dataclass(frozen=True)
class SGNSConfig:
    """Settings of :func:`train_sgns`; defaults are gensim's ``Word2Vec(sg=1)`` except ``epochs`` and the
    block fields, which word2vec does not have.

    ``dim`` D (int ≥ 1); ``window`` (int ≥ 1, the largest distance between centre and context);
    ``negatives`` K (int ≥ 1, the expected number of negatives per pair); ``epochs`` (int ≥ 1);
    ``sample`` the subsampling threshold ``t`` (0 = no subsampling); ``alpha`` and ``min_alpha`` the
    first and last learning rates (``0 < alpha <= ALPHA_MAX``, 1e37, and ``0 <= min_alpha <= alpha``: the
    rates are cast to float32, whose largest value is about 3.4e38; a rate too large for the vocabulary
    makes :func:`train_sgns` stop with ``FloatingPointError``); ``power`` the noise
    exponent (0.75); ``dynamic_window`` (word2vec's random window size, default ``True``);
    ``block_windows`` B, the consecutive windows that share negatives (int ≥ 1); ``block_negatives`` N,
    the negatives drawn per block, each at weight ``K/N`` (int ≥ 1); ``batch_windows`` the windows per
    SGD step (a multiple of ``block_windows``); ``damped`` (default ``True``): each centre's output row
    and each input row take the damped step of :func:`sgd_step`, ``False`` the plain summed gradient step;
    ``workers`` threads (int in ``1 .. lib.validate.MAX_WORKERS``, 256; 1 is deterministic); ``seed`` (int ≥ 0)
    for every random draw. The other sizes are at most ``lib.validate.MAX_SIZE`` (2**28).

    The updates of one step are summed, so a row met ``m`` times in a step takes ``m`` updates computed
    from the same old values, where word2vec takes them one after the other. On the Lee corpus (4,041
    words) the plain summed step costs nothing at 1× and about 0.01 of WordSim-353 ρ when the same text is
    trained on four times as long, which the damped step recovers (the module notes); on a toy vocabulary
    of 20 words a step of 512 windows puts every row in hundreds of pairs and training collapses. Keep ``batch_windows`` small for small vocabularies
    (both cases are shown by training on them).

    Raises ``ValueError`` (``TypeError`` for a non-number) naming the field and its allowed range, and
    ``TypeError`` for an unknown field, naming the fields (also in ``dataclasses.replace``).
    """

    dim: int = 100
    window: int = 5
    negatives: int = 5
    epochs: int = 5
    sample: float = 1e-3
    alpha: float = 0.025
    min_alpha: float = 1e-4
    power: float = 0.75
    dynamic_window: bool = True
    block_windows: int = 16
    block_negatives: int = 16
    batch_windows: int = 512
    damped: bool = True
    workers: int = 1
    seed: int = 0

    def __post_init__(self):
        for name in ("dim", "window", "negatives", "epochs", "block_windows", "block_negatives", "batch_windows"):
            validate.size(getattr(self, name), name)
        validate.workers(self.workers, "workers")
        if self.batch_windows % self.block_windows:
            raise ValueError(
                f"batch_windows must be a multiple of block_windows={self.block_windows}, got {self.batch_windows!r}"
            )
        validate.number(self.sample, "sample", ge=0)
        alpha = validate.number(self.alpha, "alpha", gt=0, le=ALPHA_MAX)
        validate.number(self.min_alpha, "min_alpha", ge=0, le=alpha)
        validate.number(self.power, "power", ge=0)
        validate.flag(self.dynamic_window, "dynamic_window")
        validate.flag(self.damped, "damped")
        validate.seed(self.seed)

    @property
    def context_slots(self) -> int:
        """``S = B + 2 · window``: the input rows of one block, its ``B`` centres and ``window`` words on
        either side (the span)."""
        return self.block_windows + 2 * self.window

    @property
    def targets_per_window(self) -> int:
        """``T = B + N``: the output rows of one block, its ``B`` centres (the positives) and its ``N``
        negatives. (The name is kept from the version with one window per block, where ``T = K + 1``.)"""
        return self.block_windows + self.block_negatives


# --- the noise distribution as an alias table ------------------------------------------------------------


class AliasTable(NamedTuple):
    """Walker's alias table for a distribution over ``V`` items: ``accept (V,) float64`` in ``[0, 1]``
    and ``alias (V,) int64``. A draw picks a column ``i`` uniformly and returns ``i`` with probability
    ``accept[i]``, otherwise ``alias[i]``."""

    #: ``(V,) float64`` in ``[0, 1]``: the probability that a draw of column ``i`` returns ``i`` itself.
    accept: np.ndarray
    #: ``(V,) int64``: the item a draw of column ``i`` returns otherwise.
    alias: np.ndarray


def alias_table(probs) -> AliasTable:
    """Build the alias table of ``probs`` ``(V,)`` in O(V): the method of
    :cite:t:`vose1991linear`, after :cite:t:`walker1977efficient`.

    Item ``i`` is then drawn with probability ``(accept[i] + Σ_{j: alias[j]=i} (1 - accept[j])) / V``,
    which equals ``probs[i]`` up to rounding. Raises ``ValueError`` unless ``probs`` is a non-empty 1-D
    vector of finite non-negative numbers summing to 1 (within 1e-6), naming the first bad entry or the sum
    (a sum beyond float64's range, ``[1e308] * 3``, too, without a NumPy overflow warning), and ``TypeError``
    for entries that are not real numbers.

    >>> alias_table([0.5, 0.25, 0.25])  # column 1 gives half its share to item 0
    AliasTable(accept=array([1. , 0.75, 0.75]), alias=array([0, 0, 0]))
    """
    p = validate.real_numbers(probs, "probs", "a non-empty 1-D vector").astype(np.float64)
    if p.ndim != 1 or p.shape[0] < 1:
        raise ValueError(f"probs must be a non-empty 1-D vector, got shape {p.shape}")
    allowed = "probs must be finite, >= 0 and sum to 1 (within 1e-6)"
    if not np.all(np.isfinite(p)):
        raise ValueError(f"{allowed}, got NaN or infinity at index {int(np.flatnonzero(~np.isfinite(p))[0])}")
    if (p < 0).any():
        first = int(np.flatnonzero(p < 0)[0])
        raise ValueError(f"{allowed}, got {float(p[first])!r} at index {first}")
    with np.errstate(over="ignore"):  # [1e308] * 3: a sum beyond float64 is refused below, without NumPy's warning
        total = float(p.sum())
    if not abs(total - 1.0) <= 1e-6:
        got = f"a sum of {total!r}" if math.isfinite(total) else f"a sum {validate.BEYOND_FLOAT64}"
        raise ValueError(f"{allowed}, got {got}")
    V = p.shape[0]
    scaled = p * V / total  # mean 1: a column holds exactly one unit of probability mass
    accept = np.ones(V, dtype=np.float64)
    alias = np.arange(V, dtype=np.int64)
    small = [i for i in range(V) if scaled[i] < 1.0]
    large = [i for i in range(V) if scaled[i] >= 1.0]
    while small and large:
        s, big = small.pop(), large.pop()
        accept[s] = scaled[s]  # column s keeps item s with this probability ...
        alias[s] = big  # ... and gives the rest of the column to a large item
        scaled[big] -= 1.0 - scaled[s]
        (small if scaled[big] < 1.0 else large).append(big)
    # what is left over holds (up to rounding) exactly one unit: accept[i] = 1 already
    return AliasTable(accept, alias)


def alias_draw(table: AliasTable, size, rng: np.random.Generator) -> np.ndarray:
    """``size`` independent draws (``int64`` array of that shape) from an :func:`alias_table`, using
    two uniform draws from ``rng`` per item. ``size`` is an integer >= 0 or a tuple of them (a shape).
    Raises ``TypeError`` if ``table`` is not an :class:`AliasTable`, ``size`` is not an integer or a tuple
    of integers, or ``rng`` is not a NumPy Generator; ``ValueError`` for a negative size or more than
    ``lib.validate.MAX_SIZE`` (2**28) draws.

    >>> alias_draw(alias_table([0.0, 1.0]), 3, np.random.default_rng(0))
    array([1, 1, 1])
    """
    if not isinstance(table, AliasTable):
        raise TypeError(f"table must be an AliasTable (from alias_table), got {type(table).__name__}")
    shape = tuple(size) if isinstance(size, tuple) else (size,)
    shape = tuple(validate.size(n, "size", low=0) for n in shape)
    validate.entries(shape, "size")
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    size = shape if isinstance(size, tuple) else shape[0]
    column = rng.integers(0, table.accept.shape[0], size=size)
    keep = rng.random(size=size) < table.accept[column]
    return np.where(keep, column, table.alias[column])


# --- one epoch in blocks -------------------------------------------------------------------------------


class EpochBlocks(NamedTuple):
    """The training data of one epoch in ``G`` blocks of ``B`` centre words (the centre words that
    survived subsampling, in corpus order, the last block padded), with ``S = B + 2·window`` span slots
    and ``T = B + N`` targets per block:

    - ``span (G, S) int64``: ids of the block's span, the input rows: slot ``W + i`` holds centre ``i``
      and slot ``W + i + o`` its context at offset ``o`` (``W = window``); a slot beyond the corpus holds
      id 0 and takes part in no pair;
    - ``targets (G, T) int64``: ids of the output rows, the block's ``B`` centres (padding: id 0), then
      its ``N`` negatives;
    - ``band (G, B, 2W + 1) float32``: the learning rate of the pair (centre ``i``, offset ``o``) in
      column ``W + o`` at its point of training, 0 where there is no pair (offset 0, beyond the centre's
      window size, across a document boundary, padding);
    - ``negative_weight (G, N, B) float32``: ``K/N`` where negative ``n`` differs from centre ``i``, 0
      where it is that centre (word2vec leaves such a negative out);
    - ``n_windows``: the number of centres (the rest of the last block is padding);
    - ``n_pairs``: the number of (centre, context) pairs, i.e. of non-zero entries of ``band``.
    """

    #: ``(G, S) int64``: the ids of each block's span, the input rows (centres and their contexts).
    span: torch.Tensor
    #: ``(G, T) int64``: the ids of each block's output rows, its ``B`` centres, then its ``N`` negatives.
    targets: torch.Tensor
    #: ``(G, B, 2W + 1) float32``: the learning rate of each (centre, offset) pair, 0 where there is no pair.
    band: torch.Tensor
    #: ``(G, N, B) float32``: ``K/N`` where a negative differs from the centre, 0 where it is that centre.
    negative_weight: torch.Tensor
    #: The number of centre words in the epoch (the rest of the last block is padding).
    n_windows: int
    #: The number of (centre, context) pairs: the non-zero entries of ``band``.
    n_pairs: int


def epoch_blocks(
    ids: np.ndarray,
    doc: np.ndarray,
    keep: np.ndarray,
    noise: AliasTable,
    config: SGNSConfig,
    rng: np.random.Generator,
    *,
    lr_start: float,
    lr_stop: float,
) -> EpochBlocks:
    """Draw one epoch's blocks from the corpus ``ids (N,) int64`` with document numbers ``doc (N,)``
    (non-decreasing: documents one after the other).

    In order: each token is kept with probability ``keep[id]`` (subsampling; all kept when
    ``config.sample == 0``); each kept token becomes a centre with window size ``b`` drawn uniformly from
    ``1 .. window`` (``window`` when not dynamic); its pairs are the kept tokens at offsets ``±1 .. ±b``
    in its document; every ``config.block_windows`` consecutive centres form a block, which draws
    ``config.block_negatives`` negatives from ``noise``. The learning rate falls linearly from
    ``lr_start`` at the first token of the corpus to ``lr_stop`` after the last, by the token's position
    before subsampling (the tools count words read). All draws come from ``rng``. Returns
    :class:`EpochBlocks`; when subsampling keeps no token, one of no blocks (``G = 0``, ``n_pairs = 0``).

    Example: two documents ``[5, 6, 7]`` and ``[8, 9]``, no subsampling, a fixed window of 1, blocks of
    2 windows with one negative: the second block's centres are 7 and 8, whose pair 7–8 would cross the
    document boundary and is absent.

    >>> cfg = SGNSConfig(window=1, sample=0, dynamic_window=False,
    ...                  block_windows=2, block_negatives=1, batch_windows=2)
    >>> ids, doc = np.array([5, 6, 7, 8, 9]), np.array([0, 0, 0, 1, 1])
    >>> e = epoch_blocks(ids, doc, np.ones(10), alias_table(np.full(10, 0.1)), cfg,
    ...                  np.random.default_rng(0), lr_start=0.02, lr_stop=0.02)
    >>> e.span.tolist(), e.targets[:, :2].tolist(), e.n_pairs
    ([[0, 5, 6, 7], [6, 7, 8, 9], [8, 9, 0, 0]], [[5, 6], [7, 8], [9, 0]], 6)
    >>> # centre 7: left neighbour only; centre 8: right neighbour only
    >>> (e.band[1] > 0).int().tolist()
    [[1, 0, 0], [0, 0, 1]]
    """
    N = ids.shape[0]
    W, K, B, R = config.window, config.negatives, config.block_windows, config.block_negatives
    kept = np.flatnonzero(rng.random(N) < keep[ids]) if config.sample > 0 else np.arange(N)
    n = kept.shape[0]
    if n == 0:  # subsampling kept no token (a tiny corpus, a tiny sample): no block, no pair
        S, T = B + 2 * W, B + R
        return EpochBlocks(torch.zeros(0, S, dtype=torch.int64), torch.zeros(0, T, dtype=torch.int64),
                           torch.zeros(0, B, 2 * W + 1), torch.zeros(0, R, B), 0, 0)
    G = -(-n // B)  # blocks; the last one padded with centres that have no pair
    reach = rng.integers(1, W + 1, size=n) if config.dynamic_window else np.full(n, W)
    # the first and last kept token of each token's document, in kept positions
    kept_doc = doc[kept]
    starts = np.flatnonzero(np.r_[True, kept_doc[1:] != kept_doc[:-1]])
    lengths = np.diff(np.r_[starts, n])
    i = np.arange(n)
    lo = np.maximum(np.repeat(starts, lengths) - i, -reach)  # (n,) the offsets of a centre's pairs: lo..hi, not 0
    hi = np.minimum(np.repeat(starts + lengths - 1, lengths) - i, reach)
    offsets = np.arange(-W, W + 1)  # (2W + 1,): band column W + o is offset o
    patterns = (offsets >= np.arange(-W, 1)[:, None, None]) & (offsets <= np.arange(W + 1)[None, :, None])
    patterns &= offsets != 0  # (W + 1, W + 1, 2W + 1): the pairs of every (lo, hi)
    patterns = patterns.reshape((W + 1) * (W + 1), 2 * W + 1).astype(np.float32)  # row (lo + W)·(W + 1) + hi
    lr = (lr_start + (lr_stop - lr_start) * (kept / N)).astype(np.float32)  # by position in the corpus
    band = np.zeros((G * B, 2 * W + 1), dtype=np.float32)
    np.take(patterns, (lo + W) * (W + 1) + hi, axis=0, out=band[:n])
    band[:n] *= lr[:, None]
    seq = np.zeros(G * B + 2 * W, dtype=np.int64)  # the kept tokens with W slots of padding either side
    seq[W : W + n] = ids[kept]
    span = np.lib.stride_tricks.sliding_window_view(seq, B + 2 * W)[::B]  # (G, B + 2W) views, copied below
    negatives = alias_draw(noise, (G, R), rng)
    centres = seq[W : W + G * B].reshape(G, B)
    targets = np.concatenate([centres, negatives], axis=1)  # (G, B + N)
    negative_weight = np.full((G, R, B), K / R, dtype=np.float32)  # (G, N, B)
    negative_weight[negatives[:, :, None] == centres[:, None, :]] = 0.0  # a negative that is the centre: left out
    return EpochBlocks(
        torch.from_numpy(span.copy()),  # a writable copy: with one block the view is contiguous, read-only
        torch.from_numpy(targets),
        torch.from_numpy(band).view(G, B, 2 * W + 1),
        torch.from_numpy(negative_weight),
        n,
        int((hi - lo).sum()),  # every centre's range lo..hi holds offset 0, which is no pair
    )


# --- the update ----------------------------------------------------------------------------------------


class Buffers(NamedTuple):
    """Preallocated work space for :func:`sgd_step` on ``G`` blocks of ``S`` span slots, ``T`` targets
    (``B`` centres, then the negatives) and width ``D`` (``float32``): the gathered rows ``rows (G·S + G·T,
    D)``, input rows first (``x``, the first ``G·S``) and output rows after them (``y``, the next ``G·T``),
    so that one call takes every squared norm into ``norms (G·S + G·T,)``; pair weights ``weight (G, T,
    S)`` (zero off the band, written by each step on it) and the negative rows' part ``negative_rows (G, N,
    S)`` (computed apart: a product into a strided view is slow); scores ``g (G, T, S)``; updates ``dx (G,
    S, D)`` and ``dy (G, T, D)``; the labels ``label (G, T, S)`` (1 in the first ``B`` rows, the centres);
    and for the damped step ``curvature (G, T, S)`` and the divisors ``centre_damping (G, B, 1)`` and
    ``input_damping (G, 1, S)``. Make them with :func:`make_buffers`; ``resize`` gives views for a shorter
    last step."""

    #: ``(G·S + G·T, D)``: the gathered rows, the input rows (``x``) first, then the output rows (``y``).
    rows: torch.Tensor
    #: ``(G·S + G·T,)``: the squared norm of each gathered row.
    norms: torch.Tensor
    #: ``(G, T, S)``: the learning rate of each (target, span slot) pair, zero where there is no pair.
    weight: torch.Tensor
    #: ``(G, N, S)``: the negative rows' part of ``weight``, computed apart.
    negative_rows: torch.Tensor
    #: ``(G, T, S)``: the score ``σ(y·x)`` of each pair, then ``(label - σ)`` times its learning rate.
    g: torch.Tensor
    #: ``(G, S, D)``: the updates of the input rows.
    dx: torch.Tensor
    #: ``(G, T, D)``: the updates of the output rows.
    dy: torch.Tensor
    #: ``(G, T, S)``: the labels, 1 in the first ``B`` rows (the centres), 0 in the negatives' rows.
    label: torch.Tensor
    #: ``(G, T, S)``: each pair's learning rate times ``σ'``, the curvature of its loss, for the damped step.
    curvature: torch.Tensor
    #: ``(G, B, 1)``: the divisors of the centres' output-row updates, for the damped step.
    centre_damping: torch.Tensor
    #: ``(G, 1, S)``: the divisors of the input rows' updates, for the damped step.
    input_damping: torch.Tensor

    @property
    def x(self) -> torch.Tensor:
        """The gathered input rows ``(G·S, D)``, a view of ``rows``."""
        G, _, S = self.g.shape
        return self.rows[: G * S]

    @property
    def y(self) -> torch.Tensor:
        """The gathered output rows ``(G·T, D)``, a view of ``rows``."""
        G, T, S = self.g.shape
        return self.rows[G * S : G * (S + T)]

    def resize(self, G: int) -> "Buffers":
        """Views of the first ``G`` blocks' worth of every buffer (no allocation of data)."""
        S, T = self.g.shape[2], self.g.shape[1]
        return Buffers(
            self.rows[: G * (S + T)], self.norms[: G * (S + T)], self.weight[:G], self.negative_rows[:G], self.g[:G],
            self.dx[:G], self.dy[:G], self.label[:G], self.curvature[:G], self.centre_damping[:G],
            self.input_damping[:G],
        )


def make_buffers(G: int, B: int, N: int, window: int, D: int) -> Buffers:
    """Allocate :class:`Buffers` for steps of up to ``G`` blocks of ``B`` windows with ``N`` negatives,
    window ``window`` and width ``D`` (all ``float32``). Each is an integer >= 0 (0 gives empty buffers);
    ``TypeError`` for one that is not an integer, ``ValueError`` for a negative one or buffers beyond
    ``lib.validate.MAX_SIZE`` entries."""
    G, B, N, window, D = (validate.size(v, name, low=0) for v, name in
                          ((G, "G"), (B, "B"), (N, "N"), (window, "window"), (D, "D")))
    S, T = B + 2 * window, B + N
    validate.entries((G, T, S), "G, B, N and window")
    validate.entries((G * (S + T), D), "G, B, N, window and D")
    label = torch.zeros(G, T, S)
    label[:, :B] = 1.0  # the centre rows hold the observed pairs
    weight, negative_rows = torch.zeros(G, T, S), torch.empty(G, N, S)
    return Buffers(
        torch.empty(G * (S + T), D), torch.empty(G * (S + T)), weight, negative_rows, torch.empty(G, T, S),
        torch.empty(G, S, D), torch.empty(G, T, D), label, torch.empty(G, T, S), torch.empty(G, B, 1),
        torch.empty(G, 1, S),
    )


#: The 1 of the damping divisors ``1 + Σ a·σ'·|v|²``, added by the product that computes the sum.
_ONE = torch.ones(())


def sgd_step(
    w_in: torch.Tensor,
    w_out: torch.Tensor,
    span: torch.Tensor,
    targets: torch.Tensor,
    band: torch.Tensor,
    negative_weight: torch.Tensor,
    buf: Buffers,
    *,
    damped: bool = True,
) -> None:
    """One SGD step of negative sampling on ``G`` blocks, in place on ``w_in`` and ``w_out`` ``(V, D)``.

    ``span (G·S,)`` and ``targets (G·T,)`` int64 ids, ``band (G, B, 2W + 1)`` and ``negative_weight
    (G, N, B)`` float32 (the fields of :class:`EpochBlocks`, ids flattened), ``buf`` sized for exactly
    ``G`` blocks. For every span word ``x`` and target ``y`` of a block, with score ``s = x·y``, label
    ``ℓ`` (1 for a centre, 0 for a negative) and the pair weight ``a`` (for centre ``i``: the learning
    rate of the pair, from ``band``; for negative ``n``: ``Σ_i negative_weight[n, i] · band``-weight of
    ``(i, x)``), ``g = a · (ℓ - σ(s))``; every row gets ``x += Σ g·y`` and ``y += Σ g·x`` over the
    scores it is in, computed from the values before the step. With ``damped=False`` that is exactly
    ``-1 ×`` the gradient of ``Σ_pairs lr · [-log σ(x·y_c) - (K/N) Σ_{n ≠ c} log σ(-x·y_n)]``
    :cite:p:`mikolov2013negative{eq. 4, with the block's negatives}`.

    ``damped=True`` (the default, what :func:`train_sgns` does) divides the summed update of each
    *centre's* output row, ``Σ a·(1 - σ(s))·x`` over its window, by ``1 + Σ a·σ'(s)·|x|²`` over the same
    pairs (``σ' = σ(1 - σ)``), and the summed update of each *input* row, ``Σ g·y`` over the targets of the
    block, by ``1 + Σ a·σ'(s)·|y|²`` over the same targets. Each is the linearised implicit (proximal)
    step of those pairs :cite:p:`kulis2010implicit,toulis2017asymptotic`, exact when the vectors summed are
    parallel. word2vec updates the centre's output row after each pair of its window and a context's input row after each of its pairs, so that each pair sees the previous
    one's update; summing them from the same old row instead overshoots once ``Σ a·σ'·|x|²`` nears 1, which
    happens as the vectors grow in long training (see the module notes). The damping leaves a step with small
    vectors nearly as it was and holds back the overshoot. The negatives' rows are not damped: their sum
    runs over every span word of the block, far from parallel, and damping it by that bound starves
    training (measured: WordSim-353 ρ 0.10 instead of 0.25 at 4×).

    Nothing is allocated beyond views and a few small products; shapes are trusted (inner loop).
    """
    G, T, S = buf.g.shape
    B = band.shape[1]
    x = torch.index_select(w_in, 0, span, out=buf.x).view(G, S, -1)  # (G, S, D) input rows
    y = torch.index_select(w_out, 0, targets, out=buf.y).view(G, T, -1)  # (G, T, D) output rows
    weight = buf.weight
    # centre rows: row i, column i + W + o holds band[i, W + o]; the rest of the row stays 0
    weight.as_strided(band.shape, (T * S, S + 1, 1)).copy_(band)
    # negative rows: (K/N) Σ_i lr(i, s) over the centres i the negative differs from
    weight[:, B:].copy_(torch.bmm(negative_weight, weight[:, :B], out=buf.negative_rows))
    g = torch.bmm(y, x.transpose(1, 2), out=buf.g)  # (G, T, S) scores x·y
    g.sigmoid_()
    if damped:  # a · σ'(s) = a · (σ - σ²) of every pair, before g is overwritten
        curvature = torch.addcmul(g, g, g, value=-1.0, out=buf.curvature).mul_(weight)
    torch.sub(buf.label, g, out=g)  # ℓ - σ(s)
    g.mul_(weight)
    torch.bmm(g, x, out=buf.dy)  # (G, T, D): Σ_s g·x for each output row
    torch.bmm(g.transpose(1, 2), y, out=buf.dx)  # (G, S, D): Σ_t g·y for each input row
    if damped:
        norms = torch.linalg.vector_norm(buf.rows, dim=1, out=buf.norms)
        norms.mul_(norms)  # |x|² then |y|² (square_() goes through pow and costs more than the norm)
        x_norms, y_norms = norms[: G * S].view(G, S, 1), norms[G * S :].view(G, 1, T)
        # 1 + Σ_s a·σ'·|x_s|² along each centre's row, 1 + Σ_t a·σ'·|y_t|² down each input's column
        centres = torch.baddbmm(_ONE, curvature[:, :B], x_norms, out=buf.centre_damping)  # (G, B, 1)
        inputs = torch.baddbmm(_ONE, y_norms, curvature, out=buf.input_damping)  # (G, 1, S)
        buf.dy[:, :B].div_(centres)
        buf.dx.div_(inputs.view(G, S, 1))
    w_in.index_add_(0, span, buf.dx.view(G * S, -1))
    w_out.index_add_(0, targets, buf.dy.view(G * T, -1))


#: An entry of either table beyond this, in absolute value, means training has diverged: word2vec's entries
#: are of order 1, and a score beyond ±6 already saturates the logistic function.
DIVERGED = 1e6


def _largest(table: torch.Tensor) -> float:
    """The largest absolute entry of ``table`` (NaN if it holds a NaN)."""
    return float(torch.max(torch.abs(table)))


def _train_steps(w_in, w_out, epoch: EpochBlocks, steps: Iterable[int], buf: Buffers, damped: bool) -> None:
    """Run :func:`sgd_step` on the steps ``steps`` of ``epoch``: step ``k`` takes blocks ``k·G .. (k+1)·G``
    (``G`` the blocks of ``buf``; the last step of the epoch may be shorter)."""
    G_max, T, S = buf.g.shape
    n = epoch.span.shape[0]
    span, targets = epoch.span.view(-1), epoch.targets.view(-1)
    for k in steps:
        s, e = k * G_max, min(k * G_max + G_max, n)
        b = buf if e - s == G_max else buf.resize(e - s)
        sgd_step(
            w_in, w_out, span[s * S : e * S], targets[s * T : e * T], epoch.band[s:e], epoch.negative_weight[s:e], b,
            damped=damped,
        )


class StepQueue:
    """The steps ``0 .. n_steps - 1`` of one epoch, shared out among ``workers`` Hogwild threads.

    Worker ``i`` starts with the ``i``-th of ``workers`` equal runs of consecutive steps and takes them in
    order, as with a fixed split; once its run is done it takes the last untaken step of the run that has
    the most left. So no worker waits while another still has several steps to do (a fixed split leaves
    one core idle whenever the other is slowed down), and the workers stay on distant parts of the text as
    long as they can. Every step is handed out exactly once. ``TypeError``/``ValueError`` for ``n_steps``
    that is not an integer in ``[0, lib.validate.MAX_SIZE]`` or ``workers`` not one in ``[1,
    lib.validate.MAX_WORKERS]``.

    >>> q = StepQueue(5, 2)  # runs 0..1 and 2..4
    >>> [q.take(0), q.take(0), q.take(0), q.take(1), q.take(1), q.take(0)]
    [0, 1, 4, 2, 3, None]
    """

    def __init__(self, n_steps: int, workers: int):
        n_steps = validate.size(n_steps, "n_steps", low=0)
        workers = validate.workers(workers, "workers")
        cuts = [n_steps * i // workers for i in range(workers + 1)]
        self._next, self._stop = cuts[:-1], cuts[1:]
        self._lock = threading.Lock()

    def take(self, worker: int) -> Optional[int]:
        """The next step for ``worker`` (``0 .. workers - 1``), or ``None`` when every step is taken.
        ``TypeError``/``ValueError`` for a ``worker`` that is not one of them (``-1`` would otherwise be
        taken as the last worker)."""
        return self._take(self._worker(worker))

    def steps(self, worker: int) -> Iterator[int]:
        """The steps ``worker`` takes, one at a time, until none is left. ``worker`` is checked here, once,
        as :meth:`take` checks it (``TypeError``/``ValueError`` from this call, before any step is taken)."""
        worker = self._worker(worker)

        def taken() -> Iterator[int]:
            while (k := self._take(worker)) is not None:
                yield k

        return taken()

    def _worker(self, worker) -> int:
        return validate.integer(worker, "worker", low=0, high=len(self._next) - 1)

    def _take(self, worker: int) -> Optional[int]:
        """:meth:`take` for a ``worker`` already checked."""
        with self._lock:
            if self._next[worker] < self._stop[worker]:
                self._next[worker] += 1
                return self._next[worker] - 1
            left = [stop - start for start, stop in zip(self._next, self._stop)]
            j = max(range(len(left)), key=left.__getitem__)
            if left[j] == 0:
                return None
            self._stop[j] -= 1
            return self._stop[j]


@dataclass(frozen=True)
class SGNSResult:
    """A trained model: ``vectors`` (the input table) and ``output_vectors`` ``(V, D) float32`` NumPy
    copies; ``n_words`` (in-vocabulary tokens × epochs) and ``n_pairs`` (pairs trained, all epochs);
    ``seconds`` (wall time of the training loop, sampling included); ``provenance``; and
    ``initial_vectors`` ``(V, D) float32``, the input table before the first step, so that what training
    did to each row can be measured (a row whose token never occurs keeps it exactly); ``empty_epochs``, the
    epochs skipped because subsampling kept no two neighbouring tokens of a document (no pair to train on:
    a tiny corpus or a tiny ``sample``). Their learning rates are not given to the other epochs."""

    vectors: np.ndarray
    output_vectors: np.ndarray
    n_words: int
    n_pairs: int
    seconds: float
    provenance: Provenance = field(default_factory=Provenance)
    initial_vectors: np.ndarray | None = None
    empty_epochs: int = 0


def _flatten(sentences, vocab_size: int) -> Tuple[np.ndarray, np.ndarray]:
    if isinstance(sentences, (str, bytes, np.ndarray)):
        raise TypeError("sentences must be a sequence of 1-D integer id arrays (one per document)")
    arrays = [validate.integer_array(s, f"sentences[{k}]", "a 1-D array of integer ids")
              for k, s in enumerate(validate.collection(sentences, "sentences", "a sequence of 1-D integer id arrays"))]
    for k, a in enumerate(arrays):
        if a.ndim != 1:
            raise ValueError(f"sentences[{k}] must be 1-D, got shape {a.shape}")
    ids = np.concatenate([a for a in arrays if a.size] or [np.zeros(0, np.int64)])  # an empty [] is float64
    if ids.size == 0:
        raise ValueError("the corpus is empty: no token to train on")
    ids = validate.ids(ids, vocab_size)  # on the ids' own dtype: a uint64 id cannot wrap around first
    doc = np.repeat(np.arange(len(arrays)), [a.shape[0] for a in arrays])
    return ids, doc


def train_sgns(
    sentences: Sequence[np.ndarray],
    counts,
    config: SGNSConfig = SGNSConfig(),
    *,
    provenance: Provenance | None = None,
    desc: str | None = None,
) -> SGNSResult:
    """Train skip-gram with negative sampling on an encoded corpus, word2vec style; see the module notes.

    ``sentences``: one 1-D int array of ids per document (:meth:`lib.corpus.Vocabulary.encode_sentences`);
    ``counts``: ``(V,)`` int token counts, which fix ``V``, the subsampling and the noise distribution
    (usually ``Vocabulary.counts``); ``config``: :class:`SGNSConfig`. ``provenance``
    (optional) carries the item and data fields; the training fields are filled in here. Progress over
    epochs is shown with ``desc`` (:mod:`lib.progress`).

    Returns :class:`SGNSResult`. Raises ``TypeError`` for a config that is not an :class:`SGNSConfig` or
    non-integer ids or counts (bools too), ``ValueError`` for ids outside ``[0, V)``, an empty corpus, one
    with no document of two tokens, counts that are not a valid count vector (:func:`lib.corpus.check_counts`),
    ``V · dim`` beyond ``lib.validate.MAX_SIZE``, and training in which no epoch had a pair left after
    subsampling (every epoch empty: ``sample`` too small for the corpus). An epoch that subsampling leaves
    without a pair, while others have some, is skipped and counted (``SGNSResult.empty_epochs``).
    ``FloatingPointError`` when training
    diverges (checked after every epoch: an entry beyond :data:`DIVERGED` or not finite), naming the
    settings to lower.
    """
    if not isinstance(config, SGNSConfig):
        raise TypeError(f"config must be an SGNSConfig, got {type(config).__name__}")
    counts = check_counts(counts)
    if config.sample > 0:
        keep = keep_probability(counts, config.sample, formula="word2vec")
    else:
        keep = np.ones(counts.shape[0])
    V, D, K = counts.shape[0], config.dim, config.negatives
    ids, doc = _flatten(sentences, V)
    if not (doc[1:] == doc[:-1]).any():  # no document of two tokens: no window holds a pair
        raise ValueError("the corpus holds no (centre, context) pair: every document has fewer than two tokens")
    validate.entries((V, D), "counts (V) and dim")
    noise = alias_table(noise_distribution(counts, config.power))
    rng = np.random.default_rng(config.seed)
    w_in = torch.from_numpy(((rng.random((V, D), dtype=np.float32) - 0.5) / D))  # word2vec's initialisation
    initial = w_in.numpy().copy()
    w_out = torch.zeros(V, D)
    B, R = config.block_windows, config.block_negatives
    buffers = [make_buffers(config.batch_windows // B, B, R, config.window, D) for _ in range(config.workers)]
    schedule = np.linspace(config.alpha, config.min_alpha, config.epochs + 1)
    n_pairs, empty_epochs = 0, 0
    pool = ThreadPoolExecutor(config.workers) if config.workers > 1 else None
    sampler = ThreadPoolExecutor(1)  # draws the next epoch's blocks while this one trains

    def blocks_of(e: int) -> EpochBlocks:
        return epoch_blocks(ids, doc, keep, noise, config, rng, lr_start=schedule[e], lr_stop=schedule[e + 1])

    start = time.perf_counter()
    try:
        with torch_threads(1), torch.no_grad():
            upcoming = sampler.submit(blocks_of, 0)
            for e in progress(range(config.epochs), desc=desc or "skip-gram (SGNS)"):
                epoch = upcoming.result()
                if e + 1 < config.epochs:  # epochs are drawn in order from one generator: still deterministic
                    upcoming = sampler.submit(blocks_of, e + 1)
                if epoch.n_pairs == 0:  # subsampling left no two neighbours in a document: nothing to train
                    empty_epochs += 1
                    continue
                n_pairs += epoch.n_pairs
                n = epoch.span.shape[0]  # blocks
                n_steps = -(-n // buffers[0].g.shape[0])
                if pool is None:
                    _train_steps(w_in, w_out, epoch, range(n_steps), buffers[0], config.damped)
                else:  # Hogwild: each worker its own steps (StepQueue), shared tables, no locks on them
                    queue = StepQueue(n_steps, config.workers)
                    jobs = [
                        pool.submit(_train_steps, w_in, w_out, epoch, queue.steps(i), buffers[i], config.damped)
                        for i in range(config.workers)
                    ]
                    for job in jobs:
                        job.result()
                if not max(_largest(w_in), _largest(w_out)) <= DIVERGED:  # also catches NaN
                    raise FloatingPointError(
                        f"training diverged in epoch {e + 1}: the tables hold entries beyond {DIVERGED:g} in absolute "
                        f"value (or not finite); the step is too "
                        f"large for this vocabulary (batch_windows={config.batch_windows}, alpha={config.alpha}): "
                        f"lower batch_windows or alpha"
                    )
    finally:
        sampler.shutdown(cancel_futures=True)
        if pool is not None:
            pool.shutdown()
    seconds = time.perf_counter() - start
    if n_pairs == 0:
        raise ValueError(
            f"no epoch had a (centre, context) pair to train on: subsampling (sample={config.sample}) kept fewer "
            f"than two neighbouring tokens of any document in each of the {config.epochs} epochs, so the table "
            f"would come back untrained; use a larger sample (0 turns subsampling off) or a longer corpus"
        )
    fields = dict(
        n_pairs=int(n_pairs),
        subsampling=(
            f"τ = {exact(config.sample)}, keep min(1, (sqrt(f/τ) + 1) τ/f) (word2vec.c), before windowing"
            if config.sample > 0
            else "none"
        ),
        objective="skip-gram, negative sampling (logistic loss), word2vec roles (input = context word)",
        negatives=K,
        noise_distribution=(
            f"unigram^{config.power}, alias table; {R} per block of {B} windows, weight K/{R}"
        ),
        negative_policy="left out (word2vec.c, gensim)",
        dimension=D,
        initialisation="input uniform(-0.5/d, 0.5/d), output zero (word2vec)",
        optimiser="SGD, hand-written updates" + ("; centre and input rows damped (implicit step)" if config.damped else ""),
        learning_rate=float(config.alpha),
        batch=f"{config.batch_windows} windows per step in blocks of {B}, {worker_threads(config.workers)}",
        stopping_rule=f"fixed number of epochs ({config.epochs}); learning rate linear to {exact(config.min_alpha)}",
        seed=int(config.seed),
        vectors="input table",
        normalisation="none",
        dtype="float32",
        software=software_versions("torch", "numpy"),
    )
    ctx = describe_context(config.window, unit="document", dynamic=config.dynamic_window)
    prov = (provenance or Provenance()).replace(context=ctx, **fields)
    n_words = int(ids.shape[0]) * config.epochs
    return SGNSResult(w_in.numpy().copy(), w_out.numpy().copy(), n_words, int(n_pairs), seconds, prov, initial,
                      empty_epochs)


def sgns_embedding(
    sentences, vocab, config: SGNSConfig = SGNSConfig(), *, corpus: str = "unnamed corpus", extra=None
) -> SGNSResult:
    """Encode tokenised ``sentences`` (sequences of ``str``) with ``vocab`` (:class:`lib.corpus.Vocabulary`)
    and :func:`train_sgns` on them with the vocabulary's counts; the provenance names the corpus (and its
    SHA-256), the vocabulary, and ``extra`` (a mapping, e.g. data-file hashes). Raises like
    :func:`train_sgns` and :meth:`lib.corpus.Vocabulary.encode_sentences`."""
    ids = vocab.encode_sentences(sentences)
    base = for_corpus(vocab, sentences, corpus=corpus, extra=dict(extra or {}))
    return train_sgns(ids, vocab.counts, config, provenance=base)


__all__ = [
    "AliasTable",
    "Buffers",
    "DIVERGED",
    "EpochBlocks",
    "SGNSConfig",
    "SGNSResult",
    "StepQueue",
    "alias_draw",
    "alias_table",
    "epoch_blocks",
    "make_buffers",
    "sgd_step",
    "sgns_embedding",
    "train_sgns",
]
