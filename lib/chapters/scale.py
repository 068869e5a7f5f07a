"""The chapter chapters/scale.md: its settings, its experiments, and a check
of the sharded table that also runs from the command line and under ``torchrun``.

Concepts used: :mod:`lib.memory`, :mod:`lib.sparse_updates`, :mod:`lib.tying` (on the toy language of
:mod:`lib.toylang` and :mod:`lib.bigram`), :mod:`lib.distributed`, run on local processes by
:mod:`lib.processes`.

- Memory: :func:`footprint_configs`, the training footprint of a 1,000,000 × 768 table five ways.
- Sparse updates: :func:`compare_steps` times one step of each method on the same table, and
  :func:`step_table` keeps what is reproducible of it; :func:`format_duration` and :func:`format_fold`
  give measured values a form of their own, which marks them as measured: a duration differs from run to
  run, and a re-run of the chapter may print another one.
- Tying: :func:`compare_tying` trains every variant at every width on the toy language.
- Sharding: :func:`make_case` draws a test case, :func:`check_sharding` (run on every rank) compares the
  sharded lookups, gradients and softmax with the unsharded ones, and :func:`summarise` combines the
  ranks' evidence; :func:`exchange_data` and :func:`load_data` count bytes and load from the ids alone.
  ``python -m lib.chapters.scale`` runs the check on local processes, and
  ``torchrun --nproc-per-node 4 -m lib.chapters.scale`` on the ranks torchrun starts (:func:`main`).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
import torch
import torch.distributed as dist
import torch.nn.functional as F

from lib import tables, tying, validate
from lib.bigram import bigram_counts
from lib.distributed import (
    ColumnShardedEmbedding,
    RowShardedEmbedding,
    plan_exchange,
    shard_offsets,
    shard_sizes,
    vocab_parallel_cross_entropy,
    vocab_parallel_log_softmax,
    vocab_parallel_logits,
)
from lib.memory import format_bytes, training_footprint
from lib.notebook import fmt
from lib.processes import spawn
from lib.sparse_updates import StepResult, measure_step, sample_ids
from lib.toylang import V, bigram_entropy, make_corpus

#: The chapter's settings (its figures use them too).
FOOTPRINT_CASE = (1_000_000, 768)  # the four-level chapter's exercise: one million items, width 768
TOUCH_BATCH = 4096
TOUCH_SIZES = np.logspace(3, 7, 9).round().astype(int)  # 1,000 .. 10,000,000 rows
TOUCH_SAMPLED = (10**3, 10**4, 10**5, 10**6)
DRIFT_STEPS = 30
DRIFT_LR = 0.1
EXCHANGE_CASE = dict(V=100_000, d=64, batch=4096, itemsize=4)  # float32 rows, 4,096 ids per rank
EXCHANGE_WORLDS = (1, 2, 3, 4, 6, 8)
LOAD_WORLD = 4


def footprint_configs():
    """The configurations of :func:`lib.figures.scale.footprint`: ``[(label, Footprint), ...]`` for the 1M x 768 table."""
    V, d = FOOTPRINT_CASE
    return [
        ("fp32\nSGD", training_footprint(V, d, "fp32", "sgd")),
        ("fp32\nmomentum", training_footprint(V, d, "fp32", "momentum")),
        ("fp32\nAdam", training_footprint(V, d, "fp32", "adam")),
        ("bf16\nAdam", training_footprint(V, d, "bf16", "adam")),
        ("bf16 Adam,\nfp32 master", training_footprint(V, d, "bf16", "adam", master_weights=True)),
    ]


def footprint_table(configs=None) -> str:
    """A Markdown table of training footprints: one row per ``(label, Footprint)`` of ``configs``
    (default :func:`footprint_configs`), with the total, the bytes per parameter and each part (weights,
    gradients, fp32 master copy, optimiser state) in decimal units (:func:`lib.memory.format_bytes`);
    a part a configuration does not have is shown as ``-``.
    """
    configs = footprint_configs() if configs is None else configs
    parts = ["weights", "gradients", "fp32 master weights"]
    rows = []
    for label, f in configs:
        named = dict(f.breakdown())
        optimiser = sum(b for name, b in named.items() if name.startswith("optimizer"))
        cells = [format_bytes(named[p]) if p in named else "-" for p in parts]
        rows.append([label.replace("\n", " "), format_bytes(f.total), fmt(f.bytes_per_parameter, ".0f"), *cells,
                     format_bytes(optimiser) if optimiser else "-"])
    header = ["setup", "total", "bytes per parameter", "weights", "gradients", "fp32 master copy",
              "optimiser state"]
    return tables.markdown(header, rows, align="<>>>>>>")


def shard_table(sizes: Sequence[int], served: Sequence[int]) -> str:
    """A Markdown table of row-wise shards: for each rank the rows it holds (``sizes``) and the rows it
    looked up for all ranks in one batch (``served``). Raises ``ValueError`` for lengths that differ or a
    count that is negative, naming it, and ``TypeError`` for a count that is not an integer.

    >>> print(shard_table([3, 2], [4, 1]))
    | rank | rows held | rows looked up |
    | ---: | ---: | ---: |
    | 0 | 3 | 4 |
    | 1 | 2 | 1 |
    """
    if len(sizes) != len(served):
        raise ValueError(f"sizes and served must have one entry per rank, got {len(sizes)} and {len(served)}")
    sizes = [validate.integer(a, f"sizes[{r}]", low=0, hint="rows a rank holds") for r, a in enumerate(sizes)]
    served = [validate.integer(b, f"served[{r}]", low=0, hint="rows a rank looked up") for r, b in enumerate(served)]
    rows = [[str(r), f"{a:,}", f"{b:,}"] for r, (a, b) in enumerate(zip(sizes, served))]
    return tables.markdown(["rank", "rows held", "rows looked up"], rows, align=">>>")


# --- sparse updates ---------------------------------------------------------------------------------


def compare_steps(
    methods: Sequence[str] = ("dense_adam", "sparse_adam", "sparse_sgd"), **settings: Any
) -> Dict[str, StepResult]:
    """:func:`lib.sparse_updates.measure_step` for each of ``methods`` with the same ``settings`` (sizes,
    steps, seed, threads, as its keywords): ``{method: StepResult}``.

    The tables are built one after another and freed in between, so peak memory is that of one method.
    """
    return {m: measure_step(m, **settings) for m in methods}


#: How the step table names each method of :func:`lib.sparse_updates.measure_step`: the gradient, then the optimiser
#: (``"sparse_adam"`` is "sparse gradient, SparseAdam"), for the four methods ``dense_adam``, ``sparse_adam``,
#: ``sparse_sgd`` and ``dense_sgd``.
#:
#: :meta hide-value:
METHOD_NAMES = {
    "dense_adam": "dense gradient, Adam",
    "sparse_adam": "sparse gradient, SparseAdam",
    "sparse_sgd": "sparse gradient, SGD",
    "dense_sgd": "dense gradient, SGD",
}
#: How the tying table names each variant of :mod:`lib.tying`: ``untied`` is "untied", ``tied`` is "tied" and
#: ``tied_no_hidden`` is "tied, no hidden layer".
#:
#: :meta hide-value:
VARIANT_NAMES = {"untied": "untied", "tied": "tied", "tied_no_hidden": "tied, no hidden layer"}


def step_table(results: Dict[str, StepResult]) -> str:
    """The reproducible columns of :func:`compare_steps`' results as a Markdown table, timings left out.

    One row per method, named in words (:data:`METHOD_NAMES`): rows touched by the batch, rows the step changed, and the bytes of the gradient and
    of the optimiser state (:func:`lib.memory.format_bytes`). Timings change from run to run and are
    formatted separately by :func:`format_duration`.
    """
    header = ["method", "rows touched", "rows changed", "gradient", "optimiser state"]
    rows = [
        [METHOD_NAMES[r.method], f"{r.rows_touched:,}", f"{r.rows_changed:,}", format_bytes(r.grad_bytes), format_bytes(r.state_bytes)]
        for r in results.values()
    ]
    return tables.markdown(header, rows, align="<>>>>")


def format_duration(seconds: float) -> str:
    """A measured duration as ``"12.3 ms"`` (milliseconds, one decimal).

    Every duration the book prints or glues has this form, which marks it as measured: a re-run of the
    chapter may print another value there. Raises ``TypeError`` for a value that is not a number (a string such
    as ``"5"``, a ``bool``) and ``ValueError`` for a negative or non-finite value or one whose milliseconds
    are beyond float64 (above about 1.8e305 s), which would print ``inf ms``.

    >>> format_duration(0.0123)
    '12.3 ms'
    """
    seconds = validate.number(seconds, "seconds", ge=0)
    with np.errstate(over="ignore"):
        ms = seconds * 1e3
    if not np.isfinite(ms):
        raise ValueError(f"seconds must be at most about 1.8e305 (its milliseconds must fit in float64), got {seconds}")
    return f"{ms:.1f} ms"


def format_fold(slow: float, fast: float) -> str:
    """How many times ``slow`` is ``fast``, as ``"37-fold"`` (whole number; ``"<1-fold"`` below one).

    The ``-fold`` form of a measured ratio is left out of that comparison like a duration. Raises
    ``TypeError`` when either is not a number (a string, a ``bool``), ``ValueError`` unless both are finite,
    ``slow >= 0`` and ``fast > 0``, and for a ratio beyond float64 (``format_fold(1e308, 1e-10)``), which
    would print ``inf-fold``.

    >>> format_fold(3.7, 0.1)
    '37-fold'
    """
    slow = validate.number(slow, "slow", ge=0)
    fast = validate.number(fast, "fast", gt=0)
    with np.errstate(over="ignore"):
        ratio = slow / fast
    if not np.isfinite(ratio):
        raise ValueError(f"the ratio slow / fast is beyond float64 (about 1.8e308), got slow={slow}, fast={fast}")
    return f"{ratio:.0f}-fold" if ratio >= 1 else "<1-fold"


# --- weight tying -----------------------------------------------------------------------------------


def toy_counts(corpus=None):
    """Bigram count matrices ``(34, 34)`` int64 of the toy language's training and validation splits.

    ``corpus`` is a ``lib.toylang.Corpus`` (default: ``lib.toylang.make_corpus`` with its default
    size and seed). Returns ``(train_counts, val_counts)``.
    """
    corpus = make_corpus() if corpus is None else corpus
    return bigram_counts(corpus.train, V), bigram_counts(corpus.val, V)


def compare_tying(
    widths: Sequence[int] = tying.WIDTHS,
    variants: Sequence[str] = tying.VARIANTS,
    *,
    corpus=None,
    steps: int = tying.STEPS,
    lr: float = tying.LR,
    seed: int = 0,
) -> List[tying.TyingResult]:
    """:func:`lib.tying.train` every variant at every width on the toy language; results in (width, variant) order."""
    tr, va = toy_counts(corpus)
    return [tying.train(v, d, tr, va, steps=steps, lr=lr, seed=seed) for d in widths for v in variants]


def entropy_floor() -> float:
    """The lowest expected loss of any next-token-from-previous model of the toy language, in nats
    (``lib.toylang.bigram_entropy``)."""
    return float(bigram_entropy())


def tying_table(results: Sequence[tying.TyingResult], decimals: int = 4) -> str:
    """The results as an aligned text table (variant in words, :data:`VARIANT_NAMES`; width, parameters,
    training and validation loss), losses to ``decimals`` places (:func:`lib.notebook.fmt`).

    >>> r = tying.TyingResult("tied", 8, 378, 1.23456, 1.17001, np.zeros(1))
    >>> print(tying_table([r]))
    variant  d  parameters  train loss  val loss
    tied     8         378      1.2346    1.1700
    """
    spec = f".{decimals}f"
    rows = [[VARIANT_NAMES[r.variant], str(r.d), f"{r.n_params:,}", fmt(r.train_loss, spec), fmt(r.val_loss, spec)] for r in results]
    return tables.text(["variant", "d", "parameters", "train loss", "val loss"], rows, align="<>>>>")


# --- sharding -----------------------------------------------------------------------------------------


def exchange_data(worlds: Sequence[int] = EXCHANGE_WORLDS):
    """Bytes per batch, summed over ranks, for each world size: ``{scheme label: [bytes per W]}``."""
    c = EXCHANGE_CASE
    out: Dict[str, list] = {"row-wise, uniform ids": [], "row-wise, Zipf ids": [], "column-wise": []}
    for W in worlds:
        ids = {
            d: [sample_ids(c["V"], c["batch"], distribution=d, seed=1 + r) for r in range(W)]
            for d in ("uniform", "zipf")
        }
        for label, dist_name, scheme in (
            ("row-wise, uniform ids", "uniform", "row"),
            ("row-wise, Zipf ids", "zipf", "row"),
            ("column-wise", "uniform", "column"),
        ):
            plan = plan_exchange(ids[dist_name], c["V"], c["d"], scheme, itemsize=c["itemsize"])
            out[label].append(sum(p["total_bytes"] for p in plan))
    return out


def load_data(world_size: int = LOAD_WORLD):
    """Rows each rank serves under row-wise sharding, uniform and Zipf ids: ``{label: [rows per rank]}``."""
    c = EXCHANGE_CASE
    out = {}
    for dist_name, label in (("uniform", "uniform ids"), ("zipf", "Zipf ids")):
        ids = [
            sample_ids(c["V"], c["batch"], distribution=dist_name, seed=1 + r) for r in range(world_size)
        ]
        out[label] = [p["rows_served"] for p in plan_exchange(ids, c["V"], c["d"], "row")]
    return out


def make_case(
    V: int, d: int, world_size: int, batch: int, *, distribution: str = "uniform", N: int = 8, seed: int = 0
) -> Dict[str, Any]:
    """A seeded test case for :func:`check_sharding`: tables, one batch of ids per rank, softmax inputs.

    Returns ``{"table": (V, d) float64, "ids_per_rank": [(batch,) int64, ...], "hidden": (N, d),
    "out_table": (V, d), "targets": (N,) int64}`` as NumPy arrays. Ids follow ``distribution``
    (``"uniform"`` or ``"zipf"``, see :func:`lib.sparse_updates.sample_ids`), seeded per rank. Raises
    ``ValueError`` (``TypeError`` for a non-integer) naming ``V``, ``d``, ``N`` or ``batch`` outside ``[1,
    lib.validate.MAX_SIZE]``, a table of more than ``MAX_SIZE`` entries, a ``world_size`` outside ``[1,
    lib.validate.MAX_WORKERS]``, ``V`` or ``d`` below ``world_size`` (each rank holds at least one row and
    one column, :func:`lib.distributed.shard_sizes`) or a negative ``seed``.
    """
    world_size = validate.workers(world_size, "world_size", hint="ranks")
    V, d, N = validate.size(V, "V"), validate.size(d, "d"), validate.size(N, "N")
    validate.entries((V, d), "V and d")  # each of the two tables
    # check_sharding splits the V rows and the d columns over the ranks: each rank needs one of each
    shard_sizes(V, world_size, "rows (V)")
    shard_sizes(d, world_size, "columns (d)")
    rng = np.random.default_rng(validate.seed(seed))
    return {
        "table": rng.standard_normal((V, d)),
        "ids_per_rank": [sample_ids(V, batch, distribution=distribution, seed=seed + 1 + r) for r in range(world_size)],
        "hidden": rng.standard_normal((N, d)),
        "out_table": rng.standard_normal((V, d)) / np.sqrt(d),
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
    GPUs>"`` for NCCL (the NCCL path is written for GPUs; the gloo path on CPU is the one verified).

    Returns a dict of floats (``*_err``: max absolute differences), this rank's :class:`lib.distributed.CommStats` dicts
    (``row_stats``, ``col_stats``) and ``log_softmax`` (this rank's ``(N, V_r)`` slice, NumPy). ``ValueError``
    for a ``rank`` outside ``[0, world_size)`` or a ``dtype`` other than ``"float32"`` and ``"float64"``;
    ``TypeError`` for ids or targets that are not integers (``1.7`` is no id) and a table that is not real
    numbers.
    """
    rank, world_size = _rank(rank, world_size)
    if device is None:
        device = _default_device(rank)
    tdtype = getattr(torch, validate.choice(dtype, "dtype", ("float32", "float64")))
    table = torch.as_tensor(validate.real_numbers(case["table"], "case['table']"), dtype=tdtype, device=device)
    V, d = table.shape
    ids_all = [torch.as_tensor(validate.integer_array(i, f"case['ids_per_rank'][{r}]").astype(np.int64), device=device)
               for r, i in enumerate(case["ids_per_rank"])]  # ids as given: 1.7 is no id (astype made it 1)
    ids = ids_all[rank]
    coef = [
        torch.as_tensor(
            np.random.default_rng(1000 + r).standard_normal(tuple(i.shape) + (d,)), dtype=tdtype, device=device
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
    c0 = shard_offsets(d, world_size, "columns")
    out["col_grad_err"] = _max_abs(col.local.grad, ref.grad[:, c0[rank] : c0[rank + 1]])
    out["col_stats"] = col.stats.as_dict()

    if "hidden" in case:
        h_full = torch.as_tensor(case["hidden"], dtype=tdtype, device=device)
        w_full = torch.as_tensor(case["out_table"], dtype=tdtype, device=device)
        t = torch.as_tensor(validate.integer_array(case["targets"], "case['targets']").astype(np.int64), device=device)
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


def _rank(rank, world_size) -> Tuple[int, int]:
    """``(rank, world_size)`` as ints after checking ``world_size >= 1`` and ``0 <= rank < world_size``: a rank
    of -1 would otherwise take the last rank's ids (a wrap-around)."""
    world_size = validate.workers(world_size, "world_size", hint="ranks")
    return validate.integer(rank, "rank", low=0, high=world_size - 1), world_size


def sharded_lookup(rank: int, world_size: int, table, ids_per_rank: Sequence, *, scheme: str = "row") -> np.ndarray:
    """Run on every rank: look up this rank's ids in ``table`` sharded by ``scheme`` (``"row"`` or
    ``"column"``); return the rows, ``ids.shape + (d,)`` as NumPy.

    ``table`` ``(V, d)`` and ``ids_per_rank`` (one array-like per rank) are the same on every rank. A bad
    id raises ``ValueError`` on the rank that holds it (which :func:`lib.processes.spawn` reports as a :class:`lib.processes.RankError`),
    and so does a ``rank`` outside ``[0, world_size)``; ids that are not integers (``1.7``, ``True``) or a
    table that is not real numbers raise ``TypeError``.
    """
    validate.choice(scheme, "scheme", ("row", "column"))
    rank, world_size = _rank(rank, world_size)
    device = _default_device(rank)
    table = torch.as_tensor(validate.real_numbers(table, "table", "a (V, d) table"), device=device)
    cls = RowShardedEmbedding if scheme == "row" else ColumnShardedEmbedding
    emb = cls.from_full(table)
    ids = validate.integer_array(ids_per_rank[rank], f"ids_per_rank[{rank}]")  # 1.7 is no id (astype made it 1)
    ids = torch.as_tensor(validate.within_int64(ids, f"ids_per_rank[{rank}]").astype(np.int64), device=device)
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


def exchange_table(summary: Dict[str, Any], schemes: Sequence[str] = ("row", "col")) -> str:
    """A Markdown table of the bytes one batch sent between all ranks, by sharding scheme (``"row"``,
    ``"col"``): counts, ids, rows (forward) and gradients (backward) in bytes, and the total in decimal
    units, from a :func:`summarise` result. Raises ``ValueError`` for an unknown scheme.

    >>> s = dict(row_count_bytes=16, row_id_bytes=80, row_row_bytes=240,
    ...          row_grad_bytes=240, row_total_bytes=576)
    >>> print(exchange_table(s, ["row"]))
    | scheme | counts (B) | ids (B) | rows (B) | gradients (B) | total |
    | --- | ---: | ---: | ---: | ---: | ---: |
    | row-wise | 16 | 80 | 240 | 240 | 576 B |
    """
    names = {"row": "row-wise", "col": "column-wise"}
    rows = []
    for scheme in schemes:
        validate.choice(scheme, "scheme", tuple(names))
        parts = [f"{int(summary[f'{scheme}_{k}_bytes']):,}" for k in ("count", "id", "row", "grad")]
        rows.append([names[scheme], *parts, format_bytes(int(summary[f"{scheme}_total_bytes"]))])
    header = ["scheme", "counts (B)", "ids (B)", "rows (B)", "gradients (B)", "total"]
    return tables.markdown(header, rows, align="<>>>>>")


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
    """``python -m lib.chapters.scale [--world-size W]`` spawns W gloo processes and checks the sharded
    lookups and softmax against the unsharded ones; under ``torchrun`` (``RANK`` / ``WORLD_SIZE`` set)
    it runs the same check on the ranks torchrun started. Returns 0 when every error is below 1e-9, 1 otherwise;
    a bad argument (``--V -5``) prints one line naming it and returns 2, and Ctrl-C prints one line and
    returns 130 (128 + SIGINT), never a traceback."""
    p = argparse.ArgumentParser(prog="python -m lib.chapters.scale", description=main.__doc__)
    p.add_argument("--world-size", type=int, default=2)
    p.add_argument("--V", type=int, default=1000)
    p.add_argument("--d", type=int, default=16)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--distribution", default="zipf", choices=("uniform", "zipf"))
    p.add_argument("--backend", default="gloo", choices=("gloo", "nccl"))
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    try:
        return _run(a)
    except (ValueError, TypeError) as exc:  # a bad argument (--V -5): one line naming it, as argparse's own errors
        print(f"{p.prog}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C: one line and 128 + SIGINT, as a shell expects
        print(f"{p.prog}: interrupted", file=sys.stderr)
        return 130


def _run(a: argparse.Namespace) -> int:
    """The check of :func:`main` for its parsed arguments ``a``."""
    if "RANK" in os.environ and "WORLD_SIZE" in os.environ:  # started by torchrun
        if a.backend == "nccl":
            torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", 0)))
        dist.init_process_group(a.backend, init_method="env://")
        rank, W = dist.get_rank(), dist.get_world_size()
        case = make_case(a.V, a.d, W, a.batch, distribution=a.distribution, seed=a.seed)
        device = f"cuda:{torch.cuda.current_device()}" if a.backend == "nccl" else "cpu"
        mine = check_sharding(rank, W, case, device=device)
        gathered: List[Any] = [None] * W
        dist.all_gather_object(gathered, mine)
        dist.destroy_process_group()
        results = gathered
    else:
        W = a.world_size
        case = make_case(a.V, a.d, W, a.batch, distribution=a.distribution, seed=a.seed)
        # under `python -m` this file is __main__, whose functions the ranks cannot import: use the module's
        results = spawn(importlib.import_module("lib.chapters.scale").check_sharding, W, case, backend=a.backend)
        rank = 0
    summary = summarise(results)
    ok = all(v < 1e-9 for k, v in summary.items() if k.endswith("_err"))
    if rank == 0:
        print(_report(summary, W))
        print("OK" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
