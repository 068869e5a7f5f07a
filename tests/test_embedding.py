"""lib.embedding: lookup, one-hot, the lookup's gradient, and their error paths.

(Similarity, neighbours and analogies are tested in tests/test_similarity.py.)
"""

import re

import numpy as np
import pytest
import torch

from lib import embedding


@pytest.fixture
def table():
    return np.arange(20, dtype=np.float64).reshape(5, 4)  # (V, d) = (5, 4)


def test_lookup_selects_rows_in_any_shape(table):
    ids = np.array([[0, 3, 4], [2, 3, 1]])
    out = embedding.lookup(table, ids)
    assert out.shape == (2, 3, 4)
    np.testing.assert_array_equal(out[0, 1], [12, 13, 14, 15])
    np.testing.assert_array_equal(embedding.lookup(table, 2), [8, 9, 10, 11])


def test_lookup_equals_onehot_product(table):
    ids = np.array([4, 0, 4, 1])
    np.testing.assert_array_equal(embedding.onehot(ids, 5) @ table, embedding.lookup(table, ids))


def test_onehot_rows():
    np.testing.assert_array_equal(embedding.onehot([2, 0], 4), [[0, 0, 1, 0], [1, 0, 0, 0]])
    assert embedding.onehot(np.zeros((2, 3), dtype=int), 7).shape == (2, 3, 7)


def test_lookup_returns_a_copy(table):
    row = embedding.lookup(table, 1)
    row += 100
    assert table[1, 0] == 4.0
    rows = embedding.lookup(table, np.array([1, 1]))
    rows[0] += 1
    assert table[1, 0] == 4.0


def test_lookup_matches_torch_embedding():
    rng = np.random.default_rng(3)
    weight = rng.normal(size=(34, 8))
    ids = rng.integers(0, 34, size=(6, 5))
    expected = torch.nn.functional.embedding(torch.from_numpy(ids), torch.from_numpy(weight)).numpy()
    np.testing.assert_array_equal(embedding.lookup(weight, ids), expected)


def test_negative_id_is_an_error_not_a_wraparound(table):
    with pytest.raises(ValueError, match=r"token id -1 out of range for vocabulary of 5 \(allowed 0..4\)"):
        embedding.lookup(table, -1)


def test_id_past_the_end_names_vocabulary_size():
    with pytest.raises(ValueError, match="token id 40 out of range for vocabulary of 34"):
        embedding.lookup(np.zeros((34, 2)), [3, 40, 50])


@pytest.mark.parametrize("ids", [1.0, [0.5], [True, False], "3"])
def test_non_integer_ids_are_type_errors(table, ids):
    with pytest.raises(TypeError, match="must be integers"):
        embedding.lookup(table, ids)


@pytest.mark.parametrize("bad", [np.zeros(4), np.zeros((0, 3)), np.zeros((2, 0)), np.zeros((2, 2, 2))])
def test_bad_table_shape(bad):
    with pytest.raises(ValueError, match=r"must have shape \(V, d\)"):
        embedding.lookup(bad, 0)


def test_bad_vocabulary_size():
    with pytest.raises(ValueError, match=r"^vocab_size must be an integer in \[1, 268435456\], got 0$"):
        embedding.onehot([0], 0)
    for huge in (2**62, 2**70, np.uint64(2**64 - 1)):  # were NumPy's "array is too big" / "Maximum allowed dimension"
        with pytest.raises(ValueError, match=r"^vocab_size must be an integer in \[1, 268435456\], got "):
            embedding.onehot([0], huge)
        with pytest.raises(ValueError, match=r"^vocab_size must be an integer in \[1, 268435456\], got "):
            embedding.lookup_grad([0], [[1.0]], huge)
    with pytest.raises(ValueError, match=r"^ids and vocab_size: a result of shape \(2, 200000000\) would hold 400000000 "):
        embedding.onehot([0, 1], 200_000_000)


def test_lookup_grad_accumulates_repeated_ids():
    ids = np.array([1, 3, 1])
    g = np.array([[1.0, 2.0], [10.0, 20.0], [100.0, 200.0]])
    grad = embedding.lookup_grad(ids, g, 4)
    np.testing.assert_array_equal(grad, [[0, 0], [101, 202], [0, 0], [10, 20]])
    np.testing.assert_array_equal(grad, embedding.onehot(ids, 4).T @ g)


def test_lookup_grad_matches_finite_differences():
    rng = np.random.default_rng(0)
    E = rng.normal(size=(6, 3))
    ids = np.array([[0, 5, 5], [2, 0, 1]])
    W = rng.normal(size=(2, 3, 3))  # loss = sum(W * E[ids])

    def loss(table):
        return float(np.sum(W * table[ids]))

    analytic = embedding.lookup_grad(ids, W, 6)
    numeric = np.zeros_like(E)
    h = 1e-6
    for i in range(6):
        for j in range(3):
            up, down = E.copy(), E.copy()
            up[i, j] += h
            down[i, j] -= h
            numeric[i, j] = (loss(up) - loss(down)) / (2 * h)
    np.testing.assert_allclose(analytic, numeric, atol=1e-6)


def test_lookup_grad_shape_mismatch():
    with pytest.raises(ValueError, match="grad_out must have shape"):
        embedding.lookup_grad(np.array([0, 1]), np.zeros((3, 2)), 4)


def test_uint64_id_does_not_wrap_to_negative():
    with pytest.raises(ValueError, match="token id 18446744073709551615 out of range for vocabulary of 3"):
        embedding.lookup(np.zeros((3, 2)), np.array([2**64 - 1], dtype=np.uint64))


def test_ids_beyond_int64_are_out_of_range_not_a_type_error():
    # attack-15 F8: np.asarray(2**70) has dtype object; these were "TypeError: token ids must be integers"
    with pytest.raises(ValueError, match=r"^token id 1180591620717411303424 out of range for vocabulary of 1 \(allowed 0..0\)$"):
        embedding.lookup([[1.0]], 2**70)
    with pytest.raises(ValueError, match=r"^analogy row 1180591620717411303424 out of range for vocabulary of 5 \(allowed 0..4\)$"):
        embedding.analogy(np.eye(5), 0, 1, 2**70)


def test_lookup_grad_needs_a_gradient_row_per_id():
    with pytest.raises(ValueError, match="grad_out must have shape"):
        embedding.lookup_grad(1, 5.0, 3)
    with pytest.raises(ValueError, match="grad_out must have shape"):
        embedding.lookup_grad([1], np.zeros((1, 0)), 3)


def test_cosine_of_huge_vectors_does_not_overflow():
    assert embedding.cosine_similarity([1e200, 0], [1e200, 0]) == pytest.approx(1.0)
    assert embedding.nearest_neighbours(np.array([[1e200, 0.0], [0.0, 1.0]]), np.array([1.0, 0.0]), 1) == [(0, 1.0)]
    with pytest.raises(ValueError, match="overflows float64"):
        embedding.euclidean_distance([1e308], [-1e308])


def test_neighbour_arguments_are_named():
    table = np.eye(3)
    with pytest.raises(ValueError, match="table contains NaN"):
        embedding.nearest_neighbours(np.array([[np.nan, 0.0], [0.0, 1.0]]), np.array([1.0, 0.0]))
    with pytest.raises(TypeError, match=r"exclude=\[3\]"):
        embedding.nearest_neighbours(table, np.ones(3), exclude=0)
    with pytest.raises(TypeError, match="k must be an integer >= 1"):
        embedding.nearest_neighbours(table, np.ones(3), k=True)


@pytest.mark.parametrize("one", [np.array(0), np.array(2, dtype=np.uint8), np.int64(1), 0])
@pytest.mark.parametrize("argument", ["exclude", "candidates"])
def test_one_row_id_in_any_form_is_refused_as_exclude_or_candidates(one, argument):
    # attack-15 F4: a 0-d array gave NumPy's "TypeError: iteration over a 0-d array"
    with pytest.raises(TypeError, match=rf"^{argument} must be a collection of ids \(e\.g\. {argument}=\[3\]\), not one int"):
        embedding.nearest_neighbours([[1, 0], [0, 1], [1, 1]], [1, 0], 2, **{argument: one})
    with pytest.raises(TypeError, match=rf"^{argument} must be a collection of ids .*got 1\.5$"):
        embedding.nearest_neighbours([[1, 0], [0, 1]], [1, 0], 2, **{argument: 1.5})
    want = {"exclude": [(1, 0.0)], "candidates": [(0, 1.0)]}[argument]  # a 1-d array is a collection
    assert embedding.nearest_neighbours([[1, 0], [0, 1]], [1, 0], 2, **{argument: np.array([0])}) == want


def test_scores_equal_up_to_rounding_rank_by_row_index():
    """Row 1 is closer to the query than row 0 only in the 15th digit of the cosine: a tie, broken by the
    smaller index on every machine; row 2 is closer by far more, a real difference."""
    from lib.embedding import TIE_RTOL, nearest_neighbours

    angles = np.array([1e-3 + 1e-12, 1e-3, 1e-4])  # radians from the query
    table = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    cosines = embedding.similarity(table, np.array([1.0, 0.0]), "cosine")
    assert 0 < cosines[1] - cosines[0] < TIE_RTOL < cosines[2] - cosines[1]
    assert [i for i, _ in nearest_neighbours(table, np.array([1.0, 0.0]), 3)] == [2, 0, 1]


@pytest.mark.parametrize("table, dtype", [([[None, 1.0]], "object"), ([[1 + 2j, 1.0]], "complex128"),
                                          ([["a", "b"]], "<U1"), ([[True, False]], "bool")])
def test_tables_that_do_not_hold_real_numbers_are_refused(table, dtype):
    for call in (lambda: embedding.lookup(table, 0), lambda: embedding.nearest_neighbours(table, [1.0, 0.0], 1)):
        with pytest.raises(TypeError, match=f"table must hold real numbers, got dtype {re.escape(dtype)}"):
            call()


def test_a_non_finite_table_is_named_as_the_argument_it_is():
    bad = [[np.nan, 1.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
    with pytest.raises(ValueError, match="^table contains NaN or infinity"):
        embedding.analogy(bad, 0, 1, 2)
    with pytest.raises(ValueError, match="^table contains NaN or infinity"):
        embedding.nearest_neighbours(bad, [1.0, 0.0], 1)
    assert embedding.lookup(np.array([[1, 2]], dtype=np.float32), 0).dtype == np.float32  # a float dtype is kept


def test_top_k_groups_near_ties_and_orders_them_by_position():
    from lib.embedding import top_k

    assert top_k([0.5, 0.9, 0.9], 2).tolist() == [1, 2]  # an exact tie: the smaller position
    assert top_k([0.5, 0.9, 0.9 + 1e-13], 3).tolist() == [1, 2, 0]  # 1e-13 apart: a near-tie, by position
    assert top_k([0.5, 0.9, 0.9 + 1e-11], 3).tolist() == [2, 1, 0]  # 1e-11 apart: a real difference
    # no chaining: 1 opens a group that takes 1 - 6e-13 but not 1 - 1.2e-12, although that one is within
    # the tolerance of 1 - 6e-13
    assert top_k([1 - 1.2e-12, 1 - 6e-13, 1.0], 3).tolist() == [1, 2, 0]
    # distances, smaller is better: relative to their own size, 1e10 and 1e10 * (1 + 5e-13) tie
    far = [1e10 * (1 + 5e-13), 1e10, 1.0]
    assert top_k(far, 3, largest=False, relative=True).tolist() == [2, 0, 1]
    assert top_k(far, 3, largest=False).tolist() == [2, 1, 0]  # absolute tolerance: 5e-3 apart, no tie
    got = top_k([0.2, 0.1], 5)  # fewer scores than k
    assert got.tolist() == [0, 1] and got.dtype == np.int64
    assert top_k([], 1).tolist() == []


@pytest.mark.parametrize(
    "scores, k, options, error, message",
    [
        ([[0.5, 0.9]], 1, {}, ValueError, r"^scores must be a 1-D array of scores, got shape \(1, 2\)$"),
        ([0.5, np.nan], 1, {}, ValueError, "^scores contain NaN or infinity$"),
        ([0.5, np.inf], 1, {}, ValueError, "^scores contain NaN or infinity$"),
        ([0.5], 0, {}, ValueError, "^k must be an integer >= 1, got 0$"),
        ([0.5], True, {}, TypeError, "^k must be an integer >= 1, got True$"),
        (["a"], 1, {}, TypeError, "^scores must hold real numbers, got dtype <U1$"),
        ([True, False], 1, {}, TypeError, "^scores must hold real numbers, got dtype bool$"),
        ([0.5], 1, {"largest": "yes"}, TypeError, "^largest must be True or False, got 'yes'$"),
        ([0.5], 1, {"relative": 1}, TypeError, "^relative must be True or False, got 1$"),
    ],
)
def test_top_k_names_a_bad_argument(scores, k, options, error, message):
    from lib.embedding import top_k

    with pytest.raises(error, match=message):
        top_k(scores, k, **options)


def test_top_k_records_its_closest_group_boundary(tmp_path, monkeypatch):
    import json

    from lib import notebook
    from lib.embedding import TIE_RTOL, top_k

    log = tmp_path / "numbers.jsonl"
    monkeypatch.setenv(notebook.NUMBER_LOG, str(log))
    top_k([0.9, 1.1, 0.1], 2, largest=False, relative=True, what="three distances")
    top_k([0.9, 1.1, 0.1], 2, largest=False, relative=True)  # no name: nothing recorded
    (entry,) = [json.loads(line) for line in log.read_text().splitlines()]
    assert entry["name"] == "three distances"
    # boundaries 0.1 | 0.9 and 0.9 | 1.1: the second is the closer, relative to its size 1.1
    assert entry["raw"] == pytest.approx(1.1 - TIE_RTOL * 1.1 - 0.9) and entry["scale"] == pytest.approx(1.1)


@pytest.mark.parametrize("bad", ["no", 1, None, np.array(True)])
def test_flags_of_neighbour_queries_must_be_true_or_false(bad):
    table = np.eye(4)
    with pytest.raises(TypeError, match=f"^normalize must be True or False, got {re.escape(repr(bad))}$"):
        embedding.nearest_neighbours(table, [1.0, 0, 0, 0], 1, normalize=bad)
    with pytest.raises(TypeError, match=f"^exclude_query must be True or False, got {re.escape(repr(bad))}$"):
        embedding.analogy(table, 0, 1, 2, exclude_query=bad)
    # before, any truthy value counted as True ("no" excluded the query rows); the two answers differ
    assert embedding.analogy(table, 0, 1, 2, exclude_query=False) == [(1, pytest.approx(1 / np.sqrt(3)))]
    assert embedding.analogy(table, 0, 1, 2, exclude_query=True) == [(3, 0.0)]


def test_lookup_grad_and_check_table_name_bad_arguments():
    with pytest.raises(ValueError, match="^grad_out contains NaN or infinity$"):  # the NaN was summed into the rows
        embedding.lookup_grad([0, 1], [[np.nan], [1.0]], 2)
    with pytest.raises(TypeError, match="^grad_out must hold real numbers, got dtype <U1$"):
        embedding.lookup_grad([0], [["a"]], 2)
    with pytest.raises(TypeError, match="^finite must be True or False, got 'no'$"):
        embedding.check_table([[1.0]], finite="no")


def test_a_metric_given_as_an_array_is_refused_by_name():
    for metric in (np.array(["dot", "cosine"]), np.array(["dot"])):  # ambiguous truth value; taken as 'dot'
        with pytest.raises(ValueError, match=r"^metric must be one of \('cosine', 'dot', 'euclidean'\), got array"):
            embedding.similarity([1.0], [1.0], metric)


def test_a_time_span_is_not_a_count():
    with pytest.raises(TypeError, match=r"^k must be an integer >= 1, got np.timedelta64\(2\)$"):
        embedding.nearest_neighbours(np.eye(3), [1.0, 0, 0], np.timedelta64(2))  # ran with k = 2
    with pytest.raises(TypeError, match=r"^k must be an integer >= 1, got np.timedelta64\(2,'ns'\)$"):
        embedding.top_k([0.1, 0.5, 0.3], np.timedelta64(2, "ns"))
    with pytest.raises(TypeError, match=r"^vocab_size must be an integer in \[1, 268435456\], got np.timedelta64\(2\)$"):
        embedding.lookup_grad([1], [[1.0]], np.timedelta64(2))  # NumPy's "cannot be interpreted as an integer"


# One rule for numbers float64 cannot hold and for masked arrays, in every public function that takes vectors
# or a table (lib.validate.real_numbers). np.longdouble("1e-4000") is nonzero and np.longdouble("1e4000")
# finite; the Python literals 1e-4000 and 1e4000 are already 0.0 and inf before NumPy sees them.
_L = np.longdouble
_BELOW = r"holds np.longdouble\('1e-4000'\), below float64's smallest subnormal \(about 4.9e-324\), would become 0$"
_BEYOND = r"holds np.longdouble\('1e\+4000'\), beyond the float64 range \(about 1.8e308\)$"


def _vector_functions():
    """(label, function of a (3, 2) table t, the argument name its error must give) for every public
    function of lib that takes vectors or a table."""
    from lib import evaluation, geometry
    from lib.chapters import lesson

    vocab = ["a", "b", "c"]
    pairs = [("a", "b", 1.0), ("a", "c", 2.0), ("b", "c", 3.0)]
    return [
        ("similarity cosine", lambda t: embedding.similarity(t[0], t[1], "cosine"), "x"),
        ("similarity dot", lambda t: embedding.similarity(t[0], t[1], "dot"), "x"),
        ("similarity euclidean", lambda t: embedding.similarity(t, t, "euclidean"), "x"),
        ("cosine_similarity", lambda t: embedding.cosine_similarity(t[0], t[1]), "x"),
        ("euclidean_distance", lambda t: embedding.euclidean_distance(t[0], t[1]), "x"),
        ("dot_product", lambda t: embedding.dot_product(t[0], t[1]), "x"),
        ("normalize_rows", embedding.normalize_rows, "x"),
        ("cosine_scores", lambda t: embedding.cosine_scores(t, t[2]), "rows"),
        ("unit_pair_cosines", lambda t: embedding.unit_pair_cosines(t, t), "A"),
        ("check_table", embedding.check_table, "table"),
        ("lookup", lambda t: embedding.lookup(t, [1]), "table"),
        ("nearest_neighbours cosine", lambda t: embedding.nearest_neighbours(t, [1.0, 1.0], 2), "table"),
        ("nearest_neighbours euclidean", lambda t: embedding.nearest_neighbours(t, [1.0, 1.0], 2, metric="euclidean"), "table"),
        ("nearest_neighbours dot", lambda t: embedding.nearest_neighbours(t, [1.0, 1.0], 2, metric="dot"), "table"),
        ("nearest_neighbours query", lambda t: embedding.nearest_neighbours(np.eye(2), t[0], 1), "query"),
        ("top_k", lambda t: embedding.top_k(t[:, 0], 1), "scores"),
        ("analogy", lambda t: embedding.analogy(np.ma.vstack([t, np.eye(2)]), 0, 1, 2), "table"),
        ("metric_table", lambda t: geometry.metric_table([1.0, 1.0], {"a": t[0]}), r"vectors\['a'\]"),
        ("principal_projection", lambda t: geometry.principal_projection(t, 1), "vectors"),
        ("neighbour_sets", lambda t: geometry.neighbour_sets(t, [1], 1), "vectors"),
        ("neighbour_overlap", lambda t: geometry.neighbour_overlap([t, t], [1], 1), r"tables\[0\]"),
        ("anisotropy", lambda t: geometry.anisotropy(t, center=True), "vectors"),
        ("word_similarity", lambda t: evaluation.word_similarity(t, vocab, pairs), "vectors"),
        ("analogy_predictions", lambda t: evaluation.analogy_predictions(np.ma.vstack([t, np.eye(2)]), np.array([[0, 1, 2]])), "vectors"),
        ("self_attention", lesson.self_attention, "X"),
        ("same_set_of_vectors", lambda t: lesson.same_set_of_vectors(t, t), "X"),
    ]


@pytest.mark.parametrize("label, fn, name", _vector_functions(), ids=lambda v: v if isinstance(v, str) else "")
def test_a_longdouble_float64_cannot_hold_is_named_by_every_function_that_takes_vectors(label, fn, name):
    """1e-4000 became 0 on the cast to float64 (distinct tiny vectors tied at distance 0) and 1e4000 was
    called "NaN or infinity"; a cosine rescaled longdouble rows while every ranking by cosine refused them.
    One rule now: a ValueError naming the argument, for every metric."""
    one = _L(1)
    tiny = np.array([[_L("1e-4000"), 0], [0, one], [one, one]], dtype=_L)
    huge = np.array([[_L("1e4000"), 0], [0, one], [one, one]], dtype=_L)
    with pytest.raises(ValueError, match=rf"^{name} {_BELOW}"):
        fn(tiny)
    with pytest.raises(ValueError, match=rf"^{name} {_BEYOND}"):
        fn(huge)


_ROUNDED = (r"holds the longdouble np.longdouble\('1.0000000000000000009'\), which float64 \((in which it is "
            r"computed|in which they are ranked)\) does not hold exactly \(it becomes 1.0\), so distinct values "
            r"could tie; give float64 values$")


@pytest.mark.skipif(np.finfo(np.longdouble).nmant < 60, reason="np.longdouble is float64 on this platform")
@pytest.mark.parametrize("label, fn, name", _vector_functions(), ids=lambda v: v if isinstance(v, str) else "")
def test_a_longdouble_float64_rounds_is_named_by_every_function_that_takes_vectors(label, fn, name):
    """1 + 2**-60 became 1.0 on the cast to float64: it tied with 1 (distance 0). The rule of integers
    beyond 2**53: refused, naming the argument."""
    one = _L(1)
    rounded = np.array([[one + _L(2) ** -60, 0], [0, one], [one, one]], dtype=_L)
    with pytest.raises(ValueError, match=rf"^{name} {_ROUNDED}"):
        fn(rounded)


@pytest.mark.skipif(np.finfo(np.longdouble).nmant < 60, reason="np.longdouble is float64 on this platform")
def test_euclidean_distance_of_longdouble_vectors_that_differ_beyond_float64_is_refused_not_zero():
    """The true distance 2**-60 (8.7e-19) is a float64 value, but the vectors were rounded first and gave 0."""
    one = _L(1)
    close = one + _L(2) ** -60
    with pytest.raises(ValueError, match=rf"^x {_ROUNDED}"):
        embedding.euclidean_distance(np.array([close]), np.array([one]))
    with pytest.raises(ValueError, match=rf"^x {_ROUNDED}"):  # a longdouble scalar in a list
        embedding.euclidean_distance([close], [1.0])
    with pytest.raises(ValueError, match=rf"^y {_ROUNDED}"):
        embedding.similarity([1.0, 0.0], [[1.0, 0.0], [close, 0.0]], "euclidean")
    with pytest.raises(ValueError, match=r"^x holds the longdouble np.longdouble\('1e-320'\), which float64"):
        embedding.euclidean_distance(np.array([_L("1e-320")]), [0.0])  # a decimal 1e-320: a subnormal rounds it
    # longdouble entries that float64 holds exactly: the float64 result, bit for bit
    exact = np.array([one + _L(2) ** -52, _L(0.1)], dtype=_L)
    assert embedding.euclidean_distance(exact, [1.0, 0.0]) == embedding.euclidean_distance([1 + 2**-52, 0.1], [1.0, 0.0])


@pytest.mark.parametrize("label, fn, name", _vector_functions(), ids=lambda v: v if isinstance(v, str) else "")
def test_a_masked_array_with_a_masked_entry_is_refused_by_every_function_that_takes_vectors(label, fn, name):
    """np.asarray drops a mask: the masked entry's hidden value (here 1e6) was used as data."""
    masked = np.ma.array([[1e6, 0.0], [0.0, 1.0], [1.0, 1.0]], mask=[[True, False], [False, False], [False, False]])
    with pytest.raises(TypeError, match=rf"^{name} is a NumPy masked array with 1 masked entry; lib does not read masks"):
        fn(masked)


def test_longdouble_within_float64_and_a_masked_array_with_nothing_masked_are_computed_as_float64():
    # 3-4-5 triangle: exact in float64
    assert embedding.similarity(np.array([3, 4], dtype=_L), [1.0, 0.0]) == 0.6
    assert embedding.euclidean_distance(np.array([3, 0], dtype=_L), np.array([0, 4], dtype=_L)) == 5.0
    # a subnormal float64 (1e-320, with fewer bits) given as a longdouble: distance exactly that double
    assert embedding.euclidean_distance(np.array([_L(1e-320)]), [0.0]) == 1e-320
    unmasked = np.ma.array([[3.0, 0.0], [0.0, 4.0]], mask=False)
    assert embedding.euclidean_distance(unmasked[0], unmasked[1]) == 5.0
    assert embedding.nearest_neighbours(unmasked, [0.0, 4.0], 1, metric="euclidean") == [(1, 0.0)]


def test_integers_beyond_2_53_are_refused_in_tables_and_vectors():
    """2**62 + 1 became 2**62 in float64: the distance of [2**62 + 1, 0] to [2**62, 0] was 0, not 1."""
    with pytest.raises(ValueError, match=r"^query holds the integer 4611686018427387905, beyond 2\*\*53: float64, "
                       r"which it is computed in, holds integers exactly only up to 2\*\*53$"):
        embedding.nearest_neighbours(np.array([[2**53, 0], [-(2**53), 0]]), np.array([2**62 + 1, 0]), 2,
                                     metric="euclidean")
    with pytest.raises(ValueError, match=r"^table holds the integer 4611686018427387905, beyond 2\*\*53"):
        embedding.nearest_neighbours(np.array([[2**62 + 1, 0], [0, 1]]), [1.0, 0.0], 1)
    with pytest.raises(ValueError, match=r"^x holds the integer -9007199254740993, beyond 2\*\*53"):
        embedding.similarity(np.array([-(2**53) - 1, 0]), [1.0, 0.0])
    assert embedding.euclidean_distance(np.array([2**53, 0]), np.array([2**53 - 1, 0])) == 1.0  # 2**53: exact


def test_python_integers_beyond_int64_are_refused_like_int64_ones():
    """NumPy makes [2**63, 0] a float64 array and [10**30 + 1, 0] an object array; both used to be rounded
    (the distance of [2**63, 0] to [2**63 + 1, 0] was 0, not 1)."""
    with pytest.raises(ValueError, match=r"^x holds the integer 9223372036854775808, beyond 2\*\*53: float64, "
                       r"which it is computed in, holds integers exactly only up to 2\*\*53$"):
        embedding.euclidean_distance([2**63, 0], [2**63 + 1, 0])
    with pytest.raises(ValueError, match=r"^x holds the integer 1000000000000000000000000000001, beyond 2\*\*53"):
        embedding.euclidean_distance([10**30 + 1, 0], [10**30, 0])
    with pytest.raises(ValueError, match=r"^table holds the integer 1000000000000000000000000000000, beyond"):
        embedding.nearest_neighbours([[10**30], [10**30 + 2]], [10**30 + 1], 1, metric="euclidean")
    with pytest.raises(ValueError, match=r"^query holds the integer -9223372036854775809, beyond 2\*\*53"):
        embedding.nearest_neighbours([[1.0], [2.0]], [-(2**63) - 1], 1)
    with pytest.raises(ValueError, match=r"^scores holds the integer 1000000000000000000000000000000, beyond 2\*\*53"):
        embedding.top_k([10**30, 1], 1)  # ranked: the rule of validate.ranked_numbers
    assert embedding.euclidean_distance([2**53, 0], [2**53 - 1, 0]) == 1.0  # 2**53 as a Python int: exact


def test_a_bool_inside_a_list_of_numbers_is_refused():
    """NumPy reads [1.0, True] as [1.0, 1.0]: the cosine with [1, 0] was 0.7071."""
    message = r"must hold real numbers, got a bool among them"
    with pytest.raises(TypeError, match="^x " + message):
        embedding.similarity([1.0, True], [1.0, 0.0])
    with pytest.raises(TypeError, match="^scores " + message):
        embedding.top_k([0.5, True], 1)
    with pytest.raises(TypeError, match="^table " + message):
        embedding.nearest_neighbours([[1.0, np.True_], [0.0, 1.0]], [1.0, 0.0], 1)


def test_power_of_two_scale_shares_one_exact_exponent_across_its_arrays():
    from lib.embedding import power_of_two_scale

    X, Y = np.array([[3.0, -1e-300]]), np.array([1e300, 0.0])
    Xs, Ys, e = power_of_two_scale(X, Y)
    assert e == 997 and np.abs(Ys).max() == pytest.approx(1e300 / 2.0**997) and 0.5 <= np.abs(Ys).max() < 1
    np.testing.assert_array_equal(np.ldexp(Ys, e), Y)  # exact: a power of two changes no rounding
    assert Xs[0, 0] == 3.0 * 2.0**-997 and Xs[0, 1] == 0.0  # 1e-300 * 2**-997 is below the subnormals
    zeros, empty, e0 = power_of_two_scale(np.zeros(3), np.zeros(0))
    assert e0 == 0 and zeros.tolist() == [0.0, 0.0, 0.0] and empty.shape == (0,)


def test_unit_pair_cosines_pairs_rows_one_to_one():
    # unit rows (3, 4)/5 and (4, 3)/5: cosine 24/25; (1, 0) with (0, 1): 0; a row with its own negative: -1
    A = np.array([[0.6, 0.8], [1.0, 0.0], [0.6, 0.8]])
    B = np.array([[0.8, 0.6], [0.0, 1.0], [-0.6, -0.8]])
    np.testing.assert_allclose(embedding.unit_pair_cosines(A, B), [24 / 25, 0.0, -1.0], rtol=0, atol=1e-15)
    assert embedding.unit_pair_cosines(np.zeros((0, 3)), np.zeros((0, 3))).shape == (0,)


@pytest.mark.parametrize("A, B, message", [
    ([[1.0, 0.0]], [[1.0, 0.0], [0.0, 1.0]], r"A and B must have the same shape \(k, d\).*got \(1, 2\) and \(2, 2\)"),
    ([[0.6, 0.0, 0.8]], [[0.6, 0.8]], r"A and B must have the same shape.*got \(1, 3\) and \(1, 2\)"),
    ([[1.0, 0.0]], [[1.0, 0.0, 0.0]], r"A and B must have the same shape.*got \(1, 2\) and \(1, 3\)"),
    ([1.0, 0.0], [1.0, 0.0], r"A must be a matrix of unit rows \(k, d\), got shape \(2,\)"),
    ([[1.0, 0.0]], [1.0, 0.0], r"B must be a matrix of unit rows \(k, d\), got shape \(2,\)"),
    ([[[1.0]]], [[[1.0]]], r"A must be a vector \(d,\) or a matrix \(n, d\), got shape \(1, 1, 1\)"),
    ([[np.nan, 0.0]], [[1.0, 0.0]], "A contains NaN or infinity"),
    ([[1.0, 0.0]], [[np.inf, 0.0]], "B contains NaN or infinity"),
])
def test_unit_pair_cosines_refuses_shapes_that_do_not_pair_and_non_finite_rows(A, B, message):
    with pytest.raises(ValueError, match=message):
        embedding.unit_pair_cosines(A, B)


def test_cosine_scores_with_no_rows_or_no_queries_is_empty_like_similarity():
    none = np.zeros((0, 2))
    assert embedding.cosine_scores(none, [1.0, 0.0]).shape == (0,)
    assert embedding.cosine_scores(none, np.eye(2)).shape == (2, 0)
    assert embedding.cosine_scores(none, none).shape == (0, 0)
    assert embedding.cosine_scores(np.eye(2), none).shape == (0, 2)
    assert embedding.similarity(none, none).shape == (0, 0)
