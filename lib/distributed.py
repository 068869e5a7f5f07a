"""Sharded embedding tables and a vocabulary-parallel softmax on ``torch.distributed``.

Taught in: chapters/scale.md ("Sharding a table by rows", "Sharding a table by columns", "A softmax over a
sharded vocabulary").

When a ``(V, d)`` table is too large for one device it is split over ``world_size`` processes (ranks):

- **row-wise** (:class:`RowShardedEmbedding`): rank ``r`` holds a contiguous block of rows. Each rank
  has its own batch of ids; it sends every id to the rank that owns it (an all-to-all), the owners look
  the rows up and send them back (a second all-to-all), and the result is exactly ``table[ids]``.
  In the backward pass the gradient rows travel the reverse way to the owner, which accumulates them.
  This is the model-parallel embedding of DLRM :cite:p:`naumov2019dlrm{section "Parallelism"}`: embedding
  tables distributed by model parallelism, their lookups exchanged by an all-to-all "butterfly shuffle".
- **column-wise** (:class:`ColumnShardedEmbedding`): rank ``r`` holds every row but only a block of the
  ``d`` columns. Every id must reach every rank; each rank returns its columns to the rank that asked,
  which concatenates them.
- **vocabulary-parallel softmax** (:func:`vocab_parallel_log_softmax`, :func:`vocab_parallel_cross_entropy`):
  the output layer ``(V, d)`` is split by rows (vocabulary items); each rank computes its slice of the
  logits, and the log-softmax over all ``V`` items needs one all-reduce of the row maxima (MAX) and one
  of the sums of exponentials (SUM). This follows Megatron-LM :cite:p:`shoeybi2019megatron{§3}`, whose output
  embedding is "parallelized along the vocabulary dimension", with the cross-entropy fused so that only
  ``(N,)`` scalars, not ``(N, V)`` logits, are communicated, and its pair of conjugate operators
  ``f`` (identity forward, all-reduce backward) and ``g`` (all-reduce forward, identity backward).

Shards are contiguous and as even as possible: with ``V = 10`` rows over 3 ranks they hold 4, 3 and 3
rows (the first ``V mod world_size`` ranks get one more, as ``torch.tensor_split`` does);
:func:`shard_sizes`. Every rank must hold at least one row (and, column-wise, one column).

Bytes exchanged are counted, not sniffed: :class:`CommStats` adds up the bytes each rank hands to a
collective *for another rank* (its own block stays local), at the tensors' itemsize. The transport's own
framing is not included. :func:`plan_exchange` computes the same counts from the ids alone, with no
process group, so the chapter can draw them for any number of ranks.

Running: the classes and functions here are called on every rank of an initialised process group;
:func:`lib.processes.spawn` starts such a group on this machine (gloo, CPU), and ``torchrun`` starts one
on one or several machines (the chapter's check runs under it: ``torchrun --nproc-per-node 4 -m
lib.chapters.scale``). With ``backend="nccl"`` and each rank's tensors on ``cuda:<local rank>`` the same
code runs on GPUs: the collectives used (``all_to_all_single``, ``all_reduce``) exist in both backends.

Departures from the systems cited: no overlap of communication with computation, no caching of hot
rows, no pipelining of all-to-alls. By default (``dedupe=True``) each rank sends every distinct id once,
so that a repeated id costs one row of traffic; ``dedupe=False`` sends one row per occurrence.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, List, Sequence

import numpy as np
import torch
import torch.distributed as dist
import torch.nn.functional as F

from lib import validate

ID_BYTES = 8  # ids travel as int64
COUNT_BYTES = 8  # split sizes travel as int64


# --- shard arithmetic (no communication) ------------------------------------------------------------


def shard_sizes(n: int, world_size: int, what: str = "rows") -> List[int]:
    """Sizes of ``world_size`` contiguous shards of ``n`` items, as even as possible.

    The first ``n % world_size`` shards hold ``n // world_size + 1`` items, the others ``n // world_size``
    (the split of ``torch.tensor_split``). Returns a list of ``int`` summing to ``n``. Raises
    ``ValueError`` when ``world_size < 1`` or ``n < world_size`` (a rank would hold no ``what``).

    >>> shard_sizes(10, 3)
    [4, 3, 3]
    """
    world_size = validate.size(world_size, "world_size", low=1)
    n = validate.integer(n, f"number of {what}", low=1)
    if n < world_size:
        raise ValueError(
            f"cannot shard {n} {what} over {world_size} ranks: each rank needs at least one (need {what} >= world_size)"
        )
    base, extra = divmod(int(n), world_size)
    return [base + 1 if r < extra else base for r in range(world_size)]


def shard_offsets(n: int, world_size: int, what: str = "rows") -> List[int]:
    """Start of every shard and the end of the last: ``world_size + 1`` ints, ``[0, ..., n]``.

    Shard ``r`` holds items ``offsets[r] <= i < offsets[r + 1]``. Raises like :func:`shard_sizes`.

    >>> shard_offsets(10, 3)
    [0, 4, 7, 10]
    """
    return [0] + np.cumsum(shard_sizes(n, world_size, what)).tolist()


def row_owner(ids, V: int, world_size: int) -> np.ndarray:
    """Rank that owns each id under row-wise sharding of ``V`` rows: same shape as ``ids``, int64.

    ``ids`` are checked with :func:`lib.validate.ids` (``ValueError`` outside ``[0, V)``).

    >>> row_owner([0, 4, 9], 10, 3)
    array([0, 1, 2])
    """
    ids = validate.ids(ids, V)
    offsets = np.asarray(shard_offsets(V, world_size))
    return (np.searchsorted(offsets, ids, side="right") - 1).astype(np.int64)


# --- communication accounting ------------------------------------------------------------------------


@dataclass
class CommStats:
    """Bytes one rank handed to collectives for other ranks during one lookup (forward and backward).

    ``count_bytes``: split sizes; ``id_bytes``: ids sent to owners; ``row_bytes``: looked-up values sent
    back in the forward pass; ``grad_bytes``: gradient values sent in the backward pass (0 until
    ``backward`` runs). ``rows_served``: rows this rank looked up in its shard for any rank (its load).
    """

    count_bytes: int = 0
    id_bytes: int = 0
    row_bytes: int = 0
    grad_bytes: int = 0
    rows_served: int = 0

    @property
    def forward_bytes(self) -> int:
        """Bytes sent in the forward pass (counts, ids and rows together)."""
        return self.count_bytes + self.id_bytes + self.row_bytes

    @property
    def total_bytes(self) -> int:
        """Forward and backward together."""
        return self.forward_bytes + self.grad_bytes

    def as_dict(self) -> Dict[str, int]:
        """The counts and the two totals as a plain dict (picklable, printable)."""
        return {
            "count_bytes": self.count_bytes,
            "id_bytes": self.id_bytes,
            "row_bytes": self.row_bytes,
            "grad_bytes": self.grad_bytes,
            "rows_served": self.rows_served,
            "forward_bytes": self.forward_bytes,
            "total_bytes": self.total_bytes,
        }


def _off_rank(splits: Sequence[int], rank: int) -> int:
    return int(sum(s for r, s in enumerate(splits) if r != rank))


def plan_exchange(
    ids_per_rank: Sequence,
    V: int,
    d: int,
    scheme: str = "row",
    *,
    dedupe: bool = True,
    itemsize: int = 4,
) -> List[Dict[str, int]]:
    """The bytes each rank sends for one lookup (forward + backward), computed from the ids alone.

    ``ids_per_rank``: one array-like of ids per rank (its batch; any shape, may differ between ranks);
    ``scheme``: ``"row"`` or ``"column"``; ``itemsize``: bytes per table value (4 for float32).
    Returns one dict per rank with the fields of :class:`CommStats` (``as_dict()``), equal to what the
    distributed lookups count. Closed forms, for a rank ``r`` with ``n_r`` ids (``u_r`` distinct when
    ``dedupe``) and ``W`` ranks:

    - row-wise: counts ``8 (W − 1)``; ids ``8 · m_r``, where ``m_r`` is the number of (distinct) ids owned
      by another rank; rows served back ``itemsize · d · (ids received from other ranks)``; gradients
      the same as rows, in the other direction;
    - column-wise: counts ``8 (W − 1)``; ids ``8 n_r (W − 1)`` (every id goes to every rank); rows
      ``itemsize · D_r · Σ_{s≠r} n_s`` (``D_r`` = this rank's columns; all ``n_s`` ids, no de-duplication);
      gradients the same as rows.

    Byte counts are Python ``int``, exact at any size. Raises ``ValueError`` for an unknown scheme,
    out-of-range ids, too few rows / columns, or a ``d`` or ``itemsize`` outside ``[1, MAX_SIZE]``
    (:func:`lib.validate.size`); ``TypeError`` for a ``d`` or ``itemsize`` that is not an integer,
    ``ids_per_rank`` that is not a sequence, or a ``dedupe`` that is not ``True`` or ``False``.

    >>> # counts 8, id 8, rows 12, gradients 12
    >>> plan_exchange([[1, 6], [2]], V=10, d=3, itemsize=4)[0]["total_bytes"]
    40
    """
    validate.choice(scheme, "scheme", ("row", "column"))
    dedupe = validate.flag(dedupe, "dedupe")
    d = validate.size(d, "d (embedding width)")
    itemsize = validate.size(itemsize, "itemsize (bytes per value)")
    ids_per_rank = validate.collection(ids_per_rank, "ids_per_rank", "a sequence of id arrays, one per rank")
    W = validate.size(len(ids_per_rank), "world_size (the number of batches)", low=1)
    flat = [validate.ids(ids, V).reshape(-1) for ids in ids_per_rank]
    stats = [CommStats(count_bytes=COUNT_BYTES * (W - 1)) for _ in range(W)]
    if scheme == "row":
        shard_sizes(V, W)  # validates V >= W
        sent = np.zeros((W, W), dtype=np.int64)  # sent[r, s]: ids rank r sends to owner s
        for r, ids in enumerate(flat):
            send = np.unique(ids) if dedupe else ids
            sent[r] = np.bincount(row_owner(send, V, W), minlength=W)
        for r in range(W):
            stats[r].id_bytes = ID_BYTES * _off_rank(sent[r], r)
            served_for_others = _off_rank(sent[:, r], r)
            stats[r].row_bytes = itemsize * d * served_for_others
            stats[r].grad_bytes = itemsize * d * _off_rank(sent[r], r)
            stats[r].rows_served = int(sent[:, r].sum())
    else:
        widths = shard_sizes(d, W, "columns")
        n = [ids.size for ids in flat]
        for r in range(W):
            stats[r].id_bytes = ID_BYTES * n[r] * (W - 1)
            stats[r].row_bytes = itemsize * widths[r] * _off_rank(n, r)
            stats[r].grad_bytes = sum(itemsize * widths[s] * n[r] for s in range(W) if s != r)
            stats[r].rows_served = int(sum(n))
    return [s.as_dict() for s in stats]


# --- autograd-aware collectives ----------------------------------------------------------------------


class _AllToAll(torch.autograd.Function):
    """``all_to_all_single`` along dim 0 whose backward is the reverse all-to-all of the gradient."""

    @staticmethod
    def forward(ctx, x, out_splits, in_splits, group, stats):
        ctx.splits = (list(out_splits), list(in_splits))
        ctx.group, ctx.stats = group, stats
        rank = dist.get_rank(group)
        row = math.prod(x.shape[1:]) * x.element_size()  # bytes of one slice along dim 0
        stats.row_bytes += row * _off_rank(in_splits, rank)
        out = x.new_empty((int(sum(out_splits)),) + tuple(x.shape[1:]))
        dist.all_to_all_single(out, x.contiguous(), list(out_splits), list(in_splits), group=group)
        return out

    @staticmethod
    def backward(ctx, grad):
        out_splits, in_splits = ctx.splits
        rank = dist.get_rank(ctx.group)
        row = math.prod(grad.shape[1:]) * grad.element_size()
        ctx.stats.grad_bytes += row * _off_rank(out_splits, rank)
        grad_in = grad.new_empty((int(sum(in_splits)),) + tuple(grad.shape[1:]))
        dist.all_to_all_single(grad_in, grad.contiguous(), list(in_splits), list(out_splits), group=ctx.group)
        return grad_in, None, None, None, None


class _CopyToParallel(torch.autograd.Function):
    """Megatron's ``f``: identity forward, all-reduce (SUM) of the gradient backward."""

    @staticmethod
    def forward(ctx, x, group):
        ctx.group = group
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad):
        grad = grad.clone()
        dist.all_reduce(grad, op=dist.ReduceOp.SUM, group=ctx.group)
        return grad, None


class _ReduceFromParallel(torch.autograd.Function):
    """Megatron's ``g``: all-reduce (SUM) forward, identity backward."""

    @staticmethod
    def forward(ctx, x, group):
        out = x.clone()
        dist.all_reduce(out, op=dist.ReduceOp.SUM, group=group)
        return out

    @staticmethod
    def backward(ctx, grad):
        return grad, None


class _AllReduceSumBoth(torch.autograd.Function):
    """All-reduce (SUM) forward and backward: the sum of partial sums where each rank's outputs are
    separate terms of the loss (``g`` then ``f``)."""

    @staticmethod
    def forward(ctx, x, group):
        ctx.group = group
        out = x.clone()
        dist.all_reduce(out, op=dist.ReduceOp.SUM, group=group)
        return out

    @staticmethod
    def backward(ctx, grad):
        grad = grad.clone()
        dist.all_reduce(grad, op=dist.ReduceOp.SUM, group=ctx.group)
        return grad, None


def _group_info(group):
    if not dist.is_initialized():
        raise RuntimeError("torch.distributed is not initialised: run inside spawn(...) or torchrun")
    return dist.get_rank(group), dist.get_world_size(group)


# --- sharded lookups --------------------------------------------------------------------------------


class RowShardedEmbedding(torch.nn.Module):
    """A ``(V, d)`` table split by rows over the ranks of ``group``; ``forward(ids)`` equals ``table[ids]``.

    ``local`` is this rank's ``(V_r, d)`` block, rows ``offsets[r] .. offsets[r + 1] − 1`` of the table
    (:func:`shard_offsets`); build it with :meth:`from_full` from a table every rank can see, or pass the
    block directly. ``forward`` takes this rank's ids (an integer tensor of any shape, values in
    ``[0, V)``; ``ValueError`` otherwise) and returns ``ids.shape + (d,)`` in the table's dtype. Every rank
    must call ``forward`` (and ``backward``) together: they are collectives.

    Steps: sort (and, with ``dedupe``, de-duplicate) the ids, which groups them by owner since shards are
    contiguous; all-to-all the counts; all-to-all the ids; look up the received ids in ``local``;
    all-to-all the rows back (autograd-aware: the backward sends the gradient rows to their owner, where
    the embedding backward sums them into ``local.grad``); undo the sort. ``self.stats`` holds the
    :class:`CommStats` of the last call.

    The constructor raises ``TypeError`` for a ``local`` that is not a floating-point tensor, ``ValueError``
    for one that is not 2-D or holds NaN or infinity and for ``V`` outside ``[1, lib.validate.MAX_SIZE]``,
    all before ``RuntimeError`` when no process group is initialised; then ``ValueError`` for a block
    whose row count is not this rank's share of ``V``.
    """

    def __init__(self, local: torch.Tensor, V: int, *, group=None, dedupe: bool = True):
        super().__init__()
        dedupe = validate.flag(dedupe, "dedupe")
        # the arguments first, then the process group: a bad argument is named even outside one
        validate.tensor(local, "local", "(V_r, d)", floating=True, finite=True)
        if local.dim() != 2:
            raise ValueError(f"local must be this rank's (V_r, d) block of the table, got shape {tuple(local.shape)}")
        V = validate.size(V, "V")
        rank, W = _group_info(group)
        self.V, self.world_size, self.rank, self.group, self.dedupe = V, W, rank, group, dedupe
        self.offsets = shard_offsets(V, W)
        rows = self.offsets[rank + 1] - self.offsets[rank]
        if local.dim() != 2 or local.shape[0] != rows:
            raise ValueError(
                f"rank {rank} must hold {rows} rows of the {V}-row table, got a block of shape {tuple(local.shape)}"
            )
        self.d = int(local.shape[1])
        self.local = torch.nn.Parameter(local)
        self.stats = CommStats()

    @classmethod
    def from_full(cls, table: torch.Tensor, *, group=None, dedupe: bool = True) -> "RowShardedEmbedding":
        """Take this rank's rows of ``table`` ``(V, d)`` (copied, so the shard owns its memory)."""
        rank, W = _group_info(group)
        off = shard_offsets(table.shape[0], W)
        return cls(table[off[rank] : off[rank + 1]].detach().clone(), table.shape[0], group=group, dedupe=dedupe)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        """Rows ``ids.shape + (d,)`` of the whole table for this rank's ``ids``; a collective (see the class)."""
        W, rank = self.world_size, self.rank
        ids_np = validate.ids(ids.detach().cpu().numpy(), self.V)
        flat = torch.as_tensor(ids_np.reshape(-1), device=self.local.device)
        if self.dedupe:
            send_ids, gather = torch.unique(flat, sorted=True, return_inverse=True)
        else:
            send_ids, order = torch.sort(flat, stable=True)
            gather = torch.empty_like(order)
            gather[order] = torch.arange(order.numel(), device=order.device)
        offsets = torch.as_tensor(self.offsets, device=flat.device)
        owner = torch.searchsorted(offsets, send_ids, right=True) - 1
        send_counts = torch.bincount(owner, minlength=W)
        recv_counts = torch.empty_like(send_counts)
        dist.all_to_all_single(recv_counts, send_counts, group=self.group)
        send, recv = send_counts.tolist(), recv_counts.tolist()
        stats = CommStats(
            count_bytes=COUNT_BYTES * (W - 1), id_bytes=ID_BYTES * _off_rank(send, rank), rows_served=int(sum(recv))
        )
        recv_ids = send_ids.new_empty(int(sum(recv)))
        dist.all_to_all_single(recv_ids, send_ids, recv, send, group=self.group)
        rows = F.embedding(recv_ids - self.offsets[rank], self.local)  # (rows asked of me, d)
        back = _AllToAll.apply(rows, send, recv, self.group, stats)  # (len(send_ids), d), in send order
        self.stats = stats
        return back[gather].reshape(tuple(ids.shape) + (self.d,))


class ColumnShardedEmbedding(torch.nn.Module):
    """A ``(V, d)`` table split by columns over the ranks of ``group``; ``forward(ids)`` equals ``table[ids]``.

    ``local`` is this rank's ``(V, D_r)`` block, columns ``offsets[r] .. offsets[r + 1] − 1``
    (``shard_offsets(d, world_size, "columns")``). ``forward`` takes this rank's ids (any shape) and
    returns ``ids.shape + (d,)``: every rank's ids go to every rank (an all-to-all of the id lists), each
    rank looks up its columns for all of them and sends each block back to the rank that asked (a second
    all-to-all, flattened because the blocks' widths may differ), and the asker concatenates the blocks
    along the columns. The backward sends the gradient columns back to their owner. Every rank must call
    it together. ``self.stats`` holds the :class:`CommStats` of the last call.

    The constructor raises ``TypeError`` for a ``local`` that is not a floating-point tensor, ``ValueError``
    for one that is not 2-D or holds NaN or infinity and for ``d`` outside ``[1, lib.validate.MAX_SIZE]``,
    all before ``RuntimeError`` when no process group is initialised; then ``ValueError`` for a block
    whose width is not this rank's share of ``d``.
    """

    def __init__(self, local: torch.Tensor, d: int, *, group=None):
        super().__init__()
        # the arguments first, then the process group: a bad argument is named even outside one
        validate.tensor(local, "local", "(V, D_r)", floating=True, finite=True)
        if local.dim() != 2:
            raise ValueError(f"local must be this rank's (V, D_r) block of the table, got shape {tuple(local.shape)}")
        d = validate.size(d, "d")
        rank, W = _group_info(group)
        self.d, self.world_size, self.rank, self.group = d, W, rank, group
        self.widths = shard_sizes(d, W, "columns")
        if local.dim() != 2 or local.shape[1] != self.widths[rank]:
            raise ValueError(
                f"rank {rank} must hold {self.widths[rank]} of the {d} columns, "
                f"got a block of shape {tuple(local.shape)}"
            )
        self.V = int(local.shape[0])
        self.local = torch.nn.Parameter(local)
        self.stats = CommStats()

    @classmethod
    def from_full(cls, table: torch.Tensor, *, group=None) -> "ColumnShardedEmbedding":
        """Take this rank's columns of ``table`` ``(V, d)`` (copied)."""
        rank, W = _group_info(group)
        off = shard_offsets(table.shape[1], W, "columns")
        return cls(table[:, off[rank] : off[rank + 1]].detach().clone(), table.shape[1], group=group)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        """Rows ``ids.shape + (d,)`` of the whole table for this rank's ``ids``; a collective (see the class)."""
        W, rank = self.world_size, self.rank
        ids_np = validate.ids(ids.detach().cpu().numpy(), self.V)
        flat = torch.as_tensor(ids_np.reshape(-1), device=self.local.device)
        n = flat.numel()
        counts = torch.full((W,), n, dtype=torch.int64, device=flat.device)
        n_all = torch.empty_like(counts)
        dist.all_to_all_single(n_all, counts, group=self.group)
        n_all = n_all.tolist()  # ids each rank asks for
        stats = CommStats(
            count_bytes=COUNT_BYTES * (W - 1), id_bytes=ID_BYTES * n * (W - 1), rows_served=int(sum(n_all))
        )
        all_ids = flat.new_empty(int(sum(n_all)))
        dist.all_to_all_single(all_ids, flat.repeat(W), n_all, [n] * W, group=self.group)
        cols = F.embedding(all_ids, self.local)  # (Σ n_s, D_r), blocks by asking rank
        w = self.widths[rank]
        got = _AllToAll.apply(
            cols.reshape(-1), [n * ws for ws in self.widths], [ns * w for ns in n_all], self.group, stats
        )
        blocks = [b.reshape(n, ws) for b, ws in zip(got.split([n * ws for ws in self.widths]), self.widths)]
        self.stats = stats
        return torch.cat(blocks, dim=1).reshape(tuple(ids.shape) + (self.d,))


# --- vocabulary-parallel softmax ---------------------------------------------------------------------


def vocab_parallel_logits(hidden: torch.Tensor, weight_local: torch.Tensor, *, group=None) -> torch.Tensor:
    """This rank's slice of the logits, ``hidden @ weight_local.T``: ``(N, V_r)``.

    ``hidden`` ``(N, d)`` is the same on every rank; ``weight_local`` ``(V_r, d)`` is this rank's rows of
    the output matrix. ``hidden`` enters through Megatron's ``f`` (identity forward, all-reduce
    backward), so that ``hidden.grad`` is the full gradient on every rank. Raises ``TypeError`` for an
    argument that is not a floating-point tensor, ``ValueError`` for one that is not 2-D, widths ``d``
    that differ, NaN or infinite entries, or a logit beyond the range of the result's dtype (float32:
    about 3.4e38).
    """
    validate.tensor(hidden, "hidden", "(N, d)", floating=True, finite=True)
    validate.tensor(weight_local, "weight_local", "(V_r, d)", floating=True, finite=True)
    if hidden.dim() != 2 or weight_local.dim() != 2 or hidden.shape[1] != weight_local.shape[1]:
        raise ValueError(f"hidden must be (N, d) and weight_local (V_r, d) with the same d, "
                         f"got {tuple(hidden.shape)} and {tuple(weight_local.shape)}")
    _group_info(group)
    logits = _CopyToParallel.apply(hidden, group) @ weight_local.T
    if not bool(torch.isfinite(logits.detach()).all()):
        raise ValueError(f"a logit hidden @ weight_local.T is beyond the range of {logits.dtype} "
                         f"(about {torch.finfo(logits.dtype).max:.1e})")
    return logits


def vocab_parallel_log_softmax(logits_local: torch.Tensor, *, group=None) -> torch.Tensor:
    """Log-softmax over the full vocabulary from this rank's ``(N, V_r)`` slice of the logits.

    ``log p_i = z_i − m − log Σ_j exp(z_j − m)`` with ``m`` the row maximum over all ``V`` items: an
    all-reduce MAX of the local maxima (no gradient: the result does not depend on ``m``) and an
    all-reduce SUM of the local sums of ``exp(z − m)``. Returns this rank's ``(N, V_r)`` slice of the
    log-probabilities, equal (to rounding) to ``log_softmax(z_full, -1)[:, lo:hi]``. Differentiable: the
    loss is taken to be a sum of terms computed on the ranks from their slices (or a value replicated
    with :func:`vocab_parallel_cross_entropy`); the SUM is all-reduced in the backward pass too. Raises
    ``ValueError`` if ``logits_local`` is not 2-D, has no row or no column, holds NaN or infinity, or
    holds a logit so far below its row's largest (on any rank) that its log-probability is beyond the
    range of its dtype (float64: about 1.8e308); every rank raises it, as each sees the same row extremes;
    ``TypeError`` if it is not a floating-point tensor. Source: :cite:t:`shoeybi2019megatron`, §3.
    """
    validate.tensor(logits_local, "logits_local", "(N, V_r)", floating=True, finite=True)
    if logits_local.dim() != 2 or 0 in logits_local.shape:
        raise ValueError(f"logits_local must have shape (N, V_r) with N >= 1 and V_r >= 1, "
                         f"got {tuple(logits_local.shape)}")
    _group_info(group)
    detached = logits_local.detach()
    extremes = torch.stack([detached.max(dim=1).values, -detached.min(dim=1).values])  # one MAX for both
    dist.all_reduce(extremes, op=dist.ReduceOp.MAX, group=group)
    m = extremes[0]
    spread = m + extremes[1]  # the row's largest minus its smallest, over all V items
    if not bool(torch.isfinite(spread).all()):
        row = int(torch.nonzero(~torch.isfinite(spread)).flatten()[0])
        raise ValueError(f"row {row} of the logits spans more than the range of {logits_local.dtype} "
                         f"(about {torch.finfo(logits_local.dtype).max:.1e}): its smallest logit's "
                         f"log-probability has no {logits_local.dtype} value")
    shifted = logits_local - m[:, None]
    total = _AllReduceSumBoth.apply(shifted.exp().sum(dim=1), group)
    return shifted - total.log()[:, None]


def vocab_parallel_cross_entropy(
    logits_local: torch.Tensor, targets: torch.Tensor, vocab_start: int, *, group=None
) -> torch.Tensor:
    """Mean cross-entropy (nats) over ``N`` examples from vocabulary-sharded logits; the same scalar on every rank.

    ``logits_local`` ``(N, V_r)`` holds the logits of items ``vocab_start .. vocab_start + V_r − 1``;
    ``targets`` ``(N,)`` int64 holds the full-vocabulary target ids (the same on every rank). Each rank
    picks the log-probabilities of the targets it owns (0 elsewhere), and an all-reduce SUM (Megatron's
    ``g``) adds the picks: only ``N`` numbers are communicated, not ``N · V``. Equals
    ``F.cross_entropy(z_full, targets)``, and its gradients equal the unsharded ones. Raises
    ``ValueError`` for mismatched shapes, an empty batch (``N = 0``: no mean), a ``vocab_start`` below 0 or
    one whose slice, with the other ranks' slices, does not tile the vocabulary ``0 .. V − 1`` (``V`` the
    sum of the ``V_r``: ``vocab_start`` in ``[0, V − V_r]``, one all-gather of ``(vocab_start, V_r)``), a
    target outside ``0 .. V − 1``, and as :func:`vocab_parallel_log_softmax`; ``TypeError`` for
    ``targets`` that is not an integer tensor or a ``vocab_start`` that is not an integer.
    """
    validate.tensor(logits_local, "logits_local", "(N, V_r)", floating=True, finite=True)
    validate.tensor(targets, "targets", "(N,)", integer=True)
    vocab_start = validate.integer(vocab_start, "vocab_start", low=0, high=validate.MAX_SIZE - 1)
    if logits_local.dim() != 2 or 0 in logits_local.shape:
        raise ValueError(f"logits_local must have shape (N, V_r) with N >= 1 (the mean of no rows is undefined) "
                         f"and V_r >= 1, got {tuple(logits_local.shape)}")
    if targets.dim() != 1 or targets.shape[0] != logits_local.shape[0]:
        raise ValueError(f"targets must have shape ({logits_local.shape[0]},), got {tuple(targets.shape)}")
    rank, W = _group_info(group)
    V = _check_slices(vocab_start, logits_local.shape[1], W, group)
    validate.ids(targets.detach().cpu().numpy(), V, "target")
    logp = vocab_parallel_log_softmax(logits_local, group=group)
    local_t = targets - vocab_start
    mine = (local_t >= 0) & (local_t < logits_local.shape[1])
    picked = logp.gather(1, local_t.clamp(0, logits_local.shape[1] - 1)[:, None])[:, 0] * mine
    total = _ReduceFromParallel.apply(picked.sum(), group)
    if not bool(torch.isfinite(total.detach())):  # finite losses whose sum is not: the sum of their shares
        return -_ReduceFromParallel.apply((picked / targets.shape[0]).sum(), group)
    return -total / targets.shape[0]


def _check_slices(vocab_start: int, V_r: int, W: int, group) -> int:
    """The vocabulary size ``V`` (the sum of every rank's ``V_r``), after checking with one all-gather that
    the ranks' slices ``vocab_start .. vocab_start + V_r − 1`` tile ``0 .. V − 1``: ``ValueError`` naming
    ``vocab_start`` otherwise, on every rank."""
    mine = torch.tensor([vocab_start, V_r], dtype=torch.int64)
    every = [torch.zeros(2, dtype=torch.int64) for _ in range(W)]
    dist.all_gather(every, mine, group=group)
    slices = sorted((int(t[0]), int(t[1])) for t in every)
    V = sum(n for _, n in slices)
    starts = [0] + list(np.cumsum([n for _, n in slices])[:-1])
    if [s for s, _ in slices] != [int(s) for s in starts]:
        raise ValueError(f"vocab_start must be an integer in [0, {V - V_r}] whose slice of {V_r} items, with the other "
                         f"ranks' slices, tiles the vocabulary 0..{V - 1} without gap or overlap, got {vocab_start} "
                         f"(the slices, (vocab_start, V_r) per rank: {[tuple(int(x) for x in t) for t in every]})")
    return V
