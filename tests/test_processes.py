"""lib.processes.spawn: results in rank order, and every way a rank can fail is reported promptly, never a
hang. The tests that start processes (seconds each) are marked slow."""

import os
import time

import pytest
import torch
import torch.distributed as dist

from lib.distributed import RowShardedEmbedding
from lib.processes import RankError, spawn

TIMEOUT = 120  # seconds for one process group, start-up included



def _fail_on_rank(rank, world_size, bad_rank):
    if rank == bad_rank:
        raise ValueError(f"bad input on rank {rank}")
    x = torch.ones(1)
    dist.all_reduce(x)  # blocks: the bad rank never joins
    return float(x)


def _hang_on_rank(rank, world_size, hung_rank):
    if rank == hung_rank:
        time.sleep(600)
    x = torch.ones(1)
    dist.all_reduce(x)
    return float(x)


def _exit_on_rank(rank, world_size, dead_rank):
    if rank == dead_rank:
        os._exit(3)
    dist.all_reduce(torch.ones(1))
    return rank


def _bad_id_lookup(rank, world_size):
    table = torch.zeros(10, 2)
    emb = RowShardedEmbedding.from_full(table)
    ids = torch.tensor([1, 2]) if rank == 0 else torch.tensor([3, 10])
    return emb(ids).shape


def _sum_of_ranks(rank, world_size):
    x = torch.tensor([float(rank)])
    dist.all_reduce(x)
    return float(x)


@pytest.mark.slow
def test_spawn_returns_results_in_rank_order():
    assert spawn(_sum_of_ranks, 3, timeout=TIMEOUT) == [3.0, 3.0, 3.0]


@pytest.mark.slow
def test_failing_rank_raises_its_error_promptly():
    t0 = time.monotonic()
    with pytest.raises(RankError, match="rank 1 failed: ValueError: bad input on rank 1") as info:
        spawn(_fail_on_rank, 3, 1, timeout=TIMEOUT)
    assert time.monotonic() - t0 < TIMEOUT / 2  # not by timing out
    assert info.value.rank == 1
    assert "_fail_on_rank" in info.value.remote_traceback


@pytest.mark.slow
def test_bad_id_inside_a_rank_is_the_ranks_value_error():
    with pytest.raises(RankError, match="rank 1 failed: ValueError: token id 10 out of range for vocabulary of 10"):
        spawn(_bad_id_lookup, 2, timeout=TIMEOUT)


@pytest.mark.slow
def test_hung_rank_times_out_and_names_the_ranks():
    t0 = time.monotonic()
    with pytest.raises(TimeoutError, match=r"ranks \[0, 1\] of 2 did not finish within 6 s"):
        spawn(_hang_on_rank, 2, 1, timeout=6)
    assert time.monotonic() - t0 < 6 + 10  # timeout plus termination, not the 600 s sleep


@pytest.mark.slow
def test_rank_that_dies_silently_is_reported():
    with pytest.raises(RankError, match="rank 1 failed: exited with code 3 without reporting a result"):
        spawn(_exit_on_rank, 2, 1, timeout=TIMEOUT)


def test_spawn_argument_errors():
    with pytest.raises(TypeError, match="module-level function"):
        spawn(lambda r, w: r, 2)
    with pytest.raises(ValueError, match=r"world_size must be an integer in \[1, 256\] \(processes\)"):
        spawn(_sum_of_ranks, 0)
    with pytest.raises(ValueError, match=r"^world_size must be an integer in \[1, 256\] \(processes\), got 100000$"):
        spawn(_sum_of_ranks, 100_000)  # would have started 100,000 processes
    with pytest.raises(ValueError, match=r"^threads_per_rank must be an integer in \[1, 256\] \(threads\), got 10000$"):
        spawn(_sum_of_ranks, 1, threads_per_rank=10_000)
    with pytest.raises(ValueError, match=r"timeout must be a finite number > 0 \(seconds\)"):
        spawn(_sum_of_ranks, 1, timeout=0)
    with pytest.raises(ValueError, match="threads_per_rank"):
        spawn(_sum_of_ranks, 1, threads_per_rank=0)
