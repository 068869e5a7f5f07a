"""lib.threads: the thread count is set inside the block and restored after, even on an error."""

import pytest
import torch

from lib.threads import blas_threads, torch_threads


def test_sets_and_restores():
    before = torch.get_num_threads()
    with torch_threads(1):
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == before


def test_none_leaves_the_setting_alone():
    before = torch.get_num_threads()
    with torch_threads(None):
        assert torch.get_num_threads() == before


def test_restores_after_an_exception():
    before = torch.get_num_threads()
    with pytest.raises(RuntimeError):
        with torch_threads(1):
            raise RuntimeError("boom")
    assert torch.get_num_threads() == before


@pytest.mark.parametrize("n", [0, -1, 1.5, True])
def test_bad_thread_count(n):
    with pytest.raises(ValueError, match="number of threads must be a positive integer or None"):
        with torch_threads(n):
            pass


def _blas_threads():
    from threadpoolctl import threadpool_info

    return {p["internal_api"]: p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"}


def test_blas_threads_sets_and_restores_the_blas_behind_numpy():
    import numpy as np

    np.ones((2, 2)) @ np.ones((2, 2))  # NumPy's BLAS is loaded
    before = _blas_threads()
    assert before, "no BLAS library found behind NumPy"
    with blas_threads(1):
        assert set(_blas_threads().values()) == {1}
    assert _blas_threads() == before
    with pytest.raises(RuntimeError):
        with blas_threads(1):
            raise RuntimeError("boom")
    assert _blas_threads() == before


@pytest.mark.parametrize("n", [0, -1, 1.5, True])
def test_bad_blas_thread_count(n):
    with pytest.raises(ValueError, match="number of threads must be a positive integer or None"):
        with blas_threads(n):
            pass
