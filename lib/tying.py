"""Weight tying: a small language model whose output matrix is its input embedding table.

Taught in: chapters/scale.md ("Tying the output matrix to the input table").

A language model reads token ``x`` through an input table ``E`` ``(V, d)`` and scores every next token
with an output matrix ``U`` ``(d, V)`` (``logits = z @ U + b``, from the last hidden vector ``z``). ``E`` and
``Uᵀ`` both have one row per vocabulary item, so they can be the same matrix: ``U = Eᵀ`` (PyTorch's output
layer stores ``Uᵀ`` as its ``weight``). :cite:t:`press2017using` and :cite:t:`inan2017tying` tie them and
report equal or better perplexity with fewer parameters; GPT-2 and nanoGPT
:cite:p:`radford2019language,karpathy2022nanogpt` do it (``lm_head.weight = wte.weight``). In PyTorch, tying
is assigning one ``Parameter`` to both places, and ``model.parameters()`` then yields it once, so the
parameter count falls by exactly ``V · d``, and its gradient is the sum of the gradient through the lookup and
the gradient through the output layer.

The model here is the setting of chapters/lesson.md, the next token of the toy language (``lib.toylang``) from the
previous one, with one hidden layer between input and output (Press & Wolf tie across an LSTM; here
``z = tanh(E[x] M + b_M)``, the symbols of the book's notation page):

- ``"untied"``: ``E`` and ``U`` separate: ``2 V d + d² + d + V`` parameters;
- ``"tied"``: ``U = Eᵀ``: ``V d + d² + d + V``;
- ``"tied_no_hidden"``: ``U = Eᵀ`` and no hidden layer, ``logits = E[x] @ Eᵀ + b``: ``V d + V``. The score of
  ``j`` after ``i`` is then ``E_i · E_j``, the same as of ``i`` after ``j``, so this model cannot tell
  "the cat" from "cat the" except through the bias: tying is an assumption about the model, not a free
  saving of memory (chapters/embeddings.md, Level 4).

Training is full-batch Adam on the bigram counts of the training split: the loss of any model that sees
only the previous token depends on the data only through the count matrix (see ``lib.bigram``), so
one ``(V, V)`` logit table per step replaces the ``N`` training pairs. The learning rate decays to zero along
a cosine :cite:p:`loshchilov2017sgdr`, as nanoGPT does: at a constant rate the tied width-2 and width-8 models
keep oscillating, and where they stop after a fixed number of steps depends on rounding noise in the fifth
or sixth digit, so another CPU would print another loss; with the decay they settle, to about 1e-12. Losses are mean cross-entropies in
nats per predicted token; the floor is the grammar's conditional entropy
(``lib.toylang.bigram_entropy``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import numpy as np
import torch

from lib import validate
from lib.threads import torch_threads

VARIANTS = ("untied", "tied", "tied_no_hidden")
STEPS = 1500  # full-batch Adam steps: enough for d >= 4 to reach the floor on this corpus
LR = 0.03  # the peak learning rate; it decays to 0 along a cosine over the steps
INIT_SCALE = 0.1
WIDTHS = (2, 4, 8)


class TinyLM(torch.nn.Module):
    """Next-token model ``P(next | previous)``: input table, optional hidden layer, output matrix.

    ``V`` tokens, width ``d``, ``variant`` one of ``VARIANTS``. ``forward(x)`` takes ids ``(...,)``
    int64 and returns logits ``(..., V)`` float64. ``self.embed`` is an ``nn.Embedding(V, d)``;
    ``self.out`` an ``nn.Linear(d, V)`` whose ``weight`` ``(V, d)`` *is* ``self.embed.weight`` when tied.
    Initial weights ``N(0, 0.1²)`` from ``seed`` (biases zero). Raises ``ValueError`` for an unknown
    variant, ``V < 2`` or ``d < 1``.
    """

    def __init__(self, V: int, d: int, variant: str = "untied", seed: int = 0):
        super().__init__()
        validate.choice(variant, "variant", VARIANTS)
        V = validate.size(V, "V (vocabulary size)", low=2)
        d = validate.size(d, "d (width)", low=1)
        validate.entries((V, d), "V and d")
        self.variant = variant
        gen = torch.Generator().manual_seed(int(seed))
        self.embed = torch.nn.Embedding(V, d, dtype=torch.float64)
        self.out = torch.nn.Linear(d, V, dtype=torch.float64)
        self.hidden = None if variant == "tied_no_hidden" else torch.nn.Linear(d, d, dtype=torch.float64)
        with torch.no_grad():
            self.embed.weight.copy_(torch.randn(V, d, generator=gen, dtype=torch.float64) * INIT_SCALE)
            self.out.weight.copy_(torch.randn(V, d, generator=gen, dtype=torch.float64) * INIT_SCALE)
            self.out.bias.zero_()
            if self.hidden is not None:
                self.hidden.weight.copy_(torch.randn(d, d, generator=gen, dtype=torch.float64) * INIT_SCALE)
                self.hidden.bias.zero_()
        if variant != "untied":
            self.out.weight = self.embed.weight  # one Parameter in two places: the tie

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Logits ``(..., V)`` float64 of the next token after each id of ``x`` ``(...,)`` int64."""
        h = self.embed(x)  # (..., d)
        if self.hidden is not None:
            h = torch.tanh(self.hidden(h))
        return self.out(h)  # (..., V): h @ out.weight.T + out.bias


def num_parameters(model: torch.nn.Module) -> int:
    """Distinct trainable values of ``model``: ``sum(p.numel() for p in model.parameters())``.

    ``parameters()`` yields a shared (tied) ``Parameter`` once, so a tie is counted once.
    """
    return int(sum(p.numel() for p in model.parameters()))


def expected_parameters(V: int, d: int, variant: str) -> int:
    """The closed-form parameter count of :class:`TinyLM` (see the module docstring).

    >>> expected_parameters(34, 8, "untied"), expected_parameters(34, 8, "tied")
    (650, 378)
    """
    validate.choice(variant, "variant", VARIANTS)
    V = validate.size(V, "V (vocabulary size)", low=2)
    d = validate.size(d, "d (width)", low=1)
    tables = (2 if variant == "untied" else 1) * V * d
    hidden = 0 if variant == "tied_no_hidden" else d * d + d
    return tables + hidden + V



def counts_loss(model: TinyLM, counts: torch.Tensor) -> torch.Tensor:
    """Mean cross-entropy (nats) of ``model`` on the pairs counted in ``counts`` ``(V, V)``: a 0-d tensor.

    ``−Σ_ij C_ij log softmax(model(i))_j / Σ C``; equal to the mean over the raw pairs. ``counts`` holds
    real numbers (integer or floating), finite and ``>= 0``, with a positive total. Raises ``TypeError`` for a
    ``model`` that is not a :class:`TinyLM` or ``counts`` that is not a tensor of real numbers (a NumPy array:
    ``torch.as_tensor(counts)``), ``ValueError`` for ``counts`` of another shape than ``(V, V)``, with NaN,
    infinity or a negative entry, or counting no pair (a total of 0: the mean of nothing).

    >>> model = TinyLM(2, 1, "tied_no_hidden")
    >>> with torch.no_grad():  # every logit 0: P(next) = 1/2
    ...     _ = model.embed.weight.zero_()
    >>> loss = counts_loss(model, torch.tensor([[3, 1], [0, 2]]))
    >>> round(float(loss.detach()), 4)  # ln 2
    0.6931
    """
    if not isinstance(model, TinyLM):
        raise TypeError(f"model must be a TinyLM, got {type(model).__name__}")
    V = model.embed.num_embeddings
    validate.tensor(counts, "counts", f"({V}, {V})", real=True, finite=True)
    if tuple(counts.shape) != (V, V):
        raise ValueError(f"counts must have shape (V, V) = ({V}, {V}), the model's vocabulary, got {tuple(counts.shape)}")
    if (counts < 0).any():
        raise ValueError("counts must be >= 0 (a number of pairs), got a negative entry")
    if not counts.sum() > 0:
        raise ValueError("counts must count at least one pair (a positive total), got all zeros: the mean of no pair "
                         "is undefined")
    if not torch.isfinite(counts.sum()):  # float counts near 1.8e308: the same fractions, scaled by a power of two
        counts = counts * 2.0 ** -math.frexp(float(counts.max()))[1]
    logp = torch.log_softmax(model(torch.arange(V)), dim=1)  # (V, V): row i is log P(. | i)
    return -(counts * logp).sum() / counts.sum()


@dataclass(frozen=True)
class TyingResult:
    """One trained model: ``variant``, width ``d``, ``n_params``, final ``train_loss`` and ``val_loss``
    (nats per token) and ``losses`` ``(steps,)`` float64, the training loss before each step."""

    variant: str
    d: int
    n_params: int
    train_loss: float
    val_loss: float
    losses: np.ndarray


#: a run whose final training loss is above this many times the larger of its first one and ``ln V`` diverged
DIVERGENCE_FACTOR = 10.0


def train(
    variant: str, d: int, train_counts, val_counts, *, steps: int = STEPS, lr: float = LR, seed: int = 0
) -> TyingResult:
    """Train a :class:`TinyLM` with full-batch Adam on ``train_counts`` and evaluate on ``val_counts``.

    The learning rate starts at ``lr`` and decays to 0 along a cosine over the ``steps``
    (``torch.optim.lr_scheduler.CosineAnnealingLR``).

    Both count matrices are ``(V, V)`` (``lib.bigram.bigram_counts``). Runs on one thread (restored
    afterwards): the matrices are too small to share. Returns a :class:`TyingResult`.
    Raises ``ValueError`` for an unknown variant, mismatched count shapes, a ragged nesting, ``steps < 1`` or
    ``lr <= 0``, and as :func:`counts_loss`; ``TypeError`` for counts that are not real numbers (strings,
    complex numbers, bools: :func:`lib.validate.real_numbers`); ``FloatingPointError`` when training diverges
    (too large an ``lr``): a training loss that is not finite, or a final training loss above
    ``DIVERGENCE_FACTOR`` (10) times the larger of the first one and ``ln V``.
    """
    train_counts = torch.as_tensor(validate.real_numbers(train_counts, "train_counts", "a square (V, V) matrix"),
                                   dtype=torch.float64)
    val_counts = torch.as_tensor(validate.real_numbers(val_counts, "val_counts", "a (V, V) matrix"),
                                 dtype=torch.float64)
    if train_counts.dim() != 2 or train_counts.shape[0] != train_counts.shape[1]:
        raise ValueError(f"train_counts must be a square (V, V) matrix, got {tuple(train_counts.shape)}")
    if val_counts.shape != train_counts.shape:
        raise ValueError(f"val_counts must have shape {tuple(train_counts.shape)}, got {tuple(val_counts.shape)}")
    steps = validate.size(steps, "steps", low=1)
    lr = validate.number(lr, "lr", gt=0)
    model = TinyLM(train_counts.shape[0], d, variant, seed)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=steps)
    losses = np.empty(steps)
    with torch_threads(1):
        for t in range(steps):
            opt.zero_grad(set_to_none=True)
            loss = counts_loss(model, train_counts)
            losses[t] = float(loss.detach())
            if not math.isfinite(losses[t]):  # divergence: stop with a report, never train on into NaN
                raise FloatingPointError(f"training diverged at step {t + 1} of {steps}: the loss became "
                                         f"{losses[t]} (learning rate {lr}); lower the learning rate")
            loss.backward()
            opt.step()
            schedule.step()
        with torch.no_grad():
            tr, va = float(counts_loss(model, train_counts)), float(counts_loss(model, val_counts))
    limit = DIVERGENCE_FACTOR * max(losses[0], math.log(train_counts.shape[0]))
    if not (math.isfinite(tr) and math.isfinite(va)) or tr > limit:
        raise FloatingPointError(f"training diverged: the final training loss is {tr} nats, the validation loss {va} "
                                 f"(the first training loss was {losses[0]:.4g}, the limit {limit:.4g}; learning rate "
                                 f"{lr}); lower the learning rate")
    return TyingResult(variant, int(d), num_parameters(model), tr, va, losses)


def score_asymmetry(model: TinyLM) -> Optional[float]:
    """Largest ``|s_ij − s_ji|`` of the pre-bias scores ``s = h(E) Oᵀ`` ``(V, V)``: 0 when the scores are
    symmetric (as for ``"tied_no_hidden"``, where ``s = E Eᵀ``). Raises ``TypeError`` for a ``model`` that is
    not a :class:`TinyLM`."""
    if not isinstance(model, TinyLM):
        raise TypeError(f"model must be a TinyLM, got {type(model).__name__}")
    V = model.embed.weight.shape[0]
    with torch.no_grad():
        s = model(torch.arange(V)) - model.out.bias
    return float((s - s.T).abs().max())
