"""lib.threads: the thread count is set inside the block and restored after, even on an error."""

import pytest
import torch

from lib.threads import torch_threads


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


@pytest.mark.parametrize("n, kind", [(0, ValueError), (-1, ValueError), (1.5, TypeError), (True, TypeError),
                                     (10**6, ValueError)])  # 10**6 went to torch.set_num_threads
def test_bad_thread_count(n, kind):
    with pytest.raises(kind, match=r"number of threads must be an integer in \[1, 256\] \(or None to leave the setting alone\)"):
        with torch_threads(n):
            pass
