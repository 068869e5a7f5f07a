"""lib.progress: the bar passes its items through, and a non-iterable is named."""

import pytest

from lib.progress import progress


def test_progress_passes_items_through_and_names_a_non_iterable():
    assert list(progress(iter([3, 1, 2]), disable=True)) == [3, 1, 2]
    assert list(progress(range(4), disable=True)) == [0, 1, 2, 3]
    with pytest.raises(TypeError, match="^iterable must be an iterable or None, got int$"):
        progress(iterable=3)  # was tqdm's "'int' object is not iterable"
