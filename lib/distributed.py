"""Sharded embedding tables and a vocabulary-parallel softmax on ``torch.distributed``.

When a ``(V, D)`` table is too large for one device it is split over ``world_size`` processes (ranks):

- **row-wise** (:class:`RowShardedEmbedding`): rank ``r`` holds a contiguous block of rows. Each rank
  has its own batch of ids; it sends every id to the rank that owns it (an all-to-all), the owners look
  the rows up and send them back (a second all-to-all), and the result is exactly ``table[ids]``.
  In the backward pass the gradient rows travel the reverse way to the owner, which accumulates them.
  This is the model-parallel embedding of DLRM (Naumov et al. 2019, section "Parallelism": embedding
  tables distributed by model parallelism, their lookups exchanged by an all-to-all "butterfly shuffle").
- **column-wise** (:class:`ColumnShardedEmbedding`): rank ``r`` holds every row but only a block of the
  ``D`` columns. Every id must reach every rank; each rank returns its columns to the rank that asked,
  which concatenates them.
- **vocabulary-parallel softmax** (:func:`vocab_parallel_log_softmax`, :func:`vocab_parallel_cross_entropy`):
  the output layer ``(V, D)`` is split by rows (vocabulary items); each rank computes its slice of the
  logits, and the log-softmax over all ``V`` items needs one all-reduce of the row maxima (MAX) and one
  of the sums of exponentials (SUM). This follows Megatron-LM (Shoeybi et al. 2019, §3: the output
  embedding "parallelized along the vocabulary dimension", with the cross-entropy fused so that only
  ``(N,)`` scalars, not ``(N, V)`` logits, are communicated), and its pair of conjugate operators
  ``f`` (identity forward, all-reduce backward) and ``g`` (all-reduce forward, identity backward).

Shards are contiguous and as even as possible: with ``V = 10`` rows over 3 ranks they hold 4, 3 and 3
rows (the first ``V mod world_size`` ranks get one more, as ``torch.tensor_split`` does);
:func:`shard_sizes`. Every rank must hold at least one row (and, column-wise, one column).

Bytes exchanged are counted, not sniffed: :class:`CommStats` adds up the bytes each rank hands to a
collective *for another rank* (its own block stays local), at the tensors' itemsize. The transport's own
framing is not included. :func:`plan_exchange` computes the same counts from the ids alone, with no
process group, so the chapter can draw them for any number of ranks.

Running: :func:`spawn` starts ``world_size`` processes on this machine with the gloo backend (CPU) and
returns each rank's result, raising a :class:`RankError` with the failing rank's traceback (or a
``TimeoutError``) instead of hanging. The same module runs under ``torchrun``
(``torchrun --nproc-per-node 4 -m lib.distributed``) and, with ``backend="nccl"`` and each rank's
tensors on ``cuda:<local rank>``, on GPUs: the collectives used (``all_to_all_single``, ``all_reduce``)
exist in both backends.

Departures from the systems cited: no overlap of communication with computation, no caching of hot
rows, no pipelining of all-to-alls. By default (``dedupe=True``) each rank sends every distinct id once,
so that a repeated id costs one row of traffic; ``dedupe=False`` sends one row per occurrence.
"""

from __future__ import annotations

import argparse
import datetime
import math
import os
import queue
import shutil
import tempfile
import time
import traceback
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence

import numpy as np
import torch
import torch.distributed as dist
import torch.nn.functional as F

from lib.embedding import check_ids

ID_BYTES = 8  # ids travel as int64
COUNT_BYTES = 8  # split sizes travel as int64


# --- shard arithmetic (no communication) ------------------------------------------------------------


def _check_world(world_size) -> int:
    if isinstance(world_size, bool) or not isinstance(world_size, (int, np.integer)) or world_size < 1:
        raise ValueError(f"world_size must be an integer >= 1, got {world_size!r}")
    return int(world_size)


def shard_sizes(n: int, world_size: int, what: str = "rows") -> List[int]:
    """Sizes of ``world_size`` contiguous shards of ``n`` items, as even as possible.

    The first ``n % world_size`` shards hold ``n // world_size + 1`` items, the others ``n // world_size``
    (the split of ``torch.tensor_split``). Returns a list of ``int`` summing to ``n``. Raises
    ``ValueError`` when ``world_size < 1`` or ``n < world_size`` (a rank would hold no ``what``).
    """
    world_size = _check_world(world_size)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"number of {what} must be an integer >= 1, got {n!r}")
    if n < world_size:
        raise ValueError(
            f"cannot shard {n} {what} over {world_size} ranks: each rank needs at least one (need {what} >= world_size)"
        )
    base, extra = divmod(int(n), world_size)
    return [base + 1 if r < extra else base for r in range(world_size)]


def shard_offsets(n: int, world_size: int, what: str = "rows") -> List[int]:
    """Start of every shard and the end of the last: ``world_size + 1`` ints, ``[0, ..., n]``.

    Shard ``r`` holds items ``offsets[r] <= i < offsets[r + 1]``. Raises like :func:`shard_sizes`.
    """
    return [0] + np.cumsum(shard_sizes(n, world_size, what)).tolist()


def row_owner(ids, V: int, world_size: int) -> np.ndarray:
    """Rank that owns each id under row-wise sharding of ``V`` rows: same shape as ``ids``, int64.

    ``ids`` are checked with :func:`lib.embedding.check_ids` (``ValueError`` outside ``[0, V)``).
    """
    ids = check_ids(ids, V)
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
    D: int,
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
      by another rank; rows served back ``itemsize · D · (ids received from other ranks)``; gradients
      the same as rows, in the other direction;
    - column-wise: counts ``8 (W − 1)``; ids ``8 n_r (W − 1)`` (every id goes to every rank); rows
      ``itemsize · D_r · Σ_{s≠r} n_s`` (``D_r`` = this rank's columns; all ``n_s`` ids, no de-duplication);
      gradients the same as rows.

    Raises ``ValueError`` for an unknown scheme, out-of-range ids or too few rows / columns.
    """
    if scheme not in ("row", "column"):
        raise ValueError(f"scheme must be 'row' or 'column', got {scheme!r}")
    W = _check_world(len(ids_per_rank))
    flat = [check_ids(ids, V).reshape(-1) for ids in ids_per_rank]
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
            stats[r].row_bytes = itemsize * D * served_for_others
            stats[r].grad_bytes = itemsize * D * _off_rank(sent[r], r)
            stats[r].rows_served = int(sent[:, r].sum())
    else:
        widths = shard_sizes(D, W, "columns")
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
    """A ``(V, D)`` table split by rows over the ranks of ``group``; ``forward(ids)`` equals ``table[ids]``.

    ``local`` is this rank's ``(V_r, D)`` block, rows ``offsets[r] .. offsets[r + 1] − 1`` of the table
    (:func:`shard_offsets`); build it with :meth:`from_full` from a table every rank can see, or pass the
    block directly. ``forward`` takes this rank's ids (an integer tensor of any shape, values in
    ``[0, V)``; ``ValueError`` otherwise) and returns ``ids.shape + (D,)`` in the table's dtype. Every rank
    must call ``forward`` (and ``backward``) together: they are collectives.

    Steps: sort (and, with ``dedupe``, de-duplicate) the ids, which groups them by owner since shards are
    contiguous; all-to-all the counts; all-to-all the ids; look up the received ids in ``local``;
    all-to-all the rows back (autograd-aware: the backward sends the gradient rows to their owner, where
    the embedding backward sums them into ``local.grad``); undo the sort. ``self.stats`` holds the
    :class:`CommStats` of the last call.
    """

    def __init__(self, local: torch.Tensor, V: int, *, group=None, dedupe: bool = True):
        super().__init__()
        rank, W = _group_info(group)
        self.V, self.world_size, self.rank, self.group, self.dedupe = int(V), W, rank, group, bool(dedupe)
        self.offsets = shard_offsets(V, W)
        rows = self.offsets[rank + 1] - self.offsets[rank]
        if local.dim() != 2 or local.shape[0] != rows:
            raise ValueError(
                f"rank {rank} must hold {rows} rows of the {V}-row table, got a block of shape {tuple(local.shape)}"
            )
        self.D = int(local.shape[1])
        self.local = torch.nn.Parameter(local)
        self.stats = CommStats()

    @classmethod
    def from_full(cls, table: torch.Tensor, *, group=None, dedupe: bool = True) -> "RowShardedEmbedding":
        """Take this rank's rows of ``table`` ``(V, D)`` (copied, so the shard owns its memory)."""
        rank, W = _group_info(group)
        off = shard_offsets(table.shape[0], W)
        return cls(table[off[rank] : off[rank + 1]].detach().clone(), table.shape[0], group=group, dedupe=dedupe)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        """Rows ``ids.shape + (D,)`` of the whole table for this rank's ``ids``; a collective (see the class)."""
        W, rank = self.world_size, self.rank
        ids_np = check_ids(ids.detach().cpu().numpy(), self.V)
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
        rows = F.embedding(recv_ids - self.offsets[rank], self.local)  # (rows asked of me, D)
        back = _AllToAll.apply(rows, send, recv, self.group, stats)  # (len(send_ids), D), in send order
        self.stats = stats
        return back[gather].reshape(tuple(ids.shape) + (self.D,))


class ColumnShardedEmbedding(torch.nn.Module):
    """A ``(V, D)`` table split by columns over the ranks of ``group``; ``forward(ids)`` equals ``table[ids]``.

    ``local`` is this rank's ``(V, D_r)`` block, columns ``offsets[r] .. offsets[r + 1] − 1``
    (``shard_offsets(D, world_size, "columns")``). ``forward`` takes this rank's ids (any shape) and
    returns ``ids.shape + (D,)``: every rank's ids go to every rank (an all-to-all of the id lists), each
    rank looks up its columns for all of them and sends each block back to the rank that asked (a second
    all-to-all, flattened because the blocks' widths may differ), and the asker concatenates the blocks
    along the columns. The backward sends the gradient columns back to their owner. Every rank must call
    it together. ``self.stats`` holds the :class:`CommStats` of the last call.
    """

    def __init__(self, local: torch.Tensor, D: int, *, group=None):
        super().__init__()
        rank, W = _group_info(group)
        self.D, self.world_size, self.rank, self.group = int(D), W, rank, group
        self.widths = shard_sizes(D, W, "columns")
        if local.dim() != 2 or local.shape[1] != self.widths[rank]:
            raise ValueError(
                f"rank {rank} must hold {self.widths[rank]} of the {D} columns, "
                f"got a block of shape {tuple(local.shape)}"
            )
        self.V = int(local.shape[0])
        self.local = torch.nn.Parameter(local)
        self.stats = CommStats()

    @classmethod
    def from_full(cls, table: torch.Tensor, *, group=None) -> "ColumnShardedEmbedding":
        """Take this rank's columns of ``table`` ``(V, D)`` (copied)."""
        rank, W = _group_info(group)
        off = shard_offsets(table.shape[1], W, "columns")
        return cls(table[:, off[rank] : off[rank + 1]].detach().clone(), table.shape[1], group=group)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        """Rows ``ids.shape + (D,)`` of the whole table for this rank's ``ids``; a collective (see the class)."""
        W, rank = self.world_size, self.rank
        ids_np = check_ids(ids.detach().cpu().numpy(), self.V)
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
        return torch.cat(blocks, dim=1).reshape(tuple(ids.shape) + (self.D,))


# --- vocabulary-parallel softmax ---------------------------------------------------------------------


def vocab_parallel_logits(hidden: torch.Tensor, weight_local: torch.Tensor, *, group=None) -> torch.Tensor:
    """This rank's slice of the logits, ``hidden @ weight_local.T``: ``(N, V_r)``.

    ``hidden`` ``(N, D)`` is the same on every rank; ``weight_local`` ``(V_r, D)`` is this rank's rows of
    the output matrix. ``hidden`` enters through Megatron's ``f`` (identity forward, all-reduce
    backward), so that ``hidden.grad`` is the full gradient on every rank.
    """
    _group_info(group)
    return _CopyToParallel.apply(hidden, group) @ weight_local.T


def vocab_parallel_log_softmax(logits_local: torch.Tensor, *, group=None) -> torch.Tensor:
    """Log-softmax over the full vocabulary from this rank's ``(N, V_r)`` slice of the logits.

    ``log p_i = z_i − m − log Σ_j exp(z_j − m)`` with ``m`` the row maximum over all ``V`` items: an
    all-reduce MAX of the local maxima (no gradient: the result does not depend on ``m``) and an
    all-reduce SUM of the local sums of ``exp(z − m)``. Returns this rank's ``(N, V_r)`` slice of the
    log-probabilities, equal (to rounding) to ``log_softmax(z_full, -1)[:, lo:hi]``. Differentiable: the
    loss is taken to be a sum of terms computed on the ranks from their slices (or a value replicated
    with :func:`vocab_parallel_cross_entropy`); the SUM is all-reduced in the backward pass too. Raises
    ``ValueError`` if ``logits_local`` is not 2-D. Source: Shoeybi et al. (2019), §3.
    """
    _group_info(group)
    if logits_local.dim() != 2:
        raise ValueError(f"logits_local must have shape (N, V_r), got {tuple(logits_local.shape)}")
    m = logits_local.detach().max(dim=1).values
    dist.all_reduce(m, op=dist.ReduceOp.MAX, group=group)
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
    ``ValueError`` for mismatched shapes.
    """
    rank, W = _group_info(group)
    if targets.dim() != 1 or targets.shape[0] != logits_local.shape[0]:
        raise ValueError(f"targets must have shape ({logits_local.shape[0]},), got {tuple(targets.shape)}")
    logp = vocab_parallel_log_softmax(logits_local, group=group)
    local_t = targets - int(vocab_start)
    mine = (local_t >= 0) & (local_t < logits_local.shape[1])
    picked = logp.gather(1, local_t.clamp(0, logits_local.shape[1] - 1)[:, None])[:, 0] * mine
    return -_ReduceFromParallel.apply(picked.sum(), group) / targets.shape[0]


# --- running on several processes --------------------------------------------------------------------


class RankError(RuntimeError):
    """A rank raised: ``rank`` is its number, ``remote_traceback`` its formatted traceback."""

    def __init__(self, rank: int, remote_traceback: str, others: Optional[Dict[int, str]] = None):
        self.rank, self.remote_traceback, self.others = rank, remote_traceback, others or {}
        lines = remote_traceback.strip().splitlines() or ["(no traceback)"]
        msg = f"rank {rank} failed: {lines[-1]}"
        if len(lines) > 1:
            msg += f"\n\n--- traceback of rank {rank} ---\n{remote_traceback}"
        if self.others:
            msg += "\n(also failed, probably because rank %d did: %s)" % (
                rank,
                "; ".join(f"rank {r}: {t.strip().splitlines()[-1]}" for r, t in sorted(self.others.items())),
            )
        super().__init__(msg)


def _worker(rank, world_size, init_file, backend, collective_timeout, threads, fn, args, kwargs, results):
    try:
        torch.set_num_threads(threads)
        if backend == "nccl":  # one GPU per rank
            torch.cuda.set_device(rank % torch.cuda.device_count())
        dist.init_process_group(
            backend,
            init_method=f"file://{init_file}",
            rank=rank,
            world_size=world_size,
            timeout=datetime.timedelta(seconds=collective_timeout),
        )
        out = fn(rank, world_size, *args, **kwargs)
        results.put(("ok", rank, out))
    except BaseException:  # noqa: BLE001 - every failure must reach the parent
        results.put(("error", rank, traceback.format_exc()))
    finally:
        results.close()
        results.join_thread()  # the message is in the pipe before this rank's sockets close
        if dist.is_initialized():
            dist.destroy_process_group()


_PEER_LOSS = ("Connection closed by peer", "Connection reset by peer", "transport/tcp")


def _is_peer_loss(tb: str) -> bool:
    """True when a rank's error only says that another rank went away (gloo's transport errors)."""
    return any(marker in tb for marker in _PEER_LOSS)


# forkserver: the first call starts a server process that imports torch once; later calls fork ranks
# from it in a fraction of a second. Where forkserver does not exist (Windows), every rank is spawned.
_START_METHOD = "forkserver" if "forkserver" in __import__("multiprocessing").get_all_start_methods() else "spawn"


def _check_timeout(value, name):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite number of seconds > 0, got {value!r}")
    return float(value)


def spawn(
    fn: Callable,
    world_size: int,
    *args: Any,
    timeout: float = 120.0,
    collective_timeout: Optional[float] = None,
    backend: str = "gloo",
    threads_per_rank: int = 1,
    **kwargs: Any,
) -> List[Any]:
    """Run ``fn(rank, world_size, *args, **kwargs)`` on ``world_size`` new processes; return their results.

    Each process initialises ``torch.distributed`` (``backend``, default gloo; rendezvous through a file
    in a fresh temporary directory, so no port is needed) before calling ``fn``; ``fn`` must be a
    module-level function (the processes are started with the ``spawn`` method and import it) and its
    result picklable. Returns ``[result of rank 0, result of rank 1, ...]``.

    Never hangs: if any rank raises, the others are terminated and a :class:`RankError` carrying that
    rank's traceback is raised (errors other ranks reported within a second are attached, and a rank
    whose error only says that a peer went away is not taken for the cause); if a process dies
    without reporting, ``RankError`` names its exit code; if not every rank has finished after
    ``timeout`` seconds (start-up included), all are terminated and ``TimeoutError`` names the missing
    ranks. ``collective_timeout`` (default: ``timeout``) bounds each collective inside the ranks.
    ``threads_per_rank`` sets ``torch.set_num_threads`` in each rank. Raises ``ValueError`` for a bad
    ``world_size``, timeout or thread count, and ``TypeError`` when ``fn`` cannot be imported by the ranks
    (a lambda, a nested function, a function defined in ``__main__`` or a notebook).
    """
    import torch.multiprocessing as mp

    world_size = _check_world(world_size)
    if not callable(fn):
        raise TypeError(f"fn must be a function, got {fn!r}")
    where = getattr(fn, "__module__", None)
    if where in (None, "__main__") or "<" in getattr(fn, "__qualname__", "<"):
        raise TypeError(
            f"fn must be a module-level function of an importable module (the ranks import it), got {fn!r} "
            f"from {where!r}: a lambda, a nested function or one defined in a notebook cannot be imported"
        )
    timeout = _check_timeout(timeout, "timeout")
    collective_timeout = (
        timeout if collective_timeout is None else _check_timeout(collective_timeout, "collective_timeout")
    )
    if isinstance(threads_per_rank, bool) or not isinstance(threads_per_rank, int) or threads_per_rank < 1:
        raise ValueError(f"threads_per_rank must be an integer >= 1, got {threads_per_rank!r}")
    ctx = mp.get_context(_START_METHOD)
    if _START_METHOD == "forkserver":
        ctx.set_forkserver_preload(["torch", "lib.distributed"])  # the server imports torch once
    results = ctx.Queue()
    tmp = tempfile.mkdtemp(prefix="embook-dist-")
    procs = [
        ctx.Process(
            target=_worker,
            args=(
                r,
                world_size,
                os.path.join(tmp, "rendezvous"),
                backend,
                collective_timeout,
                threads_per_rank,
                fn,
                args,
                kwargs,
                results,
            ),
            daemon=True,
        )
        for r in range(world_size)
    ]
    out: Dict[int, Any] = {}
    errors: Dict[int, str] = {}
    started: List[Any] = []
    try:
        for p in procs:
            p.start()
            started.append(p)
        deadline = time.monotonic() + timeout
        while len(out) < world_size and not errors:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                missing = [r for r in range(world_size) if r not in out]
                raise TimeoutError(
                    f"ranks {missing} of {world_size} did not finish within {timeout:g} s; all ranks were terminated"
                )
            try:
                kind, rank, payload = results.get(timeout=min(remaining, 0.2))
            except queue.Empty:
                dead = [r for r, p in enumerate(procs) if r not in out and p.exitcode is not None]
                if dead:
                    try:  # a rank that exited normally may have a message still in the pipe
                        kind, rank, payload = results.get(timeout=1.0)
                    except queue.Empty:
                        r = dead[0]
                        errors[r] = f"exited with code {procs[r].exitcode} without reporting a result (see its stderr)"
                        break
                else:
                    continue
            if kind == "ok":
                out[rank] = payload
            else:
                errors[rank] = payload
        if errors:
            grace = time.monotonic() + 1.0  # collect what the other ranks say, briefly
            while time.monotonic() < grace:
                try:
                    kind, rank, payload = results.get(timeout=0.1)
                except queue.Empty:
                    continue
                if kind == "error":
                    errors.setdefault(rank, payload)
            for r, p in enumerate(procs):  # ranks that died without a word (os._exit, a crash, a kill)
                if r not in out and r not in errors and p.exitcode not in (None, 0):
                    errors[r] = f"exited with code {p.exitcode} without reporting a result (see its stderr)"
            # The root cause is the first error that is not a rank losing its connection to a peer.
            causes = [r for r in errors if not _is_peer_loss(errors[r])] or list(errors)
            first = causes[0]
            others = {r: t for r, t in errors.items() if r != first}
            raise RankError(first, errors[first], others)
        return [out[r] for r in range(world_size)]
    finally:
        for p in started:
            if p.is_alive():
                p.terminate()
        for p in started:
            p.join(timeout=5)
            if p.is_alive():  # pragma: no cover - terminate() was ignored
                p.kill()
                p.join(timeout=5)
        results.close()
        shutil.rmtree(tmp, ignore_errors=True)


# --- the checks the chapter and the tests run on every rank -----------------------------------------


def make_case(
    V: int, D: int, world_size: int, batch: int, *, distribution: str = "uniform", N: int = 8, seed: int = 0
) -> Dict[str, Any]:
    """A seeded test case for :func:`check_sharding`: tables, one batch of ids per rank, softmax inputs.

    Returns ``{"table": (V, D) float64, "ids_per_rank": [(batch,) int64, ...], "hidden": (N, D),
    "out_table": (V, D), "targets": (N,) int64}`` as NumPy arrays. Ids follow ``distribution``
    (``"uniform"`` or ``"zipf"``, see :func:`lib.sparse_updates.sample_ids`), seeded per rank.
    """
    from lib.sparse_updates import sample_ids

    world_size = _check_world(world_size)
    rng = np.random.default_rng(seed)
    return {
        "table": rng.standard_normal((V, D)),
        "ids_per_rank": [sample_ids(V, batch, distribution=distribution, seed=seed + 1 + r) for r in range(world_size)],
        "hidden": rng.standard_normal((N, D)),
        "out_table": rng.standard_normal((V, D)) / np.sqrt(D),
        "targets": rng.integers(0, V, size=N),
    }


def _default_device(rank: int) -> str:
    """``"cuda:<rank mod GPUs>"`` when the process group uses NCCL, else ``"cpu"``."""
    if dist.is_initialized() and dist.get_backend() == "nccl":
        return f"cuda:{rank % torch.cuda.device_count()}"
    return "cpu"


def _max_abs(a: torch.Tensor, b: torch.Tensor) -> float:
    return float((a - b).abs().max()) if a.numel() else 0.0


def check_sharding(
    rank: int,
    world_size: int,
    case: Dict[str, Any],
    *,
    dedupe: bool = True,
    dtype: str = "float64",
    device: Optional[str] = None,
) -> Dict[str, Any]:
    """Run on every rank: compare the sharded computations with the unsharded ones; return the evidence.

    ``case`` is a :func:`make_case` dict (``hidden`` / ``out_table`` / ``targets`` may be absent to skip
    the softmax). Every rank rebuilds the unsharded reference from ``case`` (all ranks' ids are in it),
    so no gathering is needed. Lookups: row- and column-sharded outputs against ``table[ids]``; the loss
    ``Σ_r Σ (out_r · c_r)`` (``c_r`` seeded per rank) is back-propagated and each rank's shard gradient
    compared with its block of the unsharded autograd gradient. Softmax: this rank's slice of the
    vocabulary-parallel log-softmax, the cross-entropy and the gradients of ``out_table`` and ``hidden``.

    ``device``: where this rank's tensors live; default ``"cpu"`` for gloo and ``"cuda:<rank mod number of
    GPUs>"`` for NCCL (the NCCL path is written for GPUs but the book's tests run it on CPU only).

    Returns a dict of floats (``*_err``: max absolute differences), this rank's :class:`CommStats` dicts
    (``row_stats``, ``col_stats``) and ``log_softmax`` (this rank's ``(N, V_r)`` slice, NumPy).
    """
    if device is None:
        device = _default_device(rank)
    tdtype = getattr(torch, dtype)
    table = torch.as_tensor(case["table"], dtype=tdtype, device=device)
    V, D = table.shape
    ids_all = [torch.as_tensor(np.asarray(i, dtype=np.int64), device=device) for i in case["ids_per_rank"]]
    ids = ids_all[rank]
    coef = [
        torch.as_tensor(
            np.random.default_rng(1000 + r).standard_normal(tuple(i.shape) + (D,)), dtype=tdtype, device=device
        )
        for r, i in enumerate(ids_all)
    ]
    # unsharded reference: one table, every rank's batch, the sum of every rank's loss
    ref = table.clone().requires_grad_(True)
    sum((F.embedding(i, ref) * c).sum() for i, c in zip(ids_all, coef)).backward()
    out: Dict[str, Any] = {"rank": rank}

    row = RowShardedEmbedding.from_full(table, dedupe=dedupe)
    y = row(ids)
    out["row_lookup_err"] = _max_abs(y.detach(), table[ids])
    (y * coef[rank]).sum().backward()
    lo, hi = row.offsets[rank], row.offsets[rank + 1]
    out["row_grad_err"] = _max_abs(row.local.grad, ref.grad[lo:hi])
    out["row_stats"] = row.stats.as_dict()

    col = ColumnShardedEmbedding.from_full(table)
    y = col(ids)
    out["col_lookup_err"] = _max_abs(y.detach(), table[ids])
    (y * coef[rank]).sum().backward()
    c0 = shard_offsets(D, world_size, "columns")
    out["col_grad_err"] = _max_abs(col.local.grad, ref.grad[:, c0[rank] : c0[rank + 1]])
    out["col_stats"] = col.stats.as_dict()

    if "hidden" in case:
        h_full = torch.as_tensor(case["hidden"], dtype=tdtype, device=device)
        w_full = torch.as_tensor(case["out_table"], dtype=tdtype, device=device)
        t = torch.as_tensor(np.asarray(case["targets"], dtype=np.int64), device=device)
        h_ref, w_ref = h_full.clone().requires_grad_(True), w_full.clone().requires_grad_(True)
        logp_ref = F.log_softmax(h_ref @ w_ref.T, dim=1)
        F.nll_loss(logp_ref, t).backward()
        off = shard_offsets(V, world_size)
        lo, hi = off[rank], off[rank + 1]
        h = h_full.clone().requires_grad_(True)
        w_local = w_full[lo:hi].clone().requires_grad_(True)
        z = vocab_parallel_logits(h, w_local)
        logp = vocab_parallel_log_softmax(z)
        out["log_softmax_err"] = _max_abs(logp.detach(), logp_ref.detach()[:, lo:hi])
        out["log_softmax"] = logp.detach().cpu().numpy()
        loss = vocab_parallel_cross_entropy(z, t, lo)
        loss.backward()
        out["ce"] = float(loss.detach())
        out["ce_err"] = abs(float(loss.detach()) - float(F.cross_entropy(h_full @ w_full.T, t)))
        out["out_grad_err"] = _max_abs(w_local.grad, w_ref.grad[lo:hi])
        out["hidden_grad_err"] = _max_abs(h.grad, h_ref.grad)
    return out


def sharded_lookup(rank: int, world_size: int, table, ids_per_rank: Sequence, *, scheme: str = "row") -> np.ndarray:
    """Run on every rank: look up this rank's ids in ``table`` sharded by ``scheme`` (``"row"`` or
    ``"column"``); return the rows, ``ids.shape + (D,)`` as NumPy.

    ``table`` ``(V, D)`` and ``ids_per_rank`` (one array-like per rank) are the same on every rank. A bad
    id raises ``ValueError`` on the rank that holds it (which :func:`spawn` reports as a :class:`RankError`).
    """
    if scheme not in ("row", "column"):
        raise ValueError(f"scheme must be 'row' or 'column', got {scheme!r}")
    device = _default_device(rank)
    table = torch.as_tensor(np.asarray(table), device=device)
    cls = RowShardedEmbedding if scheme == "row" else ColumnShardedEmbedding
    emb = cls.from_full(table)
    ids = torch.as_tensor(np.asarray(ids_per_rank[rank], dtype=np.int64), device=device)
    with torch.no_grad():
        return emb(ids).cpu().numpy()


def check_many(rank: int, world_size: int, cases: Sequence[Dict[str, Any]], **kwargs) -> List[Dict[str, Any]]:
    """:func:`check_sharding` for each of ``cases`` in one process group (start-up paid once)."""
    return [check_sharding(rank, world_size, c, **kwargs) for c in cases]


def summarise(results: Sequence[Dict[str, Any]]) -> Dict[str, Any]:
    """Combine one :func:`check_sharding` result per rank: the largest error of each kind over ranks,
    the bytes summed over ranks (``row_*`` / ``col_*``), and the rows each rank served."""
    errs = {k: max(float(r[k]) for r in results) for k in results[0] if k.endswith("_err")}
    summary: Dict[str, Any] = dict(errs)
    for scheme in ("row", "col"):
        for key in results[0][f"{scheme}_stats"]:
            summary[f"{scheme}_{key}"] = int(sum(r[f"{scheme}_stats"][key] for r in results))
        summary[f"{scheme}_rows_served_per_rank"] = [int(r[f"{scheme}_stats"]["rows_served"]) for r in results]
    if "log_softmax" in results[0]:
        summary["log_softmax"] = np.concatenate([r["log_softmax"] for r in results], axis=1)
        summary["ce"] = float(results[0]["ce"])
    return summary


# --- command line / torchrun --------------------------------------------------------------------------


def _report(summary: Dict[str, Any], world_size: int) -> str:
    lines = [f"world_size={world_size}"]
    for k in sorted(summary):
        if k.endswith("_err"):
            lines.append(f"  {k:>18}: {summary[k]:.3g}")
    for scheme, name in (("row", "row-wise"), ("col", "column-wise")):
        lines.append(
            f"  {name} bytes sent per batch (all ranks): forward {summary[f'{scheme}_forward_bytes']}, "
            f"backward {summary[f'{scheme}_grad_bytes']}"
        )
    return "\n".join(lines)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``python -m lib.distributed [--world-size W]`` spawns W gloo processes and checks the sharded
    lookups and softmax against the unsharded ones; under ``torchrun`` (``RANK`` / ``WORLD_SIZE`` set)
    it runs the same check on the ranks torchrun started. Returns 0 when every error is below 1e-9."""
    p = argparse.ArgumentParser(prog="python -m lib.distributed", description=main.__doc__)
    p.add_argument("--world-size", type=int, default=2)
    p.add_argument("--V", type=int, default=1000)
    p.add_argument("--D", type=int, default=16)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--distribution", default="zipf", choices=("uniform", "zipf"))
    p.add_argument("--backend", default="gloo")
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    if "RANK" in os.environ and "WORLD_SIZE" in os.environ:  # started by torchrun
        if a.backend == "nccl":
            torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", 0)))
        dist.init_process_group(a.backend, init_method="env://")
        rank, W = dist.get_rank(), dist.get_world_size()
        case = make_case(a.V, a.D, W, a.batch, distribution=a.distribution, seed=a.seed)
        device = f"cuda:{torch.cuda.current_device()}" if a.backend == "nccl" else "cpu"
        mine = check_sharding(rank, W, case, device=device)
        gathered: List[Any] = [None] * W
        dist.all_gather_object(gathered, mine)
        dist.destroy_process_group()
        results = gathered
    else:
        W = a.world_size
        case = make_case(a.V, a.D, W, a.batch, distribution=a.distribution, seed=a.seed)
        import lib.distributed as importable  # under `python -m`, this file's functions live in __main__

        results = spawn(importable.check_sharding, W, case, backend=a.backend)
        rank = 0
    summary = summarise(results)
    ok = all(v < 1e-9 for k, v in summary.items() if k.endswith("_err"))
    if rank == 0:
        print(_report(summary, W))
        print("OK" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
