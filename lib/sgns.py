"""Skip-gram with negative sampling for real corpora: word2vec's training loop, batched in PyTorch.

Taught in: chapters/real_text.md (the book's skip-gram with negative sampling, against gensim).

:func:`lib.skipgram.train_skipgram` trains on a toy corpus with autograd and Adam, one full batch per
step. On tens of thousands of words that is far too slow and not what word2vec does. This module
follows word2vec (Mikolov et al. 2013b, "Distributed Representations of Words and Phrases and their
Compositionality", §2.2–2.3; the C tool ``word2vec.c`` and gensim's ``word2vec_inner.pyx`` for the
details the paper leaves out):

- **subsampling** of frequent words before the windows are formed, with the C tool's keep probability
  ``(sqrt(f/t) + 1) · t/f`` (:func:`lib.corpus.keep_probability` with ``formula="word2vec"``);
- **dynamic window**: each centre word draws its window size uniformly from ``1 .. window``, so near
  words are seen more often (or a fixed ``±window`` with ``dynamic_window=False``); windows never
  cross a document boundary;
- **noise distribution** ``count^0.75 / Z`` (:func:`lib.skipgram.noise_distribution`), drawn from an
  **alias table** (Walker 1977; Vose 1991: :func:`alias_table`), O(1) per draw and exact, where
  word2vec uses a 10⁸-entry unigram table and gensim a cumulative table with bisection; a negative
  equal to the positive is left out (both tools ``continue`` past it);
- **plain SGD** with a **learning rate decaying linearly** from ``alpha`` to ``min_alpha`` over all
  the words of all epochs, input table initialised uniform in ``±0.5/dim``, output table zero;
- **hand-written updates**: for a score ``s = x·y`` with label ``ℓ`` (1 for the observed pair, 0 for a
  negative), ``g = lr · (ℓ - σ(s))``, then ``x += g·y`` and ``y += g·x`` (gradient ascent on
  ``log σ(s)`` and ``log σ(-s)``, equation 4 of the paper). No autograd, no optimiser object.

Roles, as in ``word2vec.c`` and gensim: for a window around centre word ``w``, the *input* vectors are
those of the context words and the *output* vectors those of ``w`` (the positive) and of the negatives.
That swaps the paper's notation; since the window relation is symmetric it changes nothing in what is
learned, and it is what makes the batching below possible. The returned embedding is the input table.

Speed: where the tools make one pair at a time, this module processes a batch of windows with a few
large tensor operations, gathering rows into preallocated buffers (``index_select(out=...)``), scoring
with batched matrix products and scattering the updates back with ``index_add_``. To make each window a
small dense block, the ``K`` negatives are drawn once per window and shared by all its context words
(Ji et al. 2016, "Parallelizing Word2Vec in Shared and Distributed Memory", §3: "negative sample
sharing"), so a window is one ``(2·window) × (K + 1)`` score matrix. Every pair still meets ``K``
negatives from the same noise distribution; what changes is that negatives of the pairs of one window
are the same draws. ``workers > 1`` runs that many threads on disjoint parts of each epoch, updating the
shared tables without locks, as word2vec and gensim do ("Hogwild", Recht et al. 2011); results then
vary slightly from run to run, so the chapter trains with ``workers=1``, which is deterministic.

Departures, stated: negatives shared per window (above); updates within one batch are summed, so a row
used twice in a batch gets both updates computed from the same old values (word2vec applies them one
after the other); the exact logistic function instead of word2vec's table lookup with no update when
``|s| ≥ 6``; the learning rate decays per centre word rather than per 10 000 words.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import NamedTuple, Sequence, Tuple

import numpy as np
import torch

from lib import validate
from lib.corpus import describe_context, keep_probability
from lib.notebook import exact
from lib.progress import progress
from lib.provenance import Provenance, for_corpus, software_versions
from lib.skipgram import noise_distribution
from lib.threads import torch_threads


# --- configuration ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SGNSConfig:
    """Settings of :func:`train_sgns`; defaults are gensim's ``Word2Vec(sg=1)`` except ``epochs``.

    ``dim`` D (int ≥ 1); ``window`` (int ≥ 1, the largest distance between centre and context);
    ``negatives`` K (int ≥ 1); ``epochs`` (int ≥ 1); ``sample`` the subsampling threshold ``t`` (0 = no
    subsampling); ``alpha`` and ``min_alpha`` the first and last learning rates (``alpha > 0``,
    ``0 <= min_alpha <= alpha``); ``power`` the noise exponent (0.75); ``dynamic_window`` (word2vec's
    random window size, default ``True``); ``batch_windows`` windows per SGD step (int ≥ 1); ``workers``
    threads (int ≥ 1; 1 is deterministic); ``seed`` (int ≥ 0) for every random draw.

    The updates of one batch are summed, so a row met ``m`` times in a batch takes ``m`` steps computed
    from the same old values, where word2vec takes them one after the other. That is harmless while ``m``
    is small: on the Lee corpus (4,041 words) the most frequent row meets about a hundred pairs per batch
    of 128 windows and the vectors score as gensim's do; on a toy vocabulary of 20 words a batch of 512
    windows puts every row in hundreds of pairs and training collapses. Keep ``batch_windows`` small for
    small vocabularies (``tests/test_sgns.py`` shows both cases).

    Raises ``ValueError`` (``TypeError`` for a non-number) naming the field and its allowed range.
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
    batch_windows: int = 128
    workers: int = 1
    seed: int = 0

    def __post_init__(self):
        for name in ("dim", "window", "negatives", "epochs", "batch_windows", "workers"):
            validate.integer(getattr(self, name), name, low=1)
        validate.number(self.sample, "sample", ge=0)
        alpha = validate.number(self.alpha, "alpha", gt=0)
        validate.number(self.min_alpha, "min_alpha", ge=0, le=alpha)
        validate.number(self.power, "power", ge=0)
        validate.flag(self.dynamic_window, "dynamic_window")
        validate.seed(self.seed)

    @property
    def context_slots(self) -> int:
        """``S = 2 · window``: the context positions of one window, both sides of the centre."""
        return 2 * self.window

    @property
    def targets_per_window(self) -> int:
        """``T = K + 1``: the centre word (the positive) and its ``K`` negatives."""
        return self.negatives + 1


# --- the noise distribution as an alias table ------------------------------------------------------------


class AliasTable(NamedTuple):
    """Walker's alias table for a distribution over ``V`` items: ``accept (V,) float64`` in ``[0, 1]``
    and ``alias (V,) int64``. A draw picks a column ``i`` uniformly and returns ``i`` with probability
    ``accept[i]``, otherwise ``alias[i]``."""

    accept: np.ndarray
    alias: np.ndarray


def alias_table(probs) -> AliasTable:
    """Build the alias table of ``probs`` ``(V,)`` (Vose 1991, "A linear algorithm for generating random
    numbers with a given distribution", IEEE TSE 17(9); after Walker 1977), in O(V).

    Item ``i`` is then drawn with probability ``(accept[i] + Σ_{j: alias[j]=i} (1 - accept[j])) / V``,
    which equals ``probs[i]`` up to rounding. Raises ``ValueError`` unless ``probs`` is a non-empty 1-D
    vector of finite non-negative numbers summing to 1 (within 1e-6).

    >>> alias_table([0.5, 0.25, 0.25])  # column 1 gives half its share to item 0
    AliasTable(accept=array([1. , 0.75, 0.75]), alias=array([0, 0, 0]))
    """
    p = np.asarray(probs, dtype=np.float64)
    if p.ndim != 1 or p.shape[0] < 1:
        raise ValueError(f"probs must be a non-empty 1-D vector, got shape {p.shape}")
    if not np.all(np.isfinite(p)) or (p < 0).any() or abs(p.sum() - 1.0) > 1e-6:
        raise ValueError("probs must be finite, >= 0 and sum to 1")
    V = p.shape[0]
    scaled = p * V / p.sum()  # mean 1: a column holds exactly one unit of probability mass
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
    two uniform draws from ``rng`` per item. Raises ``TypeError`` if ``rng`` is not a NumPy Generator."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    column = rng.integers(0, table.accept.shape[0], size=size)
    keep = rng.random(size=size) < table.accept[column]
    return np.where(keep, column, table.alias[column])


# --- one epoch of windows -------------------------------------------------------------------------------


class EpochWindows(NamedTuple):
    """The training data of one epoch, one row per centre word that survived subsampling (``n`` rows,
    ``S = 2·window`` context slots, ``T = K + 1`` targets):

    - ``contexts (n, S) int64``: ids of the context words (input vectors), slot ``j`` for offset
      ``-window, ..., -1, 1, ..., window``; a slot outside the window holds a valid id and weight 0;
    - ``targets (n, T) int64``: the centre word (the positive, column 0) and its ``K`` negatives;
    - ``slot_lr (n, S, 1) float32``: the learning rate of each (centre, slot) pair at its point of
      training, 0 for a slot outside the window, the document or the corpus;
    - ``target_keep (n, 1, T) float32``: 1, or 0 for a negative equal to the centre word;
    - ``n_pairs``: the number of (centre, context) pairs, i.e. of slots with a non-zero learning rate.

    The trailing 1-axes make the two weights broadcast against the ``(n, S, T)`` scores.
    """

    contexts: torch.Tensor
    targets: torch.Tensor
    slot_lr: torch.Tensor
    target_keep: torch.Tensor
    n_pairs: int


def epoch_windows(
    ids: np.ndarray,
    doc: np.ndarray,
    keep: np.ndarray,
    noise: AliasTable,
    config: SGNSConfig,
    rng: np.random.Generator,
    *,
    lr_start: float,
    lr_stop: float,
) -> EpochWindows:
    """Draw one epoch's windows from the corpus ``ids (N,) int64`` with document numbers ``doc (N,)``.

    In order: each token is kept with probability ``keep[id]`` (subsampling; all kept when
    ``config.sample == 0``); each kept token becomes a centre with window size ``b`` drawn from
    ``1 .. window`` (``window`` when not dynamic); its context slots are the kept tokens at offsets
    ``±1 .. ±b`` in its document; its ``K`` negatives are drawn from ``noise``. The learning rate falls
    linearly from ``lr_start`` at the first token of the corpus to ``lr_stop`` after the last, by the
    token's position before subsampling (the tools count words read). All draws come from ``rng``.
    Returns :class:`EpochWindows`.
    """
    N = ids.shape[0]
    W, K = config.window, config.negatives
    kept = np.flatnonzero(rng.random(N) < keep[ids]) if config.sample > 0 else np.arange(N)
    centre, centre_doc = ids[kept], doc[kept]
    n = kept.shape[0]
    offsets = np.concatenate([np.arange(-W, 0), np.arange(1, W + 1)])  # (S,)
    reach = rng.integers(1, W + 1, size=n) if config.dynamic_window else np.full(n, W)
    pos = np.arange(n)[:, None] + offsets[None, :]  # (n, S) positions in the kept sequence
    inside = (pos >= 0) & (pos < n)
    np.clip(pos, 0, max(n - 1, 0), out=pos)
    valid = inside & (np.abs(offsets)[None, :] <= reach[:, None]) & (centre_doc[pos] == centre_doc[:, None])
    lr = lr_start + (lr_stop - lr_start) * (kept / N)  # (n,) by position in the corpus
    slot_lr = np.where(valid, lr[:, None], 0.0).astype(np.float32)
    negatives = alias_draw(noise, (n, K), rng)
    targets = np.concatenate([centre[:, None], negatives], axis=1)
    target_keep = np.ones((n, K + 1), dtype=np.float32)
    target_keep[:, 1:][negatives == centre[:, None]] = 0.0
    return EpochWindows(
        torch.from_numpy(np.ascontiguousarray(centre[pos])),
        torch.from_numpy(targets),
        torch.from_numpy(slot_lr).view(n, 2 * W, 1),
        torch.from_numpy(target_keep).view(n, 1, K + 1),
        int(valid.sum()),
    )


# --- the update ----------------------------------------------------------------------------------------


class Buffers(NamedTuple):
    """Preallocated work space for :func:`sgd_step` on ``c`` windows of ``S`` slots, ``T`` targets and
    width ``D`` (``float32``): gathered rows ``x (c·S, D)`` and ``y (c·T, D)``, scores ``g (c, S, T)``,
    updates ``dx (c, S, D)`` and ``dy (c, T, D)``, and the labels ``label (c, S, T)`` (1 in column 0).
    Make them with :func:`make_buffers`; ``resize`` gives views for a shorter last batch."""

    x: torch.Tensor
    y: torch.Tensor
    g: torch.Tensor
    dx: torch.Tensor
    dy: torch.Tensor
    label: torch.Tensor

    def resize(self, c: int) -> "Buffers":
        """Views of the first ``c`` windows' worth of every buffer (no allocation of data)."""
        S, T = self.g.shape[1], self.g.shape[2]
        return Buffers(self.x[: c * S], self.y[: c * T], self.g[:c], self.dx[:c], self.dy[:c], self.label[:c])


def make_buffers(c: int, S: int, T: int, D: int) -> Buffers:
    """Allocate :class:`Buffers` for batches of up to ``c`` windows (all ``float32``)."""
    label = torch.zeros(c, S, T)
    label[:, :, 0] = 1.0  # column 0 is the observed pair
    x, y = torch.empty(c * S, D), torch.empty(c * T, D)
    return Buffers(x, y, torch.empty(c, S, T), torch.empty(c, S, D), torch.empty(c, T, D), label)


def sgd_step(
    w_in: torch.Tensor,
    w_out: torch.Tensor,
    contexts: torch.Tensor,
    targets: torch.Tensor,
    slot_lr: torch.Tensor,
    target_keep: torch.Tensor,
    buf: Buffers,
) -> None:
    """One SGD step of negative sampling on ``c`` windows, in place on ``w_in`` and ``w_out`` ``(V, D)``.

    ``contexts (c·S,)`` and ``targets (c·T,)`` int64 ids (the rows of :class:`EpochWindows` flattened),
    ``slot_lr (c, S, 1)`` and ``target_keep (c, 1, T)`` float32, ``buf`` sized for exactly ``c`` windows.
    With ``x`` the input row of a slot and ``y`` an output row of the same window, score ``s = x·y``,
    label ``ℓ`` (1 in column 0, else 0) and ``g = lr · keep · (ℓ - σ(s))``, every row gets
    ``x += Σ g·y`` and ``y += Σ g·x`` over the pairs it is in, computed from the values before the step:
    exactly ``-lr ×`` the gradient of the summed loss ``-Σ [ℓ log σ(s) + (1-ℓ) log σ(-s)]``
    (Mikolov et al. 2013b, eq. 4). Nothing is allocated beyond views; shapes are trusted (inner loop).
    """
    c, S, T = buf.g.shape
    x = torch.index_select(w_in, 0, contexts, out=buf.x).view(c, S, -1)
    y = torch.index_select(w_out, 0, targets, out=buf.y).view(c, T, -1)
    g = torch.bmm(x, y.transpose(1, 2), out=buf.g)  # (c, S, T) scores x·y
    g.sigmoid_()
    torch.sub(buf.label, g, out=g)  # ℓ - σ(s)
    g.mul_(slot_lr).mul_(target_keep)  # step size; 0 for padding and for a negative equal to the positive
    torch.bmm(g, y, out=buf.dx)  # (c, S, D): Σ_t g·y for each input row
    torch.bmm(g.transpose(1, 2), x, out=buf.dy)  # (c, T, D): Σ_s g·x for each output row
    w_in.index_add_(0, contexts, buf.dx.view(c * S, -1))
    w_out.index_add_(0, targets, buf.dy.view(c * T, -1))


def _train_range(w_in, w_out, epoch: EpochWindows, start: int, stop: int, buf: Buffers) -> None:
    """Run :func:`sgd_step` over windows ``start .. stop`` of ``epoch`` in batches of ``buf``'s size."""
    c_max, S, T = buf.g.shape
    contexts, targets = epoch.contexts.view(-1), epoch.targets.view(-1)
    for s in range(start, stop, c_max):
        e = min(s + c_max, stop)
        b = buf if e - s == c_max else buf.resize(e - s)
        sgd_step(
            w_in, w_out, contexts[s * S : e * S], targets[s * T : e * T], epoch.slot_lr[s:e], epoch.target_keep[s:e], b
        )



# --- training ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SGNSResult:
    """A trained model: ``vectors`` (the input table) and ``output_vectors`` ``(V, D) float32`` NumPy
    copies; ``n_words`` (in-vocabulary tokens × epochs) and ``n_pairs`` (pairs trained, all epochs);
    ``seconds`` (wall time of the training loop, sampling included); ``provenance``; and
    ``initial_vectors`` ``(V, D) float32``, the input table before the first step, so that what training
    did to each row can be measured (a row whose token never occurs keeps it exactly)."""

    vectors: np.ndarray
    output_vectors: np.ndarray
    n_words: int
    n_pairs: int
    seconds: float
    provenance: Provenance = field(default_factory=Provenance)
    initial_vectors: np.ndarray | None = None


def _flatten(sentences, vocab_size: int) -> Tuple[np.ndarray, np.ndarray]:
    if isinstance(sentences, (str, bytes, np.ndarray)):
        raise TypeError("sentences must be a sequence of 1-D integer id arrays (one per document)")
    arrays = [np.asarray(s) for s in sentences]
    for k, a in enumerate(arrays):
        if a.ndim != 1:
            raise ValueError(f"sentences[{k}] must be 1-D, got shape {a.shape}")
        if a.size and (a.dtype == bool or not np.issubdtype(a.dtype, np.integer)):
            raise TypeError(f"sentences[{k}] must hold integer ids, got dtype {a.dtype}")
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
    non-integer ids, ``ValueError`` for ids outside ``[0, V)``, an empty corpus or counts that are not a
    valid count vector (as :func:`lib.corpus.keep_probability`).
    """
    if not isinstance(config, SGNSConfig):
        raise TypeError(f"config must be an SGNSConfig, got {type(config).__name__}")
    counts = np.asarray(counts)
    if config.sample > 0:
        keep = keep_probability(counts, config.sample, formula="word2vec")
    else:
        keep = np.ones(counts.shape[0])
    V, D, K, S = counts.shape[0], config.dim, config.negatives, config.context_slots
    ids, doc = _flatten(sentences, V)
    noise = alias_table(noise_distribution(counts, config.power))
    rng = np.random.default_rng(config.seed)
    w_in = torch.from_numpy(((rng.random((V, D), dtype=np.float32) - 0.5) / D))  # word2vec's initialisation
    initial = w_in.numpy().copy()
    w_out = torch.zeros(V, D)
    buffers = [make_buffers(config.batch_windows, S, config.targets_per_window, D) for _ in range(config.workers)]
    schedule = np.linspace(config.alpha, config.min_alpha, config.epochs + 1)
    n_pairs = 0
    pool = ThreadPoolExecutor(config.workers) if config.workers > 1 else None
    sampler = ThreadPoolExecutor(1)  # draws the next epoch's windows while this one trains

    def windows_of(e: int) -> EpochWindows:
        return epoch_windows(ids, doc, keep, noise, config, rng, lr_start=schedule[e], lr_stop=schedule[e + 1])

    start = time.perf_counter()
    try:
        with torch_threads(1), torch.no_grad():
            upcoming = sampler.submit(windows_of, 0)
            for e in progress(range(config.epochs), desc=desc or "skip-gram (SGNS)"):
                epoch = upcoming.result()
                if e + 1 < config.epochs:  # epochs are drawn in order from one generator: still deterministic
                    upcoming = sampler.submit(windows_of, e + 1)
                n_pairs += epoch.n_pairs
                n = epoch.contexts.shape[0]
                if pool is None:
                    _train_range(w_in, w_out, epoch, 0, n, buffers[0])
                else:  # Hogwild: disjoint halves of the epoch, shared tables, no locks
                    cuts = np.linspace(0, n, config.workers + 1).astype(int)
                    jobs = [
                        pool.submit(_train_range, w_in, w_out, epoch, cuts[i], cuts[i + 1], buffers[i])
                        for i in range(config.workers)
                    ]
                    for job in jobs:
                        job.result()
    finally:
        sampler.shutdown(cancel_futures=True)
        if pool is not None:
            pool.shutdown()
    seconds = time.perf_counter() - start
    fields = dict(
        n_pairs=int(n_pairs),
        subsampling=(
            f"t = {exact(config.sample)}, keep min(1, (sqrt(f/t) + 1) t/f) (word2vec.c), before windowing"
            if config.sample > 0
            else "none"
        ),
        objective="skip-gram, negative sampling (logistic loss), word2vec roles (input = context word)",
        negatives=K,
        noise_distribution=(
            f"unigram^{config.power} of the corpus counts, alias table; shared by the pairs of one window"
        ),
        negative_policy="left out (word2vec.c, gensim)",
        dimension=D,
        initialisation="input uniform(-0.5/D, 0.5/D), output zero (word2vec)",
        optimiser="SGD, hand-written updates",
        learning_rate=float(config.alpha),
        batch=f"{config.batch_windows} windows per step, {config.workers} worker thread(s)",
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
    return SGNSResult(w_in.numpy().copy(), w_out.numpy().copy(), n_words, int(n_pairs), seconds, prov, initial)


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
    "EpochWindows",
    "SGNSConfig",
    "SGNSResult",
    "alias_draw",
    "alias_table",
    "epoch_windows",
    "make_buffers",
    "sgd_step",
    "sgns_embedding",
    "train_sgns",
]
