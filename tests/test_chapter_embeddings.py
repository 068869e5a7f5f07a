"""lib.chapters.embeddings: the constructed corpus is the source's, and the closing comparison of the
chapter's neighbours with the source's, by hand."""

import math

import numpy as np
import pytest

from lib.chapters.embeddings import (
    ANIMAL_TERMS,
    ANIMAL_VEHICLE_CORPUS,
    FOCUS_TERMS,
    SOURCE_NEIGHBOURS,
    animal_vehicle_corpus,
    compare_neighbours,
    neighbour_change,
    overlap_by_count,
)
from lib.corpus import Vocabulary
from lib.geometry import named_neighbours


def test_constructed_corpus_matches_the_source():
    corpus = animal_vehicle_corpus()
    assert len(corpus) == 13
    assert sum(len(s) for s in corpus) == 39
    assert corpus[0] == ["cat", "pet", "soft"] and corpus[-1] == ["puppy", "young", "dog"]
    assert len({t for s in corpus for t in s}) == 15
    assert set(FOCUS_TERMS) <= {t for s in corpus for t in s} and set(ANIMAL_TERMS) <= set(FOCUS_TERMS)
    corpus[0][0] = "changed"  # a copy: the module constant is untouched
    assert ANIMAL_VEHICLE_CORPUS[0][0] == "cat"


def test_source_neighbours_are_words_of_the_corpus_in_descending_order():
    words = {t for s in ANIMAL_VEHICLE_CORPUS for t in s}
    for term, hits in SOURCE_NEIGHBOURS.items():
        assert term in words and all(w in words and w != term for w, _ in hits)
        scores = [s for _, s in hits]
        assert scores == sorted(scores, reverse=True)


def test_compare_neighbours_by_hand():
    vocab = Vocabulary(["a", "b", "c"])
    table = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0]])
    got = {"a": named_neighbours(table, vocab, "a", 2)}
    close = {"a": [("b", 0.9 / math.hypot(0.9, 0.1) + 1e-7), ("c", 0.0)]}  # the same to four decimals
    result = compare_neighbours(got, close)
    lines = result.table.splitlines()
    assert lines[0].split() == ["term", "rank", "this", "chapter", "reference", "same"]
    assert lines[1].split() == ["a", "1", "b", "0.9939", "b", "0.9939", "yes"]
    assert lines[2].split() == ["a", "2", "c", "0.0000", "c", "0.0000", "yes"]
    assert result.all_same
    other = compare_neighbours(got, {"a": [("b", 0.99), ("c", 0.0)]})
    assert other.table.splitlines()[1].split()[-1] == "NO" and not other.all_same
    with pytest.raises(ValueError, match="same terms"):
        compare_neighbours(got, {"b": got["a"]})


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), np.float32("nan")])
def test_compare_neighbours_never_calls_a_non_finite_score_the_same(bad):
    """Two NaN scores both printed "nan", so the row said "yes" and all_same was True."""
    with pytest.raises(ValueError, match=r"^got\['c'\], rank 1: the score of 'd' must be a finite number, got "):
        compare_neighbours({"c": [("d", bad)]}, {"c": [("d", bad)]})
    with pytest.raises(ValueError, match=r"^published\['c'\], rank 2: the score of 'f' must be a finite number"):
        compare_neighbours({"c": [("d", 0.5), ("e", 0.4)]}, {"c": [("d", 0.5), ("f", bad)]})
    with pytest.raises(TypeError, match=r"^got\['c'\], rank 1: the score of 'd' must be a finite number, got '0.5'$"):
        compare_neighbours({"c": [("d", "0.5")]}, {"c": [("d", 0.5)]})


def test_neighbour_change_by_hand():
    # before: x-y close, z apart; after: y and z swap places, so x's neighbour moves from y to z
    before = [np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9]])] * 2
    after_a = np.array([[1.0, 0.0], [0.0, 1.0], [0.9, 0.1], [0.1, 0.9]])
    after_b = np.array([[1.0, 0.0], [0.1, 0.9], [0.9, 0.1], [0.0, 1.0]])  # seed noise: w and y trade rows' roles
    change = neighbour_change(before, ["x", "y", "z", "w"], [after_a, after_b], ["x", "y", "z", "w"], k=1)
    assert change.items == ("x", "y", "z", "w")
    np.testing.assert_array_equal(change.within_before, [1, 1, 1, 1])
    # after: x -> z in both runs; y -> w then z; z -> x in both; w -> y then ... (w is row 3)
    sets_a = {"x": "z", "y": "w", "z": "x", "w": "y"}
    sets_b = {"x": "z", "y": "w", "z": "x", "w": "y"}
    b_sets = {"x": "y", "y": "x", "z": "w", "w": "z"}
    expect_within_after = [float(sets_a[t] == sets_b[t]) for t in change.items]
    np.testing.assert_array_equal(change.within_after, expect_within_after)
    expect_across = [(float(b_sets[t] == sets_a[t]) + float(b_sets[t] == sets_b[t])) / 2 for t in change.items]
    np.testing.assert_array_equal(change.across, expect_across)


def test_neighbour_change_compares_shared_items_only():
    before = [np.eye(4)[:, :3] + 0.01 * i for i in range(2)]
    after = [np.eye(3) + 0.01 * i for i in range(2)]
    change = neighbour_change(before, ["a", "b", "c", "gone"], after, ["c", "b", "a"], k=1)
    assert change.items == ("a", "b", "c")  # "gone" is neither compared nor a candidate
    with pytest.raises(ValueError, match="at least two tables"):
        neighbour_change(before[:1], ["a", "b", "c", "gone"], after, ["c", "b", "a"])
    with pytest.raises(ValueError, match=r"k must be an integer in \[1, 2\]"):
        neighbour_change(before, ["a", "b", "c", "gone"], after, ["c", "b", "a"], k=3)
    # iterators are read once, like a list (was "object of type 'list_iterator' has no len()")
    again = neighbour_change(iter(before), ["a", "b", "c", "gone"], iter(after), ["c", "b", "a"], k=1)
    assert again.items == change.items and all(np.array_equal(x, y) for x, y in zip(again[1:], change[1:]))
    with pytest.raises(TypeError, match=r"^after must be a sequence of \(V, d\) tables, one per seed, got None$"):
        neighbour_change(before, ["a", "b", "c", "gone"], None, ["c", "b", "a"], k=1)


def test_overlap_by_count_against_scipy_bootstrap():
    import scipy.stats

    overlap = np.array([0.2, 0.5, 0.4, 0.9, 0.7, 0.8, 0.6])
    counts = np.array([1, 2, 1, 5, 3, 4, 3])
    got = overlap_by_count(overlap, counts, threshold=3, n_resamples=500, seed=1)
    rare, frequent = overlap[counts < 3], overlap[counts >= 3]
    assert (got.n_rare, got.n_frequent) == (3, 4)
    assert math.isclose(got.difference, frequent.mean() - rare.mean())
    ref = scipy.stats.bootstrap(
        (rare, frequent), lambda r, f, axis=-1: f.mean(axis=axis) - r.mean(axis=axis), vectorized=True,
        n_resamples=500, method="percentile", rng=np.random.default_rng(1),
    ).confidence_interval
    assert math.isclose(got.low, ref.low) and math.isclose(got.high, ref.high)
    assert got.low > 0  # every rare item below every frequent one: the interval excludes zero
    with pytest.raises(ValueError, match="confidence"):
        overlap_by_count(overlap, counts, threshold=3, confidence=1.5)
    with pytest.raises(ValueError, match="at least two items"):
        overlap_by_count(overlap, counts, threshold=5)
    for n in (99, 10**7 + 1, 10**30):  # 10**30 was NumPy's "Maximum allowed dimension exceeded"
        with pytest.raises(ValueError) as info:
            overlap_by_count(overlap, counts, threshold=3, n_resamples=n)
        assert str(info.value) == f"n_resamples must be an integer in [100, 10000000], got {n}"


def test_compare_neighbours_names_a_bad_digits():
    ours = {"cat": [("dog", 0.52)]}
    for bad, kind in ((-1, ValueError), (13, ValueError), (1.5, TypeError), (True, TypeError)):
        with pytest.raises(kind, match=r"^digits must be an integer in \[0, 12\], got "):  # named a format spec
            compare_neighbours(ours, ours, digits=bad)


def test_overlap_by_count_reads_a_float32_confidence_as_written_and_refuses_masked_overlaps():
    """np.float32(0.95) was used as 0.949999988079071 (spearman_interval read it as 0.95): the interval is
    now SciPy's at 0.95, the level that was written."""
    import scipy.stats

    overlap = np.array([0.2, 0.5, 0.4, 0.9, 0.7, 0.8, 0.6])
    counts = np.array([1, 2, 1, 5, 3, 4, 3])
    got = overlap_by_count(overlap, counts, threshold=3, confidence=np.float32(0.95), n_resamples=500, seed=1)
    rare, frequent = overlap[counts < 3], overlap[counts >= 3]
    ref = scipy.stats.bootstrap(
        (rare, frequent), lambda r, f, axis=-1: f.mean(axis=axis) - r.mean(axis=axis), vectorized=True,
        n_resamples=500, confidence_level=0.95, method="percentile", rng=np.random.default_rng(1),
    ).confidence_interval
    assert got.confidence == 0.95
    assert (got.low, got.high) == (float(ref.low), float(ref.high))
    masked = np.ma.array(overlap, mask=[True] + [False] * 6)
    with pytest.raises(TypeError, match=r"^overlap is a NumPy masked array with 1 masked entry"):
        overlap_by_count(masked, counts, threshold=3)
