"""Tests for lib.distributed: shard arithmetic, sharded lookups and vocabulary-parallel softmax on real
gloo process groups of 1, 2 and 3 ranks (started by lib.processes, checked on every rank by the scale
chapter's check_sharding), and byte counts against the closed forms.

The references are independent: ``table[ids]`` for lookups, torch autograd on the unsharded table for
gradients, ``torch.nn.functional.log_softmax`` / ``cross_entropy`` for the softmax, and byte counts
worked out by hand for small cases. One process group per world size runs every case (start-up is the
slow part); every rank returns its evidence and the assertions run here.
"""

import re

import numpy as np
import pytest
import torch
import torch.distributed as dist

from lib.chapters.scale import check_many, make_case, summarise
from lib.distributed import (
    ColumnShardedEmbedding,
    RowShardedEmbedding,
    plan_exchange,
    row_owner,
    shard_offsets,
    shard_sizes,
    vocab_parallel_cross_entropy,
    vocab_parallel_log_softmax,
    vocab_parallel_logits,
)
from lib.processes import spawn

TIMEOUT = 120  # seconds for one process group, start-up included; a healthy run takes a few


# --- shard arithmetic ------------------------------------------------------------------------------


def test_shard_sizes_uneven_matches_tensor_split():
    assert shard_sizes(10, 3) == [4, 3, 3]
    assert shard_sizes(11, 3) == [4, 4, 3]
    assert shard_sizes(9, 3) == [3, 3, 3]
    for n, w in [(10, 3), (1001, 2), (7, 7), (1, 1)]:
        assert shard_sizes(n, w) == [len(c) for c in torch.tensor_split(torch.arange(n), w)]


def test_shard_offsets_and_owner():
    assert shard_offsets(10, 3) == [0, 4, 7, 10]
    np.testing.assert_array_equal(row_owner([0, 3, 4, 6, 7, 9], 10, 3), [0, 0, 1, 1, 2, 2])


@pytest.mark.parametrize(
    "n, w, match", [(2, 3, "cannot shard 2 rows over 3 ranks"), (0, 1, "integer >= 1"), (5, 0, "world_size")]
)
def test_shard_sizes_errors(n, w, match):
    with pytest.raises(ValueError, match=match):
        shard_sizes(n, w)


def test_row_owner_rejects_bad_ids():
    with pytest.raises(ValueError, match="token id 10 out of range for vocabulary of 10"):
        row_owner([3, 10], 10, 2)
    with pytest.raises(ValueError, match="token id -1 out of range"):
        row_owner([-1], 10, 2)


def test_plan_exchange_by_hand_row_wise():
    # V = 10 over 2 ranks: rank 0 owns 0..4, rank 1 owns 5..9. d = 3, float32 (4 bytes).
    ids = [[1, 6, 6, 7], [2, 2, 9]]
    plan = plan_exchange(ids, V=10, d=3, scheme="row", dedupe=True, itemsize=4)
    # rank 0 sends distinct remote ids {6, 7} -> 16 bytes of ids; it serves rank 1's {2}: 1 row = 12 bytes;
    # backward: it returns gradients for its 2 remote rows = 24 bytes; counts: one int64 to one peer.
    assert plan[0] == {
        "count_bytes": 8,
        "id_bytes": 16,
        "row_bytes": 12,
        "grad_bytes": 24,
        "rows_served": 2,
        "forward_bytes": 36,
        "total_bytes": 60,
    }
    # rank 1: remote {2} -> 8 bytes; serves rank 0's {6, 7} -> 24 bytes; gradient for {2} -> 12 bytes.
    assert plan[1] == {
        "count_bytes": 8,
        "id_bytes": 8,
        "row_bytes": 24,
        "grad_bytes": 12,
        "rows_served": 3,
        "forward_bytes": 40,
        "total_bytes": 52,
    }
    no_dedupe = plan_exchange(ids, V=10, d=3, scheme="row", dedupe=False, itemsize=4)
    assert no_dedupe[0]["id_bytes"] == 24 and no_dedupe[1]["row_bytes"] == 36  # 6 sent three times


def test_plan_exchange_by_hand_column_wise():
    # d = 5 over 2 ranks: widths 3 and 2. Rank 0 asks 4 ids, rank 1 asks 3.
    ids = [[1, 6, 6, 7], [2, 2, 9]]
    plan = plan_exchange(ids, V=10, d=5, scheme="column", itemsize=4)
    assert plan[0]["id_bytes"] == 8 * 4 and plan[1]["id_bytes"] == 8 * 3
    assert plan[0]["row_bytes"] == 4 * 3 * 3  # its 3 columns for rank 1's 3 ids
    assert plan[1]["row_bytes"] == 4 * 2 * 4  # its 2 columns for rank 0's 4 ids
    assert plan[0]["grad_bytes"] == 4 * 2 * 4 and plan[1]["grad_bytes"] == 4 * 3 * 3
    assert plan[0]["rows_served"] == plan[1]["rows_served"] == 7


def test_plan_exchange_single_rank_sends_nothing():
    plan = plan_exchange([[0, 1, 2, 2]], V=5, d=4, scheme="row")
    assert plan[0]["total_bytes"] == 0 and plan[0]["rows_served"] == 3


def test_plan_exchange_errors():
    with pytest.raises(ValueError, match="scheme must be one of \\('row', 'column'\\)"):
        plan_exchange([[0]], 5, 2, scheme="diagonal")
    with pytest.raises(ValueError, match="cannot shard 3 columns over 4 ranks"):
        plan_exchange([[0]] * 4, 10, 3, scheme="column")
    with pytest.raises(ValueError, match="out of range"):
        plan_exchange([[0], [12]], 10, 3)


# --- the distributed computations against the unsharded ones ---------------------------------------


def _cases(world_size):
    """Cases for one world size: uneven V and d, repeated ids, all ids on one shard, 2-D ids, an empty batch."""
    V, d = 1001, 7  # divisible by neither 2 nor 3
    cases = {
        "uniform": make_case(V, d, world_size, 64, seed=1),
        "zipf": make_case(V, d, world_size, 64, distribution="zipf", seed=2),
    }
    rep = make_case(V, d, world_size, 1, seed=3)
    rep["ids_per_rank"] = [np.array([5, 5, 999, 5, 0, 999, 5]) for _ in range(world_size)]
    cases["repeated"] = rep
    one = make_case(V, d, world_size, 1, seed=4)
    last_lo = shard_offsets(V, world_size)[-2]
    one["ids_per_rank"] = [np.random.default_rng(r).integers(last_lo, V, size=20) for r in range(world_size)]
    one["targets"] = np.full(8, V - 1)  # every target on the last shard too
    cases["one_shard"] = one
    grid = make_case(V, d, world_size, 1, seed=5)
    grid["ids_per_rank"] = [np.random.default_rng(10 + r).integers(0, V, size=(3, 4)) for r in range(world_size)]
    cases["2d"] = grid
    if world_size > 1:
        empty = make_case(V, d, world_size, 16, seed=6)
        empty["ids_per_rank"][0] = np.zeros(0, dtype=np.int64)
        cases["empty_on_rank_0"] = empty
    return cases


@pytest.fixture(scope="module", params=[1, 2, 3], ids=lambda w: f"world{w}")
def runs(request):
    """Every case on one process group of the given size, float64 and float32, dedupe on and off."""
    W = request.param
    cases = _cases(W)
    names = list(cases)
    out = {}
    for dtype in ("float64", "float32"):
        for dedupe in (True, False):
            per_rank = spawn(check_many, W, [cases[n] for n in names], timeout=TIMEOUT, dtype=dtype, dedupe=dedupe)
            for i, n in enumerate(names):
                out[(n, dtype, dedupe)] = [r[i] for r in per_rank]
    return W, cases, out


@pytest.mark.slow
def test_lookup_is_exactly_the_unsharded_lookup(runs):
    _, _, out = runs
    for key, results in out.items():
        s = summarise(results)
        assert s["row_lookup_err"] == 0.0, key
        assert s["col_lookup_err"] == 0.0, key


@pytest.mark.slow
def test_shard_gradients_equal_unsharded_autograd(runs):
    _, _, out = runs
    for (name, dtype, dedupe), results in out.items():
        s = summarise(results)
        tol = 1e-12 if dtype == "float64" else 1e-5
        for k in ("row_grad_err", "col_grad_err", "out_grad_err", "hidden_grad_err"):
            assert s[k] <= tol, (name, dtype, dedupe, k, s[k])


@pytest.mark.slow
def test_vocab_parallel_log_softmax_equals_single_process(runs):
    W, cases, out = runs
    for (name, dtype, dedupe), results in out.items():
        case = cases[name]
        full = torch.log_softmax(torch.as_tensor(case["hidden"]) @ torch.as_tensor(case["out_table"]).T, dim=1)
        got = summarise(results)["log_softmax"]
        assert got.shape == tuple(full.shape)  # the rank slices tile the whole vocabulary
        tol = 1e-12 if dtype == "float64" else 1e-6 * max(1.0, float(full.abs().max()))  # fp32: ~1 ulp
        np.testing.assert_allclose(got, full.numpy(), rtol=0, atol=tol)
        ce = torch.nn.functional.cross_entropy(
            torch.as_tensor(case["hidden"]) @ torch.as_tensor(case["out_table"]).T, torch.as_tensor(case["targets"])
        )
        assert abs(summarise(results)["ce"] - float(ce)) <= (1e-12 if dtype == "float64" else 1e-5)


@pytest.mark.slow
def test_measured_bytes_equal_the_plan(runs):
    W, cases, out = runs
    for (name, dtype, dedupe), results in out.items():
        itemsize = 8 if dtype == "float64" else 4
        case = cases[name]
        V, d = case["table"].shape
        row_plan = plan_exchange(case["ids_per_rank"], V, d, "row", dedupe=dedupe, itemsize=itemsize)
        col_plan = plan_exchange(case["ids_per_rank"], V, d, "column", itemsize=itemsize)
        assert [r["row_stats"] for r in results] == row_plan, (name, dtype, dedupe)
        assert [r["col_stats"] for r in results] == col_plan, (name, dtype, dedupe)


@pytest.mark.slow
def test_one_shard_case_loads_only_the_owner(runs):
    W, cases, out = runs
    served = summarise(out[("one_shard", "float64", True)])["row_rows_served_per_rank"]
    distinct = np.unique(np.concatenate(cases["one_shard"]["ids_per_rank"])).size
    assert served[:-1] == [0] * (W - 1)
    assert served[-1] >= distinct  # every distinct id, once per rank that asked for it


@pytest.mark.slow
def test_dedupe_saves_bytes_only_when_ids_repeat(runs):
    W, _, out = runs
    if W == 1:
        assert summarise(out[("repeated", "float64", True)])["row_total_bytes"] == 0
        return
    with_d = summarise(out[("repeated", "float32", True)])["row_total_bytes"]
    without = summarise(out[("repeated", "float32", False)])["row_total_bytes"]
    assert with_d < without


def test_collectives_outside_a_process_group_are_a_clear_error():
    assert not dist.is_initialized()
    with pytest.raises(RuntimeError, match="torch.distributed is not initialised"):
        RowShardedEmbedding(torch.zeros(3, 2), 3)
    with pytest.raises(RuntimeError, match="not initialised"):
        vocab_parallel_log_softmax(torch.zeros(2, 3))


def test_vocab_parallel_arguments_are_checked_before_the_process_group():
    with pytest.raises(TypeError, match=r"^logits_local must be a floating-point torch.Tensor \(N, V_r\), got dtype torch.int64$"):
        vocab_parallel_log_softmax(torch.zeros(2, 3, dtype=torch.int64))
    with pytest.raises(ValueError, match="^logits_local contains NaN or infinity$"):
        vocab_parallel_cross_entropy(torch.full((1, 3), float("nan")), torch.tensor([0]), 0)
    with pytest.raises(TypeError, match=r"^targets must be an integer torch.Tensor \(N,\), got dtype torch.float32$"):
        vocab_parallel_cross_entropy(torch.zeros(1, 3), torch.tensor([0.0]), 0)
    with pytest.raises(TypeError, match=r"^hidden must be a torch.Tensor \(N, d\), got ndarray$"):
        vocab_parallel_logits(np.zeros((1, 2)), torch.zeros(3, 2))
    # were "torch.distributed is not initialised", the arguments' error coming only once a group existed
    with pytest.raises(ValueError, match=r"^logits_local must have shape \(N, V_r\) with N >= 1 and V_r >= 1, got \(3,\)$"):
        vocab_parallel_log_softmax(torch.zeros(3))
    with pytest.raises(ValueError, match=r"^targets must have shape \(2,\), got \(3,\)$"):
        vocab_parallel_cross_entropy(torch.zeros(2, 3), torch.tensor([0, 1, 2]), 0)


def test_sharded_embeddings_check_their_arguments_before_the_process_group():
    assert not dist.is_initialized()
    with pytest.raises(ValueError, match="^local contains NaN or infinity$"):
        RowShardedEmbedding(torch.full((2, 2), float("nan")), 4)
    with pytest.raises(TypeError, match=r"^local must be a floating-point torch.Tensor \(V_r, d\), got dtype torch.int64$"):
        RowShardedEmbedding(torch.zeros(2, 2, dtype=torch.int64), 4)
    with pytest.raises(ValueError, match=r"^V must be an integer in \[1, 268435456\], got 0$"):
        RowShardedEmbedding(torch.zeros(2, 2), 0)
    with pytest.raises(ValueError, match=r"^local must be this rank's \(V, D_r\) block of the table, got shape \(4,\)$"):
        ColumnShardedEmbedding(torch.zeros(4), 4)
    with pytest.raises(ValueError, match=r"^d must be an integer in \[1, 268435456\], got -1$"):
        ColumnShardedEmbedding(torch.zeros(4, 2), -1)


def test_dedupe_must_be_true_or_false():
    for bad in ("no", 1, None):
        with pytest.raises(TypeError) as info:  # "no" de-duplicated
            plan_exchange([[1, 1]], V=4, d=2, dedupe=bad)
        assert str(info.value) == f"dedupe must be True or False, got {bad!r}"
        with pytest.raises(TypeError) as info:  # checked before the process group is looked up
            RowShardedEmbedding(torch.zeros(4, 2), 4, dedupe=bad)
        assert str(info.value) == f"dedupe must be True or False, got {bad!r}"


def test_plan_exchange_checks_the_width_and_the_itemsize():
    ids = [[0, 1], [2, 3]]
    for d, kind, got in [(np.uint64(2**64 - 1), ValueError, "np.uint64(18446744073709551615)"),  # wrapped around
                         (-4, ValueError, "-4"),  # row_bytes -32
                         (4.5, TypeError, "4.5"),  # row_bytes 36.0
                         (np.float16(60000), TypeError, "np.float16(6e+04)")]:  # row_bytes inf, total_bytes nan
        with pytest.raises(kind, match=rf"^d \(embedding width\) must be an integer in \[1, 268435456\], got {re.escape(got)}$"):
            plan_exchange(ids, 10, d, "row")
    with pytest.raises(ValueError, match=r"^itemsize \(bytes per value\) must be an integer in \[1, 268435456\], got np.uint64"):
        plan_exchange(ids, 10, 4, "row", itemsize=np.uint64(2**63))  # row_bytes 0
    with pytest.raises(TypeError, match="^ids_per_rank must be a sequence of id arrays, one per rank, got None$"):
        plan_exchange(None, 10, 4)
    # exact Python ints: rank 0 serves the 2 rows rank 1 asks for, 2 * 4 * 268435456 bytes
    plan = plan_exchange(ids, 10, 2**28, "row", itemsize=4)
    assert plan[0]["row_bytes"] == 2 * 4 * 2**28 and type(plan[0]["row_bytes"]) is int


# --- bad input to the vocabulary-parallel softmax, in a 1-rank gloo group in this process -------------------


@pytest.fixture
def one_rank(tmp_path):
    dist.init_process_group("gloo", init_method=f"file://{tmp_path / 'rendezvous'}", rank=0, world_size=1)
    yield
    dist.destroy_process_group()


def test_vocab_parallel_cross_entropy_checks_targets_and_vocab_start(one_rank):
    z = torch.tensor([[1.0, 2, 3, 4]] * 3, dtype=torch.float64)
    # the reference: log(sum e^z) - z_t for targets 0, 1, 3, with log(sum e^z) = 4 + log(1 + e^-1 + e^-2 + e^-3)
    lse = 4 + np.log1p(np.exp(-1) + np.exp(-2) + np.exp(-3))
    ref = np.mean([lse - 1, lse - 2, lse - 4])
    assert abs(float(vocab_parallel_cross_entropy(z, torch.tensor([0, 1, 3]), 0)) - ref) < 1e-12
    assert round(ref, 4) == 2.1069
    for bad in (9, -1, 4):
        with pytest.raises(ValueError, match=rf"^target {bad} out of range for vocabulary of 4 \(allowed 0..3\)$"):
            vocab_parallel_cross_entropy(z, torch.tensor([0, 1, bad]), 0)
    for bad in (1.7, True, "0"):
        with pytest.raises(TypeError, match="^vocab_start must be an integer"):
            vocab_parallel_cross_entropy(z, torch.tensor([0, 1, 3]), bad)
    with pytest.raises(ValueError, match=r"^vocab_start must be an integer in \[0, 268435455\], got -1"):
        vocab_parallel_cross_entropy(z, torch.tensor([0, 1, 3]), -1)
    with pytest.raises(ValueError, match=r"^vocab_start must be an integer in \[0, 268435455\], got 1180591620717411303424"):
        vocab_parallel_cross_entropy(z, torch.tensor([0, 1, 3]), 2**70)
    with pytest.raises(ValueError, match=r"^vocab_start must be an integer in \[0, 0\] whose slice of 4 items.*got 1 "):
        vocab_parallel_cross_entropy(z, torch.tensor([0, 1, 3]), 1)


def test_vocab_parallel_softmax_refuses_empty_and_unrepresentable_values(one_rank):
    with pytest.raises(ValueError, match=r"^logits_local must have shape \(N, V_r\) with N >= 1 .*got \(0, 4\)$"):
        vocab_parallel_cross_entropy(torch.zeros(0, 4), torch.zeros(0, dtype=torch.long), 0)
    with pytest.raises(ValueError, match=r"^logits_local must have shape \(N, V_r\) with N >= 1 and V_r >= 1, got \(2, 0\)$"):
        vocab_parallel_log_softmax(torch.zeros(2, 0))
    for dtype, big in ((torch.float64, 1e308), (torch.float32, 3e38)):
        z = torch.tensor([[big, -big]], dtype=dtype)
        with pytest.raises(ValueError, match=rf"^row 0 of the logits spans more than the range of {dtype}"):
            vocab_parallel_log_softmax(z)
        with pytest.raises(ValueError, match=rf"^row 0 of the logits spans more than the range of {dtype}"):
            vocab_parallel_cross_entropy(z, torch.tensor([1]), 0)
    # within the range: log p of the smallest is -(spread) - log(1 + e^-spread) = -1.5e308 exactly
    z = torch.tensor([[0.75e308, -0.75e308]], dtype=torch.float64)
    np.testing.assert_array_equal(vocab_parallel_log_softmax(z).numpy(), [[0.0, -1.5e308]])
    # two finite losses of 1.5e308 whose sum is not finite: their mean
    z2 = torch.tensor([[0.75e308, -0.75e308]] * 2, dtype=torch.float64)
    assert float(vocab_parallel_cross_entropy(z2, torch.tensor([1, 1]), 0)) == 1.5e308


def test_vocab_parallel_logits_checks_shapes_and_overflow(one_rank):
    h, w = torch.tensor([[1.0, 2.0]]), torch.tensor([[3.0, 4.0], [0.5, -1.0], [0.0, 0.0]])
    np.testing.assert_array_equal(vocab_parallel_logits(h, w).detach().numpy(), [[11.0, -1.5, 0.0]])
    with pytest.raises(ValueError, match=r"^hidden must be \(N, d\) and weight_local \(V_r, d\) with the same d, "
                                         r"got \(2, 3\) and \(4, 5\)$"):
        vocab_parallel_logits(torch.ones(2, 3), torch.ones(4, 5))
    with pytest.raises(ValueError, match=r"^hidden must be \(N, d\).*got \(3,\) and \(4, 3\)$"):
        vocab_parallel_logits(torch.ones(3), torch.ones(4, 3))
    with pytest.raises(ValueError, match=r"^a logit hidden @ weight_local.T is beyond the range of torch.float32 \(about 3.4e\+38\)$"):
        vocab_parallel_logits(torch.full((1, 2), 1e20), torch.full((3, 2), 1e20))
    with pytest.raises(ValueError, match="^weight_local contains NaN or infinity$"):
        vocab_parallel_logits(h, torch.full((1, 2), float("inf")))
