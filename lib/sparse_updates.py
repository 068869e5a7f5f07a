"""Sparse against dense updates of an embedding table: what one training step touches, costs and moves.

Taught in: chapters/scale.md ("A batch touches few rows", "Sparse against dense updates", "Adam moves rows
that had no gradient").

A batch of ``B`` ids reads at most ``B`` rows of a ``(V, d)`` table, so the gradient of the lookup is
non-zero on at most ``B`` rows (:func:`lib.embedding.lookup_grad`). PyTorch can store it two ways:

- dense (``nn.Embedding(sparse=False)``, the default): a full ``(V, d)`` gradient, mostly zeros, and an
  optimiser such as ``torch.optim.Adam`` that then updates every row;
- sparse (``nn.Embedding(sparse=True)``): a ``torch.sparse_coo_tensor`` holding one ``(d,)`` row per
  looked-up position and its index, updated by ``torch.optim.SparseAdam`` or plain ``torch.optim.SGD``,
  which touch only those rows.

:func:`measure_step` times one step of each on a real table and counts rows touched (distinct ids in
the batch), rows *changed* (rows whose values differ after the step) and the bytes of gradient and
optimiser state. :func:`touched_fraction` gives the share of rows a batch touches as ``V`` grows.

Adam moves rows that had no gradient. Its update :cite:p:`kingma2015adam{Algorithm 1}` moves each value by
``−η m̂_t / (√v̂_t + ε)`` at learning rate ``η``, using the moment estimates ``m_t = β1 m_{t-1} + (1 − β1) g_t`` and
``v_t = β2 v_{t-1} + (1 − β2) g_t²``; with ``g_t = 0`` for a row used only at an earlier step, ``m_t`` is
``β1^{t-1}`` times its old value, not zero, so the row keeps moving for many steps after its last use.
SparseAdam ("lazy Adam") updates moments and weights only for rows present in the sparse gradient;
a row without gradient keeps its weights and its moments unchanged. :func:`untouched_row_drift` computes
both trajectories, and :func:`adam_untouched_step_closed_form` the first step of the drift in closed form.

Departures: timings are wall-clock seconds on the machine that runs the code (median over a few steps
after one warm-up step), not a benchmark; memory is counted from the tensors' ``nbytes``, not measured
from the process. Sparse gradients here are left uncoalesced, as ``nn.Embedding`` returns them: one
row per looked-up position, so a repeated id is stored once per occurrence.
"""

from __future__ import annotations

import math
import statistics
import time
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

import numpy as np
import torch

from lib import validate
from lib.threads import torch_threads

METHODS = ("dense_adam", "sparse_adam", "sparse_sgd", "dense_sgd")
DISTRIBUTIONS = ("uniform", "zipf")


def _check_betas(betas) -> Tuple[float, float]:
    wanted = f"betas must be a pair (beta1, beta2) of numbers in [0, 1), got {betas!r}"
    if isinstance(betas, (str, bytes)):
        raise TypeError(wanted)
    try:
        b1, b2 = betas
    except TypeError:  # not a collection: 1.0, None
        raise TypeError(wanted) from None
    except ValueError:  # a collection of another length
        raise ValueError(wanted) from None
    return validate.number(b1, "betas[0]", ge=0, lt=1), validate.number(b2, "betas[1]", ge=0, lt=1)


# --- which rows a batch touches --------------------------------------------------------------------


def id_probabilities(V: int, distribution: str = "uniform", exponent: float = 1.0) -> np.ndarray:
    """Probability of each id, ``(V,)`` float64 summing to 1.

    ``"uniform"``: ``1 / V`` each. ``"zipf"``: ``p_r ∝ 1 / (r + 1) ** exponent`` for id ``r`` (id 0 the most
    frequent), the rank-frequency law of word counts :cite:p:`zipf1949human`, truncated to ``V`` ids. Raises
    ``ValueError`` for ``V < 1``, an unknown distribution or ``exponent <= 0``. A weight whose power is beyond
    float64 (``exponent = 1e6``) is its true value, subnormal or 0 (``[1, 0, ...]``), without an overflow.

    >>> id_probabilities(3, "zipf")  # 1, 1/2, 1/3, normalised by 11/6
    array([0.5455, 0.2727, 0.1818])
    """
    V = validate.size(V, "V (vocabulary size)", low=1)
    validate.choice(distribution, "distribution", DISTRIBUTIONS)
    if distribution == "uniform":
        return np.full(V, 1.0 / V)
    exponent = validate.number(exponent, "exponent", gt=0)
    ranks = np.arange(1, V + 1, dtype=np.float64)
    with np.errstate(over="ignore"):  # (r + 1) ** exponent beyond float64: its inverse is taken directly below
        powered = ranks**exponent
    w = 1.0 / powered
    beyond = np.isinf(powered)
    with np.errstate(under="ignore"):  # subnormal or 0: the true weight, rounded
        w[beyond] = ranks[beyond] ** -exponent
    return w / w.sum()


def sample_ids(
    V: int, batch: int, *, distribution: str = "uniform", exponent: float = 1.0, seed: int = 0
) -> np.ndarray:
    """``batch`` ids drawn independently from :func:`id_probabilities`: ``(batch,)`` int64 in ``[0, V)``.

    Seeded with ``numpy.random.default_rng(seed)`` (``seed`` an integer >= 0 or a ``Generator``,
    :func:`lib.validate.rng`). Raises like :func:`id_probabilities`, ``ValueError`` for ``batch < 1`` or a
    negative seed, and ``TypeError`` for a seed that is not an integer.
    """
    batch = validate.size(batch, "batch", low=1)
    p = id_probabilities(V, distribution, exponent)
    rng = validate.rng(seed)  # an integer seed >= 0 (or a Generator): NumPy's own errors never reach the reader
    if distribution == "uniform":
        return rng.integers(0, V, size=batch, dtype=np.int64)
    # inverse-CDF sampling: one searchsorted instead of rng.choice's per-call table build
    cdf = np.cumsum(p)
    return np.minimum(np.searchsorted(cdf, rng.random(batch), side="right"), V - 1).astype(np.int64)


def expected_touched_fraction(V: int, batch: int, distribution: str = "uniform", exponent: float = 1.0) -> float:
    """Expected share of the ``V`` rows that a batch of ``batch`` independent ids touches, in ``[0, 1]``.

    Row ``i`` is missed by all ``batch`` draws with probability ``(1 − p_i) ** batch``, so the expected
    number of distinct rows is ``Σ_i 1 − (1 − p_i) ** batch``; for uniform ids this is
    ``V (1 − (1 − 1/V) ** batch)``, close to ``batch / V`` when ``batch ≪ V``. Each term is computed as
    ``−expm1(batch · log1p(−p_i))``, so that a tiny ``p_i`` keeps its relative accuracy instead of being lost
    in ``1 − (a number close to 1)``; a ``p_i`` that rounds to 1 (a Zipf exponent of 100 or more) is missed
    with probability 0, without a warning. Raises like :func:`sample_ids`.

    >>> # two uniform draws over two rows: 1 - (1/2)^2 of each
    >>> round(expected_touched_fraction(2, 2), 4)
    0.75
    """
    batch = validate.size(batch, "batch", low=1)
    p = id_probabilities(V, distribution, exponent)
    # log(1 - p_i), and -inf where p_i rounds to 1 (log1p(-1) would warn of a division by zero)
    log_kept = np.log1p(-p, out=np.full_like(p, -np.inf), where=p < 1.0)
    touched = -np.expm1(batch * log_kept)  # 1 - (1 - p_i) ** batch, accurate for tiny p_i
    return float(np.sum(touched) / p.size)


def touched_fraction(ids, V: int) -> float:
    """Measured share of rows that ``ids`` touch: ``len(unique(ids)) / V``. ``ids`` are checked with
    :func:`lib.validate.ids` (``ValueError`` for an id outside ``[0, V)``).

    >>> touched_fraction([3, 3, 0], 10)
    0.2
    """
    ids = validate.ids(ids, V)
    return float(np.unique(ids).size / V)


# --- one training step ------------------------------------------------------------------------------



@dataclass(frozen=True)
class StepResult:
    """One method's measurement. Times in seconds, sizes in bytes, rows as counts.

    ``seconds``: median over the timed steps; ``all_seconds``: each timed step. ``rows_touched``: distinct
    ids in the last (counted, untimed) step's batch; ``rows_changed``: rows whose values differ after it.
    ``grad_bytes``: the gradient's storage at the last step (values + indices for a sparse gradient);
    ``state_bytes``: the optimiser's per-value state tensors; ``table_bytes``: the weights.
    """

    method: str
    V: int
    d: int
    batch: int
    seconds: float
    all_seconds: Tuple[float, ...]
    rows_touched: int
    rows_changed: int
    grad_bytes: int
    state_bytes: int
    table_bytes: int


def _make(method: str, V: int, d: int, lr: float, seed: int):
    gen = torch.Generator().manual_seed(seed)
    sparse = method.startswith("sparse")
    emb = torch.nn.Embedding(V, d, sparse=sparse)
    with torch.no_grad():
        emb.weight.copy_(torch.randn(V, d, generator=gen))
    params = list(emb.parameters())
    if method == "dense_adam":
        opt = torch.optim.Adam(params, lr=lr)
    elif method == "sparse_adam":
        opt = torch.optim.SparseAdam(params, lr=lr)
    else:
        opt = torch.optim.SGD(params, lr=lr)
    return emb, opt


def _grad_bytes(grad: torch.Tensor) -> int:
    if grad.is_sparse:
        return int(grad._values().nbytes + grad._indices().nbytes)
    return int(grad.nbytes)


def measure_step(
    method: str,
    V: int = 1_000_000,
    d: int = 64,
    batch: int = 4096,
    *,
    steps: int = 3,
    lr: float = 0.01,
    seed: int = 0,
    threads: Optional[int] = 1,
) -> StepResult:
    """Time training steps of a ``(V, d)`` float32 ``nn.Embedding`` and count what the last step did.

    ``method``: ``"dense_adam"`` (dense gradient + ``torch.optim.Adam``), ``"sparse_adam"`` (sparse gradient
    + ``torch.optim.SparseAdam``), ``"sparse_sgd"`` (sparse gradient + ``torch.optim.SGD``) or
    ``"dense_sgd"``. Each step draws a fresh batch of ``batch`` uniform ids (seeded), computes
    ``mean((E[ids] − T) ** 2)`` against a fixed random target ``T`` ``(batch, d)``, and steps the
    optimiser; a step is timed from ``zero_grad`` to ``step`` inclusive. One untimed warm-up step comes
    first (it allocates the optimiser state), then ``steps`` timed ones, then one untimed step whose
    changed rows are counted. At that last step, rows used earlier but not now have non-zero moments:
    dense Adam changes them too, SparseAdam does not.

    ``threads``: PyTorch threads during the steps (restored afterwards; ``None`` leaves the setting as it
    is). The default, one, makes the methods comparable on a shared machine, where a step that waits for
    a second thread can take many times longer than the work it does.

    Returns a :class:`StepResult`. Raises ``ValueError`` for an unknown method or a size / ``steps`` /
    ``lr`` / ``threads`` out of range. Memory: ``V · d · 4`` bytes for the table, as much again for a dense gradient,
    twice as much for (either) Adam's state, plus one copy of the table while counting changed rows.
    """
    validate.choice(method, "method", METHODS)
    V = validate.size(V, "V (vocabulary size)", low=1)
    d = validate.size(d, "d (embedding width)", low=1)
    batch = validate.size(batch, "batch", low=1)
    steps = validate.size(steps, "steps", low=1)
    lr = validate.number(lr, "lr", gt=0)
    if threads is not None:
        threads = validate.workers(threads, "threads")
    with torch_threads(threads):
        return _measure(method, V, d, batch, steps, lr, seed)


def _measure(method, V, d, batch, steps, lr, seed) -> StepResult:
    emb, opt = _make(method, V, d, lr, seed)
    gen = torch.Generator().manual_seed(seed + 1)
    target = torch.randn(batch, d, generator=gen)
    # warm-up, `steps` timed steps, one counted step
    batches = [torch.randint(0, V, (batch,), generator=gen) for _ in range(steps + 2)]

    def step(ids):
        opt.zero_grad(set_to_none=True)
        loss = ((emb(ids) - target) ** 2).mean()
        loss.backward()
        opt.step()

    step(batches[0])  # warm-up: allocates optimiser state
    times: List[float] = []
    for ids in batches[1:-1]:
        t0 = time.perf_counter()
        step(ids)
        times.append(time.perf_counter() - t0)
    before = emb.weight.detach().clone()  # outside the timed steps: copying V x d would dominate them
    step(batches[-1])
    with torch.no_grad():
        changed = int((emb.weight != before).any(dim=1).sum())
    del before
    state = sum(int(v.nbytes) for s in opt.state.values() for v in s.values() if torch.is_tensor(v) and v.dim() > 0)
    return StepResult(
        method=method,
        V=V,
        d=d,
        batch=batch,
        seconds=float(statistics.median(times)),
        all_seconds=tuple(float(t) for t in times),
        rows_touched=int(torch.unique(batches[-1]).numel()),
        rows_changed=changed,
        grad_bytes=_grad_bytes(emb.weight.grad),
        state_bytes=state,
        table_bytes=int(emb.weight.nbytes),
    )


# --- Adam and rows without gradient ----------------------------------------------------------------


#: the most steps :func:`untouched_row_drift` runs (each is two PyTorch optimiser steps in Python)
MAX_DRIFT_STEPS = 100_000


def untouched_row_drift(
    steps: int = 20,
    *,
    lr: float = 0.1,
    betas: Tuple[float, float] = (0.9, 0.999),
    eps: float = 1e-8,
) -> Dict[str, np.ndarray]:
    """How far a row moves at each step after its only gradient, under Adam and under SparseAdam.

    A ``(2, 1)`` table is trained for ``steps`` steps; row 0 gets the gradient ``1`` at step 1 and none
    afterwards, row 1 gets a gradient at every step (so that every step has a non-empty sparse gradient).
    Returns ``{"adam": (steps,), "sparse_adam": (steps,)}`` float64: the absolute change of row 0 at each
    step, computed by ``torch.optim.Adam`` (dense gradient, zero on row 0) and ``torch.optim.SparseAdam``
    (row 0 absent from the gradient). Both move row 0 by about ``lr`` at step 1; afterwards Adam keeps
    moving it and SparseAdam leaves it alone (see the module docstring; closed form of step 2 in
    :func:`adam_untouched_step_closed_form`). Raises ``ValueError`` for ``steps`` outside
    ``[2, MAX_DRIFT_STEPS]``, ``lr <= 0`` or betas
    outside ``[0, 1)``.
    """
    steps = validate.size(steps, "steps", low=2, high=MAX_DRIFT_STEPS, hint="two optimiser steps each")
    lr = validate.number(lr, "lr", gt=0)
    b1, b2 = _check_betas(betas)
    eps = validate.number(eps, "eps", gt=0)
    out = {}
    for name in ("adam", "sparse_adam"):
        sparse = name == "sparse_adam"
        emb = torch.nn.Embedding(2, 1, sparse=sparse, dtype=torch.float64)
        with torch.no_grad():
            emb.weight.zero_()
        cls = torch.optim.SparseAdam if sparse else torch.optim.Adam
        opt = cls(emb.parameters(), lr=lr, betas=(b1, b2), eps=eps)
        moves = []
        for t in range(steps):
            ids = torch.tensor([0, 1]) if t == 0 else torch.tensor([1])
            before = float(emb.weight.detach()[0, 0])
            opt.zero_grad(set_to_none=True)
            emb(ids).sum().backward()  # gradient 1 on every row looked up
            opt.step()
            moves.append(abs(float(emb.weight.detach()[0, 0]) - before))
        out[name] = np.asarray(moves)
    return out


def adam_untouched_step_closed_form(
    lr: float = 0.1, betas: Tuple[float, float] = (0.9, 0.999), eps: float = 1e-8, g: float = 1.0
) -> float:
    """Size of Adam's step at ``t = 2`` for a row whose gradient was ``g`` at ``t = 1`` and 0 at ``t = 2``.

    From :cite:t:`kingma2015adam`, Algorithm 1: ``m_2 = β1 (1 − β1) g``, ``v_2 = β2 (1 − β2) g²``,
    bias-corrected ``m̂_2 = β1 g / (1 + β1)``, ``v̂_2 = β2 g² / (1 + β2)``; the step is
    ``lr · |m̂_2| / (√v̂_2 + ε)``, about ``0.67 lr`` for the default betas, although the row had no gradient; ``g`` enters only through ``ε``
    (``lr = 1e308`` and ``g = 1e308`` give ``0.67 lr``, finite: the ratio is taken first where
    ``lr · |m̂_2|`` would overflow). Raises ``ValueError`` for
    ``lr <= 0``, betas outside ``[0, 1)``, ``eps <= 0`` or a ``g`` that is not finite; ``TypeError`` for a
    ``g`` that is not a number.

    >>> # two thirds of a step, with no gradient
    >>> round(float(adam_untouched_step_closed_form(lr=1.0)), 4)
    0.6701
    """
    lr = validate.number(lr, "lr", gt=0)
    b1, b2 = _check_betas(betas)
    eps = validate.number(eps, "eps", gt=0)
    g = validate.number(g, "g")
    m_hat = b1 * g / (1.0 + b1)
    v_hat = b2 * g * g / (1.0 + b2)
    # sqrt(v_hat) = |g| sqrt(b2 / (1 + b2)); written so where g * g overflows (|g| above about 1e154)
    root = np.sqrt(v_hat) if math.isfinite(v_hat) else abs(g) * math.sqrt(b2 / (1.0 + b2))
    step = lr * abs(m_hat) / (root + eps)
    if not math.isfinite(step):  # lr * |m_hat| overflows (lr 1e308, g 1e308); the ratio first does not
        step = lr * (abs(m_hat) / (root + eps))
    return step
