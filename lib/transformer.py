"""A tiny causal transformer language model, with five ways of telling it where each token stands.

Taught in: chapters/position_schemes.md.

Follows nanoGPT :cite:p:`karpathy2022nanogpt`, itself GPT-2's layout :cite:p:`radford2019language`: a token embedding,
``n_layer`` pre-LayerNorm blocks ``x = x + attn(ln_1(x)); x = x + mlp(ln_2(x))`` with causal multi-head
self-attention and a GELU MLP, a final LayerNorm and a linear head; one :class:`TransformerConfig` passed whole;
AdamW with linear warm-up and cosine decay; weight decay on the matrices of the blocks and the head only.

The position scheme is the one thing that varies (``TransformerConfig.position``):

- ``"none"``: nothing; the causal mask is the only source of order (NoPE :cite:p:`haviv2022transformer`);
- ``"learned"``: a trained table of ``max_len`` rows added to the token vectors (GPT-2), initialised from
  :class:`lib.positional.LearnedPositionTable`;
- ``"sinusoidal"``: the fixed table of :func:`lib.positional.sinusoidal_table` added to the token vectors
  :cite:p:`vaswani2017attention{§3.5}`;
- ``"rope"``: queries and keys rotated by position in every head :cite:p:`su2021roformer`, with the angles of
  :func:`lib.positional.rope_angles` (base, and position interpolation, set in the config);
- ``"alibi"``: a linear penalty on distance added to the attention scores :cite:p:`press2022alibi`, the bias
  of :func:`lib.positional.alibi_bias`.

Departures from nanoGPT: no dropout; the head is not tied to the token embedding; parameters are float64
so that a trained model's losses are the same to many digits on every CPU; the token embedding starts at
``N(0, 1)`` (PyTorch's default for ``nn.Embedding``, ``embed_std``) instead of ``N(0, 0.02²)``, because at
0.02 the sinusoidal table (entries of size 1) drowns the token vectors and a two-layer model can stall on
a plateau; the token embedding and the learned position table are not weight-decayed, so that a row no
window reaches keeps its initial values; init draws from a ``torch.Generator`` made from the seed, never
from global state; a window longer than ``max_len`` is an error for every scheme, so that the buffers are
made once.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Callable, List, Optional, Tuple

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from lib import positional, validate

POSITION_SCHEMES = ("none", "learned", "sinusoidal", "rope", "alibi")
DTYPE = torch.float64


@validate.known_fields
@dataclass(frozen=True)
class TransformerConfig:
    """Everything that defines the model; passed whole, as nanoGPT's ``GPTConfig``.

    ``position``: one of ``POSITION_SCHEMES``. ``max_len``: the longest window the model accepts, and the
    number of rows of the learned table (rows beyond the training length are never trained). ``rope_base``
    and ``rope_interpolation`` (``s >= 1``: positions divided by ``s``) only matter for ``"rope"``;
    ``alibi_slopes`` (``None``: the paper's, :func:`lib.positional.alibi_slopes`) only for ``"alibi"``.
    ``init_std``: the standard deviation of the initial matrices and of the learned table; ``embed_std``: that
    of the token embedding. Raises ``ValueError`` naming the field and its allowed range: each size is at
    most ``lib.validate.MAX_SIZE`` (2**28), and so is every table the model allocates (``vocab_size ·
    d_model``, ``max_len · d_model``, ``n_head · max_len²``, ``mlp_ratio · d_model²`` and the blocks'
    matrices together, ``n_layer · (3 + mlp_ratio) · d_model²``); ``TypeError`` for a field of the wrong type,
    or an unknown field (naming the fields, also in ``dataclasses.replace``).
    """

    position: str = "learned"
    n_layer: int = 1
    n_head: int = 4
    d_model: int = 32
    mlp_ratio: int = 4
    vocab_size: int = 34
    max_len: int = 128
    rope_base: float = positional.BASE
    rope_interpolation: float = 1.0
    alibi_slopes: Optional[Tuple[float, ...]] = None
    init_std: float = 0.02
    embed_std: float = 1.0

    def __post_init__(self):
        validate.choice(self.position, "position", POSITION_SCHEMES)
        for name in ("n_layer", "n_head", "d_model", "mlp_ratio", "vocab_size", "max_len"):
            validate.size(getattr(self, name), name)
        if self.d_model % self.n_head:
            raise ValueError(f"d_model ({self.d_model}) must be a multiple of n_head ({self.n_head})")
        # every table the model allocates, each within lib.validate.MAX_SIZE entries
        validate.entries((self.vocab_size, self.d_model), "vocab_size and d_model (token table and head)")
        validate.entries((self.max_len, self.d_model), "max_len and d_model (position table)")
        validate.entries((self.n_head, self.max_len, self.max_len), "n_head and max_len (causal mask, ALiBi bias)")
        validate.entries((self.mlp_ratio * self.d_model, self.d_model), "mlp_ratio and d_model (MLP matrices)")
        validate.entries((self.n_layer, 3 * self.d_model + self.mlp_ratio * self.d_model, self.d_model),
                         "n_layer, d_model and mlp_ratio (the blocks' matrices)")
        if self.position == "rope" and self.head_dim % 2:
            raise ValueError(f"RoPE rotates pairs: the head width d_model / n_head must be even, got {self.head_dim}")
        validate.number(self.rope_base, "rope_base", gt=1)
        validate.number(self.rope_interpolation, "rope_interpolation", ge=1)
        validate.number(self.init_std, "init_std", gt=0)
        validate.number(self.embed_std, "embed_std", gt=0)
        if self.alibi_slopes is not None:
            slopes = tuple(validate.number(m, f"alibi_slopes[{i}]", ge=0) for i, m in enumerate(self.alibi_slopes))
            if len(slopes) != self.n_head:
                raise ValueError(f"alibi_slopes must have one slope per head ({self.n_head}), got {len(slopes)}")
            object.__setattr__(self, "alibi_slopes", slopes)

    @property
    def head_dim(self) -> int:
        """Width of one attention head, ``d_model // n_head``."""
        return self.d_model // self.n_head


def rope_rotate(x: torch.Tensor, angles: torch.Tensor) -> torch.Tensor:
    """RoPE in PyTorch: rotate each pair ``(x_2i, x_2i+1)`` of ``x`` ``(..., T, d)`` by ``angles`` ``(T, d/2)``.

    The same rotation as :func:`lib.positional.rope` :cite:p:`su2021roformer{eq. 34}`, differentiable in
    ``x``; ``angles`` (radians) come from :func:`lib.positional.rope_angles`, one row per position of ``x``. Returns a
    new tensor of ``x``'s shape. Raises ``TypeError`` for an argument that is not a floating-point tensor (a
    NumPy array, integer or complex entries) and ``ValueError`` for an odd width ``d``, ``x`` of fewer than two
    dimensions, ``angles`` of another shape than ``(T, d/2)`` (never broadcast), tensors on different devices,
    or NaN or infinity in either.

    >>> # (1, 0) turned by 3 rad and by 0.03 rad: [cos 3, sin 3, cos 0.03, sin 0.03]
    >>> x = torch.tensor([[1.0, 0.0, 1.0, 0.0]], dtype=DTYPE)
    >>> rope_rotate(x, torch.tensor([[3.0, 0.03]], dtype=DTYPE))
    tensor([[-0.9900,  0.1411,  0.9996,  0.0300]], dtype=torch.float64)
    """
    validate.tensor(x, "x", "(..., T, d)", floating=True, finite=True)
    validate.tensor(angles, "angles", "(T, d/2)", floating=True, finite=True)
    if x.ndim < 2 or x.shape[-1] % 2 or x.shape[-1] < 2:
        raise ValueError(f"x must have shape (..., T, d) with an even width d >= 2 (RoPE rotates pairs), "
                         f"got {tuple(x.shape)}")
    T, d = x.shape[-2], x.shape[-1]
    if tuple(angles.shape) != (T, d // 2):
        raise ValueError(f"angles must have shape (T, d/2) = ({T}, {d // 2}), one angle per position and pair "
                         f"of x {tuple(x.shape)}, got {tuple(angles.shape)}")
    if angles.device != x.device:
        raise ValueError(f"angles must be on x's device ({x.device}), got {angles.device}")
    return _rotate_pairs(x, angles)


def _rotate_pairs(x: torch.Tensor, angles: torch.Tensor) -> torch.Tensor:
    """:func:`rope_rotate` without its checks, for the model, whose shapes its config has checked."""
    cos, sin = angles.cos(), angles.sin()
    even, odd = x[..., 0::2], x[..., 1::2]                   # (..., T, d/2) each
    rotated = torch.stack((even * cos - odd * sin, even * sin + odd * cos), dim=-1)  # (..., T, d/2, 2)
    return rotated.flatten(-2)                               # (..., T, d): pairs interleaved again


class CausalSelfAttention(nn.Module):
    """Multi-head self-attention in which position ``i`` sees positions ``0 .. i`` only."""

    def __init__(self, config: TransformerConfig):
        super().__init__()
        self.config = config
        self.qkv = nn.Linear(config.d_model, 3 * config.d_model, dtype=DTYPE)
        self.proj = nn.Linear(config.d_model, config.d_model, dtype=DTYPE)
        n = config.max_len
        self.register_buffer("causal", torch.ones(n, n, dtype=torch.bool).tril(), persistent=False)
        if config.position == "rope":
            angles = positional.rope_angles(np.arange(n), config.head_dim, config.rope_base, config.rope_interpolation)
            self.register_buffer("angles", torch.as_tensor(angles, dtype=DTYPE), persistent=False)  # (n, hd/2)
        if config.position == "alibi":
            bias = positional.alibi_bias(n, config.n_head, config.alibi_slopes)
            self.register_buffer("bias", torch.as_tensor(bias, dtype=DTYPE), persistent=False)  # (H, n, n)

    def forward(self, x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        """``x`` ``(B, T, d)`` -> output ``(B, T, d)`` and attention weights ``(B, H, T, T)``."""
        B, T, d = x.shape
        H, hd = self.config.n_head, self.config.head_dim
        q, k, v = self.qkv(x).split(d, dim=-1)
        q, k, v = (t.view(B, T, H, hd).transpose(1, 2) for t in (q, k, v))  # (B, H, T, hd) each
        if self.config.position == "rope":
            q, k = _rotate_pairs(q, self.angles[:T]), _rotate_pairs(k, self.angles[:T])
        scores = (q / math.sqrt(hd)) @ k.transpose(-2, -1)  # (B, H, T, T): query i, key j
        if self.config.position == "alibi":
            scores = scores + self.bias[:, :T, :T]
        scores = scores.masked_fill(~self.causal[:T, :T], float("-inf"))
        weights = scores.softmax(dim=-1)
        y = (weights @ v).transpose(1, 2).reshape(B, T, d)  # heads side by side again
        return self.proj(y), weights


class MLP(nn.Module):
    """Two linear layers with a GELU between, ``d -> mlp_ratio * d -> d``."""

    def __init__(self, config: TransformerConfig):
        super().__init__()
        self.fc = nn.Linear(config.d_model, config.mlp_ratio * config.d_model, dtype=DTYPE)
        self.proj = nn.Linear(config.mlp_ratio * config.d_model, config.d_model, dtype=DTYPE)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``(B, T, d)`` -> ``(B, T, d)``, position by position."""
        return self.proj(F.gelu(self.fc(x)))


class Block(nn.Module):
    """One pre-LayerNorm block: ``x + attn(ln_1(x))``, then ``x + mlp(ln_2(x))``."""

    def __init__(self, config: TransformerConfig):
        super().__init__()
        self.ln_1 = nn.LayerNorm(config.d_model, dtype=DTYPE)
        self.attn = CausalSelfAttention(config)
        self.ln_2 = nn.LayerNorm(config.d_model, dtype=DTYPE)
        self.mlp = MLP(config)

    def forward(self, x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        """``x`` ``(B, T, d)`` -> the block's output ``(B, T, d)`` and its attention weights ``(B, H, T, T)``."""
        a, weights = self.attn(self.ln_1(x))
        x = x + a
        return x + self.mlp(self.ln_2(x)), weights


class Transformer(nn.Module):
    """The language model: token ids ``(B, T)`` -> next-token logits ``(B, T, V)`` float64.

    ``seed`` (an integer >= 0) fixes the initial weights: every matrix and the token embedding from
    ``N(0, init_std²)`` (the two output projections of each block scaled by ``1/sqrt(2 n_layer)``, as GPT-2),
    biases zero, LayerNorms the identity. The learned position table starts as
    ``LearnedPositionTable(max_len, d_model, seed=seed, scale=init_std)``.
    """

    def __init__(self, config: TransformerConfig, seed: int = 0):
        super().__init__()
        if not isinstance(config, TransformerConfig):
            raise TypeError(f"config must be a TransformerConfig, got {type(config).__name__}")
        seed = validate.seed(seed)
        self.config = config
        d = config.d_model
        self.tok = nn.Embedding(config.vocab_size, d, dtype=DTYPE)
        if config.position == "learned":
            table = positional.LearnedPositionTable(config.max_len, d, seed=seed, scale=config.init_std)
            self.pos = nn.Parameter(torch.as_tensor(table.weight, dtype=DTYPE))  # (max_len, d)
        elif config.position == "sinusoidal":
            pe = positional.sinusoidal_table(config.max_len, d)
            self.register_buffer("pos", torch.as_tensor(pe, dtype=DTYPE), persistent=False)  # (max_len, d)
        self.blocks = nn.ModuleList(Block(config) for _ in range(config.n_layer))
        self.ln_f = nn.LayerNorm(d, dtype=DTYPE)
        self.head = nn.Linear(d, config.vocab_size, bias=False, dtype=DTYPE)
        self._init_weights(torch.Generator().manual_seed(seed))

    def _init_weights(self, gen: torch.Generator) -> None:
        std = self.config.init_std
        with torch.no_grad():
            for name, p in self.named_parameters():
                if name == "pos":
                    continue  # already drawn by LearnedPositionTable
                if name.endswith("bias"):
                    p.zero_()
                elif ".ln_" in name or name.startswith("ln_"):
                    p.fill_(1.0)
                elif name == "tok.weight":
                    p.normal_(0.0, self.config.embed_std, generator=gen)
                else:
                    scale = 1 / math.sqrt(2 * self.config.n_layer) if name.endswith("proj.weight") else 1.0
                    p.normal_(0.0, std * scale, generator=gen)

    @property
    def num_parameters(self) -> int:
        """Number of trained values (the sinusoidal table, RoPE's angles and ALiBi's bias are not trained)."""
        return sum(p.numel() for p in self.parameters())

    def forward(self, ids: torch.Tensor, return_attention: bool = False):
        """Logits ``(B, T, V)`` for token ids ``(B, T)``; with ``return_attention``, also the list of each
        layer's attention weights ``(B, H, T, T)``. Raises ``ValueError`` for ``T > max_len`` or bad ids."""
        if not isinstance(ids, torch.Tensor) or ids.dtype not in (torch.int64, torch.int32) or ids.ndim != 2:
            raise TypeError("ids must be a (B, T) integer torch tensor")
        T = ids.shape[1]
        if not 1 <= T <= self.config.max_len:
            raise ValueError(f"window length {T} must be in 1..max_len = {self.config.max_len}")
        if ids.numel() and (ids.min() < 0 or ids.max() >= self.config.vocab_size):
            bad = int(ids[(ids < 0) | (ids >= self.config.vocab_size)][0])
            raise ValueError(f"token id {bad} out of range for vocabulary of {self.config.vocab_size}")
        x = self.tok(ids)  # (B, T, d)
        if self.config.position in ("learned", "sinusoidal"):
            x = x + self.pos[:T]
        maps = []
        for block in self.blocks:
            x, weights = block(x)
            maps.append(weights)
        logits = self.head(self.ln_f(x))
        return (logits, maps) if return_attention else logits


# --- data, training and evaluation ------------------------------------------------------------------


def sample_windows(stream, n_windows: int, length: int, rng: np.random.Generator) -> np.ndarray:
    """``n_windows`` windows of ``length`` consecutive ids cut at uniformly random points of ``stream``.

    ``stream`` is ``(N,)`` token ids; returns ``(n_windows, length) int64``. Windows cross sentence
    boundaries and start anywhere in a sentence. ``rng`` is a ``numpy.random.Generator`` or an integer seed
    >= 0. Raises ``ValueError`` when the stream is shorter than one window, for a negative id, or for
    ``n_windows < 1`` or ``length < 2``; ``TypeError`` for ids that are not integers or a bad ``rng``.

    >>> sample_windows(np.arange(10), 2, 3, np.random.default_rng(0))
    array([[6, 7, 8],
           [5, 6, 7]])
    """
    stream = validate.integer_array(stream, "stream", "a 1-D array of token ids")
    if stream.ndim != 1:
        raise ValueError(f"stream must be a 1-D array of token ids, got shape {stream.shape}")
    if stream.size and stream.min() < 0:
        raise ValueError(f"stream token ids must be >= 0, got {int(stream.min())}")
    n_windows, length = validate.size(n_windows, "n_windows", low=1), validate.size(length, "length", low=2)
    validate.entries((n_windows, length), "n_windows and length")
    rng = validate.rng(rng, "rng")
    if stream.size < length:
        raise ValueError(f"stream of {stream.size} tokens is shorter than one window of {length}")
    starts = rng.integers(0, stream.size - length + 1, size=n_windows)
    return stream[starts[:, None] + np.arange(length)]  # (n_windows, length)


#: the largest learning rate :class:`TrainConfig` accepts
MAX_LR = 1
#: the largest weight decay :class:`TrainConfig` accepts
MAX_WEIGHT_DECAY = 1
#: a run whose final training loss is above this many times the larger of its first one and ``ln V`` diverged
DIVERGENCE_FACTOR = 10.0


@validate.known_fields
@dataclass(frozen=True)
class TrainConfig:
    """How a model is trained: ``steps`` AdamW steps on batches of ``batch_size`` windows of ``context + 1``
    tokens (``context`` inputs, each predicting the next), learning rate warmed up linearly over ``warmup``
    steps to ``lr`` and decayed to 0 on a cosine; gradients clipped to norm ``grad_clip``. The defaults are
    the settings of chapters/position_schemes.md. ``lr`` is in ``(0, 1]`` and ``weight_decay`` in ``[0, 1]``, so
    that AdamW's decoupled decay factor ``1 - lr · weight_decay`` stays in ``[0, 1)`` and no step moves a
    parameter by more than about 1 (the weights start at about 0.02 and 1). Raises ``ValueError`` naming the
    field and its range, ``TypeError`` for a field of the wrong type or an unknown field (naming the fields,
    also in ``dataclasses.replace``)."""

    context: int = 32
    batch_size: int = 16
    steps: int = 300
    lr: float = 2e-2
    warmup: int = 30
    weight_decay: float = 0.1
    betas: Tuple[float, float] = (0.9, 0.99)
    grad_clip: float = 1.0

    def __post_init__(self):
        validate.size(self.context, "context", low=1)
        validate.size(self.batch_size, "batch_size", low=1)
        validate.size(self.steps, "steps", low=0)
        validate.size(self.warmup, "warmup", low=0)
        validate.number(self.lr, "lr", gt=0, le=MAX_LR)
        validate.number(self.weight_decay, "weight_decay", ge=0, le=MAX_WEIGHT_DECAY)
        validate.number(self.grad_clip, "grad_clip", gt=0)
        if not isinstance(self.betas, tuple) or len(self.betas) != 2:
            raise ValueError(f"betas must be a tuple of two numbers in [0, 1), got {self.betas!r}")
        for i, b in enumerate(self.betas):
            validate.number(b, f"betas[{i}]", ge=0, lt=1)

    def lr_at(self, step: int) -> float:
        """Learning rate of step ``step`` (0-based): linear warm-up, then cosine decay to 0 at ``steps``.

        ``step`` is an integer in ``[0, steps]``: the steps trained, ``0 .. steps - 1``, and ``steps``, where
        the cosine reaches 0. ``TypeError`` for a non-integer, ``ValueError`` outside that range (a step
        beyond the schedule would climb the cosine again, a negative one fall below 0 in the warm-up).

        >>> # half-way through the decay: (1 + cos(pi / 2)) / 2
        >>> TrainConfig(steps=4, warmup=0, lr=1.0).lr_at(2)
        0.5
        """
        step = validate.integer(step, "step", low=0, high=self.steps, hint="0 .. steps, the schedule's length")
        if step < self.warmup:
            return self.lr * (step + 1) / self.warmup
        progress = (step - self.warmup) / max(1, self.steps - self.warmup)
        return self.lr * 0.5 * (1.0 + math.cos(math.pi * progress))


@dataclass
class TrainedModel:
    """A trained model with its record: ``losses`` ``(steps,)`` training loss per step (nats), ``seconds``
    of process CPU time spent training, the two configs and the seed."""

    model: Transformer
    config: TransformerConfig
    train_config: TrainConfig
    seed: int
    losses: np.ndarray = field(repr=False)
    seconds: float


def _param_groups(model: Transformer, weight_decay: float):
    decay = [p for n, p in model.named_parameters() if p.ndim == 2 and n not in ("tok.weight", "pos")]
    keep = [p for n, p in model.named_parameters() if not (p.ndim == 2 and n not in ("tok.weight", "pos"))]
    return [{"params": decay, "weight_decay": weight_decay}, {"params": keep, "weight_decay": 0.0}]


def train(config: TransformerConfig, train_config: TrainConfig, stream, seed: int = 0,
          init: Optional[Transformer] = None,
          on_step: Optional[Callable[[int, Transformer], None]] = None) -> TrainedModel:
    """Train a :class:`Transformer` on windows of ``stream`` (``(N,)`` token ids); deterministic given ``seed``.

    ``seed`` fixes the initial weights and the order of the windows. ``init``, a trained model whose
    parameters fit ``config``, is copied and trained further instead of a fresh model (fine-tuning: e.g.
    a RoPE model given ``rope_interpolation = 2`` and longer windows). ``on_step(k, model)``, if given, is
    called after each step ``k = 1 .. steps`` (the model in eval mode; switch nothing back, it is done here),
    e.g. to score the model along the way; its time is not counted in ``seconds``. Runs on the calling thread's
    PyTorch thread setting; pin it with :func:`lib.threads.torch_threads` for results that do not depend on
    the core count. Raises ``ValueError`` for a context longer than ``config.max_len``, a bad seed, and as
    :func:`sample_windows`; ``FloatingPointError`` when training diverges (too large an ``lr``): a training
    loss that is not finite (training stops at that step), a parameter that is not finite after the last
    step, or a final training loss above ``DIVERGENCE_FACTOR`` (10) times the larger of the first one and
    ``ln V``. The losses returned are therefore always finite. The checks only read the losses and
    parameters: they do not change the arithmetic of training.
    """
    if not isinstance(config, TransformerConfig) or not isinstance(train_config, TrainConfig):
        raise TypeError("config must be a TransformerConfig and train_config a TrainConfig")
    seed = validate.seed(seed)
    if train_config.context > config.max_len:
        raise ValueError(f"context {train_config.context} is longer than max_len = {config.max_len}")
    stream = validate.ids(stream, config.vocab_size)
    model = Transformer(config, seed)
    if init is not None:
        model.load_state_dict(init.state_dict())
    opt = torch.optim.AdamW(_param_groups(model, train_config.weight_decay), lr=train_config.lr,
                            betas=train_config.betas, fused=True)  # fused: the same update in one kernel
    rng = np.random.default_rng([seed, 1])  # windows: a stream of its own, apart from the weights
    losses = np.empty(train_config.steps)
    start = time.process_time()
    model.train()
    for step in range(train_config.steps):
        batch = torch.as_tensor(sample_windows(stream, train_config.batch_size, train_config.context + 1, rng))
        logits = model(batch[:, :-1])  # (B, L, V): position t predicts token t + 1
        loss = F.cross_entropy(logits.reshape(-1, config.vocab_size), batch[:, 1:].reshape(-1))
        if not math.isfinite(loss.item()):  # divergence: stop with a report, never train on into NaN
            raise FloatingPointError(f"training diverged at step {step + 1} of {train_config.steps}: the loss "
                                     f"became {loss.item()} (learning rate {train_config.lr}, weight decay "
                                     f"{train_config.weight_decay}); lower the learning rate")
        for group in opt.param_groups:
            group["lr"] = train_config.lr_at(step)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), train_config.grad_clip)
        opt.step()
        losses[step] = loss.item()
        if on_step is not None:
            paused = time.process_time()
            model.eval()
            on_step(step + 1, model)
            model.train()
            start += time.process_time() - paused
    model.eval()
    _check_converged(model, train_config, losses)
    return TrainedModel(model, config, train_config, seed, losses, time.process_time() - start)


def _check_converged(model: Transformer, train_config: TrainConfig, losses: np.ndarray) -> None:
    """``FloatingPointError`` for a model with a parameter that is not finite, or ``losses`` whose last
    value is above ``DIVERGENCE_FACTOR`` times the larger of the first one and ``ln V``."""
    bad = [name for name, p in model.named_parameters() if not bool(torch.isfinite(p).all())]
    if bad:
        raise FloatingPointError(f"training diverged: after the last step the parameter {bad[0]} is not finite "
                                 f"(learning rate {train_config.lr}); lower the learning rate")
    if losses.size:
        limit = DIVERGENCE_FACTOR * max(losses[0], math.log(model.config.vocab_size))
        if losses[-1] > limit:
            raise FloatingPointError(f"training diverged: the final training loss is {losses[-1]:.4g} nats (the "
                                     f"first was {losses[0]:.4g}, the limit {limit:.4g}; learning rate "
                                     f"{train_config.lr}); lower the learning rate")


def with_config(model: Transformer, config: TransformerConfig) -> Transformer:
    """A copy of ``model`` with the same trained parameters under another config (e.g. a RoPE base or
    interpolation factor chosen at test time, or a longer ``max_len``). Raises ``ValueError`` when the
    parameters do not fit (another scheme, width or depth), or a learned table of another length."""
    new = Transformer(config)
    try:
        new.load_state_dict(model.state_dict())
    except RuntimeError as err:
        raise ValueError(f"the trained parameters do not fit this config: {str(err).splitlines()[0]}") from None
    new.eval()
    return new


@torch.no_grad()
def position_losses(model: Transformer, windows, batch_size: int = 16) -> np.ndarray:
    """The model's loss ``-log p(x_{t+1} | x_0 .. x_t)`` in nats at every position: ``(W, n - 1)`` float64.

    ``windows`` is ``(W, n)`` token ids, ``2 <= n <= max_len + 1``; comparable entry by entry with
    :func:`lib.forward_filter.optimal_losses` of the same windows. Raises ``ValueError`` for bad ids, no
    window (``W = 0``) or a window longer than the model accepts.
    """
    windows = validate.ids(windows, model.config.vocab_size)
    if windows.ndim != 2 or not 2 <= windows.shape[1] <= model.config.max_len + 1:
        raise ValueError(f"windows must have shape (W, n) with 2 <= n <= {model.config.max_len + 1}, "
                         f"got {windows.shape}")
    if windows.shape[0] == 0:
        raise ValueError(f"windows must hold at least one window (W >= 1), got shape {windows.shape}")
    batch_size = validate.size(batch_size, "batch_size", low=1)
    out = []
    for i in range(0, windows.shape[0], batch_size):
        chunk = torch.as_tensor(windows[i:i + batch_size])
        logp = F.log_softmax(model(chunk[:, :-1]), dim=-1)  # (b, n - 1, V)
        out.append(-logp.gather(-1, chunk[:, 1:, None])[..., 0].numpy())
    return np.concatenate(out)


@torch.no_grad()
def attention_maps(model: Transformer, windows) -> List[np.ndarray]:
    """Attention weights of every layer: a list of ``(W, H, n, n)`` float64 arrays for windows ``(W, n)`` of ids
    (``(H, n, n)`` for one window ``(n,)``), row ``i`` the weights query ``i`` puts on keys ``0 .. i``.
    Raises ``ValueError`` for bad ids or a window longer than ``max_len``."""
    windows = validate.ids(windows, model.config.vocab_size)
    single = windows.ndim == 1
    if windows.ndim not in (1, 2):
        raise ValueError(f"windows must have shape (n,) or (W, n), got {windows.shape}")
    _, maps = model(torch.as_tensor(np.atleast_2d(windows)), return_attention=True)
    return [m[0].numpy() if single else m.numpy() for m in maps]
