"""The chapter chapters/position_schemes.md: its study of five position schemes.

Concepts used: :mod:`lib.transformer` (the model and its training), :mod:`lib.forward_filter` (the exact
floor), :mod:`lib.positional` (RoPE, ALiBi, the NTK-aware base, the sinusoidal and learned tables),
:mod:`lib.toylang` (the corpus and its exact entropies) and :mod:`lib.geometry` (the exact centring of a
principal component).

One tiny transformer (:mod:`lib.transformer`), five position schemes, two depths and three seeds, trained on
windows of ``L = 32`` tokens of the toy language cut at random points of its stream, then scored on windows
of ``L``, ``2L`` and ``4L`` tokens against the exact floor of :mod:`lib.forward_filter`. On top of that:
RoPE extended at test time (the NTK-aware base, position interpolation with and without fine-tuning),
what the learned position table learned, and where each model attends beyond ``L``.

Every model is scored once, on the same ``4L``-token evaluation windows: a causal model's loss at position
``t`` does not depend on what follows ``t``, so the loss "at ``2L``" is the mean over the first ``2L``
positions of those windows, exactly the loss on windows cut to ``2L``. The floor is computed on the same
windows, so an excess is a paired difference, free of most of the sampling noise of the windows.

:func:`study` trains everything once per process (the chapter and its figures share it); the functions
below read it and format what the chapter shows. Every float they write goes through
:func:`lib.notebook.fmt` at the precision the chapter shows: losses of trained models to 3 decimals
(excesses over the floor to 0.1 millinat), exact entropies of the grammar to 5. A discrete answer read
off trained numbers (where a curve first crosses a threshold, which head looks hardest) records how close
it came to going the other way (:func:`lib.notebook.record_gap`).
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
import torch
import torch.nn.functional as F
from torch.utils.flop_counter import FlopCounterMode

from lib import forward_filter, positional, tables, toylang, transformer, validate
from lib.embedding import cosine_similarity, power_of_two_scale, similarity
from lib.geometry import centred_rows
from lib.notebook import argmax, exact, fmt, logging_numbers, record_gap
from lib.progress import progress
from lib.threads import torch_threads
from lib.transformer import TrainConfig, TransformerConfig

L = 32
LENGTHS = (L, 2 * L, 4 * L)
SCHEMES = transformer.POSITION_SCHEMES
LABELS = {"none": "none (NoPE)", "learned": "learned", "sinusoidal": "sinusoidal", "rope": "RoPE", "alibi": "ALiBi"}
DEPTHS = (1, 2)
SEEDS = (0, 1, 2)
N_SENTENCES = 20_000      # 16,000 for training (about 120,000 tokens), 4,000 to cut evaluation windows from
VAL_FRACTION = 0.2
CORPUS_SEED = 0
N_EVAL_WINDOWS = 256
EVAL_SEED = 2026
TRAIN = TrainConfig(context=L, batch_size=16, steps=300, lr=2e-2, warmup=30)
FINETUNE_STEPS = (0, 10, 25, 50, 100)
FINETUNE_LR = 2e-3
WORKERS = 2              # processes that train the study's models side by side
FAILURE_THRESHOLD = 0.1   # nats above the floor, averaged over windows and seeds: "the model has failed here"


def model_config(scheme: str, depth: int, **changes) -> TransformerConfig:
    """The chapter's model: ``TransformerConfig(position=scheme, n_layer=depth, max_len=4L)`` plus ``changes``."""
    return TransformerConfig(position=scheme, n_layer=depth, max_len=LENGTHS[-1], **changes)


@dataclass
class Run:
    """One trained model: its scheme, depth and seed, the training record, and its loss (nats) at every
    position of every evaluation window, ``losses`` ``(W, 4L)`` float64."""

    scheme: str
    depth: int
    seed: int
    trained: transformer.TrainedModel
    losses: np.ndarray

    @property
    def model(self) -> transformer.Transformer:
        return self.trained.model


@dataclass
class Study:
    """All runs of the chapter with what they are scored on.

    ``corpus``: the toy-language corpus (train split for training, validation split for evaluation);
    ``windows``: ``(W, 4L + 1)`` evaluation windows of token ids; ``floor``: ``(W, 4L)`` the exact best loss at
    every position of them (:func:`lib.forward_filter.optimal_losses`); ``runs``: ``{(scheme, depth, seed): Run}``.
    """

    corpus: toylang.Corpus
    windows: np.ndarray
    floor: np.ndarray
    runs: Dict[Tuple[str, int, int], Run]
    derived: Dict[tuple, object] = field(default_factory=dict, repr=False)

    def memo(self, key: tuple, compute: Callable[[], object]):
        """``compute()`` on one PyTorch thread, kept under ``key`` so that the chapter and its figures compute
        it once."""
        if key not in self.derived:
            with torch_threads(1):
                self.derived[key] = compute()
        return self.derived[key]

    def run(self, scheme: str, depth: int, seed: int) -> Run:
        """The run of ``(scheme, depth, seed)``; ``ValueError`` naming what was trained if there is none."""
        key = (scheme, depth, seed)
        if key not in self.runs:
            raise ValueError(f"no run {key}; the study has schemes {sorted({k[0] for k in self.runs})}, "
                             f"depths {sorted({k[1] for k in self.runs})}, seeds {sorted({k[2] for k in self.runs})}")
        return self.runs[key]

    def seeds(self) -> Tuple[int, ...]:
        return tuple(sorted({k[2] for k in self.runs}))

    def seed_runs(self, scheme: str, depth: int) -> List[Run]:
        """The runs of one scheme and depth, one per seed."""
        return [self.run(scheme, depth, s) for s in self.seeds()]


def evaluation_windows(corpus: toylang.Corpus, n_windows: int = N_EVAL_WINDOWS, seed: int = EVAL_SEED) -> np.ndarray:
    """``(n_windows, 4L + 1)`` windows cut at random points of the validation stream (fixed by ``seed``)."""
    return transformer.sample_windows(corpus.val, n_windows, LENGTHS[-1] + 1, np.random.default_rng(seed))


def _train_and_score(scheme: str, depth: int, seed: int, train_config: TrainConfig, stream: np.ndarray,
                     windows: np.ndarray) -> Tuple[transformer.TrainedModel, np.ndarray]:
    """One job of :func:`run_study`, on one PyTorch thread (in whichever process runs it)."""
    with torch_threads(1):
        trained = transformer.train(model_config(scheme, depth), train_config, stream, seed)
        return trained, transformer.position_losses(trained.model, windows)


def run_study(schemes: Sequence[str] = SCHEMES, depths: Sequence[int] = DEPTHS, seeds: Sequence[int] = SEEDS,
              train_config: TrainConfig = TRAIN, n_windows: int = N_EVAL_WINDOWS,
              workers: int = WORKERS) -> Study:
    """Train every ``(scheme, depth, seed)`` on one thread and score it on the evaluation windows.

    ``workers`` processes train the models side by side (``1``: all in this process). Each model is
    trained on one PyTorch thread whatever the process, so the numbers are the same for any ``workers``
    and any core count on one machine. Raises ``ValueError`` for an unknown scheme, ``workers < 1``, and as
    :func:`lib.transformer.train`.
    """
    for s in schemes:
        validate.choice(s, "scheme", SCHEMES)
    workers = validate.workers(workers, "workers", hint="processes")
    corpus = toylang.make_corpus(N_SENTENCES, VAL_FRACTION, CORPUS_SEED)
    windows = evaluation_windows(corpus, n_windows)
    floor = forward_filter.optimal_losses(windows)
    jobs = [(s, d, seed) for d in depths for s in schemes for seed in seeds]
    args = [(s, d, seed, train_config, corpus.train, windows) for s, d, seed in jobs]
    if workers == 1:
        results = [_train_and_score(*a) for a in progress(args, desc="training")]
    else:  # fresh interpreters ("spawn"): safe from a notebook kernel and from threads
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            results = list(progress(pool.map(_train_and_score, *zip(*args)), total=len(args), desc="training"))
    runs = {job: Run(*job, trained, losses) for job, (trained, losses) in zip(jobs, results)}
    return Study(corpus, windows, floor, runs)


@lru_cache(maxsize=1)
def study() -> Study:
    """The chapter's :class:`Study` (every scheme, depth and seed), computed once per process."""
    return run_study()


# --- summaries --------------------------------------------------------------------------------------


def _check_length(n: int) -> int:
    return validate.choice(n, "length", LENGTHS)


def floor_at(st: Study, n: int) -> float:
    """The exact floor, nats per token, on the evaluation windows cut to ``n`` positions."""
    return float(st.floor[:, :_check_length(n)].mean())


def losses_at(st: Study, scheme: str, depth: int, n: int) -> np.ndarray:
    """Loss (nats per token) on the evaluation windows cut to ``n`` positions, one per seed: ``(seeds,)``."""
    n = _check_length(n)
    return np.array([r.losses[:, :n].mean() for r in st.seed_runs(scheme, depth)])


def excess_at(st: Study, scheme: str, depth: int, n: int) -> np.ndarray:
    """Loss minus the floor on the same windows, nats, one per seed: ``(seeds,)``."""
    return losses_at(st, scheme, depth, n) - floor_at(st, n)


def excess_by_position(st: Study, scheme: str, depth: int) -> np.ndarray:
    """Excess over the floor at each position ``0 .. 4L - 1``, mean over windows, one row per seed: ``(seeds, 4L)``."""
    return np.stack([(r.losses - st.floor).mean(axis=0) for r in st.seed_runs(scheme, depth)])


def failure_position(st: Study, scheme: str, depth: int, threshold: float = FAILURE_THRESHOLD) -> Optional[int]:
    """The first position ``>= L`` at which the seed-mean excess exceeds ``threshold`` nats; ``None`` if none.

    Raises ``ValueError`` if an excess up to that position lies within ``1e-6`` of the threshold, so that
    the answer can never hinge on float noise; records the smallest such distance with
    :func:`lib.notebook.record_gap`.
    """
    return first_crossing(excess_by_position(st, scheme, depth).mean(axis=0), threshold)


def first_crossing(curve, threshold: float = FAILURE_THRESHOLD) -> Optional[int]:
    """The first position ``>= L`` of ``curve`` (excess by position, ``(n,)`` nats) above ``threshold``;
    ``None`` if none. Raises ``ValueError`` if a value from ``L`` up to that position lies within ``1e-6``
    of the threshold (the answer would hinge on float noise), for a ``curve`` that is not 1-D or holds NaN
    or infinity (a NaN would be skipped, or read as "never crosses"), and for a ``threshold`` that is not a
    finite number > 0; ``TypeError`` for entries that are not real numbers. Records the distance to the
    threshold among the rounding margins (:func:`lib.notebook.record_gap`).

    >>> first_crossing(np.r_[np.zeros(L), 0.05, 0.2, 0.05], threshold=0.1)
    33
    """
    curve = validate.real_array(curve, "curve")
    if curve.ndim != 1:
        raise ValueError(f"curve must be a 1-D array (n,) of excesses by position, got shape {curve.shape}")
    threshold = validate.number(threshold, "threshold", gt=0)
    above = np.flatnonzero(curve[L:] > threshold)
    stop = L + (above[0] + 1 if above.size else curve.size - L)
    gap = float(np.abs(curve[L:stop] - threshold).min()) if stop > L else np.inf
    if gap < 1e-6:
        raise ValueError("an excess lies within 1e-6 nats of the threshold; choose another threshold")
    record_gap(f"first crossing of {threshold} nats", gap, threshold)
    return int(L + above[0]) if above.size else None


def parameters(scheme: str, depth: int) -> int:
    """Number of parameters of the chapter's model (for ``"learned"`` including all ``4L`` table rows)."""
    return transformer.Transformer(model_config(scheme, depth)).num_parameters


def train_seconds(st: Study, scheme: str, depth: int) -> np.ndarray:
    """Process CPU seconds each seed's training took, ``(seeds,)``. Measured: it differs from machine to
    machine and run to run, so the chapter never prints it (it shows :func:`training_flops`)."""
    return np.array([r.trained.seconds for r in st.seed_runs(scheme, depth)])


@lru_cache(maxsize=None)
def training_flops(scheme: str, depth: int, train_config: TrainConfig = TRAIN) -> int:
    """Floating-point operations of the matrix products of one training run, forward and backward passes:
    those of one step, counted by PyTorch's ``FlopCounterMode``, times ``train_config.steps``.

    The cost of training that does not depend on the machine (a processor's time does). It leaves out
    the element-wise work (softmax, LayerNorm, GELU, RoPE's rotation, the optimizer), so it is a lower bound.
    """
    validate.choice(scheme, "scheme", SCHEMES)
    model = transformer.Transformer(model_config(scheme, depth))
    batch = torch.zeros((train_config.batch_size, train_config.context + 1), dtype=torch.int64)
    with FlopCounterMode(display=False) as counter:
        logits = model(batch[:, :-1])  # (B, L, V)
        F.cross_entropy(logits.reshape(-1, logits.shape[-1]), batch[:, 1:].reshape(-1)).backward()
    return int(counter.get_total_flops()) * train_config.steps


def span(values, spec: str) -> str:
    """The range of ``values`` formatted with :func:`lib.notebook.fmt` and ``spec``: ``"0.988–0.991"``
    (``"-0.40 to -0.18"`` when the lower end is negative, where a dash would read as a minus), or one number
    when both ends agree at that precision. Rounds once, here, so that prose and tables show the same digits.
    Raises ``ValueError`` for empty ``values`` or NaN or infinity among them, ``TypeError`` for entries that
    are not real numbers.

    >>> span([0.98812, 0.99051, 0.98944], ".3f"), span([0.98812, 0.98831], ".3f")
    ('0.988–0.991', '0.988')
    """
    values = validate.real_array(values, "values")
    if values.size == 0:
        raise ValueError("values must hold at least one number, got an empty array")
    lo, hi = fmt(float(np.min(values)), spec), fmt(float(np.max(values)), spec)
    if lo == hi:
        return lo
    return f"{lo} to {hi}" if lo.startswith("-") else f"{lo}–{hi}"


def results_rows(st: Study) -> List[Dict[str, object]]:
    """One row per scheme and depth: ``scheme``, ``depth``, ``loss`` and ``excess`` (``{n: (seeds,)}``),
    ``parameters``, ``flops`` (:func:`training_flops`) and ``seconds`` (``(seeds,)``, measured)."""
    rows = []
    for depth in sorted({k[1] for k in st.runs}):
        for scheme in [s for s in SCHEMES if (s, depth, st.seeds()[0]) in st.runs]:
            rows.append({
                "scheme": scheme, "depth": depth,
                "loss": {n: losses_at(st, scheme, depth, n) for n in LENGTHS},
                "excess": {n: excess_at(st, scheme, depth, n) for n in LENGTHS},
                "parameters": parameters(scheme, depth),
                "flops": training_flops(scheme, depth),
                "seconds": train_seconds(st, scheme, depth),
            })
    return rows


def results_markdown(st: Study) -> str:
    """The chapter's table: per scheme and depth, loss (nats, 3 decimals) and excess over the floor
    (millinats, 1 decimal) at ``L``, ``2L``, ``4L`` as seed ranges (min–max) and parameters. The
    training compute (:func:`training_flops`) is the same for every scheme at one depth, so the chapter
    states it in the prose instead of a column."""
    header = ["scheme", "layers", f"loss at {L}", f"at {2 * L}", f"at {4 * L}", f"excess at {L} (mnat)",
              f"at {2 * L}", f"at {4 * L}", "parameters"]
    rows = [["exact floor", ""] + [fmt(floor_at(st, n), ".3f") for n in LENGTHS] + ["0", "0", "0", ""]]
    for row in results_rows(st):
        rows.append([LABELS[row["scheme"]], str(row["depth"])]
                    + [span(row["loss"][n], ".3f") for n in LENGTHS]
                    + [span(1000 * row["excess"][n], ".1f") for n in LENGTHS]
                    + [f"{row['parameters']:,}"])
    return tables.markdown(header, rows, align="<" + ">" * 8)


# --- RoPE beyond its training length ----------------------------------------------------------------


EXTENSIONS = ("as trained", "NTK-aware base", "interpolation")


def extended_config(method: str, n: int, depth: int = 1) -> TransformerConfig:
    """The RoPE model's config for windows of ``n`` positions under ``method`` (one of ``EXTENSIONS``):
    ``s = n / L``; the NTK-aware base is :func:`lib.positional.ntk_base`, interpolation divides positions by ``s``."""
    validate.choice(method, "method", EXTENSIONS)
    base = model_config("rope", depth)
    s = _check_length(n) / L
    if method == "NTK-aware base":
        return replace(base, rope_base=positional.ntk_base(s, base.head_dim, base.rope_base))
    if method == "interpolation":
        return replace(base, rope_interpolation=s)
    return base


def extension_losses(st: Study, method: str, n: int, depth: int = 1) -> np.ndarray:
    """Loss at every position of the evaluation windows cut to ``n`` for each trained RoPE model under
    ``method`` (no training): ``(seeds, W, n)``. Kept in the study once computed."""
    def compute():
        config = extended_config(method, n, depth)
        return np.stack([transformer.position_losses(transformer.with_config(r.model, config), st.windows[:, : n + 1])
                         for r in st.seed_runs("rope", depth)])

    return st.memo(("extension", method, n, depth), compute)


def rope_extension(st: Study, depth: int = 1) -> Dict[str, Dict[int, np.ndarray]]:
    """Loss of the trained RoPE models at ``2L`` and ``4L`` under each of ``EXTENSIONS``, no training:
    ``{method: {n: (seeds,) losses}}``."""
    return {method: {n: extension_losses(st, method, n, depth).mean(axis=(1, 2)) for n in LENGTHS[1:]}
            for method in EXTENSIONS}


def rope_extension_by_position(st: Study, method: str, n: int, depth: int = 1) -> np.ndarray:
    """Excess over the floor at positions ``0 .. n - 1`` under ``method``, mean over windows and seeds: ``(n,)``."""
    return (extension_losses(st, method, n, depth) - st.floor[None, :, :n]).mean(axis=(0, 1))


def extension_excess_over(st: Study, method: str, n: int, start: int, stop: int, depth: int = 1) -> np.ndarray:
    """Excess over the floor on positions ``start .. stop - 1`` of windows of ``n`` under ``method``, one per
    seed: ``(seeds,)``."""
    start = validate.integer(start, "start", low=0, high=n - 1)
    stop = validate.integer(stop, "stop", low=start + 1, high=n)
    excess = extension_losses(st, method, n, depth) - st.floor[None, :, :n]
    return excess[:, :, start:stop].mean(axis=(1, 2))


def finetune_curve(st: Study, steps: Sequence[int] = FINETUNE_STEPS, depth: int = 1, n: int = 2 * L,
                   seeds: Optional[Sequence[int]] = None) -> np.ndarray:
    """Loss at ``n`` of the RoPE models with positions interpolated (``s = n / L``) after ``k`` steps of
    fine-tuning on windows of ``n``, for each ``k`` in ``steps``: ``(len(steps), seeds)``.

    :cite:t:`chen2023interpolation` fine-tune after interpolating; here AdamW at a constant learning rate
    ``FINETUNE_LR`` for ``max(steps)`` steps, scored after each ``k`` in ``steps`` (with a constant rate, the
    model after ``k`` steps of a longer run is the model of a ``k``-step run). ``k = 0`` is the interpolated model as
    trained. ``seeds`` (default: all) picks the models; the result has one column per seed. Kept in the study
    once computed. Raises ``ValueError`` for bad ``steps``, ``n`` or seeds.
    """
    steps = tuple(validate.integers(steps, "steps", low=0))
    if not steps or list(steps) != sorted(set(steps)):
        raise ValueError(f"steps must be distinct integers >= 0 in increasing order, got {steps!r}")
    n = _check_length(n)
    if n == L:
        raise ValueError(f"n must be longer than the training length {L}, got {n}")
    seeds = st.seeds() if seeds is None else tuple(seeds)
    for seed in seeds:
        st.run("rope", depth, seed)  # a ValueError naming what was trained, for a seed that was not

    def compute():
        windows = st.windows[:, : n + 1]
        config = extended_config("interpolation", n, depth)
        tc = TrainConfig(context=n, batch_size=TRAIN.batch_size, steps=max(steps), lr=FINETUNE_LR, warmup=0)
        out = np.empty((len(steps), len(seeds)))
        for j, seed in enumerate(seeds):
            base = st.run("rope", depth, seed).model
            scored = {0: transformer.position_losses(transformer.with_config(base, config), windows).mean()}

            def score(k, model):
                if k in steps:
                    scored[k] = transformer.position_losses(model, windows).mean()

            transformer.train(config, tc, st.corpus.train, seed, init=base, on_step=score)
            out[:, j] = [scored[k] for k in steps]
        return out

    return st.memo(("finetune_curve", steps, depth, n, seeds), compute)


def finetune_steps_needed(st: Study, within: float = 0.01, steps: Sequence[int] = FINETUNE_STEPS,
                          n: int = 2 * L, seeds: Optional[Sequence[int]] = None) -> Optional[int]:
    """The fewest fine-tuning steps in ``steps`` after which every seed's interpolated RoPE model is within
    ``within`` nats of the floor at ``n``; ``None`` if none is. Raises ``ValueError`` if an excess lies
    within ``1e-6`` of ``within`` (the answer must not hinge on float noise)."""
    within = validate.number(within, "within", gt=0)
    excess = finetune_curve(st, steps, n=n, seeds=seeds) - floor_at(st, n)  # (steps, seeds)
    gap = float(np.abs(excess - within).min())
    if gap < 1e-6:
        raise ValueError("an excess lies within 1e-6 nats of the bound; choose another bound")
    record_gap(f"fine-tuning within {within} nats", gap, within)
    ok = np.flatnonzero((excess < within).all(axis=1))
    return int(steps[ok[0]]) if ok.size else None


def finetune_answer(st: Study, n: int, steps: Sequence[int], within: float = 0.01,
                    seeds: Optional[Sequence[int]] = None) -> str:
    """One sentence: after how many of ``steps`` fine-tuning steps every seed is within ``within`` nats of the
    floor at ``n``, or how far the longest fine-tune left them."""
    needed = finetune_steps_needed(st, within, steps, n, seeds)
    bound = f"{fmt(1000 * within, '.0f')} millinats of the floor at {n}"
    who = "every seed is" if seeds is None or len(seeds) > 1 else "the model is"
    if needed is not None:
        return f"after {needed} steps {who} within {bound}"
    last = finetune_curve(st, steps, n=n, seeds=seeds)[-1] - floor_at(st, n)
    return (f"none of {', '.join(map(str, steps))} steps brings {'every seed' if who[0] == 'e' else 'the model'} "
            f"within {bound}; after {steps[-1]} the excess is {span(1000 * last, '.1f')} millinats")


# --- what the learned table learned -----------------------------------------------------------------


def learned_table(st: Study, depth: int = 1, seed: int = 0) -> np.ndarray:
    """The trained position table of a learned-position model: ``(4L, d)`` float64 (rows ``>= L`` untrained)."""
    return st.run("learned", depth, seed).model.pos.detach().numpy().copy()


def untrained_rows_unchanged(st: Study, depth: int = 1) -> bool:
    """Whether rows ``L .. 4L - 1`` of every seed's learned table still equal their initial values exactly."""
    for r in st.seed_runs("learned", depth):
        init = positional.LearnedPositionTable(LENGTHS[-1], r.model.config.d_model, seed=r.seed,
                                               scale=r.model.config.init_std).weight
        if not np.array_equal(learned_table(st, depth, r.seed)[L:], init[L:]):
            return False
    return True


def principal_component(rows) -> Tuple[np.ndarray, float, np.ndarray]:
    """First principal component of ``rows`` ``(n, d)``: the score of each row ``(n,)``, the fraction of the
    variance it explains, and its direction ``(d,)``, with ``scores = (rows - rows.mean(0)) @ direction``.
    The sign is chosen so that the score rises from the first row to the last.

    Centred exactly (:func:`lib.geometry.centred_rows`: each entry the exact ``x - mean`` to within one unit
    in its last place plus ``2**-104 · max(|x|, |mean|)``), so a
    constant column adds nothing to any score, whatever its value. Scale-robust: the centred rows are scaled
    by the power of two that puts their largest ``|entry|`` in [0.5, 1) (:func:`lib.embedding.power_of_two_scale`;
    exact, so the direction and the explained fraction are those of the unscaled rows) and the scores
    scaled back, so rows of any finite size give their component. Raises ``ValueError`` for ``rows`` that
    are not ``(n, d)`` with ``n >= 2``, hold NaN or infinity, or are all equal (no variance, no direction);
    ``TypeError`` for entries that are not real numbers (a PyTorch tensor is read as its values, detached:
    :func:`lib.validate.real_numbers`).

    >>> # the rows lie on one line: all variance on PC 1
    >>> rows = [[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]]
    >>> scores, explained, _ = principal_component(rows)
    >>> round(float(scores[2]), 4), round(explained, 4)
    (1.4142, 1.0)
    """
    X = validate.vectors(rows, "rows")
    if X.ndim != 2 or X.shape[0] < 2:
        raise ValueError(f"rows must be a matrix (n, d) with n >= 2, got shape {X.shape}")
    X, e = centred_rows(X)
    with np.errstate(under="ignore"):
        X, e2 = power_of_two_scale(X)
    e += e2
    _, s, vt = np.linalg.svd(X, full_matrices=False)
    if s[0] == 0:
        raise ValueError("rows are all equal: they have no variance, so no principal component")
    direction = vt[0] if X[-1] @ vt[0] >= X[0] @ vt[0] else -vt[0]
    with np.errstate(under="ignore"):
        explained = float(1.0 / np.sum((s / s[0]) ** 2))  # s[0]**2 / sum(s**2), without squaring s itself
        scores = X @ direction
    with np.errstate(over="ignore"):
        scores = np.ldexp(scores, e)
    if not np.all(np.isfinite(scores)):
        raise ValueError("the scores of these rows overflow float64 (a score's true value is above 1.8e308)")
    return scores, explained, direction


def learned_table_summary(st: Study, depth: int = 1) -> Dict[str, np.ndarray]:
    """Per seed, over the ``L`` trained rows: ``explained`` (fraction of variance on the first principal
    component), ``correlation`` (Pearson, first component against position) and ``cos_first_last``
    (cosine similarity of rows 0 and ``L - 1``)."""
    out = {"explained": [], "correlation": [], "cos_first_last": []}
    for r in st.seed_runs("learned", depth):
        rows = learned_table(st, depth, r.seed)[:L]
        scores, explained, _ = principal_component(rows)
        out["explained"].append(explained)
        out["correlation"].append(np.corrcoef(scores, np.arange(L))[0, 1])
        a, b = rows[0], rows[L - 1]
        out["cos_first_last"].append(cosine_similarity(a, b))
    return {k: np.array(v) for k, v in out.items()}


def cosine_matrix(rows) -> np.ndarray:
    """Cosine similarity of every pair of rows of ``rows`` ``(n, d)``: ``(n, n)`` float64
    (:func:`lib.embedding.similarity`: scale-robust, 0 for a zero row). Raises ``ValueError`` for ``rows``
    that are not a matrix ``(n, d)`` or hold NaN or infinity, ``TypeError`` for entries that are not real
    numbers.

    >>> cosine_matrix([[1.0, 0.0], [1.0, 1.0]]).round(4)
    array([[1.    , 0.7071],
           [0.7071, 1.    ]])
    """
    X = validate.vectors(rows, "rows")
    if X.ndim != 2:
        raise ValueError(f"rows must be a matrix (n, d), got shape {X.shape}")
    return similarity(X, X, "cosine")


# --- attention beyond L -------------------------------------------------------------------------------


def attention_profile(st: Study, scheme: str, query: int, depth: int = 1, seed: int = 0, layer: int = 0,
                      n_windows: int = 64) -> np.ndarray:
    """Mean attention weight of the query at position ``query`` on keys ``0 .. query``, per head, over the
    first ``n_windows`` evaluation windows: ``(H, query + 1)`` float64."""
    query = validate.integer(query, "query", low=0, high=LENGTHS[-1] - 1)

    def compute():
        model = st.run(scheme, depth, seed).model
        maps = transformer.attention_maps(model, st.windows[:n_windows, : query + 1])[layer]  # (W, H, q+1, q+1)
        return maps[:, :, query].mean(axis=0)

    return st.memo(("attention", scheme, query, depth, seed, layer, n_windows), compute)


def sharpest_head(st: Study, scheme: str, depth: int = 1, seed: int = 0, layer: int = 0) -> int:
    """The head that puts the most weight on the two previous tokens (distances 1 and 2) for the query at
    position ``L - 1``, mean over windows: the head a model uses to find what the grammar needs."""
    weights = attention_profile(st, scheme, L - 1, depth, seed, layer)  # (H, L)
    return argmax(weights[:, L - 3 : L - 1].sum(axis=1), f"sharpest head of {scheme}")


def attention_by_distance(st: Study, scheme: str, query: int, head: int, depth: int = 1, seed: int = 0,
                          layer: int = 0) -> np.ndarray:
    """Mean attention weight of ``head`` for the query at ``query`` on the key ``k`` positions back,
    ``k = 0 .. query``: ``(query + 1,)``."""
    return attention_profile(st, scheme, query, depth, seed, layer)[head, ::-1]


# --- more summaries for the chapter's prose and exercises ----------------------------------------------


def mean_loss_over(st: Study, scheme: str, depth: int, start: int, stop: int) -> np.ndarray:
    """Mean loss on positions ``start .. stop - 1`` of the evaluation windows, one per seed: ``(seeds,)``."""
    start = validate.integer(start, "start", low=0, high=LENGTHS[-1] - 1)
    stop = validate.integer(stop, "stop", low=start + 1, high=LENGTHS[-1])
    return np.array([r.losses[:, start:stop].mean() for r in st.seed_runs(scheme, depth)])


def largest_excess_beyond(st: Study, scheme: str, depth: int) -> float:
    """The largest seed-mean excess over the floor at any position ``L .. 4L - 1``, nats."""
    return float(excess_by_position(st, scheme, depth).mean(axis=0)[L:].max())


def loss_with_config(st: Study, scheme: str, depth: int, n: int, **changes) -> np.ndarray:
    """Loss at ``n`` of the trained models of ``scheme`` with their config changed at test time (e.g.
    ``alibi_slopes`` or ``rope_base``), no training: ``(seeds,)``."""
    n = _check_length(n)

    def compute():
        config = replace(model_config(scheme, depth), **changes)
        return np.array([transformer.position_losses(transformer.with_config(r.model, config),
                                                     st.windows[:, : n + 1]).mean()
                         for r in st.seed_runs(scheme, depth)])

    return st.memo(("with_config", scheme, depth, n, tuple(sorted(changes.items()))), compute)


def train_and_score(st: Study, scheme: str, depth: int = 1, seed: int = 0, **train_changes) -> np.ndarray:
    """Train one model with the chapter's settings changed by ``train_changes`` (e.g. ``context=16``) and
    return its loss at every position of the evaluation windows: ``(W, 4L)``."""
    def compute():
        tc = replace(TRAIN, **train_changes)
        trained = transformer.train(model_config(scheme, depth), tc, st.corpus.train, seed)
        return transformer.position_losses(trained.model, st.windows)

    return st.memo(("train_and_score", scheme, depth, seed, tuple(sorted(train_changes.items()))), compute)


def window_text(window) -> str:
    """A window of token ids as text, one sentence (or piece of one) per line, each line prefixed with the
    position of its first token. ``window`` is a 1-D sequence of ids of the toy language (``ValueError``
    otherwise, and like :func:`lib.validate.ids` for the ids)."""
    window = validate.ids(window, toylang.V)
    if window.ndim != 1:
        raise ValueError(f"window must be a 1-D sequence of token ids, got shape {window.shape}")
    lines, start = [], 0
    for piece in toylang.split_sentences(window):
        lines.append(f"{start:3d}  {piece}")
        start += len(piece.split())
    return "\n".join(lines)


def entropies_text() -> str:
    """The exact entropies of the toy language's stream (nats, 5 decimals), one per line."""
    rows = [
        ("H(next | previous token)", toylang.bigram_entropy()),
        ("H(next | previous token, position in sentence)", toylang.positional_entropy()),
        ("H(sentence)", toylang.sentence_entropy()),
        ("mean sentence length (tokens)", toylang.mean_sentence_length()),
        ("H(sentence) / mean sentence length", toylang.entropy_rate()),
    ]
    return tables.text(["quantity", "nats"], [[name, fmt(value, ".5f")] for name, value in rows], align="<>",
                       rule="columns")


def expected_floor_at(n: int) -> float:
    """The exact expected floor on windows of ``n`` positions, nats per token (:func:`lib.forward_filter.expected_floor`)."""
    return float(_expected_floor()[: _check_length(n)].mean())


@lru_cache(maxsize=1)
def _expected_floor() -> np.ndarray:
    return forward_filter.expected_floor(LENGTHS[-1] + 1)  # (4L,): one value per position


def floor_text(floor) -> str:
    """The exact expected floor at the first positions of a window and over windows of ``L``, ``2L``, ``4L``,
    beside the mean of ``floor`` ``(W, 4L)`` (:func:`lib.forward_filter.optimal_losses` of the evaluation
    windows) over the same lengths (nats, 5 decimals: exact float64 sums over the grammar). ``ValueError`` for
    a ``floor`` of fewer than ``4L`` positions (a mean over ``4L`` would silently be one over fewer), no window,
    or NaN or infinity; ``TypeError`` for entries that are not real numbers."""
    floor = validate.real_array(floor, "floor")
    if floor.ndim != 2 or floor.shape[0] < 1 or floor.shape[1] < LENGTHS[-1]:
        raise ValueError(f"floor must be a (W, {LENGTHS[-1]}) array (W >= 1 windows of 4L positions), got shape "
                         f"{floor.shape}")
    by_pos = forward_filter.expected_floor(5)
    first = tables.text(["position in the window"] + [str(p) for p in range(4)] + ["..."],
                        [["expected floor"] + [fmt(v, ".5f") for v in by_pos] + [""]], align="<>>>>>")
    windows = tables.text(["window of (tokens)"] + [str(n) for n in LENGTHS],
                          [["expected floor"] + [fmt(expected_floor_at(n), ".5f") for n in LENGTHS],
                           [f"floor on the {floor.shape[0]} test windows"]
                           + [fmt(floor[:, :n].mean(), ".5f") for n in LENGTHS]], align="<>>>")
    return first + "\n\n" + windows


def config_text(config: TransformerConfig, train_config: TrainConfig = TRAIN) -> str:
    """The settings of the chapter's model and training, two aligned columns."""
    rows = [("layers", f"{config.n_layer} (and 2)"), ("width d", str(config.d_model)),
            ("heads (width each)", f"{config.n_head} ({config.head_dim})"),
            ("MLP width", str(config.mlp_ratio * config.d_model)), ("vocabulary", str(config.vocab_size)),
            ("longest window", str(config.max_len)), ("training window L", str(train_config.context)),
            ("batch (windows)", str(train_config.batch_size)), ("AdamW steps", str(train_config.steps)),
            ("peak learning rate", exact(train_config.lr)), ("warm-up steps", str(train_config.warmup)),
            ("weight decay", exact(train_config.weight_decay)), ("gradient clip", exact(train_config.grad_clip))]
    return tables.text(["setting", "value"], [list(r) for r in rows], rule="columns")


def parameters_text(depths: Sequence[int] = DEPTHS) -> str:
    """Parameters of the model under each scheme and depth, as an aligned table."""
    header = ["scheme"] + [f"{d} layer" + ("s" if d > 1 else "") for d in depths]
    rows = [[LABELS[scheme]] + [f"{parameters(scheme, d):,}" for d in depths] for scheme in SCHEMES]
    return tables.text(header, rows, align="<" + ">" * len(depths), rule="columns")


def extension_text(st: Study, depth: int = 1) -> str:
    """Loss of the RoPE models at ``2L`` and ``4L`` as trained, with the NTK-aware base, with position
    interpolation (no fine-tuning): seed ranges, 3 decimals, beside the floor."""
    ext = rope_extension(st, depth)
    rows = [["exact floor"] + [fmt(floor_at(st, n), ".3f") for n in LENGTHS[1:]]]
    rows += [[method] + [span(ext[method][n], ".3f") for n in LENGTHS[1:]] for method in EXTENSIONS]
    return tables.text(["RoPE, no training"] + [f"loss at {n}" for n in LENGTHS[1:]], rows, align="<>>",
                       rule="columns")


def finetune_text(st: Study, steps: Sequence[int] = FINETUNE_STEPS) -> str:
    """Loss at ``2L`` after each number of fine-tuning steps with interpolation, seed range, beside the floor."""
    curve = finetune_curve(st, steps)
    floor = floor_at(st, 2 * L)
    rows = [[str(k), span(row, ".3f"), span(1000 * (row - floor), ".1f")] for k, row in zip(steps, curve)]
    return tables.text(["steps", f"loss at {2 * L}", "excess (mnat)"], rows, align=">>>", rule="columns")


def learned_summary_text(st: Study, depth: int = 1) -> str:
    """Per seed: variance on the first principal component of the trained rows (whole percent), its
    correlation with position and the cosine of rows 0 and ``L - 1`` (2 decimals)."""
    summary = learned_table_summary(st, depth)
    rows = [[str(seed), fmt(summary["explained"][i], ".0%"), fmt(summary["correlation"][i], ".2f"),
             fmt(summary["cos_first_last"][i], ".2f")] for i, seed in enumerate(st.seeds())]
    return tables.text(["seed", "variance on PC 1", "corr. with position", f"cos(row 0, row {L - 1})"], rows,
                       align=">>>>", rule="columns")


def rope_identity_deviation(d: int = 8, n_positions: int = 64, seed: int = 0) -> float:
    """Largest ``|(R_m q) · (R_n k) - q · R_{n-m} k|`` over all ``m, n < n_positions`` for random ``q, k`` of
    width ``d`` (:func:`lib.positional.rope`, :func:`lib.positional.rope_matrix`): zero up to rounding."""
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal(d), rng.standard_normal(d)
    pos = np.arange(n_positions)
    rq = positional.rope(np.broadcast_to(q, (n_positions, d)), pos)  # (n, d): q at every position
    rk = positional.rope(np.broadcast_to(k, (n_positions, d)), pos)
    scores = rq @ rk.T                                               # (m, n)
    by_offset = np.array([q @ positional.rope_matrix(int(o), d) @ k for o in range(-n_positions + 1, n_positions)])
    expected = by_offset[pos[None, :] - pos[:, None] + n_positions - 1]
    return float(np.abs(scores - expected).max())
