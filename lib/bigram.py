"""Bigram language models: the full count table, and a bigram factored through an embedding bottleneck.

Taught in: chapters/lesson.md (the width table: how many numbers a token needs).

Two models of ``P(next token | previous token)`` over a vocabulary of ``V`` tokens:

- the **full table** (:func:`count_table`): one free row of ``V`` probabilities per previous token, the
  row-normalised bigram counts, which is the maximum-likelihood bigram model (``V × V`` parameters);
- the **factored bigram** (:func:`train_factored`): ``logits = E[x] @ U`` with an embedding table ``E``
  ``(V, d)`` and an output matrix ``U`` ``(d, V)``, so everything the model knows about the previous token
  passes through ``d`` numbers (``2 V d`` parameters). This is the neural bigram of :cite:t:`bengio2003neural`,
  §2, with a context of one token, no hidden layer and no biases, trained by full-batch gradient descent
  with hand-written gradients (softmax cross-entropy: ``dlogits = P − onehot(y)``, then
  ``dU = E[x]ᵀ dlogits`` and ``dE = onehotᵀ (dlogits Uᵀ)``).

Losses are mean cross-entropies in nats per predicted token. Departures from :cite:t:`bengio2003neural`, both
for speed and for a clear report: training reads the count matrix instead of the pairs (below), and a run
that diverges stops and says so instead of training on into NaN (below).

Training on counts instead of pairs. The full-batch loss and gradients of a bigram model depend on the
training pairs ``(x_n, y_n)`` only through the count matrix ``C[i, j] = #{n : x_n = i, y_n = j}``:
summing over the pairs that share a previous token ``i`` gives

    loss  = −(1/N) Σ_ij C_ij log softmax(E_i U)_j
    dZ_i  = (n_i softmax(E_i U) − C_i) / N          with n_i = Σ_j C_ij, Z = E U

so one weighted row per token replaces ``n_i`` identical rows, and a step costs ``O(V² d)`` instead of
``O(N V d)``. :func:`factored_loss_and_grads` uses the counts; :func:`pairs_loss_and_grads` is the same
computation over raw pairs, written as :ref:`Lesson 2.3 <sources>` writes it; the two agree to rounding.

Divergence, and why the fallback step is small. Gradient descent is stable while the learning rate times
the sharpness of the loss (the largest eigenvalue of its Hessian) stays below 2. The narrow models have no
finite optimum: their weights keep growing and the sharpness grows with them (for width 1, by about 2 per
1,000 units of ``lr × steps``). At lr 10 widths 1 and 2 cross the limit: width 2 blows up within a hundred
steps; width 1 first wanders chaotically, so the step at which it blows up depends on rounding noise (it ranges
from about 440 to 1,600 over runs whose starts differ in the 12th digit), although every such run blows up
long before step 3,000. :func:`train_factored` therefore checks the loss at every step, stops as soon as it
is not finite or exceeds ``divergence_factor × ln V`` (a model that far worse than guessing uniformly is not
coming back), returns a report instead of NaNs, and its message says that the run diverged but not at which
step. :func:`width_sweep` retrains a diverged width at ``FALLBACK_LR`` for ``FALLBACK_STEPS`` steps.

Departure from Lesson 2.3: its fallback was lr 3 for 4,000 steps. At that step size the narrow models train
at the edge of stability, the loss jumping up and down from step to step, and where they end depends on
rounding noise in the third decimal (a different CPU prints a different table). The book's fallback, lr 0.1
for 40,000 steps, keeps ``lr × sharpness`` below 1 for the whole run, half the stability limit, so that the
result is the same to the last printed digit on every machine.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional, Sequence, Tuple
import math

import numpy as np
from threadpoolctl import threadpool_limits

from lib import validate
from lib.embedding import lookup, lookup_grad
from lib.notebook import fmt, logging_numbers, record_gap
from lib.progress import progress

# The lesson's training settings: full batch, lr 10 for 3,000 steps; widths that diverge are retrained at
# lr 0.1 for 40,000 steps (the lesson: lr 3, 4,000 steps; see the module docstring). Initial weights N(0, 0.1²).
LR = 10.0
STEPS = 3000
FALLBACK_LR = 0.1
FALLBACK_STEPS = 40_000
INIT_SCALE = 0.1
DIVERGENCE_FACTOR = 10.0
WIDTHS = (1, 2, 3, 4, 6, 8, 16, 34)


# --- validation helpers -----------------------------------------------------------------------------


def check_counts(counts) -> np.ndarray:
    """Return ``counts`` as a ``(V, V)`` float64 array after checking it is square, finite and non-negative.

    Raises ``ValueError`` otherwise, if every count is zero, or for a ragged nesting, and ``TypeError`` for
    non-numeric counts (strings, complex numbers, bools: :func:`lib.validate.real_numbers`).

    >>> check_counts([[0, 2], [1, 1]])
    array([[0., 2.],
           [1., 1.]])
    """
    counts = validate.real_numbers(counts, "counts", "a square (V, V) matrix")
    if counts.ndim != 2 or counts.shape[0] != counts.shape[1] or counts.shape[0] < 1:
        raise ValueError(f"counts must be a square (V, V) matrix, got shape {counts.shape}")
    counts = counts.astype(np.float64)
    if not np.all(np.isfinite(counts)) or (counts < 0).any():
        raise ValueError("counts must be finite and >= 0")
    if counts.max() <= 0:  # not the sum, which may overflow (1.7e308 twice): the counts are >= 0
        raise ValueError("counts are all zero: there is nothing to fit or score")
    return counts


def _unit_counts(counts: np.ndarray) -> np.ndarray:
    """Checked ``counts`` scaled by the power of two that puts the largest in [0.5, 1) (``np.ldexp``: exact
    unless a count is more than 2**1022 times smaller than the largest). Every loss and gradient here is a
    ratio of sums of counts, so the scale cancels exactly; their total cannot overflow (``1.7e308`` twice)
    and ``count × log p`` does not lose bits as a subnormal (``5e-324 × log 2``)."""
    return np.ldexp(counts, -math.frexp(float(counts.max()))[1])


def _checked_logits(E: np.ndarray, U: np.ndarray, H: Optional[np.ndarray] = None) -> None:
    """``ValueError`` when the logits ``E @ U`` (or ``H @ U``) are beyond float64 (finite ``E`` and ``U`` of
    1e200 give 1e400) or a row of them spans more than float64's range (its smallest log-probability would
    be below -1.8e308): the loss and its gradients have no float64 value."""
    with np.errstate(over="ignore", invalid="ignore"):
        Z = (E if H is None else H) @ U
        spread = Z.max(axis=1) - Z.min(axis=1)
    if not np.all(np.isfinite(Z)):
        raise ValueError("the logits E[x] @ U are beyond float64's range (about 1.8e308): E and U are too large")
    if not np.all(np.isfinite(spread)):
        raise ValueError("the logits E[x] @ U of one row differ by more than float64's range (about 1.8e308): "
                         "a log-probability is below -1.8e308")


def _finite_grads(loss: float, dE: np.ndarray, dU: np.ndarray) -> Tuple[float, np.ndarray, np.ndarray]:
    """``(loss, dE, dU)`` after checking that each is finite: ``ValueError`` (beyond float64) otherwise."""
    if not (np.isfinite(loss) and np.all(np.isfinite(dE)) and np.all(np.isfinite(dU))):
        raise ValueError("the loss or its gradients are beyond float64's range (about 1.8e308): E and U are too large")
    return loss, dE, dU


def _check_params(E, U) -> Tuple[np.ndarray, np.ndarray]:
    E, U = validate.real_array(E, "E"), validate.real_array(U, "U")
    if E.ndim != 2 or U.ndim != 2 or E.shape[1] != U.shape[0] or E.shape[0] != U.shape[1]:
        raise ValueError(f"E must be (V, d) and U (d, V), got E {E.shape} and U {U.shape}")
    return E, U


# --- counts and the full table ----------------------------------------------------------------------


def bigram_counts(ids, vocab_size: int) -> np.ndarray:
    """Count adjacent pairs: ``C[i, j]`` = how often token ``j`` directly follows token ``i`` in ``ids``.

    ``ids`` is a 1-D integer sequence of length ``N >= 2``; returns ``(V, V)`` int64 with ``N − 1`` in
    total. Raises ``ValueError`` for an id outside ``[0, V)`` (via :func:`lib.validate.ids`), a
    sequence that is not 1-D or shorter than 2, and ``TypeError`` for non-integer ids.

    >>> bigram_counts([0, 1, 1, 2, 0, 1], 3)  # pairs 0-1, 1-1, 1-2, 2-0, 0-1
    array([[0, 2, 0],
           [0, 1, 1],
           [1, 0, 0]])
    """
    vocab_size = validate.size(vocab_size, "vocab_size")
    ids = validate.ids(ids, vocab_size)
    if ids.ndim != 1 or ids.size < 2:
        raise ValueError(f"ids must be a 1-D sequence of at least 2 ids, got shape {ids.shape}")
    validate.entries((vocab_size, vocab_size), "vocab_size")
    counts = np.zeros((vocab_size, vocab_size), dtype=np.int64)
    np.add.at(counts, (ids[:-1], ids[1:]), 1)
    return counts


def pairs(ids, vocab_size: int) -> Tuple[np.ndarray, np.ndarray]:
    """The training pairs of a token sequence: inputs ``x = ids[:-1]`` and targets ``y = ids[1:]``, ``(N−1,)`` int64.

    Raises like :func:`bigram_counts`.

    >>> pairs([0, 1, 1, 2], 3)
    (array([0, 1, 1]), array([1, 1, 2]))
    """
    ids = validate.ids(ids, vocab_size)
    if ids.ndim != 1 or ids.size < 2:
        raise ValueError(f"ids must be a 1-D sequence of at least 2 ids, got shape {ids.shape}")
    return ids[:-1].copy(), ids[1:].copy()


def count_table(counts, alpha: float = 0.0) -> np.ndarray:
    """The full bigram table: ``P[i, j] = (C[i, j] + α) / (n_i + α V)``, ``(V, V)`` float64, rows summing to 1.

    With ``alpha = 0`` (the default) this is the maximum-likelihood bigram model; a row whose token was
    never seen as a previous token is uniform. ``alpha > 0`` is add-α smoothing. Raises ``TypeError``
    for a non-numeric ``alpha``, ``ValueError`` for ``alpha < 0``, and as :func:`check_counts`.

    >>> count_table([[0, 2, 0], [0, 1, 1], [1, 0, 0]])
    array([[0. , 1. , 0. ],
           [0. , 0.5, 0.5],
           [1. , 0. , 0. ]])
    """
    counts = check_counts(counts)
    alpha = validate.number(alpha, "alpha", ge=0)
    V = counts.shape[0]
    with np.errstate(over="ignore"):
        smoothed = counts + alpha
        rows = smoothed.sum(axis=1, keepdims=True)
    if not np.all(np.isfinite(rows)):  # a huge alpha: the same fractions of counts scaled by a power of two
        scale = 2.0 ** -math.frexp(max(alpha, float(counts.max())))[1]
        smoothed = counts * scale + alpha * scale
        rows = smoothed.sum(axis=1, keepdims=True)
    return np.divide(smoothed, rows, out=np.full((V, V), 1.0 / V), where=rows > 0)


#: how far from 1 a row of a probability table given to :func:`table_loss` may sum (rounding of a division)
ROW_SUM_TOL = 1e-6


def table_loss(probs, counts) -> float:
    """Mean cross-entropy, in nats, of the pairs counted in ``counts`` under the table ``probs``.

    ``−Σ_ij C_ij log P_ij / Σ_ij C_ij``; both arrays ``(V, V)``. Raises ``ValueError`` if a counted pair
    has probability 0 (the loss would be infinite: fit with ``alpha > 0``), if ``probs`` is not a table of
    probabilities (an entry outside ``[0, 1]``, NaN or infinity, or a row whose sum is more than
    ``ROW_SUM_TOL`` (1e-6) away from 1, naming the first such row), or if the shapes differ. Counts of any size within float64 are read exactly, as in
    :func:`factored_loss_and_grads` (scaled by a power of two first).

    >>> # (2 ln 2) / 4 nats
    >>> round(table_loss([[0.5, 0.5], [1.0, 0.0]], [[1, 1], [2, 0]]), 4)
    0.3466
    """
    counts = check_counts(counts)
    probs = validate.real_numbers(probs, "probs", "a (V, V) table of probabilities").astype(np.float64)
    if probs.shape != counts.shape:
        raise ValueError(f"probs and counts must have the same shape, got {probs.shape} and {counts.shape}")
    if not np.all(np.isfinite(probs)) or (probs < 0).any() or (probs > 1).any():
        raise ValueError("probs must be probabilities in [0, 1]")
    sums = probs.sum(axis=1)
    off = np.flatnonzero(~(np.abs(sums - 1.0) <= ROW_SUM_TOL))
    if off.size:
        raise ValueError(f"probs must be a table of probabilities whose rows each sum to 1 (within {ROW_SUM_TOL:g}): "
                         f"row {int(off[0])} sums to {float(sums[off[0]])!r}")
    used = counts > 0
    if (probs[used] == 0).any():
        i, j = np.argwhere(used & (probs == 0))[0]
        raise ValueError(
            f"pair ({int(i)}, {int(j)}) occurs {int(counts[i, j])} times but has probability 0 under the table: "
            "the loss is infinite (fit the table with alpha > 0)"
        )
    counts = _unit_counts(counts)
    return float(-(counts[used] * np.log(probs[used])).sum() / counts.sum()) + 0.0  # + 0.0: never print -0


# --- the factored bigram ------------------------------------------------------------------------------


def log_softmax(logits) -> np.ndarray:
    """Row-wise log-softmax of ``(..., V)`` logits, float64, computed stably (the row maximum is subtracted).

    ``logits`` are finite real numbers with ``V >= 1``. Raises ``TypeError`` for entries that are not real
    numbers and ``ValueError`` for NaN or infinity, no axis or an empty last axis, or logits of one row
    so far apart (more than about 1.8e308) that a log-probability is beyond float64.

    >>> log_softmax([0.0, 0.0])  # ln 1/2
    array([-0.6931, -0.6931])
    """
    z = validate.real_array(logits, "logits")
    if z.ndim < 1 or z.shape[-1] < 1:
        raise ValueError(f"logits must have shape (..., V) with V >= 1, got {z.shape}")
    with np.errstate(over="ignore"):
        out = _log_softmax(z)
    if not np.all(np.isfinite(out)):
        raise ValueError("logits of one row differ by more than float64's range (about 1.8e308): "
                         "a log-probability is below -1.8e308")
    return out


def _log_softmax(z):
    """:func:`log_softmax` of checked float64 logits (the training loop's: a blow-up gives NaN, detected there)."""
    z = z - z.max(axis=-1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


def softmax(logits) -> np.ndarray:
    """Row-wise softmax of ``(..., V)`` logits, float64, each row summing to 1. Raises like :func:`log_softmax`.

    >>> softmax([0.0, np.log(3.0)])
    array([0.25, 0.75])
    """
    return np.exp(log_softmax(logits))


def num_parameters(vocab_size: int, d: int) -> int:
    """Parameters of the factored bigram: ``E`` ``(V, d)`` plus ``U`` ``(d, V)`` = ``2 V d``.

    >>> num_parameters(34, 8)
    544
    """
    return 2 * validate.size(vocab_size, "vocab_size", low=1) * validate.size(d, "width d", low=1)


def init_params(vocab_size: int, d: int, seed: int = 0, scale: float = INIT_SCALE) -> Tuple[np.ndarray, np.ndarray]:
    """Initial ``E`` ``(V, d)`` and ``U`` ``(d, V)``, float64, entries ``N(0, scale²)``, drawn in that order from ``seed``.

    Raises ``ValueError`` for ``V < 1``, ``d < 1``, ``scale <= 0`` or a negative seed.
    """
    vocab_size = validate.size(vocab_size, "vocab_size", low=1)
    d = validate.size(d, "width d", low=1)
    validate.entries((vocab_size, d), "vocab_size and width d")
    scale = validate.number(scale, "scale", gt=0)
    seed = validate.seed(seed)
    rng = np.random.default_rng(seed)
    E = rng.standard_normal((vocab_size, d)) * scale
    U = rng.standard_normal((d, vocab_size)) * scale
    return E, U


def factored_loss_and_grads(E, U, counts) -> Tuple[float, np.ndarray, np.ndarray]:
    """Loss and gradients of the factored bigram over the pairs summarised by ``counts``.

    ``E`` ``(V, d)``, ``U`` ``(d, V)``, ``counts`` ``(V, V)``. Returns ``(loss, dE, dU)``: the mean
    cross-entropy in nats and its gradients, ``(V, d)`` and ``(d, V)`` float64. Exactly the full-batch
    loss and gradients over the raw pairs (see the module docstring and :func:`pairs_loss_and_grads`).
    Counts of any size within float64 are read exactly: they are scaled by a power of two first, so that
    counts whose total is beyond float64 (``1.7e308`` twice) or subnormal counts (``5e-324``) give the loss
    of their proportions. Raises ``ValueError`` for mismatched shapes, NaN or infinity in ``E`` or ``U``,
    bad counts, or logits ``E @ U``, a loss or gradients beyond float64's range (about 1.8e308);
    ``TypeError`` for entries that are not real numbers.
    """
    E, U = _check_params(E, U)
    counts = check_counts(counts)
    if counts.shape[0] != E.shape[0]:
        raise ValueError(f"counts are for {counts.shape[0]} tokens but E has {E.shape[0]} rows")
    _checked_logits(E, U)
    counts = _unit_counts(counts)
    with np.errstate(over="ignore", invalid="ignore"):
        return _finite_grads(*_loss_and_grads(E, U, counts, counts.sum(), counts.sum(axis=1, keepdims=True)))


def _loss_and_grads(E, U, counts, N, n):
    """:func:`factored_loss_and_grads` on checked float64 arrays, ``N`` the total count and ``n`` ``(V, 1)``
    the count of each previous token (the training loop calls this, with the checks done once)."""
    logp = _log_softmax(E @ U)  # (V, V): row i is log P(. | i)
    loss = float(-(counts * logp).sum() / N)
    dZ = (n * np.exp(logp) - counts) / N  # (V, V): n_i copies of (P_i − onehot(y)), summed and averaged
    dU = E.T @ dZ  # (d, V)
    dE = dZ @ U.T  # (V, d): each token's row appears once, already summed over its uses
    return loss, dE, dU


def factored_loss(E, U, counts) -> float:
    """Mean cross-entropy (nats) of the factored bigram on the pairs summarised by ``counts``."""
    return factored_loss_and_grads(E, U, counts)[0]


#: the steps :func:`sharpness` allows for its central differences, relative to each parameter's size
SHARPNESS_STEPS = (1e-10, 0.1)


def sharpness(E, U, counts, step: float = 1e-5) -> float:
    """The sharpness of the loss at ``(E, U)``: the largest eigenvalue of its Hessian, in nats per unit².

    Gradient descent with learning rate ``lr`` is stable near a point while ``lr × sharpness < 2``,
    and :cite:t:`cohen2021gradient` found that gradient descent on neural networks typically runs at that
    edge of stability. The Hessian over all ``2 V d`` parameters is built column by column from central differences of
    :func:`factored_loss_and_grads` (``step`` relative to each parameter's size, at least ``step``), made
    symmetric, and its eigenvalues taken with ``numpy.linalg.eigvalsh``; that is ``4 V d`` gradients, cheap
    at the sizes of chapters/lesson.md. Raises ``ValueError`` like :func:`factored_loss_and_grads` and for a
    ``step`` outside ``[1e-10, 0.1]`` (``SHARPNESS_STEPS``): a larger step no longer measures the curvature
    at the point, and a smaller one leaves the difference of two gradients to rounding; ``TypeError`` for a
    ``step`` that is not a number.
    """
    E, U = _check_params(E, U)
    step = validate.number(step, "step", ge=SHARPNESS_STEPS[0], le=SHARPNESS_STEPS[1],
                           hint="the relative step of the central differences")
    V, d = E.shape
    x = np.concatenate([E.ravel(), U.ravel()])  # (2 V d,): E's rows, then U's rows

    def grad(z):
        _, dE, dU = factored_loss_and_grads(z[: V * d].reshape(V, d), z[V * d :].reshape(d, V), counts)
        return np.concatenate([dE.ravel(), dU.ravel()])

    H = np.empty((x.size, x.size))
    for i in range(x.size):
        h = step * max(1.0, abs(x[i]))
        up, down = x.copy(), x.copy()
        up[i] += h
        down[i] -= h
        H[:, i] = (grad(up) - grad(down)) / (2 * h)
    return float(np.linalg.eigvalsh((H + H.T) / 2)[-1])


def pairs_loss_and_grads(E, U, x, y) -> Tuple[float, np.ndarray, np.ndarray]:
    """The same loss and gradients as :func:`factored_loss_and_grads`, computed over raw pairs.

    ``x`` and ``y`` are ``(N,)`` int ids (previous and next token). This is the form of Lesson 2.3:
    ``H = E[x]``, ``P = softmax(H @ U)``, ``dlogits = (P − onehot(y)) / N``, ``dU = Hᵀ dlogits``,
    ``dE = np.add.at(0, x, dlogits Uᵀ)`` (:func:`lib.embedding.lookup_grad`). It costs ``O(N V d)`` per
    call, so the book trains on counts and uses this only to check that the two agree. Raises
    ``ValueError`` for ids out of range, mismatched lengths, or ``E`` and ``U`` as
    :func:`factored_loss_and_grads` does (logits, loss or gradients beyond float64 included).
    """
    E, U = _check_params(E, U)
    V = E.shape[0]
    x, y = validate.ids(x, V), validate.ids(y, V)
    if x.ndim != 1 or x.shape != y.shape or x.size < 1:
        raise ValueError(f"x and y must be 1-D of the same non-zero length, got {x.shape} and {y.shape}")
    N = x.size
    H = lookup(E, x)  # (N, d)
    _checked_logits(E, U, H)
    with np.errstate(over="ignore", invalid="ignore"):
        return _finite_grads(*_pairs_loss_and_grads(H, U, x, y, V))


def _pairs_loss_and_grads(H, U, x, y, V):
    """:func:`pairs_loss_and_grads` from the looked-up rows ``H = E[x]`` of checked arrays."""
    N = x.size
    logp = _log_softmax(H @ U)  # (N, V)
    loss = float(-logp[np.arange(N), y].mean())
    dlogits = np.exp(logp)
    dlogits[np.arange(N), y] -= 1.0
    dlogits /= N
    dU = H.T @ dlogits  # (d, V)
    dE = lookup_grad(x, dlogits @ U.T, V)  # (V, d): np.add.at into the rows that were used
    return loss, dE, dU


@dataclass
class TrainResult:
    """What :func:`train_factored` returns.

    ``E`` ``(V, d)`` and ``U`` ``(d, V)`` are the final parameters (the last finite ones if training
    diverged); ``losses`` ``(k,)`` float64 holds the training loss before each step and, when training
    completed, after the last one (``steps + 1`` values). ``diverged_at`` is the step at which divergence
    was detected (``None`` if training completed); ``divergence_factor`` and ``vocab_size`` give the limit
    it was detected by, ``divergence_factor × ln V`` nats. ``message`` says what happened, in words.
    """

    E: np.ndarray
    U: np.ndarray
    width: int
    lr: float
    steps: int
    seed: int
    losses: np.ndarray
    diverged_at: Optional[int] = None
    divergence_factor: float = DIVERGENCE_FACTOR
    vocab_size: int = 0

    @property
    def message(self) -> str:
        """What happened, in words, with numbers as the book prints them (formatted when asked for).

        The step at which a run diverged is not in it: for a chaotic run it depends on rounding noise.
        """
        if self.diverged:
            limit = self.divergence_factor * np.log(self.vocab_size)
            return (f"width {self.width} diverged with lr {self.lr:g}: the loss passed {self.divergence_factor:g} × "
                    f"ln {self.vocab_size} = {fmt(limit, '.2f')} nats within {self.steps:,} steps "
                    "(the learning rate is too large for this width)")
        return (f"width {self.width} trained for {self.steps:,} steps with lr {self.lr:g}: final training loss "
                f"{fmt(self.final_loss, '.4f')} nats")

    @property
    def diverged(self) -> bool:
        """True if training stopped because the loss blew up."""
        return self.diverged_at is not None

    @property
    def final_loss(self) -> float:
        """The last recorded training loss, in nats."""
        return float(self.losses[-1])


def _train(loss_and_grads, V: int, d: int, steps: int, lr: float, seed: int, scale: float,
           divergence_factor: float) -> TrainResult:
    d = validate.size(d, "width d", low=1)
    steps = validate.size(steps, "steps", low=0)
    lr = validate.number(lr, "lr", gt=0)
    divergence_factor = validate.number(divergence_factor, "divergence_factor", gt=0)
    E, U = init_params(V, d, seed, scale)
    limit = divergence_factor * np.log(V)
    losses = np.empty(steps + 1)
    with threadpool_limits(limits=1, user_api="blas"):  # the same sums in the same order on any number of cores
        for step in range(steps + 1):
            with np.errstate(over="ignore", invalid="ignore"):  # a blow-up is detected below, not warned about
                loss, dE, dU = loss_and_grads(E, U)
            losses[step] = loss
            if not np.isfinite(loss) or loss > limit:
                if logging_numbers():
                    record_gap(f"bigram width {d}, lr {lr:g}: diverged, steps to spare", steps - step, steps)
                return TrainResult(E, U, d, lr, steps, seed, losses[: step + 1], step, divergence_factor, V)
            if step == steps:
                break
            E = E - lr * dE
            U = U - lr * dU
    if logging_numbers():
        record_gap(f"bigram width {d}, lr {lr:g}: completed, nats below the divergence limit", limit - losses.max(), limit)
    return TrainResult(E, U, d, lr, steps, seed, losses, None, divergence_factor, V)


def train_factored(counts, d: int, *, steps: int = STEPS, lr: float = LR, seed: int = 0,
                   scale: float = INIT_SCALE, divergence_factor: float = DIVERGENCE_FACTOR) -> TrainResult:
    """Train the factored bigram ``logits = E[x] @ U`` of width ``d`` by full-batch gradient descent on ``counts``.

    ``counts`` ``(V, V)`` are the training bigram counts (:func:`bigram_counts`); the parameters start from
    :func:`init_params` with ``seed`` and ``scale``, then take ``steps`` steps of plain gradient descent
    with learning rate ``lr`` on :func:`factored_loss_and_grads`. The loss is checked at every step: if it
    is not finite or exceeds ``divergence_factor × ln V`` nats, training stops and the result reports the
    step (``diverged_at``) and a ``message``; no NaN is ever returned as a loss of a completed run.
    Returns a :class:`TrainResult`. Raises ``ValueError`` for ``d < 1``, ``steps < 0``, ``lr <= 0`` and
    bad counts.
    """
    counts = _unit_counts(check_counts(counts))  # exact: the loss and gradients do not depend on the scale
    N, n = counts.sum(), counts.sum(axis=1, keepdims=True)  # n: (V, 1)
    return _train(lambda E, U: _loss_and_grads(E, U, counts, N, n), counts.shape[0], d, steps, lr, seed,
                  scale, divergence_factor)


def train_factored_pairs(x, y, vocab_size: int, d: int, *, steps: int = STEPS, lr: float = LR, seed: int = 0,
                         scale: float = INIT_SCALE, divergence_factor: float = DIVERGENCE_FACTOR) -> TrainResult:
    """:func:`train_factored` over raw pairs ``(x, y)`` (:func:`pairs_loss_and_grads`): same result, slower.

    It gives the result of :func:`train_factored` to rounding: training on the count matrix changes nothing
    but the cost.
    """
    vocab_size = validate.size(vocab_size, "vocab_size", low=1)
    x, y = validate.ids(x, vocab_size), validate.ids(y, vocab_size)
    return _train(lambda E, U: pairs_loss_and_grads(E, U, x, y), vocab_size, d, steps, lr, seed, scale,
                  divergence_factor)


# --- the width sweep ---------------------------------------------------------------------------------


@dataclass
class WidthRow:
    """One row of the width table of chapters/lesson.md: a width, its parameter count, and its losses in nats.

    ``lr`` and ``steps`` are the settings of the run that produced the losses (``result``); ``diverged_run``
    is the run at the default settings when that run diverged (``None`` otherwise).
    """

    width: int
    parameters: int
    train_loss: float
    val_loss: float
    lr: float
    steps: int
    diverged_run: Optional[TrainResult] = field(default=None, repr=False)
    result: TrainResult = field(default=None, repr=False)

    @property
    def retrained(self) -> bool:
        """True if the default settings diverged and the row comes from the fallback run."""
        return self.diverged_run is not None

    @property
    def first_attempt(self) -> str:
        """The message of the diverged run at the default settings (``""`` if it did not diverge)."""
        return self.diverged_run.message if self.diverged_run is not None else ""


def width_sweep(train_counts, val_counts, widths: Sequence[int] = WIDTHS, *, steps: int = STEPS, lr: float = LR,
                fallback_steps: int = FALLBACK_STEPS, fallback_lr: float = FALLBACK_LR, seed: int = 0) -> List[WidthRow]:
    """Train the factored bigram at each width and score it: the table of width against loss of chapters/lesson.md.

    Each width is trained with ``lr`` for ``steps`` steps from ``seed``; a width whose run diverges is
    retrained from the same seed with ``fallback_lr`` for ``fallback_steps`` steps, and the row records
    both. If the fallback diverges too, ``RuntimeError`` is raised with both messages. Returns one
    :class:`WidthRow` per width, training and validation losses in nats. Raises ``ValueError`` for an
    empty or non-positive list of widths and as :func:`train_factored`.
    """
    train_counts, val_counts = check_counts(train_counts), check_counts(val_counts)
    if train_counts.shape != val_counts.shape:
        raise ValueError(f"train and validation counts differ in shape: {train_counts.shape} and {val_counts.shape}")
    widths = [validate.size(w, "width", low=1) for w in widths]
    if not widths:
        raise ValueError("widths must name at least one width")
    V = train_counts.shape[0]
    rows = []
    for d in progress(widths, desc="widths"):
        first = train_factored(train_counts, d, steps=steps, lr=lr, seed=seed)
        run = first
        if first.diverged:
            run = train_factored(train_counts, d, steps=fallback_steps, lr=fallback_lr, seed=seed)
            if run.diverged:
                raise RuntimeError(f"{first.message}; retraining also failed: {run.message}")
        rows.append(WidthRow(
            width=d,
            parameters=num_parameters(V, d),
            train_loss=factored_loss(run.E, run.U, train_counts),
            val_loss=factored_loss(run.E, run.U, val_counts),
            lr=run.lr,
            steps=run.steps,
            diverged_run=first if first.diverged else None,
            result=run,
        ))
    return rows
