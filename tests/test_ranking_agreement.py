"""The batched cosine rankings agree with the one-query ones, bit for bit, at near-ties.

``lib.geometry.neighbour_sets`` promises ``lib.embedding.nearest_neighbours``' rows, and
``lib.evaluation.analogy_predictions`` promises ``lib.embedding.analogy``'s answer. Both batched functions
score many queries at once; if a query's cosines changed in their last bit with the batch (as a matrix
product's do: BLAS sums in an order that depends on the shapes), two rows whose cosines differ by about
``TIE_RTOL`` would be near-tied on one path and not on the other. The tables below put two rows at that
tolerance on purpose.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lib.embedding import TIE_RTOL, analogy, cosine_scores, nearest_neighbours, normalize_rows, similarity
from lib.evaluation import analogy_predictions
from lib.geometry import neighbour_overlap, neighbour_sets


def near_tie_rows(rng, target, n_filler):
    """Two rows ``A``, ``B`` whose cosines with ``target`` differ by about ``TIE_RTOL`` (within 0.01%, so that their computed difference often lies within rounding of it), then
    ``n_filler`` rows pointing away from ``target``, so that ``A`` and ``B`` are its two nearest rows."""
    d = target.shape[0]
    while True:
        B, w = rng.standard_normal(d), rng.standard_normal(d)

        def gap(eps):
            s = similarity(np.array([B, B + eps * w]), target, "cosine")
            return s[0] - s[1]

        slope = (gap(1e-6) - gap(-1e-6)) / 2e-6
        if abs(slope) > 1e-3:
            break
    A = B + TIE_RTOL / slope * (1 + rng.uniform(-1e-4, 1e-4)) * w
    filler = -np.abs(rng.standard_normal((n_filler, d))) * np.sign(target)
    return np.vstack([A, B, filler])


# -- examples that disagreed when the batched paths used one matrix product per batch --------------------

NEIGHBOUR_TABLE = [
    [-0.21412744475889497, 1.752263984545271], [1.2670675047853797, 0.8333949433245045],
    [1.2670675047848043, 0.8333949433261522], [0.5929759428406611, -0.352377281468836],
    [0.5043286191577014, -2.1065366439613324], [0.19118697567674273, -0.04931968294274557],
]

ANALOGY_TABLE = [
    [-0.7061752749030227, -0.7142389333341079, -0.04464686469247794],
    [-0.32971081974207533, 0.8711105109344268, -1.3261814419117322],
    [-0.16947019674286637, 1.8594974964345012, 0.0388973371949769],
    [1.1986152214504098, 1.1368634972000082, 1.3166478203367202],
    [1.198615221448642, 1.1368634972033143, 1.3166478203373606],
    [-1.5488553043334206, -0.4638816211751379, -1.2500798351337994],
    [-1.6655514460193832, -0.21089625656145172, -0.04359127244566091],
]


def test_neighbour_sets_do_not_depend_on_the_other_items():
    # rows 1 and 2 are near-tied as neighbours of row 0 (their cosines differ by 1.0000e-12): the rule gives
    # the smaller row, 1, whichever items are asked with row 0
    assert nearest_neighbours(NEIGHBOUR_TABLE, NEIGHBOUR_TABLE[0], 1, exclude=[0])[0][0] == 1
    for items in ([0], [0, 3], [0, 3, 4, 5], [5, 4, 3, 0]):
        assert neighbour_sets(NEIGHBOUR_TABLE, items, 1)[items.index(0)] == frozenset({1})
    # a second table in which row 2 is far from row 0: row 0's neighbour is row 1 there, so the overlap of
    # item 0 is 1 whichever items are asked with it
    other = [list(r) for r in NEIGHBOUR_TABLE]
    other[2] = [0.0, -1.0]
    assert neighbour_overlap([NEIGHBOUR_TABLE, other], [0, 3, 4, 5], 1)[0] == 1.0
    assert neighbour_overlap([NEIGHBOUR_TABLE, other], [0], 1)[0] == 1.0


def test_analogy_predictions_do_not_depend_on_the_other_questions():
    # rows 4 and 3 differ by just over the tolerance on the one-query path: 4 is the answer
    assert [row for row, _ in analogy(ANALOGY_TABLE, 0, 1, 2, 2)] == [4, 3]
    best = analogy(ANALOGY_TABLE, 0, 1, 2)[0][0]
    alone = analogy_predictions(ANALOGY_TABLE, np.array([[0, 1, 2]]))[0]
    batched = analogy_predictions(ANALOGY_TABLE, np.array([[0, 1, 2], [1, 2, 0], [2, 0, 1], [5, 6, 0]]))[0]
    assert alone == batched == best


def test_cosine_scores_of_one_query_are_those_of_any_batch():
    rng = np.random.default_rng(3)
    rows, queries = rng.standard_normal((50, 7)), rng.standard_normal((9, 7))
    together = cosine_scores(rows, queries)
    assert together.shape == (9, 50)
    for i, q in enumerate(queries):
        np.testing.assert_array_equal(cosine_scores(rows, q), together[i])  # bit for bit
        np.testing.assert_array_equal(cosine_scores(rows[10:30], q), together[i, 10:30])
    # the cosines themselves: against a closed form, and 0 for a zero row
    assert cosine_scores([[3.0, 4.0], [0.0, 0.0], [-1.0, 0.0]], [1.0, 0.0]).tolist() == [0.6, 0.0, -1.0]
    np.testing.assert_allclose(together, similarity(queries, rows, "cosine"), rtol=0, atol=1e-15)


# -- properties: random tables with two rows at the tolerance --------------------------------------------


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), d=st.integers(2, 12), n_filler=st.integers(3, 8), data=st.data())
def test_neighbour_sets_agree_with_nearest_neighbours_at_near_ties(seed, d, n_filler, data):
    rng = np.random.default_rng(seed)
    query = rng.standard_normal(d)
    table = np.vstack([query, near_tie_rows(rng, query, n_filler)])
    V = table.shape[0]
    items = data.draw(st.lists(st.integers(0, V - 1), min_size=1, max_size=V, unique=True), label="items")
    k = data.draw(st.integers(1, V - 1), label="k")
    sets = neighbour_sets(table, items, k)
    for item, got in zip(items, sets):
        one = nearest_neighbours(table, table[item], k, exclude=[item])
        assert got == frozenset(row for row, _ in one)
        assert neighbour_sets(table, [item], k) == [got]


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), d=st.integers(2, 12), n_filler=st.integers(1, 6), data=st.data())
def test_analogy_predictions_agree_with_analogy_at_near_ties(seed, d, n_filler, data):
    rng = np.random.default_rng(seed)
    abc = rng.standard_normal((3, d))
    unit = normalize_rows(abc)
    target = unit[1] - unit[0] + unit[2]
    table = np.vstack([abc, near_tie_rows(rng, target, n_filler)])
    V = table.shape[0]
    others = data.draw(st.lists(st.lists(st.integers(0, V - 1), min_size=3, max_size=3), min_size=3, max_size=8),
                         label="others")
    at = data.draw(st.integers(0, len(others)), label="position")
    questions = np.array(others[:at] + [[0, 1, 2]] + others[at:], dtype=np.int64)
    chunk = data.draw(st.integers(1, len(questions)), label="chunk")
    answers = analogy_predictions(table, questions, chunk=chunk)
    for (a, b, c), answer in zip(questions, answers):
        assert answer == analogy(table, int(a), int(b), int(c))[0][0]
    assert answers[at] == analogy_predictions(table, np.array([[0, 1, 2]]))[0]


@pytest.mark.parametrize("d", [1, 3, 300])
def test_cosine_scores_batch_independent_in_many_widths(d):
    rng = np.random.default_rng(d)
    rows, queries = rng.standard_normal((33, d)), rng.standard_normal((5, d))
    together = cosine_scores(rows, queries)
    for i in range(5):
        np.testing.assert_array_equal(cosine_scores(rows[::-1], queries[i]), together[i][::-1])
