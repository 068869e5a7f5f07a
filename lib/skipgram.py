"""Skip-gram in PyTorch: full softmax and negative sampling, with a small full-batch trainer.

Taught in: chapters/embeddings.md (Level 3, predictive training on the constructed corpus).

The model :cite:p:`mikolov2013efficient{§3.2},mikolov2013negative` keeps two tables, input vectors ``v_w``
for centre items and output vectors ``u_c`` for context items, both ``(V, D)``. For a (centre ``w``, context ``c``) pair:

- full softmax :cite:p:`mikolov2013negative{equation 2}`: ``-log p(c | w) = -u_c·v_w + log Σ_j exp(u_j·v_w)``, computed by
  :func:`softmax_cross_entropy` from the logits ``u_j·v_w`` (PyTorch's ``cross_entropy``, which applies
  log-softmax itself: the logits must not be passed through a softmax first);
- negative sampling :cite:p:`mikolov2013negative{§2.2, equation 4}`: ``-[log σ(u_c·v_w) + Σ_k log σ(-u_{n_k}·v_w)]`` with
  ``K`` negatives drawn from the noise distribution ``U(w)^{3/4} / Z`` (:func:`noise_distribution`),
  computed with ``logsigmoid`` (:func:`negative_sampling_loss`), which stays finite where
  ``log(sigmoid(x))`` underflows to ``-inf``.

A negative may happen to equal the positive context. The paper does not say what to do; the tools
differ, so :func:`sample_negatives` makes it a stated ``policy``: ``"mask"`` (default; the term is left
out, as ``word2vec.c`` does with ``if (target == word) continue`` and gensim 4's ``word2vec_inner.pyx``
likewise), ``"resample"`` (drawn again until it differs) or ``"allow"`` (kept: the literal expectation of
equation 4).

:func:`train_skipgram` trains on all pairs at once (full batch) with Adam, shows progress through
:mod:`lib.progress`, and returns the vectors, the loss history and a :class:`lib.provenance.Provenance`.
With the chapter's settings (constructed corpus, whole-sentence context, D = 8, seed 17, Adam with
learning rate 0.04, 350 steps, full softmax) it reproduces the run of :ref:`the textbook chapter Embeddings <sources>`
operation for operation: both tables are drawn ``N(0, 1)`` from one generator seeded with 17, input table first, the
draws ``torch.nn.Embedding`` makes after ``torch.manual_seed(17)``; but the global RNG is never touched.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Tuple

import numpy as np
import torch
import torch.nn.functional as F

from lib import validate
from lib.corpus import context_pairs, describe_context, keep_probability, subsample
from lib.progress import progress
from lib.provenance import Provenance, for_corpus, software_versions
from lib.threads import torch_threads

OBJECTIVES = ("full_softmax", "negative_sampling")

NEGATIVE_POLICIES = ("mask", "resample", "allow")


# --- noise distribution and pairs --------------------------------------------------------------------


def noise_distribution(counts, power: float = 0.75) -> np.ndarray:
    """Unigram counts raised to ``power`` and normalised: ``(V,) float64`` summing to 1.

    ``P_n(i) = count_i^power / Σ_j count_j^power`` :cite:p:`mikolov2013negative{§2.2}`; the unigram
    distribution to the 3/4 power outperformed the unigram and uniform ones there. ``power=1`` is the unigram,
    ``power=0`` uniform over the items seen. Items with a zero count get probability 0 for every ``power``.
    Example: counts ``[1, 8, 27, 64]`` → ``[0.0249, 0.1182, 0.2944, 0.5625]``.

    Raises ``TypeError`` for non-numeric counts (strings, complex numbers, bools:
    :func:`lib.validate.real_numbers`), ``ValueError`` for negative or non-finite counts (a Python integer
    beyond float64 included; one beyond int64, ``10**30``, is a count), all zero counts, a ragged nesting, or
    ``power`` negative or not finite.

    >>> noise_distribution([1, 8, 27, 64])
    array([0.0249, 0.1182, 0.2944, 0.5625])
    """
    c = validate.real_numbers(counts, "counts", "a non-empty 1-D array").astype(np.float64)
    if c.ndim != 1 or c.shape[0] < 1:
        raise ValueError(f"counts must be a non-empty 1-D array, got shape {c.shape}")
    if not np.all(np.isfinite(c)) or (c < 0).any():
        raise ValueError("counts must be finite and >= 0")
    power = validate.number(power, "power", ge=0)
    if not (c > 0).any():
        raise ValueError("counts must not all be zero")
    # in log space, so that neither tiny nor huge counts under- or overflow: w ∝ exp(power · log c)
    log_w = np.full_like(c, -np.inf)
    np.multiply(power, np.log(c, where=c > 0, out=np.zeros_like(c)), out=log_w, where=c > 0)
    w = np.exp(log_w - log_w.max())
    return w / w.sum()


def _as_pairs(pairs, vocab_size: int) -> np.ndarray:
    arr = validate.integer_array(pairs, "pairs", "an (n, 2) array of (centre, context) ids")
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"pairs must have shape (n, 2) (centre, context), got {arr.shape}")
    if arr.shape[0] == 0:
        raise ValueError("pairs must not be empty")
    return validate.ids(arr, vocab_size, "pair id")


def pair_batches(pairs, batch_size: int, *, shuffle: bool = True, seed=0, drop_last: bool = False) -> Iterator[Tuple[torch.Tensor, torch.Tensor]]:
    """Iterate over ``(centres, contexts)`` ``int64`` tensors of ``batch_size`` pairs (one epoch).

    ``pairs`` is ``(n, 2)`` as returned by :func:`lib.corpus.context_pairs`. With ``shuffle=True`` the
    order is a permutation drawn from ``torch.Generator().manual_seed(seed)`` (``seed`` may also be a
    ``torch.Generator``); the global RNG is not used. The last batch is shorter unless ``drop_last``.
    Raises ``ValueError`` for ``batch_size < 1``, malformed pairs (another shape, a ragged nesting), or ids
    that are negative or beyond ``int64``; ``TypeError`` for ids that are not integers (bools too) and for a
    ``shuffle`` or ``drop_last`` that is not ``True`` or ``False``.
    """
    batch_size = validate.size(batch_size, "batch_size", low=1)
    shuffle, drop_last = validate.flag(shuffle, "shuffle"), validate.flag(drop_last, "drop_last")
    arr = validate.integer_array(pairs, "pairs", "an (n, 2) array of (centre, context) ids")
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"pairs must have shape (n, 2) (centre, context), got {arr.shape}")
    if arr.size and (arr < 0).any():
        raise ValueError("pair ids must be >= 0")
    validate.within_int64(arr, "pairs")  # a uint64 id of 2**63 or more would wrap around to a negative one
    t = torch.as_tensor(arr.astype(np.int64))
    n = t.shape[0]
    if shuffle:
        gen = seed if isinstance(seed, torch.Generator) else torch.Generator().manual_seed(validate.seed(seed))
        t = t[torch.randperm(n, generator=gen)]
    stop = n - n % batch_size if drop_last else n
    for start in range(0, stop, int(batch_size)):
        chunk = t[start : start + int(batch_size)]
        yield chunk[:, 0], chunk[:, 1]


#: the largest learning rate :func:`train_skipgram` takes: Adam's first step, ``lr / (1 − β₁) = 10 lr``, is
#: computed in float32 (largest about 3.4e38); PyTorch raises its own overflow error beyond
LR_MAX = 1e37


# --- losses -------------------------------------------------------------------------------------------


def softmax_cross_entropy(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Mean of ``-log softmax(logits)[target]`` over the batch, in nats: a 0-d tensor.

    ``logits`` ``(B, V)`` float are raw scores (``u_j·v_w``); do **not** apply a softmax first, the
    log-softmax is part of this loss (PyTorch's ``cross_entropy``, which subtracts the maximum before
    exponentiating). ``targets`` ``(B,)`` int64 in ``[0, V)``. Logits ``[2, 0, 0]`` with target 0 give
    ``log(1 + 2 e^{-2}) = 0.2395``. The mean is taken without overflow: rows whose losses are each finite
    but whose sum is not (two losses of 1.5e308 in float64) give their true mean. Raises ``ValueError`` on
    mismatched shapes, an empty batch (``B = 0``: no mean), NaN or infinite logits, a target out of range,
    or a row whose loss is beyond the range of the logits' dtype (float64: about 1.8e308; its target's logit
    lies that far below the row's largest); ``TypeError`` for an argument that is not a tensor (a NumPy
    array) or logits that are not floating-point (integer, bool or complex).

    >>> logits, targets = torch.tensor([[2.0, 0.0, 0.0]]), torch.tensor([0])
    >>> round(float(softmax_cross_entropy(logits, targets)), 4)
    0.2395
    """
    validate.tensor(logits, "logits", "(B, V)", floating=True, finite=True)
    validate.tensor(targets, "targets", "(B,)")
    if logits.ndim != 2 or targets.ndim != 1 or logits.shape[0] != targets.shape[0]:
        raise ValueError(f"logits must be (B, V) and targets (B,), got {tuple(logits.shape)} and {tuple(targets.shape)}")
    if logits.shape[0] == 0 or logits.shape[1] == 0:
        raise ValueError(f"logits must be (B, V) with B >= 1 and V >= 1 (the mean of no rows is undefined), "
                         f"got {tuple(logits.shape)}")
    validate.ids(targets.detach().cpu().numpy(), logits.shape[1], "target")
    loss = F.cross_entropy(logits, targets)  # log-softmax with the row maximum subtracted
    if torch.isfinite(loss):
        return loss
    rows = F.cross_entropy(logits, targets, reduction="none")  # (B,): finite unless beyond the dtype
    bad = torch.nonzero(~torch.isfinite(rows)).flatten()
    if bad.numel():
        row = int(bad[0])
        raise ValueError(f"the loss of row {row} (target {int(targets[row])}) is beyond the range of {logits.dtype} "
                         f"(about {torch.finfo(logits.dtype).max:.1e}): its target's logit lies that far below the "
                         f"row's largest, and such a loss has no {logits.dtype} value")
    return (rows / rows.shape[0]).sum()  # each term <= the largest loss: the sum of the shares cannot overflow


def negative_sampling_loss(
    centre: torch.Tensor, positive: torch.Tensor, negatives: torch.Tensor, mask: torch.Tensor | None = None
) -> torch.Tensor:
    """Mean negative-sampling loss over a batch, in nats: a 0-d tensor.

    ``-[log σ(u_c·v_w) + Σ_k m_k log σ(-u_{n_k}·v_w)]`` averaged over the ``B`` pairs
    :cite:p:`mikolov2013negative{equation 4, negated to be minimised}`. ``centre`` ``(B, D)`` are the input
    vectors ``v_w``, ``positive`` ``(B, D)`` the output vectors of the observed contexts, ``negatives`` ``(B, K, D)``
    those of the sampled items, ``mask`` ``(B, K)`` bool (or 0/1 float): ``False`` leaves a negative
    out (default: all in). ``log σ`` is ``F.logsigmoid``, finite for any finite score (a score of
    ``-1000`` costs 1000 nats instead of ``inf``). Where a score or the loss overflows the vectors' dtype
    although the vectors are finite (entries near ``1e20`` in float32, whose products overflow), the scores
    are recomputed in float64 with each row scaled by a power of two (exact, as in
    :func:`lib.embedding.power_of_two_scale`), so that a loss the dtype can hold comes out right (scores
    ``1e40 - 1e40 = 0`` give ``2 ln 2``) instead of NaN or ``inf``. Raises ``ValueError`` on mismatched
    shapes, NaN or infinite vectors, an empty batch (``B = 0``), or a loss beyond the range of the vectors' dtype (float32: about
    3.4e38; a positive score, or a negative's negated score, that far below 0); ``TypeError`` for an
    argument that is not a tensor or vectors that are not floating-point.

    >>> v = torch.tensor([[1.0, 0.0]])
    >>> # -log σ(1) - log σ(0)
    >>> round(float(negative_sampling_loss(v, v, torch.zeros(1, 1, 2))), 4)
    1.0064
    """
    validate.tensor(centre, "centre", "(B, D)", floating=True, finite=True)
    validate.tensor(positive, "positive", "(B, D)", floating=True, finite=True)
    validate.tensor(negatives, "negatives", "(B, K, D)", floating=True, finite=True)
    if mask is not None:
        validate.tensor(mask, "mask", "(B, K)")
    if centre.ndim != 2 or positive.shape != centre.shape:
        raise ValueError(f"centre and positive must both be (B, D), got {tuple(centre.shape)} and {tuple(positive.shape)}")
    if negatives.ndim != 3 or negatives.shape[0] != centre.shape[0] or negatives.shape[2] != centre.shape[1]:
        raise ValueError(f"negatives must be (B, K, D) = ({centre.shape[0]}, K, {centre.shape[1]}), got {tuple(negatives.shape)}")
    pos_score = (centre * positive).sum(-1)  # (B,)
    neg_score = torch.einsum("bkd,bd->bk", negatives, centre)  # (B, K)
    neg_term = F.logsigmoid(-neg_score)
    if mask is not None:
        if tuple(mask.shape) != tuple(neg_score.shape):
            raise ValueError(f"mask must have shape {tuple(neg_score.shape)}, got {tuple(mask.shape)}")
        neg_term = neg_term * mask.to(neg_term.dtype)
    loss = -(F.logsigmoid(pos_score) + neg_term.sum(-1)).mean()
    if torch.isfinite(loss) and torch.isfinite(pos_score).all() and torch.isfinite(neg_score).all():
        return loss
    return _scaled_negative_sampling_loss(centre, positive, negatives, mask)


def _row_scale(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    """``x`` as float64 with each row (last axis) divided by the power of two ``2**e`` that puts its largest
    ``|entry|`` in [0.5, 1) (``e = 0`` for a zero row), and ``e`` (int64, the row's shape less the last
    axis). The division is two multiplications by powers of two that float64 holds, so it is exact except
    for entries that become subnormal; it keeps the autograd graph."""
    x = x.to(torch.float64)
    top = x.detach().abs().amax(-1) if x.shape[-1] else torch.zeros(x.shape[:-1], dtype=torch.float64)
    e = torch.where(top > 0, torch.frexp(top)[1].to(torch.int64), torch.zeros_like(top, dtype=torch.int64))
    return _times_power_of_two(x, -e[..., None]), e


def _times_power_of_two(x: torch.Tensor, e: torch.Tensor) -> torch.Tensor:
    """``x * 2**e`` (float64 ``x``, int64 ``e`` broadcast with it, ``|e| <= 2200``) as three multiplications
    by powers of two that float64 holds, all of one sign of exponent: exact unless the result overflows
    (``±inf``) or becomes subnormal, and 0 stays 0 (never ``0 * inf``); it keeps the autograd graph."""
    two = torch.full((), 2.0, dtype=torch.float64)
    first = torch.div(e, 3, rounding_mode="trunc")
    second = torch.div(e - first, 2, rounding_mode="trunc")
    return x * two.pow(first) * two.pow(second) * two.pow(e - first - second)


def _scaled_negative_sampling_loss(centre, positive, negatives, mask) -> torch.Tensor:
    """:func:`negative_sampling_loss` for checked arguments whose scores or loss overflow their dtype: the
    scores from rows scaled by powers of two (``_row_scale``), in float64, then scaled back (``±inf``
    only where a score is beyond float64, which ``F.logsigmoid`` maps to 0 or ``-inf``); the mean is taken
    as a sum of shares, so that it cannot overflow where the row losses do not. Raises ``ValueError`` where
    the loss is beyond the range of the vectors' dtype."""
    dtype = centre.dtype
    if centre.shape[0] == 0:
        raise ValueError("centre must hold B >= 1 rows: the mean loss of an empty batch is undefined")
    c, ce = _row_scale(centre)
    p, pe = _row_scale(positive)
    n, ne = _row_scale(negatives)
    pos_score = _times_power_of_two((c * p).sum(-1), ce + pe)  # (B,) float64
    neg_score = _times_power_of_two(torch.einsum("bkd,bd->bk", n, c), ne + ce[:, None])  # (B, K)
    neg_term = F.logsigmoid(-neg_score)
    if mask is not None:
        keep = mask != 0
        neg_term = torch.where(keep, neg_term * mask.to(torch.float64), torch.zeros_like(neg_term))
    rows = -(F.logsigmoid(pos_score) + neg_term.sum(-1))  # (B,) float64, +inf where beyond float64
    loss = (rows / rows.shape[0]).sum().to(dtype)  # each share <= the largest row loss: no overflow
    if not torch.isfinite(loss):
        bad = torch.nonzero(~torch.isfinite(rows.to(dtype))).flatten()
        where = f"the loss of row {int(bad[0])}" if bad.numel() else "the mean loss"
        raise ValueError(f"{where} is beyond the range of {dtype} (about {torch.finfo(dtype).max:.1e}): "
                         f"a score of centre with positive, or of centre with a negatives row negated, lies that "
                         f"far below 0, and such a loss has no {dtype} value")
    return loss


def sample_negatives(
    positives: torch.Tensor, noise, k: int, *, generator: torch.Generator, policy: str = "mask"
) -> Tuple[torch.Tensor, torch.Tensor]:
    """Draw ``k`` negatives per positive from ``noise``: ``(negatives (B, k) int64, keep (B, k) bool)``.

    ``positives`` ``(B,)`` int64 are the observed context ids; ``noise`` ``(V,)`` a probability vector
    (:func:`noise_distribution`); draws are with replacement, from ``generator`` only. ``policy`` for a
    negative equal to its positive: ``"mask"`` (``keep`` is ``False`` there, so the loss leaves it out:
    word2vec.c and gensim), ``"resample"`` (drawn again until it differs, ``keep`` all ``True``),
    ``"allow"`` (kept, ``keep`` all ``True``). Raises ``ValueError`` for ``k < 1``, an unknown policy, a
    noise vector that is not a distribution, or ``"resample"`` when some positive holds all the noise mass;
    ``TypeError`` for a noise vector that does not hold real numbers, ``positives`` that is not a tensor or
    a ``generator`` that is not a ``torch.Generator``.
    """
    validate.tensor(positives, "positives", "(B,)")
    if not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator, got {type(generator).__name__}")
    k = validate.size(k, "k (negatives per positive)", low=1)
    validate.choice(policy, "policy", NEGATIVE_POLICIES)
    p = torch.as_tensor(validate.real_numbers(noise, "noise", "a 1-D probability vector").astype(np.float64))
    if p.ndim != 1 or not torch.isfinite(p).all() or (p < 0).any() or abs(float(p.sum()) - 1.0) > 1e-6:
        raise ValueError("noise must be a 1-D probability vector (finite, >= 0, summing to 1)")
    validate.ids(positives.detach().cpu().numpy(), p.shape[0], "positive id")
    B = positives.shape[0]
    draws = torch.multinomial(p, B * int(k), replacement=True, generator=generator).view(B, int(k))
    same = draws == positives[:, None]
    if policy == "mask":
        return draws, ~same
    if policy == "resample":
        if (p[positives] >= 1.0 - 1e-12).any():
            raise ValueError("policy='resample' is impossible: a positive holds all the noise mass")
        while same.any():
            n = int(same.sum())
            draws[same] = torch.multinomial(p, n, replacement=True, generator=generator)
            same = draws == positives[:, None]
    return draws, torch.ones_like(draws, dtype=torch.bool)


# --- trainer ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SkipGramResult:
    """A trained skip-gram: ``input_vectors`` and ``output_vectors`` ``(V, D) float32`` (NumPy copies),
    ``losses`` ``(steps,) float64`` (the loss at each step, before its update, in nats) and
    ``provenance`` (:class:`lib.provenance.Provenance`). The input table is the usual word vectors."""

    input_vectors: np.ndarray
    output_vectors: np.ndarray
    losses: np.ndarray
    provenance: Provenance



def _fit(P, V, dim, objective, steps, lr, seed, negatives, noise, negative_policy, desc):
    """The training loop of :func:`train_skipgram` (arguments already checked); see its docstring."""
    gen = torch.Generator().manual_seed(seed)
    w_in = torch.nn.Parameter(torch.randn(V, dim, generator=gen))
    w_out = torch.nn.Parameter(torch.randn(V, dim, generator=gen))
    optimiser = torch.optim.Adam([w_in, w_out], lr=lr)
    centres = torch.as_tensor(P[:, 0])
    contexts = torch.as_tensor(P[:, 1])
    losses = []
    for _ in progress(range(steps), desc=desc or f"skip-gram ({objective})"):
        v = F.embedding(centres, w_in)  # (n, D): the same op as nn.Embedding's forward
        if objective == "full_softmax":
            loss = F.cross_entropy(v @ w_out.T, contexts)  # targets checked once by _as_pairs
        else:
            neg, keep = sample_negatives(contexts, noise, negatives, generator=gen, policy=negative_policy)
            try:
                loss = negative_sampling_loss(v, F.embedding(contexts, w_out), F.embedding(neg, w_out), keep)
            except ValueError as err:  # the arguments are checked above: only overflow of the tables or the loss
                raise FloatingPointError(
                    f"skip-gram training diverged at step {len(losses) + 1} of {steps}: {err} (learning rate "
                    f"{lr}); lower the learning rate"
                ) from err
        if not torch.isfinite(loss):  # divergence: stop with a report, never train on into NaN
            raise FloatingPointError(
                f"skip-gram training diverged at step {len(losses) + 1} of {steps}: the loss became "
                f"{loss.item()} (learning rate {lr}); lower the learning rate"
            )
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        losses.append(loss.item())
    return w_in, w_out, losses


def train_skipgram(
    pairs,
    vocab_size: int,
    *,
    dim: int = 8,
    objective: str = "full_softmax",
    steps: int = 350,
    lr: float = 0.04,
    seed: int = 17,
    negatives: int = 5,
    noise=None,
    negative_policy: str = "mask",
    provenance: Provenance | None = None,
    desc: str | None = None,
    num_threads: int | None = 1,
) -> SkipGramResult:
    """Train a skip-gram on all ``pairs`` at once (full batch) with Adam; return vectors and losses.

    ``pairs`` ``(n, 2)`` int (centre, context) ids in ``[0, vocab_size)``, from
    :func:`lib.corpus.context_pairs`. Both tables ``(vocab_size, dim)`` start ``N(0, 1)`` (the
    ``torch.nn.Embedding`` default), drawn input table first from ``torch.Generator().manual_seed(seed)``,
    which also draws the negatives. Each step computes the loss on every pair, back-propagates and takes
    one ``torch.optim.Adam(lr=lr)`` step (default betas and eps).

    ``objective="full_softmax"``: :func:`softmax_cross_entropy` of the logits ``v_w · U^T``.
    ``objective="negative_sampling"``: :func:`negative_sampling_loss` with ``negatives`` fresh draws per
    pair and step from ``noise`` (``(V,)`` probabilities; default :func:`noise_distribution` of the
    context counts of ``pairs``), with ``negative_policy`` for a negative equal to its positive.

    ``provenance`` (optional) carries the item and data fields (see :func:`lib.provenance.for_corpus`);
    the training fields are filled in here. Progress is shown with ``desc`` through :mod:`lib.progress`.
    ``num_threads`` (default 1) sets PyTorch's intra-op threads for the run and restores the previous
    value afterwards (``None`` leaves it alone): tensors this small gain nothing from a second thread, and
    waiting for one costs time on a machine whose cores are shared. Results do not depend on it.
    Raises ``ValueError`` for an unknown objective or policy, non-positive ``dim``/``steps``/
    ``negatives``, ``lr`` not finite and in ``(0, LR_MAX]`` (``LR_MAX`` = 1e37: Adam's first step,
    ``lr / (1 − β₁) = 10 lr``, is computed in float32, whose largest value is about 3.4e38), ids out of range,
    or a bad noise vector.
    """
    V = validate.size(vocab_size, "vocab_size", low=1)
    P = _as_pairs(pairs, V)
    dim = validate.size(dim, "dim", low=1)
    validate.entries((V, dim), "vocab_size and dim")
    steps = validate.size(steps, "steps", low=1)
    seed = validate.seed(seed)
    validate.choice(objective, "objective", OBJECTIVES)
    lr = validate.number(lr, "lr", gt=0, le=LR_MAX, hint="Adam's first step, lr / (1 - beta1) = 10 lr, must fit in float32")
    if objective == "negative_sampling":
        negatives = validate.size(negatives, "negatives", low=1)
        validate.choice(negative_policy, "negative_policy", NEGATIVE_POLICIES)
        noise_desc = "given"
        if noise is None:
            noise = noise_distribution(np.bincount(P[:, 1], minlength=V), 0.75)
            noise_desc = "unigram^0.75 of the context counts"
        noise = validate.real_numbers(noise, "noise", f"a probability vector ({V},)").astype(np.float64)
        if noise.shape != (V,):
            raise ValueError(f"noise must have shape ({V},), got {noise.shape}")

    if num_threads is not None:
        num_threads = validate.workers(num_threads, "num_threads")
    with torch_threads(num_threads):
        w_in, w_out, losses = _fit(P, V, dim, objective, steps, float(lr), seed, negatives, noise, negative_policy, desc)

    fields = dict(
        n_pairs=int(P.shape[0]),
        objective=(
            "skip-gram, full softmax (cross-entropy over all items)"
            if objective == "full_softmax"
            else "skip-gram, negative sampling (logistic loss)"
        ),
        negatives=negatives if objective == "negative_sampling" else None,
        noise_distribution=noise_desc if objective == "negative_sampling" else None,
        negative_policy=(
            {"mask": "masked out (as word2vec.c and gensim)", "resample": "redrawn", "allow": "kept"}[negative_policy]
            if objective == "negative_sampling"
            else None
        ),
        dimension=dim,
        initialisation="N(0, 1) for both tables, input table drawn first",
        optimiser="Adam (betas 0.9, 0.999; eps 1e-08)",
        learning_rate=float(lr),
        batch=f"full batch ({int(P.shape[0])} pairs per step)",
        stopping_rule=f"fixed number of steps ({steps})",
        seed=seed,
        vectors="input table (centre vectors)",
        normalisation="none (raw input vectors)",
        dtype="float32",
        software=software_versions("torch", "numpy"),
    )
    prov = (provenance or Provenance()).replace(**fields)
    return SkipGramResult(
        w_in.detach().numpy().copy(), w_out.detach().numpy().copy(), np.asarray(losses, dtype=np.float64), prov
    )


def skipgram_embedding(
    sentences,
    vocab,
    *,
    window: int | None = None,
    symmetric: bool = True,
    subsample_t: float | None = None,
    subsample_seed: int = 0,
    corpus: str = "unnamed corpus",
    **train_kwargs,
) -> SkipGramResult:
    """Encode ``sentences`` with ``vocab``, optionally subsample, make pairs, and :func:`train_skipgram`.

    ``sentences`` are sequences of ``str``; ``vocab`` a :class:`lib.corpus.Vocabulary`; ``window`` and
    ``symmetric`` as in :func:`lib.corpus.context_pairs`; ``subsample_t`` the threshold of
    :func:`lib.corpus.subsample` (paper formula, counts from the encoded corpus, seed
    ``subsample_seed``) or ``None`` for no subsampling. Negative sampling's noise defaults to
    :func:`noise_distribution` of the encoded corpus's token counts (before subsampling, as word2vec).
    ``train_kwargs`` go to :func:`train_skipgram`. The provenance records all of it.
    Raises like the functions it calls, and ``ValueError`` if no pair is left.
    """
    ids = vocab.encode_sentences(sentences)
    counts = np.bincount(np.concatenate(ids), minlength=len(vocab)) if ids else np.zeros(len(vocab), np.int64)
    if subsample_t is None:
        sub_desc = "none"
    else:
        keep = keep_probability(counts, subsample_t)
        ids = subsample(ids, counts, subsample_t, seed=subsample_seed)
        sub_desc = (
            f"τ = {float(subsample_t)!r}, keep min(1, sqrt(τ/f)) (the rule of the word2vec paper), seed {subsample_seed}; "
            f"{int((keep < 1).sum())} items affected"
        )
    pairs = context_pairs(ids, window, symmetric=symmetric)
    if pairs.shape[0] == 0:
        raise ValueError("no (centre, context) pair is left: sentences too short or everything subsampled")
    if train_kwargs.get("objective") == "negative_sampling" and train_kwargs.get("noise") is None:
        train_kwargs["noise"] = noise_distribution(counts, 0.75)
        noise_note = "unigram^0.75 of the corpus counts"
    else:
        noise_note = None
    base = for_corpus(vocab, sentences, corpus=corpus, context=describe_context(window, symmetric), subsampling=sub_desc)
    result = train_skipgram(pairs, len(vocab), provenance=base, **train_kwargs)
    if noise_note is not None:
        result = SkipGramResult(
            result.input_vectors, result.output_vectors, result.losses, result.provenance.replace(noise_distribution=noise_note)
        )
    return result


__all__ = [
    "NEGATIVE_POLICIES",
    "OBJECTIVES",
    "SkipGramResult",
    "negative_sampling_loss",
    "noise_distribution",
    "pair_batches",
    "sample_negatives",
    "skipgram_embedding",
    "softmax_cross_entropy",
    "train_skipgram",
]
