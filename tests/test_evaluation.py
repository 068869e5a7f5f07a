"""lib.evaluation: benchmark readers, Spearman with coverage, 3CosAdd and frequency strata.

References: the published sizes of the benchmarks, SciPy's spearmanr, gensim's own evaluations
(``KeyedVectors.evaluate_word_pairs`` / ``evaluate_word_analogies``), lib.embedding.analogy, and small
hand-made tables.
"""

import codecs
import math
import re
import warnings

import numpy as np
import pytest
import scipy.stats
from gensim.models import KeyedVectors

from lib.corpus import Vocabulary, tokenize
from lib.embedding import TIE_RTOL, analogy
from lib.evaluation import (
    AnalogyResult,
    SimilarityResult,
    analogy_accuracy,
    analogy_predictions,
    pair_cosines,
    read_analogies,
    read_word_pairs,
    spearman_interval,
    similarity_by_frequency,
    word_similarity,
)

# --- the shipped benchmark files ------------------------------------------------------------------------


def test_wordsim353_has_353_pairs():
    pairs = read_word_pairs("wordsim353")
    assert len(pairs) == 353  # Finkelstein et al. 2002
    assert pairs[0] == ("love", "sex", 6.77) and pairs[2] == ("tiger", "tiger", 10.0)
    assert all(0 <= s <= 10 for _, _, s in pairs)


def test_simlex999_has_999_pairs():
    pairs = read_word_pairs("simlex999")
    assert len(pairs) == 999  # Hill et al. 2015
    assert pairs[1] == ("smart", "intelligent", 9.2)


def test_analogy_file_has_the_published_question_counts():
    """Mikolov et al. 2013a, Table 1: 8,869 semantic and 10,675 syntactic questions in 14 sections."""
    sections = read_analogies("analogies")
    names = list(sections)
    assert len(names) == 14 and names[0] == "capital-common-countries"
    semantic = sum(len(sections[n]) for n in names[:5])
    syntactic = sum(len(sections[n]) for n in names[5:])
    assert (semantic, syntactic) == (8869, 10675)
    assert sections[names[0]][0] == ("athens", "greece", "baghdad", "iraq")


def test_readers_keep_case_when_asked():
    assert read_analogies("analogies", lowercase=False)["capital-common-countries"][0][0] == "Athens"


@pytest.mark.parametrize(
    "text, match",
    [
        ("a\tb\t1.0\nc\td\n", "line 2: expected"),
        ("# header\na\tb\thigh\n", "line 2: score 'high' is not a number"),
        ("a\tb\tnan\n", "not finite"),
    ],
)
def test_word_pair_reader_names_the_bad_line(tmp_path, text, match):
    path = tmp_path / "pairs.tsv"
    path.write_text(text)
    with pytest.raises(ValueError, match=match):
        read_word_pairs(path)


def test_a_word_that_folds_to_nothing_is_an_error_naming_the_line(tmp_path):
    # attack-15 F15: a word that is only a combining accent was read as ('', 'x', 1.0)
    path = tmp_path / "pairs.tsv"
    path.write_text("a\tb\t2\n\u0301\tx\t1\n", encoding="utf-8")
    with pytest.raises(ValueError) as info:
        read_word_pairs(path)
    assert str(info.value) == (
        "pairs.tsv, line 2: word 1 '\u0301' is empty after folding case and accents (lib.corpus.fold), in '\u0301\\tx\\t1'"
    )
    assert read_word_pairs(path, lowercase=False)[1] == ("\u0301", "x", 1.0)  # as written: not empty
    path.write_text("a\t \t1\n", encoding="utf-8")  # an empty field (spaces around a field are dropped)
    for lowercase in (True, False):
        with pytest.raises(ValueError, match=r"^pairs.tsv, line 1: word 2 '' is empty, in "):
            read_word_pairs(path, lowercase=lowercase)


@pytest.mark.parametrize("text, match", [("a b c d\n", "before the first"), (": s\na b c\n", "line 2: expected four")])
def test_analogy_reader_names_the_bad_line(tmp_path, text, match):
    path = tmp_path / "q.txt"
    path.write_text(text)
    with pytest.raises(ValueError, match=match):
        read_analogies(path)


@pytest.mark.parametrize("text, message", [
    # a section opened twice was merged into one without a word
    (": s\na b c d\n: t\ne f g h\n: s\ni j k l\n",
     "q.txt, line 5: section 's' is opened again (first at line 1); a section is one run of questions under one "
     "': name' line"),
    # ": " opened a section named '' (the line is stripped first, so ':' alone is the same line)
    (": s\na b c d\n: \ne f g h\n", "q.txt, line 3: a section line needs a name (': name'), got ':'"),
    (":\na b c d\n", "q.txt, line 1: a section line needs a name (': name'), got ':'"),
    # an empty section was kept as s: [] and counted in no total
    (": s\n: t\na b c d\n", "q.txt, line 1: section 's' holds no question (a section line must be followed by at "
                              "least one line of four words)"),
    (": s\na b c d\n\n: t\n\n", "q.txt, line 4: section 't' holds no question (a section line must be followed by "
                                  "at least one line of four words)"),
])
def test_analogy_sections_are_named_once_and_hold_questions(tmp_path, text, message):
    path = tmp_path / "q.txt"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError) as info:
        read_analogies(path)
    assert str(info.value) == message


@pytest.mark.parametrize("text", ["", "\n\n", "# a comment\n\n# another\n"])
def test_a_benchmark_file_without_a_pair_or_a_question_is_refused(tmp_path, text):
    # an empty file gave [] and {}: a score over nothing, said only later (or an accuracy of no question)
    pairs, questions = tmp_path / "p.tsv", tmp_path / "q.txt"
    pairs.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError) as info:
        read_word_pairs(pairs)
    assert str(info.value) == "p.tsv: no word pair in the file (it holds only blank lines and '#' comments)"
    if "#" not in text:  # a '#' line is a question in the analogy format
        questions.write_text(text, encoding="utf-8")
        with pytest.raises(ValueError) as info:
            read_analogies(questions)
        assert str(info.value) == "q.txt: no analogy question in the file (it holds only blank lines)"


def test_analogy_sections_keep_the_file_order_and_a_name_with_spaces(tmp_path):
    path = tmp_path / "q.txt"
    path.write_text(":  gram1 adjective\na b c d\n: capital\ne f g h\ni j k l\n", encoding="utf-8")
    assert read_analogies(path) == {"gram1 adjective": [("a", "b", "c", "d")],
                                    "capital": [("e", "f", "g", "h"), ("i", "j", "k", "l")]}


def test_reader_rejects_a_non_path():
    with pytest.raises(TypeError, match="path"):
        read_word_pairs(3)


# --- word similarity -----------------------------------------------------------------------------------------


TOKENS = ["cat", "dog", "car", "truck", "pet"]
TABLE = np.array([[1.0, 0.1], [0.9, 0.3], [0.0, 1.0], [0.1, 0.9], [0.8, 0.5]])


def test_spearman_matches_scipy_on_the_usable_pairs():
    pairs = [("cat", "dog", 9.0), ("cat", "car", 1.0), ("car", "truck", 8.5), ("dog", "pet", 7.0), ("cat", "zebra", 5.0)]
    result = word_similarity(TABLE, TOKENS, pairs)
    unit = TABLE / np.linalg.norm(TABLE, axis=1, keepdims=True)
    idx = {t: i for i, t in enumerate(TOKENS)}
    cos = [unit[idx[a]] @ unit[idx[b]] for a, b, _ in pairs[:4]]
    expected = scipy.stats.spearmanr(cos, [s for _, _, s in pairs[:4]]).statistic
    assert result.rho == pytest.approx(expected)
    assert (result.n_used, result.n_total, result.oov_rate) == (4, 5, pytest.approx(0.2))


def test_spearman_and_oov_match_gensim(tmp_path):
    rng = np.random.default_rng(0)
    vocab = [f"w{i}" for i in range(40)]
    vectors = rng.standard_normal((40, 12)).astype(np.float32)
    # distinct words in a pair: a word with itself has cosine 1, a tie that float32 rounding breaks
    drawn = [rng.choice(50, 2, replace=False) for _ in range(60)]
    lines = ["# header"] + [f"w{a}\tw{b}\t{rng.uniform(0, 10):.2f}" for a, b in drawn]
    path = tmp_path / "pairs.tsv"
    path.write_text("\n".join(lines) + "\n")
    kv = KeyedVectors(12)
    kv.add_vectors(vocab, vectors)
    _, spearman, oov_percent = kv.evaluate_word_pairs(str(path), case_insensitive=False)
    ours = word_similarity(vectors, vocab, read_word_pairs(path, lowercase=False))
    assert ours.rho == pytest.approx(spearman.statistic, abs=1e-6)
    assert 100 * ours.oov_rate == pytest.approx(oov_percent)


def test_fewer_than_two_usable_pairs_is_a_clear_error():
    with pytest.raises(ValueError, match="only 1 of 3 word pairs .* at least 2"):
        word_similarity(TABLE, TOKENS, [("cat", "dog", 3.0), ("cat", "zebra", 1.0), ("lion", "dog", 2.0)])
    with pytest.raises(ValueError, match="no word pairs"):
        word_similarity(TABLE, TOKENS, [])


def test_constant_scores_are_a_clear_error():
    with pytest.raises(ValueError, match="^the human scores of the 2 usable pairs are all equal, so Spearman's rho is undefined$"):
        word_similarity(TABLE, TOKENS, [("cat", "dog", 3.0), ("car", "truck", 3.0)])
    flat = np.ones((5, 2))
    with pytest.raises(ValueError, match="^the cosine similarities of the 2 usable pairs are all equal, so Spearman's rho is undefined$"):
        word_similarity(flat, TOKENS, [("cat", "dog", 3.0), ("car", "truck", 5.0)])
    # the same rule in each frequency stratum, named
    with pytest.raises(ValueError, match="^stratum 0\\+: the cosine similarities of the 2 usable pairs are all equal"):
        similarity_by_frequency(flat, TOKENS, [1] * 5, [("cat", "dog", 3.0), ("car", "truck", 5.0)], [0, np.inf])


def test_table_and_vocabulary_must_match():
    with pytest.raises(ValueError, match="5 rows but the vocabulary has 4"):
        word_similarity(TABLE, TOKENS[:4], [("cat", "dog", 1.0)])
    bad = TABLE.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        word_similarity(bad, TOKENS, [("cat", "dog", 1.0), ("car", "truck", 2.0)])
    with pytest.raises(ValueError, match="twice"):
        word_similarity(TABLE, ["a", "a", "b", "c", "d"], [("a", "b", 1.0)])


def test_accepts_a_vocabulary_object():
    vocab = Vocabulary(TOKENS)
    pairs = [("cat", "dog", 9.0), ("cat", "car", 1.0), ("car", "truck", 8.5)]
    assert word_similarity(TABLE, vocab, pairs) == word_similarity(TABLE, TOKENS, pairs)


def test_similarity_by_frequency_partitions_the_pairs():
    rng = np.random.default_rng(1)
    vocab = [f"w{i}" for i in range(30)]
    vectors = rng.standard_normal((30, 6))
    counts = np.arange(30) * 3 + 2  # w0 has 2, w29 has 89
    pairs = [(f"w{rng.integers(0, 30)}", f"w{rng.integers(0, 30)}", float(rng.uniform(0, 10))) for _ in range(80)]
    strata = similarity_by_frequency(vectors, vocab, counts, pairs, [0, 20, 50, np.inf])
    assert [label for label, _ in strata] == ["0-19", "20-49", "50+"]
    rarer = [min(counts[int(a[1:])], counts[int(b[1:])]) for a, b, _ in pairs]
    for (label, result), (lo, hi) in zip(strata, [(0, 20), (20, 50), (50, np.inf)]):
        chosen = [p for p, r in zip(pairs, rarer) if lo <= r < hi]
        assert result == word_similarity(vectors, vocab, chosen)
    assert sum(r.n_used for _, r in strata) == 80


def test_similarity_by_frequency_errors():
    counts = np.array([5, 5, 50, 50, 5])
    pairs = [("cat", "dog", 9.0), ("cat", "car", 1.0), ("car", "truck", 8.5)]
    with pytest.raises(ValueError, match="increasing"):
        similarity_by_frequency(TABLE, TOKENS, counts, pairs, [10, 10])
    with pytest.raises(ValueError, match="shape"):
        similarity_by_frequency(TABLE, TOKENS, counts[:3], pairs, [0, 10])
    with pytest.raises(ValueError, match="stratum 10\\+: only 1 of 1"):
        similarity_by_frequency(TABLE, TOKENS, counts, pairs, [0, 10, np.inf])
    # pairs were given, none falls in the stratum: it said "no word pairs given"
    with pytest.raises(ValueError, match=r"^stratum 0-0: no usable pair has its rarer word's count in it "
                                         r"\(3 usable pairs in all\); choose other edges$"):
        similarity_by_frequency(TABLE, TOKENS, counts, pairs, [0, 0.5, np.inf])


# --- analogies ------------------------------------------------------------------------------------------------------


def test_3cosadd_on_a_hand_made_table():
    tokens = ["man", "woman", "king", "queen", "apple"]
    table = np.array([[1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [1.0, 0.0, 1.0], [1.0, 1.0, 1.0], [0.0, 0.0, 1.0]])
    sections = {"royal": [("man", "woman", "king", "queen"), ("man", "king", "woman", "queen"), ("man", "apple", "woman", "king")]}
    result = analogy_accuracy(table, tokens, sections)
    assert (result.correct, result.attempted, result.total) == (2, 3, 3)
    assert result.accuracy == pytest.approx(2 / 3) and result.coverage == 1.0


def test_batched_predictions_equal_lib_embedding_analogy():
    rng = np.random.default_rng(2)
    table = rng.standard_normal((25, 7))
    table[4] = 0.0  # a zero row: cosine 0 under both rules
    questions = rng.integers(0, 25, size=(60, 3))
    got = analogy_predictions(table, questions, chunk=16)
    expected = [analogy(table, a, b, c, k=1)[0][0] for a, b, c in questions]
    assert got.tolist() == expected


def test_batched_predictions_follow_the_near_tie_rule_of_lib_embedding_analogy():
    # rows 3 and 4 have cosines 0.816496580927522 and ...726 with the target: 2e-13 apart, a near-tie that
    # goes to the smaller row; argmax took row 4
    table = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 1, 1, 1e-6], [0, 1, 1, 0]]
    cosines = [s for _, s in analogy(table, 0, 1, 2, k=2)]
    assert 0 < cosines[1] - cosines[0] < TIE_RTOL
    assert analogy(table, 0, 1, 2)[0][0] == 3
    assert analogy_predictions(table, np.array([[0, 1, 2]])).tolist() == [3]
    # and at random, among rows equal up to rounding: copies, multiples and near-copies of each other
    rng = np.random.default_rng(4)
    for _ in range(20):
        base = rng.standard_normal((6, 5))
        table = np.concatenate([base, base[rng.integers(6, size=14)] * rng.choice([1.0, 3.0, 1e-3], (14, 1))
                                * (1 + rng.choice([0.0, 1e-15, 1e-14], (14, 1)))])
        questions = rng.integers(0, 20, size=(30, 3))
        want = [analogy(table, a, b, c)[0][0] for a, b, c in questions]
        assert analogy_predictions(table, questions, chunk=7).tolist() == want


def test_analogy_accuracy_matches_gensim(tmp_path):
    rng = np.random.default_rng(3)
    vocab = [f"w{i}" for i in range(30)]
    vectors = rng.standard_normal((30, 8)).astype(np.float32)
    # questions built so that some are right: d is the actual 3CosAdd answer for half of them
    lines, sections = [], {}
    for s in range(3):
        lines.append(f": section{s}")
        sections[f"section{s}"] = []
        for _ in range(20):
            a, b, c = (f"w{i}" for i in rng.choice(34, 3, replace=False))
            d = f"w{rng.integers(0, 34)}"
            if rng.random() < 0.5 and all(w in vocab for w in (a, b, c)):
                d = vocab[analogy_predictions(vectors, np.array([[vocab.index(a), vocab.index(b), vocab.index(c)]]))[0]]
            lines.append(f"{a} {b} {c} {d}")
            sections[f"section{s}"].append((a, b, c, d))
    path = tmp_path / "q.txt"
    path.write_text("\n".join(lines) + "\n")
    kv = KeyedVectors(8)
    kv.add_vectors(vocab, vectors)
    score, gensim_sections = kv.evaluate_word_analogies(str(path), case_insensitive=False)
    ours = analogy_accuracy(vectors, vocab, read_analogies(path, lowercase=False))
    assert ours.accuracy == pytest.approx(score)
    for sec in gensim_sections[:-1]:
        correct, attempted, _ = ours.by_section[sec["section"]]
        assert (correct, attempted) == (len(sec["correct"]), len(sec["correct"]) + len(sec["incorrect"]))
    assert ours.total == 60 and ours.attempted < 60 and ours.correct > 0


def test_no_attempted_question_is_a_clear_error():
    with pytest.raises(ValueError, match="none of the 1 analogy questions"):
        analogy_accuracy(TABLE, TOKENS, {"s": [("cat", "dog", "car", "zebra")]})


def test_analogy_prediction_errors():
    with pytest.raises(ValueError, match="at least 4 rows"):
        analogy_predictions(np.eye(3), [[0, 1, 2]])
    with pytest.raises(ValueError, match="out of range"):
        analogy_predictions(TABLE, [[0, 1, 9]])
    with pytest.raises(ValueError, match="shape"):
        analogy_predictions(TABLE, [0, 1, 2])


@pytest.mark.parametrize("logging", [False, True])
@pytest.mark.parametrize(
    "expected, kind, message",
    [
        ([99, 4], ValueError, "expected row 99 out of range for vocabulary of 5 (allowed 0..4)"),
        ([-1, -1], ValueError, "expected row -1 out of range for vocabulary of 5 (allowed 0..4)"),  # no wrap-around
        ([3.0, 4.0], TypeError, "expected rows must be integers, got dtype float64"),
        ([3], ValueError, "expected must have shape (2,), one row per question, got (1,)"),  # no broadcasting
        ([[3, 4]], ValueError, "expected must have shape (2,), one row per question, got (1, 2)"),
    ],
)
def test_analogy_predictions_checks_expected_always(monkeypatch, tmp_path, logging, expected, kind, message):
    # attack-15 F9: expected was used unchecked under EMBOOK_NUMBER_LOG (IndexError from NumPy, wrap-around,
    # broadcasting) and ignored otherwise, malformed or not
    if logging:
        monkeypatch.setenv("EMBOOK_NUMBER_LOG", str(tmp_path / "numbers.jsonl"))
    else:
        monkeypatch.delenv("EMBOOK_NUMBER_LOG", raising=False)
    q = np.array([[0, 1, 2], [1, 2, 3]])
    with pytest.raises(kind) as info:
        analogy_predictions(np.eye(5), q, expected=expected)
    assert str(info.value) == message
    assert analogy_predictions(np.eye(5), q, expected=[3, 4]).shape == (2,)


def test_result_types():
    assert isinstance(analogy_accuracy(TABLE, TOKENS, {"s": [("cat", "dog", "car", "truck")]}), AnalogyResult)
    assert isinstance(word_similarity(TABLE, TOKENS, [("cat", "dog", 1.0), ("car", "pet", 2.0)]), SimilarityResult)


def test_oov_rate_is_a_fraction():
    r = SimilarityResult(0.5, 3, 4)
    assert r.oov_rate == pytest.approx(0.25) and not math.isnan(r.rho)


def test_rates_of_results_with_nothing_counted_are_refused_not_divided_by_zero():
    assert AnalogyResult(3, 4, 8, {}).accuracy == 0.75 and AnalogyResult(3, 4, 8, {}).coverage == 0.5
    with pytest.raises(ValueError, match="accuracy is undefined for an AnalogyResult with attempted = 0"):
        AnalogyResult(0, 0, 5, {}).accuracy
    assert AnalogyResult(0, 0, 5, {}).coverage == 0.0
    with pytest.raises(ValueError, match="coverage is undefined for an AnalogyResult with total = 0"):
        AnalogyResult(0, 0, 0, {}).coverage
    with pytest.raises(ValueError, match="oov_rate is undefined for a SimilarityResult with n_total = 0"):
        SimilarityResult(0.5, 0, 0).oov_rate


@pytest.mark.parametrize("scale", [1e-300, 1e-200, 1e200, 1e300])
def test_evaluations_do_not_depend_on_the_size_of_the_vectors(scale):
    rng = np.random.default_rng(6)
    vocab = [f"w{i}" for i in range(20)]
    vectors = rng.standard_normal((20, 5))
    pairs = [(f"w{a}", f"w{b}", float(rng.uniform(0, 10))) for a, b in rng.integers(0, 20, size=(30, 2)) if a != b]
    assert word_similarity(vectors * scale, vocab, pairs).rho == pytest.approx(word_similarity(vectors, vocab, pairs).rho, abs=1e-12)
    questions = rng.integers(0, 20, size=(40, 3))
    np.testing.assert_array_equal(analogy_predictions(vectors * scale, questions), analogy_predictions(vectors, questions))
    counts = np.arange(20) + 1
    by_freq = similarity_by_frequency(vectors * scale, vocab, counts, pairs, [0, 8, np.inf])
    assert [(label, round(r.rho, 12)) for label, r in by_freq] == [
        (label, round(r.rho, 12)) for label, r in similarity_by_frequency(vectors, vocab, counts, pairs, [0, 8, np.inf])
    ]


# --- human scores that are not finite numbers -------------------------------------------------------------


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf"), np.float64("nan"), np.float32("inf")])
def test_a_non_finite_human_score_is_an_error_naming_the_pair(bad):
    pairs = [("cat", "dog", 9.0), ("cat", "car", bad), ("car", "truck", 8.5)]
    with pytest.raises(ValueError, match=r"the human score of pair 1 \('cat', 'car'\) must be a finite number, got"):
        word_similarity(TABLE, TOKENS, pairs)  # was rho = nan, no error
    # also when the pair is out of the vocabulary: the file is broken whether or not the words have rows
    with pytest.raises(ValueError, match=r"pair 1 \('cat', 'zebra'\)"):
        word_similarity(TABLE, TOKENS, [("cat", "dog", 9.0), ("cat", "zebra", bad), ("car", "truck", 8.5)])
    with pytest.raises(ValueError, match=r"pair 1 \('cat', 'car'\) must be a finite number"):
        similarity_by_frequency(TABLE, TOKENS, np.array([5, 5, 50, 50, 5]), pairs, [0, np.inf])


def test_a_human_score_or_edge_beyond_float64_is_a_value_error():
    # attack-15 F5: an int too large for a float raised OverflowError from inside float()
    tab = [[1, 0], [0.9, 0.1], [0, 1], [0.5, 0.5]]
    voc = ["cat", "dog", "car", "cow"]
    pairs = [("cat", "dog", 9.0), ("cat", "car", 1.0), ("dog", "car", 2.0)]
    with pytest.raises(ValueError) as info:
        word_similarity(tab, voc, pairs + [("cow", "cat", 10**400)])
    assert str(info.value) == (
        "the human score of pair 3 ('cow', 'cat') must be a finite number, got an integer of 401 digits, "
        "beyond the float64 range (about 1.8e308)"
    )
    with pytest.raises(ValueError) as info:
        similarity_by_frequency(tab, voc, [5, 5, 5, 5], pairs, [0, 10**400])
    assert str(info.value) == (
        "the last edge must be a finite number (or np.inf), got an integer of 401 digits, beyond the float64 range "
        "(about 1.8e308)"
    )
    assert word_similarity(tab, voc, pairs + [("cow", "cat", 1e300)]).n_used == 4  # large but finite: fine
    with pytest.raises(ValueError, match=r"^the human score of pair 3 \('cow', 'cat'\) is an integer of 301 digits, beyond 2"):
        word_similarity(tab, voc, pairs + [("cow", "cat", 10**300)])  # an int beyond 2**53: see the test below


@pytest.mark.parametrize(
    "pairs, match",
    [
        ([("cat", "dog", "9.0"), ("car", "truck", 1.0)], r"human score of pair 0 \('cat', 'dog'\) must be an int or a float \(Python or NumPy\), got '9.0' of type str$"),
        ([("cat", "dog", None), ("car", "truck", 1.0)], "got None"),
        ([("cat", "dog", True), ("car", "truck", 1.0)], "got True"),
        ([("cat", "dog"), ("car", "truck", 1.0)], r"pairs\[0\] must be \(word1, word2, score\)"),
        ([("cat", 3, 1.0), ("car", "truck", 1.0)], r"pairs\[0\] must have two str words"),
        ("cat dog 1.0", "single string"),
    ],
)
def test_malformed_pairs_are_type_errors(pairs, match):
    with pytest.raises(TypeError, match=match):
        word_similarity(TABLE, TOKENS, pairs)


def test_numpy_scores_are_accepted_and_give_scipys_rho():
    pairs = [("cat", "dog", np.float32(9.0)), ("cat", "car", np.int64(1)), ("car", "truck", 8.5)]
    unit = TABLE / np.linalg.norm(TABLE, axis=1, keepdims=True)
    cos = [unit[0] @ unit[1], unit[0] @ unit[2], unit[2] @ unit[3]]
    assert word_similarity(TABLE, TOKENS, pairs).rho == pytest.approx(scipy.stats.spearmanr(cos, [9, 1, 8.5]).statistic)


@pytest.mark.parametrize("text", ["a\tb\tnan\n", "a\tb\tinf\n", "a\tb\t-Infinity\n"])
def test_word_pair_reader_names_the_pair_of_a_non_finite_score(tmp_path, text):
    path = tmp_path / "pairs.tsv"
    path.write_text("x\ty\t1.0\n" + text)
    with pytest.raises(ValueError, match=r"pairs.tsv, line 2: the score of \('a', 'b'\) is not finite"):
        read_word_pairs(path)


def test_word_pair_reader_refuses_an_integer_score_beyond_2_53(tmp_path):
    # 9007199254740993 = 2**53 + 1 was read as 9007199254740992.0 and tied with the next line's score
    path = tmp_path / "pairs.tsv"
    path.write_text("x\ty\t1\na\tb\t9007199254740993\nc\td\t9007199254740992\n")
    with pytest.raises(ValueError) as info:
        read_word_pairs(path)
    assert str(info.value) == (
        "pairs.tsv, line 2: the score of ('a', 'b') is the integer 9007199254740993, beyond 2**53: float64, in "
        "which scores are ranked, does not hold it exactly, so it could tie with its neighbours; write the "
        "scores on a smaller scale")
    path.write_text("a\tb\t-9007199254740992\nc\td\t9007199254740993.0\n")  # 2**53 itself, and a decimal
    assert read_word_pairs(path) == [("a", "b", -9007199254740992.0), ("c", "d", 9007199254740992.0)]


@pytest.mark.parametrize(
    "edges, kind, match",
    [
        ([0, float("nan")], ValueError, "the last edge must be a finite number .or np.inf., got nan"),
        ([float("nan"), 10], ValueError, r"edges\[0\] must be a finite number, got nan"),
        ([-np.inf, 10], ValueError, r"edges\[0\] must be a finite number"),
        ([0, "10"], TypeError, "the last edge must be a finite number"),
        ([0], ValueError, "at least two increasing"),
    ],
)
def test_similarity_by_frequency_rejects_edges_that_are_not_numbers(edges, kind, match):
    pairs = [("cat", "dog", 9.0), ("cat", "car", 1.0), ("car", "truck", 8.5)]
    with pytest.raises(kind, match=match):
        similarity_by_frequency(TABLE, TOKENS, np.array([5, 5, 50, 50, 5]), pairs, edges)


def test_similarity_by_frequency_rejects_counts_that_are_not_counts():
    pairs = [("cat", "dog", 9.0), ("cat", "car", 1.0), ("car", "truck", 8.5)]
    with pytest.raises(TypeError, match="counts must be integers, got dtype float64"):
        similarity_by_frequency(TABLE, TOKENS, np.array([5, np.nan, 50, 50, 5]), pairs, [0, np.inf])
    with pytest.raises(ValueError, match="counts must be >= 0"):
        similarity_by_frequency(TABLE, TOKENS, np.array([5, -5, 50, 50, 5]), pairs, [0, np.inf])
    # Python integers beyond int64 are integers, not "got dtype object"; a time span is not a count
    with pytest.raises(ValueError, match=re.escape(f"counts must fit in int64 (-2**63 to 2**63 - 1), got {2**70}")):
        similarity_by_frequency(TABLE, TOKENS, [5, 2**70, 50, 50, 5], pairs, [0, np.inf])
    with pytest.raises(TypeError, match=re.escape("counts must be integers, got dtype timedelta64[s]")):
        similarity_by_frequency(TABLE, TOKENS, np.array([5, 5, 50, 50, 5], dtype="m8[s]"), pairs, [0, np.inf])
    # uint64 counts of 2**63 and more do not fit in int64: refused as documented (they used to be accepted)
    with pytest.raises(ValueError) as info:
        similarity_by_frequency(TABLE, TOKENS, np.array([5, 2**64 - 1, 50, 50, 5], dtype=np.uint64), pairs, [0, np.inf])
    assert str(info.value) == "counts must be < 2**63 (at most 9223372036854775807), got 18446744073709551615"


# --- benchmark files saved with a byte-order mark ------------------------------------------------------------

MARKS = {
    "utf-8 BOM": lambda t: t.encode("utf-8-sig"),
    "utf-16 BOM": lambda t: t.encode("utf-16"),  # Python writes the mark of the machine's byte order
    "utf-8 BOM, CRLF": lambda t: t.replace("\n", "\r\n").encode("utf-8-sig"),
}


@pytest.mark.parametrize("mark", sorted(MARKS))
def test_word_pair_file_with_a_byte_order_mark_keeps_its_first_pair(tmp_path, mark):
    path = tmp_path / "pairs.tsv"
    path.write_bytes(MARKS[mark]("cat\tdog\t9.0\ncat\tcar\t1.0\ncar\ttruck\t8.5\n"))
    pairs = read_word_pairs(path)
    assert pairs == [("cat", "dog", 9.0), ("cat", "car", 1.0), ("car", "truck", 8.5)]  # was 2 pairs: '\ufeffcat'
    result = word_similarity(TABLE, TOKENS, pairs)
    assert (result.n_used, result.n_total) == (3, 3)
    path.write_bytes(MARKS[mark]("# a header\ncat\tdog\t9.0\n"))
    assert read_word_pairs(path) == [("cat", "dog", 9.0)]  # the header is still a comment
    path.write_bytes(MARKS[mark]("cat\tdog\tnine\n"))
    with pytest.raises(ValueError, match="pairs.tsv, line 1: score 'nine' is not a number"):  # line 1, not 0 or 2
        read_word_pairs(path)


@pytest.mark.parametrize("mark", sorted(MARKS))
def test_analogy_file_with_a_byte_order_mark_opens_its_first_section(tmp_path, mark):
    path = tmp_path / "q.txt"
    path.write_bytes(MARKS[mark](": royal\nman woman king queen\n: other\na b c d\n"))
    assert read_analogies(path) == {"royal": [("man", "woman", "king", "queen")], "other": [("a", "b", "c", "d")]}
    path.write_bytes(MARKS[mark](": royal\nman woman king\n"))
    with pytest.raises(ValueError, match="q.txt, line 2: expected four words"):
        read_analogies(path)
    path.write_bytes(MARKS[mark]("# header\n: royal\nman woman king queen\n"))
    with pytest.raises(ValueError, match=re.escape(  # was "a question before the first ': section' line"
            "q.txt, line 1: a comment ('#' is not a comment in this format) before the first ': section' line; a "
            "line is a section (': name') or a question (four words a b c d), got '# header'")):
        read_analogies(path)


@pytest.mark.parametrize("chunk, kind, match", [
    (0, ValueError, r"chunk must be an integer in \[1, 268435456\] \(questions scored at a time\), got 0"),  # was range()'s error
    (2**28 + 1, ValueError, r"chunk must be an integer in \[1, 268435456\] \(questions scored at a time\), got 268435457"),
    (-5, ValueError, "got -5"),
    (2.0, TypeError, "got 2.0"),
    (True, TypeError, "got True"),
    ([16], TypeError, r"got \[16\]"),
])
def test_analogy_chunk_must_be_an_integer_in_its_range(chunk, kind, match):
    with pytest.raises(kind, match=match):
        analogy_predictions(TABLE, [[0, 1, 2]], chunk=chunk)


def test_every_chunk_size_gives_the_same_answers():
    rng = np.random.default_rng(4)
    table, questions = rng.standard_normal((15, 4)), rng.integers(0, 15, size=(23, 3))
    expected = [analogy(table, a, b, c, k=1)[0][0] for a, b, c in questions]
    for chunk in (1, 2, 7, 23, 1000):
        assert analogy_predictions(table, questions, chunk=chunk).tolist() == expected


# --- benchmark words are folded by the corpus tokeniser's rule ----------------------------------------------


def test_benchmark_words_match_corpus_tokens_under_one_case_rule(tmp_path):
    corpus = [tokenize("İstanbul and Ankara; Café and CAFÉ; Zürich and İzmir")]
    vocab = Vocabulary.from_sentences(corpus)
    assert "istanbul" in vocab and "cafe" in vocab and "izmir" in vocab
    path = tmp_path / "pairs.tsv"
    path.write_text("İstanbul\tAnkara\t7.0\nCafé\tZürich\t1.0\nİzmir\tİstanbul\t8.0\n", encoding="utf-8")
    pairs = read_word_pairs(path)
    assert pairs == [("istanbul", "ankara", 7.0), ("cafe", "zurich", 1.0), ("izmir", "istanbul", 8.0)]  # was 'i̇stanbul'
    rng = np.random.default_rng(0)
    assert word_similarity(rng.standard_normal((len(vocab), 3)), vocab, pairs).n_used == 3  # was 1 of 3
    path = tmp_path / "q.txt"
    path.write_text(": cities\nİstanbul Ankara İzmir Zürich\n", encoding="utf-8")
    assert read_analogies(path) == {"cities": [("istanbul", "ankara", "izmir", "zurich")]}
    assert read_analogies(path, lowercase=False)["cities"][0][0] == "İstanbul"
    with pytest.raises(TypeError, match="lowercase must be True or False"):
        read_word_pairs(path, lowercase="yes")


@pytest.mark.parametrize("score, hint", [
    ("\u0667", " (numbers are written with the ASCII digits 0-9: '\u0667' is U+0667 ARABIC-INDIC DIGIT SEVEN, write 7)"),
    ("\u0967.\u0665", " (numbers are written with the ASCII digits 0-9: '\u0967' is U+0967 DEVANAGARI DIGIT ONE, write 1)"),
    ("\uff17", " (numbers are written with the ASCII digits 0-9: '\uff17' is U+FF17 FULLWIDTH DIGIT SEVEN, write 7)"),
    ("\u00b9", " (numbers are written with the ASCII digits 0-9: '\u00b9' is U+00B9 SUPERSCRIPT ONE, write 1)"),
    ("\u22123", " (U+2212 MINUS SIGN is not ASCII: write '-')"),  # ASCII digits: the sign is named, not the digits
    ("\uff0b3", " (U+FF0B FULLWIDTH PLUS SIGN is not ASCII: write '+')"),
    ("7_0", ""), ("0x7", ""),
])
def test_word_pair_scores_follow_the_one_rule_for_numbers(tmp_path, score, hint):
    path = tmp_path / "pairs.tsv"
    path.write_text(f"a\tb\t1.5\nc\td\t{score}\n", encoding="utf-8")
    with pytest.raises(ValueError) as info:
        read_word_pairs(path)  # float() reads '٧' as 7.0
    assert str(info.value).endswith(f"pairs.tsv, line 2: score {score!r} is not a number{hint}")
    path.write_text("a\tb\t+7.5e-1\n", encoding="utf-8")
    assert read_word_pairs(path) == [("a", "b", 0.75)]


def test_pair_cosines_keeps_the_in_vocabulary_pairs_in_order():
    from lib.evaluation import pair_cosines

    table = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    pairs = [("a", "b", 1.0), ("a", "zzz", 5.0), ("a", "c", 3.0)]
    cosine, human, used = pair_cosines(table, ["a", "b", "c"], pairs)
    np.testing.assert_allclose(cosine, [0.0, 1 / math.sqrt(2)])
    assert human.tolist() == [1.0, 3.0] and used.tolist() == [True, False, True]


def _paired_data(n=120, seed=3):
    rng = np.random.default_rng(seed)
    human = rng.normal(size=n)
    return human, human + rng.normal(scale=2.0, size=n), human + rng.normal(scale=3.0, size=n)


def test_spearman_interval_equals_scipy_with_spearmanr():
    from lib.evaluation import spearman_interval

    human, a, _ = _paired_data()
    ours = spearman_interval(a, human, n_resamples=1000, seed=5)
    reference = scipy.stats.bootstrap(
        (a, human), lambda x, y: scipy.stats.spearmanr(x, y).statistic, paired=True, vectorized=False,
        n_resamples=1000, method="BCa", rng=np.random.default_rng(5),
    )
    assert ours.statistic == pytest.approx(scipy.stats.spearmanr(a, human).statistic, abs=1e-12)
    assert ours.low == pytest.approx(reference.confidence_interval.low, abs=1e-12)
    assert ours.high == pytest.approx(reference.confidence_interval.high, abs=1e-12)
    assert ours.low < ours.statistic < ours.high and (ours.n, ours.n_resamples, ours.confidence) == (120, 1000, 0.95)
    assert spearman_interval(a, human, n_resamples=1000, seed=5) == ours  # the same seed, the same interval


def test_spearman_interval_of_a_difference_equals_scipy():
    from lib.evaluation import spearman_interval

    human, a, b = _paired_data()
    ours = spearman_interval(a, human, baseline=b, n_resamples=500, seed=2, method="percentile")

    def difference(x, y, h):
        return scipy.stats.spearmanr(x, h).statistic - scipy.stats.spearmanr(y, h).statistic

    reference = scipy.stats.bootstrap((a, b, human), difference, paired=True, vectorized=False, n_resamples=500,
                                      method="percentile", rng=np.random.default_rng(2))
    assert ours.statistic == pytest.approx(difference(a, b, human), abs=1e-12)
    assert ours.low == pytest.approx(reference.confidence_interval.low, abs=1e-12)
    assert ours.high == pytest.approx(reference.confidence_interval.high, abs=1e-12)


def test_spearman_interval_handles_ties_like_spearmanr():
    from lib.evaluation import spearman_interval

    human = np.array([1.0, 2.0, 2.0, 3.0, 4.0, 4.0, 5.0, 6.0])
    predicted = np.array([0.1, 0.3, 0.2, 0.2, 0.5, 0.4, 0.4, 0.9])
    result = spearman_interval(predicted, human, n_resamples=200)
    assert result.statistic == pytest.approx(scipy.stats.spearmanr(predicted, human).statistic, abs=1e-12)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(predicted=[1, 2, 3], human=[1, 2]), "must be 1-D of one length"),
        (dict(predicted=[1, 2], human=[1, 2]), "at least 3 pairs, got 2"),
        (dict(predicted=[1, 2, np.nan], human=[1, 2, 3]), "must be finite"),
        (dict(predicted=[1, 2, 3], human=[1, 2, 3], confidence=1.0), r"confidence must be a finite number in \(0, 1\), got 1.0"),
        (dict(predicted=[1, 2, 3], human=[1, 2, 3], n_resamples=10), re.escape("n_resamples must be an integer in [100, 10000000], got 10")),
    ],
)

def test_spearman_interval_rejects_bad_input(kwargs, match):
    from lib.evaluation import spearman_interval

    with pytest.raises(ValueError, match=match):
        spearman_interval(**kwargs)


@pytest.mark.parametrize(
    "kwargs, kind, message",
    [
        (dict(seed=-1), ValueError, "seed must be an integer >= 0, got -1"),  # was NumPy's unnamed error
        (dict(seed=1.5), TypeError, "seed must be an integer >= 0, got 1.5"),
        (dict(seed=True), TypeError, "seed must be an integer >= 0, got True"),  # was accepted
        (dict(predicted=["a", "b", "c"], human=[1, 2, 3]), TypeError, "predicted must hold real numbers, got dtype <U1"),
        (dict(predicted=[True, False, True, False], human=[1, 2, 3, 4]), TypeError,
         "predicted must hold real numbers, got dtype bool"),  # bools were accepted as scores
        (dict(human=[1, None, 3, 4, 5]), TypeError, "human must hold real numbers, got dtype object"),
        (dict(baseline=["x"] * 5), TypeError, "baseline must hold real numbers, got dtype <U1"),
        (dict(baseline=[1, 2, np.inf, 4, 5]), ValueError, "baseline scores must be finite (no NaN or infinity)"),
        # SciPy's AttributeError ('NoneType' object has no attribute 'lower') or its own message
        (dict(method=None), ValueError, "method must be one of ('BCa', 'percentile', 'basic') (in any case), got None"),
        (dict(method=1), ValueError, "method must be one of ('BCa', 'percentile', 'basic') (in any case), got 1"),
        (dict(method="foo"), ValueError, "method must be one of ('BCa', 'percentile', 'basic') (in any case), got 'foo'"),
        # NumPy's "Maximum allowed dimension exceeded" and a MemoryError for 36 TiB
        (dict(n_resamples=10**30), ValueError,
         "n_resamples must be an integer in [100, 10000000], got 1000000000000000000000000000000"),
        (dict(n_resamples=10**7 + 1), ValueError, "n_resamples must be an integer in [100, 10000000], got 10000001"),
        (dict(n_resamples=1e3), TypeError, "n_resamples must be an integer in [100, 10000000], got 1000.0"),
    ],
)
def test_spearman_interval_names_the_bad_argument(kwargs, kind, message):
    # attack-15 F6: these failed inside NumPy (seed, strings) or were accepted (True as a seed, bools as scores)
    args = dict(predicted=[1, 2, 3, 4, 5], human=[2, 1, 3, 5, 4], n_resamples=100) | kwargs
    with pytest.raises(kind) as info:
        spearman_interval(**args)
    assert str(info.value) == message


def test_human_scores_at_the_ends_of_float64_give_no_warning():
    # attack-15 F7: np.ptp(human) overflowed for -1e308 and 1e308 (a RuntimeWarning, though rho was right)
    tab = [[1, 0], [0.9, 0.1], [0, 1], [0.5, 0.5]]
    voc = ["cat", "dog", "car", "cow"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = word_similarity(tab, voc, [("cat", "dog", 1e308), ("cat", "car", -1e308), ("dog", "car", 0.0)])
    assert result == SimilarityResult(rho=1.0, n_used=3, n_total=3)


def test_parallel_vectors_at_any_scale_have_cosine_exactly_one():
    rng = np.random.default_rng(3)
    for _ in range(200):
        v = rng.standard_normal(int(rng.integers(2, 50)))
        table = np.array([v, v * 1e-300, v * 1e300, -v * 3e-100])
        pairs = [("a", "b", 1.0), ("a", "c", 2.0), ("b", "c", 3.0), ("d", "a", 4.0), ("d", "c", 5.0)]
        cosine, _, _ = pair_cosines(table, ["a", "b", "c", "d"], pairs)
        assert cosine.tolist() == [1.0, 1.0, 1.0, -1.0, -1.0]
    with pytest.raises(ValueError, match="cosine similarities of the 3 usable pairs are all equal"):
        word_similarity(table[:3], ["a", "b", "c"], pairs[:3])
    # away from ±1 the cosine is the plain dot product of the unit rows
    cosine, _, _ = pair_cosines([[1.0, 0.0], [1.0, 1.0]], ["x", "y"], [("x", "y", 1.0)])
    assert cosine.tolist() == [float(np.float64(1.0) / np.sqrt(2.0))]


def test_spearman_interval_takes_scipys_methods_in_any_case():
    human, a, _ = _paired_data(n=30)
    for method in ("BCa", "percentile", "basic"):
        want = spearman_interval(a, human, n_resamples=200, method=method)
        for spelled in (method.lower(), method.upper()):
            assert spearman_interval(a, human, n_resamples=200, method=spelled) == want


def test_spearman_interval_of_perfectly_monotone_pairs_says_rho_is_the_same_in_every_resample():
    x, y = np.arange(20.0)[::2], np.arange(10.0)[::-1]  # perfectly decreasing: rho is -1 in every resample
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # SciPy's "invalid value encountered in scalar divide" leaked
        with pytest.raises(ValueError) as info:
            spearman_interval(x, y, n_resamples=100)
        assert str(info.value) == (
            "Spearman's rho is -1.0 in every one of the 100 resamples of these 10 pairs (the pairs are perfectly "
            "monotone, so every resample is too), so the BCa interval is undefined"
        )
        with pytest.raises(ValueError, match=r"^the difference in Spearman's rho is 0\.0 in every one of the 100 resamples "
                                             r"of these 10 pairs, so the BCa interval is undefined$"):
            spearman_interval(x, y, baseline=x, n_resamples=100)
    # the percentile interval of a constant distribution is defined: one point
    got = spearman_interval(x, y, n_resamples=100, method="percentile")
    assert (got.statistic, got.low, got.high) == (-1.0, -1.0, -1.0)


def test_spearman_interval_draws_large_bootstraps_in_batches(monkeypatch):
    """SciPy holds every resample at once; beyond BOOTSTRAP_BATCH entries they come in batches of
    BOOTSTRAP_BATCH // n pairs' worth (here made small, to run the batched path quickly)."""
    import lib.evaluation as ev

    seen = []
    original = scipy.stats.bootstrap
    monkeypatch.setattr(ev.scipy.stats, "bootstrap", lambda *a, **kw: seen.append(kw["batch"]) or original(*a, **kw))
    human, a, _ = _paired_data(n=50)
    whole = spearman_interval(a, human, n_resamples=400)
    monkeypatch.setattr(ev, "BOOTSTRAP_BATCH", 50 * 400 - 1)
    batched = spearman_interval(a, human, n_resamples=400)
    assert seen == [None, (50 * 400 - 1) // 50]
    reference = original((a, human), lambda x, y: scipy.stats.spearmanr(x, y).statistic, paired=True,
                         vectorized=False, n_resamples=400, batch=399, rng=np.random.default_rng(0))
    assert batched.low == pytest.approx(reference.confidence_interval.low, abs=1e-12)
    assert batched.high == pytest.approx(reference.confidence_interval.high, abs=1e-12)
    assert batched.statistic == whole.statistic


def test_spearman_interval_of_a_degenerate_bootstrap_is_an_error_not_nan():
    with pytest.raises(ValueError, match=r"^Spearman's rho is undefined in some resamples of these 4 pairs \(too few distinct pairs"):
        spearman_interval([0.3, -0.2, 0.1, 0.05], [1, 2, 3, 4], n_resamples=100)


@pytest.mark.parametrize("kwargs, named", [
    (dict(predicted=[0.5, 0.5, 0.5, 0.5], human=[1, 2, 3, 4]), "predicted"),
    (dict(predicted=[0.1, 0.2, 0.3, 0.4], human=[7, 7, 7, 7]), "human"),
    (dict(predicted=[0.1, 0.2, 0.3, 0.4], human=[1, 2, 4, 3], baseline=[0.0, 0.0, 0.0, 0.0]), "baseline"),
    (dict(predicted=[-1e308, -1e308, -1e308], human=[1, 2, 3]), "predicted"),  # no range overflow
])
def test_spearman_interval_of_constant_scores_says_rho_is_undefined(kwargs, named):
    # was "undefined in some resamples ... (too few distinct pairs ...)": no resample could help
    n = len(kwargs["human"])
    with pytest.raises(ValueError, match=rf"^the {named} scores of the {n} pairs are all equal, so Spearman's rho is undefined$"):
        spearman_interval(**kwargs, n_resamples=100)


def test_spearman_interval_accepts_numpy_numbers_for_its_settings():
    rng = np.random.default_rng(1)
    human = rng.uniform(0, 10, 40)
    predicted = human + rng.standard_normal(40)
    plain = spearman_interval(predicted, human, confidence=0.875, n_resamples=200)
    assert spearman_interval(predicted, human, confidence=np.float32(0.875), n_resamples=np.int64(200)) == plain
    with pytest.raises(TypeError, match="confidence must be a finite number in"):
        spearman_interval(predicted, human, confidence="0.9")


@pytest.mark.parametrize("end, name", [("\u2028", "U+2028"), ("\x85", "U+0085"), ("\u2029", "U+2029"), ("\x1e", "U+001E")])
def test_readers_refuse_line_ends_an_editor_does_not_break_at(tmp_path, end, name):
    pairs = tmp_path / "pairs.txt"
    pairs.write_text(f"# word pairs{end}cat\tdog\t7.0{end}car\ttruck\t6.5\n", encoding="utf-8")
    with pytest.raises(ValueError, match=rf"pairs.txt, line 1: holds the character {re.escape(name)}"):
        read_word_pairs(pairs)
    questions = tmp_path / "questions.txt"
    questions.write_text(f": capitals\na b c d\n: family{end}man woman king queen\n", encoding="utf-8")
    with pytest.raises(ValueError, match=rf"questions.txt, line 3: holds the character {re.escape(name)}"):
        read_analogies(questions)


def test_readers_refuse_a_byte_order_mark_after_the_start(tmp_path):
    joined = tmp_path / "joined.txt"
    joined.write_text("\ufeffcat\tdog\t7.0\n\ufeffcar\ttruck\t6.5\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"joined.txt, line 2: holds a byte-order mark \(U\+FEFF\)"):
        read_word_pairs(joined)
    joined.write_text("\ufeff: family\nman woman king queen\n\ufeff: capitals\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"joined.txt, line 3: holds a byte-order mark"):
        read_analogies(joined)


def test_readers_refuse_a_byte_swapped_byte_order_mark_at_the_start_of_a_line_or_file(tmp_path):
    swapped = tmp_path / "swapped.txt"
    message = r"swapped.txt, line {}: holds the character U\+FFFE, a byte-swapped byte-order mark"
    swapped.write_text("\ufffecat\tdog\t1\n", encoding="utf-8")  # was read as the word '\ufffecat'
    with pytest.raises(ValueError, match=message.format(1)):
        read_word_pairs(swapped)
    swapped.write_text("cat\tdog\t1\n\ufffecar\ttruck\t2\n", encoding="utf-8")
    with pytest.raises(ValueError, match=message.format(2)):
        read_word_pairs(swapped)
    swapped.write_text(": s\n\ufffeathens greece berlin germany\n", encoding="utf-8")
    with pytest.raises(ValueError, match=message.format(2)):
        read_analogies(swapped)


def test_readers_accept_one_leading_byte_order_mark_and_refuse_a_second(tmp_path):
    marked = tmp_path / "marked.txt"
    marked.write_bytes(codecs.BOM_UTF8 + b"cat\tdog\t1\n")
    assert read_word_pairs(marked) == [("cat", "dog", 1.0)]
    marked.write_bytes(codecs.BOM_UTF8 * 2 + b"cat\tdog\t1\n")  # was accepted, both marks removed
    with pytest.raises(ValueError, match=r"^marked.txt, line 1: holds a byte-order mark \(U\+FEFF\), allowed only"):
        read_word_pairs(marked)
    marked.write_bytes(codecs.BOM_UTF8 * 2 + b": s\nathens greece berlin germany\n")
    with pytest.raises(ValueError, match=r"^marked.txt, line 1: holds a byte-order mark \(U\+FEFF\)"):
        read_analogies(marked)

#: a UTF-8 byte-order mark decoded as cp1252 and saved again as UTF-8: "ï»¿", the bytes C3 AF C2 BB C2 BF
MOJIBAKE_MARK = codecs.BOM_UTF8.decode("cp1252").encode("utf-8")
MOJIBAKE_MESSAGE = (r"starts with 'ï»¿', a byte-order mark decoded as cp1252 \(the UTF-8 mark EF BB BF read as "
                    r"Windows-1252 or Latin-1, then saved again\); remove it, or re-save the file as UTF-8$")


def test_readers_refuse_a_byte_order_mark_decoded_as_cp1252(tmp_path):
    assert MOJIBAKE_MARK == bytes.fromhex("C3AFC2BBC2BF")
    path = tmp_path / "pairs.tsv"
    path.write_bytes(MOJIBAKE_MARK + b"cat\tdog\t9.0\ncat\tcar\t1.0\ncar\ttruck\t8.5\ndog\tcar\t2.0\n")
    with pytest.raises(ValueError, match="^pairs.tsv, line 1: " + MOJIBAKE_MESSAGE):  # was 3 of 4 pairs used
        read_word_pairs(path)
    path.write_bytes(codecs.BOM_UTF8 + MOJIBAKE_MARK + b"cat\tdog\t9.0\n")  # a real mark before it
    with pytest.raises(ValueError, match="^pairs.tsv, line 1: " + MOJIBAKE_MESSAGE):
        read_word_pairs(path)
    path.write_bytes(MOJIBAKE_MARK + b": family\nman woman king queen\n")
    with pytest.raises(ValueError, match="^pairs.tsv, line 1: " + MOJIBAKE_MESSAGE):
        read_analogies(path)
    path.write_bytes(b": family\nman woman king queen\n" + MOJIBAKE_MARK + b": capitals\n")  # two files joined
    with pytest.raises(ValueError, match="^pairs.tsv, line 3: " + MOJIBAKE_MESSAGE):
        read_analogies(path)
    with pytest.raises(ValueError, match=r"^pairs\[0\] \('ï»¿cat', 'dog'\): word 1 'ï»¿cat' " + MOJIBAKE_MESSAGE):
        word_similarity(TABLE, TOKENS, [("ï»¿cat", "dog", 9.0), ("cat", "car", 1.0), ("dog", "car", 2.0)])


def test_spaces_around_each_field_are_dropped_alike(tmp_path):
    spaced = tmp_path / "spaced.txt"
    spaced.write_text("cat \t dog\t 7.0\ncar\ttruck\t6.5 \n", encoding="utf-8")
    assert read_word_pairs(spaced) == [("cat", "dog", 7.0), ("car", "truck", 6.5)]


def test_similarity_by_frequency_labels_state_the_integer_counts_of_fractional_edges():
    rng = np.random.default_rng(1)
    vocab = [f"w{i}" for i in range(30)]
    vectors = rng.standard_normal((30, 6))
    counts = np.arange(30) % 5 + 1  # counts 1..5
    pairs = [(f"w{rng.integers(0, 30)}", f"w{rng.integers(0, 30)}", float(rng.uniform(0, 10))) for _ in range(80)]
    strata = similarity_by_frequency(vectors, vocab, counts, pairs, [0.5, 2.5, np.inf])
    assert [label for label, _ in strata] == ["1-2", "3+"]  # count 2 lies in [0.5, 2.5), the first stratum
    assert [label for label, _ in similarity_by_frequency(vectors, vocab, counts, pairs, [1, 3, 6])] == ["1-2", "3-5"]


def test_analogy_predictions_names_vectors_for_a_non_finite_table():
    with pytest.raises(ValueError, match="^vectors contains NaN or infinity"):
        analogy_predictions([[np.nan, 1.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], [[0, 1, 2]])
    with pytest.raises(TypeError, match="vectors must hold real numbers, got dtype complex128"):
        analogy_predictions(np.ones((4, 2), dtype=complex), [[0, 1, 2]])


# --- folding a word after splitting the line, invisible characters, files that are not UTF-8 -------------


@pytest.mark.parametrize("line, message", [
    # written with three words; the spacing accent decomposed to a space, and the line passed as four
    ("father son\u00b4s mother", "expected four words, got 'father son\u00b4s mother'"),
    # five written words, the first a lone combining accent that folded to nothing
    ("\u0301 king queen man woman", "expected four words, got '\u0301 king queen man woman'"),
    ("don\u00b4t b c d", "word 1 'don\u00b4t' is 'don t' after folding case and accents (lib.corpus.fold), not one word, "
                         "in 'don\u00b4t b c d'"),
    ("\u0301 b c d", "word 1 '\u0301' is empty after folding case and accents (lib.corpus.fold), in '\u0301 b c d'"),
])
def test_read_analogies_splits_the_line_before_folding_each_word(tmp_path, line, message):
    path = tmp_path / "q.txt"
    path.write_text(f": s\n{line}\n", encoding="utf-8")
    with pytest.raises(ValueError) as info:
        read_analogies(path)
    assert str(info.value) == f"q.txt, line 2: {message}"


def test_read_word_pairs_refuses_a_word_that_folds_to_two_words(tmp_path):
    path = tmp_path / "p.tsv"
    path.write_text("don\u00b4t\tdo\t5\n", encoding="utf-8")  # was ('don t', 'do', 5.0): no token can match it
    with pytest.raises(ValueError) as info:
        read_word_pairs(path)
    assert str(info.value) == ("p.tsv, line 1: word 1 'don\u00b4t' is 'don t' after folding case and accents "
                               "(lib.corpus.fold), not one word, in 'don\u00b4t\\tdo\\t5'")
    assert read_word_pairs(path, lowercase=False) == [("don\u00b4t", "do", 5.0)]  # as written: one word


@pytest.mark.parametrize("char, name", [("\u200b", "U+200B (ZERO WIDTH SPACE)"), ("\u2060", "U+2060 (WORD JOINER)")])
def test_benchmark_readers_refuse_invisible_format_characters(tmp_path, char, name):
    pairs, questions = tmp_path / "p.tsv", tmp_path / "q.txt"
    pairs.write_text(f"x\ty\t1\n{char}a\tb\t1\n", encoding="utf-8")  # was ('\u200ba', 'b', 1.0): matches no token
    questions.write_text(f": s\n{char}a b c d\n", encoding="utf-8")
    for read, path, line in ((read_word_pairs, pairs, 2), (read_analogies, questions, 2)):
        with pytest.raises(ValueError, match=f"^{path.name}, line {line}: holds the invisible format character "
                                             f"{re.escape(name)}, which the corpus tokeniser drops"):
            read(path)


@pytest.mark.parametrize("word, code", [("cat\x7f", "U+007F"), ("c\x1bat", "U+001B"), ("\x01cat", "U+0001"),
                                        ("ca\x9bt", "U+009B")])
def test_benchmark_readers_refuse_control_characters_as_they_refuse_format_characters(tmp_path, word, code):
    # were kept as read with only a NotATokenWarning that blamed hyphens and letters
    pairs, questions = tmp_path / "p.tsv", tmp_path / "q.txt"
    pairs.write_text(f"x\ty\t1\n{word}\tdog\t1\n", encoding="utf-8")
    questions.write_text(f": s\na b c d\n{word} b c d\n", encoding="utf-8")
    for read, path, line in ((read_word_pairs, pairs, 2), (read_analogies, questions, 3)):
        with pytest.raises(ValueError, match=f"^{path.name}, line {line}: holds the control character "
                                             f"{re.escape(code)}, at which the corpus tokeniser splits a word"):
            read(path)
    pairs.write_text("x\ty\t1\n", encoding="utf-8")
    assert read_word_pairs(pairs) == [("x", "y", 1.0)]  # a tab separating the fields is no control character in a word


def test_functions_given_pairs_refuse_a_word_holding_a_control_character():
    with pytest.raises(ValueError, match=r"pairs\[1\] \('cat', 'car\\x1b'\): word 2 'car\\x1b' holds the "
                                         r"control character U\+001B"):
        word_similarity(TABLE, TOKENS, [("cat", "dog", 9.0), ("cat", "car\x1b", 1.0), ("dog", "car", 2.0)])
    with pytest.raises(ValueError, match=r"word 1 'c\\tat' holds the control character U\+0009"):
        word_similarity(TABLE, TOKENS, [("c\tat", "dog", 9.0), ("cat", "car", 1.0), ("dog", "car", 2.0)])


def test_benchmark_readers_name_the_file_and_line_of_bytes_that_are_not_utf8(tmp_path):
    pairs, questions = tmp_path / "latin1.tsv", tmp_path / "latin1.txt"
    pairs.write_bytes(b"a\tb\t1\ncaf\xe9\tb\t1\n")  # was a bare UnicodeDecodeError naming neither
    questions.write_bytes(b": s\ncaf\xe9 b c d\n")
    with pytest.raises(ValueError, match=r"^latin1.tsv, line 2: not UTF-8 text \(byte 0xe9 at byte 9\); save the file as UTF-8$"):
        read_word_pairs(pairs)
    with pytest.raises(ValueError, match=r"^latin1.txt, line 2: not UTF-8 text \(byte 0xe9 at byte 7\); save the file as UTF-8$"):
        read_analogies(questions)


def test_collections_that_are_none_or_a_number_are_named():
    pairs = [("cat", "dog", 9.0), ("cat", "car", 1.0), ("dog", "car", 2.0)]
    for bad in (None, 3):
        with pytest.raises(TypeError, match=rf"^pairs must be a sequence of \(word1, word2, score\), got {bad}$"):
            word_similarity(TABLE, TOKENS, bad)
        with pytest.raises(TypeError, match=rf"^edges must be a sequence of at least two increasing numbers, got {bad}$"):
            similarity_by_frequency(TABLE, TOKENS, [5, 5, 5, 5, 5], pairs, bad)
    import torch

    with pytest.raises(TypeError, match=r"^pairs\[0\] must be \(word1, word2, score\), got tensor\(1.\)$"):
        word_similarity(TABLE, TOKENS, torch.tensor([1.0, 2.0]))  # was torch's "len() of a 0-d tensor"
    with pytest.raises(TypeError, match=r"^the human score of pair 1 \('cat', 'car'\) must be an int or a float \(Python or NumPy\), got np.timedelta64\(2\) of type timedelta64$"):
        word_similarity(TABLE, TOKENS, [pairs[0], ("cat", "car", np.timedelta64(2)), pairs[2]])  # was taken as 2.0


def test_similarity_by_frequency_compares_counts_with_edges_exactly():
    table = np.random.default_rng(0).standard_normal((7, 3))
    vocab = list("abcdefg")
    counts = [5, 5, 5, 2**53, 2**60, 2**60, 2**60]
    pairs = [("a", "b", 1.0), ("a", "c", 2.0), ("b", "c", 3.0), ("d", "e", 1.0), ("d", "f", 2.0), ("d", "g", 3.5),
             ("e", "f", 1.0), ("e", "g", 2.0), ("f", "g", 3.0)]
    strata = similarity_by_frequency(table, vocab, counts, pairs, [0, 2**53 + 1, np.inf])
    # the rarer counts are 5 (3 pairs), 2**53 (3 pairs: below the edge 2**53 + 1) and 2**60 (3 pairs); as
    # float64 the edge was 2**53 and the label '0-9007199254740991' held 3 pairs
    assert [(label, r.n_used) for label, r in strata] == [("0-9007199254740992", 6), ("9007199254740993+", 3)]


def test_word_similarity_refuses_longdouble_scores_that_float64_rounds():
    # 1 + 2**-60 became 1.0 and tied with the next score: rho came out 0.0, on the true scores it is 0.5
    if np.finfo(np.longdouble).nmant < 60:  # longdouble is float64 here (Windows, ARM macOS): nothing to round
        pytest.skip("np.longdouble is float64 on this platform")
    L = np.longdouble
    table = np.array([[1.0, 0.1], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    pairs = [("a", "b", L(1) + L(2) ** -60), ("a", "c", L(1)), ("c", "d", L(0))]
    with pytest.raises(ValueError, match=r"^the human score of pair 0 \('a', 'b'\) is the longdouble .*, which "
                       r"float64, in which scores are ranked, does not hold exactly \(it becomes 1.0\)"):
        word_similarity(table, list("abcd"), pairs)
    exact = [("a", "b", L(1.5)), ("a", "c", L(1)), ("c", "d", L(0))]  # longdouble that float64 holds: accepted
    cos = [table[0] @ table[1] / np.linalg.norm(table[0]), 0.1 / np.linalg.norm(table[0]), 1 / np.sqrt(2)]
    assert word_similarity(table, list("abcd"), exact).rho == pytest.approx(
        scipy.stats.spearmanr(cos, [1.5, 1.0, 0.0]).statistic)


def test_analogy_accuracy_refuses_an_all_zero_table():
    # every cosine is 0; the tie went to the smallest allowed row, 'd', which counted as correct (1 of 1)
    with pytest.raises(ValueError) as info:
        analogy_accuracy(np.zeros((5, 3)), list("abcde"), {"s": [("a", "b", "c", "d")]})
    assert str(info.value) == ("vectors: all 5 rows are zero, so every cosine is 0 and every answer would be "
                               "the tie rule's: analogy accuracy is undefined")


def test_analogy_accuracy_sections_must_be_a_mapping():
    with pytest.raises(TypeError, match=r"^sections must be a mapping \{section: \[\(a, b, c, d\), ...\]\} \(read_analogies\), got list$"):
        analogy_accuracy(TABLE, TOKENS, ["a", "b"])


# --- questions and words given to functions follow the readers' rules -----------------------------------------

ANALOGY_TABLE = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.5, 0.5]])


@pytest.mark.parametrize("question, kind, match", [
    (("a", "b", float("nan"), "d"), TypeError, r"^section 's', question 1, word 3 must be a str, got nan$"),
    (("a", "b", None, "d"), TypeError, r"^section 's', question 1, word 3 must be a str, got None$"),
    (("a", "b", 3, "d"), TypeError, r"^section 's', question 1, word 3 must be a str, got 3$"),
    ("abcd", TypeError, r"^section 's', question 1 must be four words \(a, b, c, d\), got the single string 'abcd'$"),
    (None, TypeError, r"^section 's', question 1 must be four words \(a, b, c, d\), got None$"),
    (("a", "b", "c"), ValueError, r"^section 's', question 1 must be four words \(a, b, c, d\), got 3: \('a', 'b', 'c'\)$"),
    (("\ufeffa", "b", "c", "d"), ValueError, r"^section 's', question 1, word 1 '\\ufeffa' holds a byte-order mark \(U\+FEFF\)"),
    (("a", "b\u200b", "c", "d"), ValueError, r"question 1, word 2 'b\\u200b' holds the invisible format character U\+200B"),
])
def test_analogy_accuracy_checks_every_question(question, kind, match):
    """A NaN (pandas' empty cell), None or a number was counted like an out-of-vocabulary question (coverage 0.25
    instead of an error), a string was unpacked into four one-letter words, and three words gave Python's
    "not enough values to unpack"."""
    with pytest.raises(kind, match=match):
        analogy_accuracy(ANALOGY_TABLE, list("abcd"), {"s": [("a", "b", "c", "d"), question]})
    with pytest.raises(TypeError, match=r"^section 's' must be a sequence of questions \(a, b, c, d\), got None$"):
        analogy_accuracy(ANALOGY_TABLE, list("abcd"), {"s": None})
    result = analogy_accuracy(ANALOGY_TABLE, list("abcd"), {"s": [("a", "b", "c", "d"), ("a", "b", "c", "zebra")]})
    assert (result.correct, result.attempted, result.total) == (1, 1, 2)  # d: 0.9·... the only row left; zebra: OOV


def test_integer_human_scores_beyond_2_53_are_refused_not_merged():
    """2**60, 2**60 + 1 and 2**60 + 2 are one float64: rho was -0.7746 instead of -0.4, and three distinct
    scores were called "all equal"."""
    voc = list("abcd")
    big = [("a", "b", 1), ("a", "c", 2**60), ("b", "d", 2**60 + 1), ("c", "d", 2**60 + 2)]
    with pytest.raises(ValueError, match=re.escape(
            "the human score of pair 1 ('a', 'c') is the integer 1152921504606846976, beyond 2**53: float64, in which "
            "scores are ranked, does not hold it exactly")):
        word_similarity(ANALOGY_TABLE, voc, big)
    with pytest.raises(ValueError, match=r"pair 0 \('a', 'b'\) is the integer 1152921504606846977, beyond 2\*\*53"):
        word_similarity(ANALOGY_TABLE, voc, [("a", "b", 2**60 + 1), ("a", "c", 2**60), ("b", "d", 2**60 + 2)])
    with pytest.raises(ValueError, match=r"pair 0 \('a', 'b'\) is the integer -9007199254740993"):
        pair_cosines(ANALOGY_TABLE, voc, [("a", "b", np.int64(-(2**53) - 1)), ("a", "c", 1)])
    # up to 2**53 float64 is exact: the same rho as the small ranks 0..3 (SciPy on exact scores)
    exact = [("a", "b", 1), ("a", "c", 2**53 - 2), ("b", "d", 2**53 - 1), ("c", "d", 2**53)]
    small = [(x, y, i) for i, (x, y, _) in enumerate(exact)]
    assert word_similarity(ANALOGY_TABLE, voc, exact).rho == word_similarity(ANALOGY_TABLE, voc, small).rho
    # the bootstrap interval ranks the same scores: the same rule
    with pytest.raises(ValueError, match=r"^human holds the integer 1152921504606846977, beyond 2\*\*53"):
        spearman_interval([1.0, 2.0, 3.0], np.array([1, 2**60 + 1, 2**60]))


@pytest.mark.parametrize("score", [__import__("fractions").Fraction(1, 3), __import__("decimal").Decimal("5"), np.array(5.0)])
def test_a_human_score_of_another_number_type_says_which_types_are_accepted(score):
    pairs = [("cat", "dog", 9.0), ("cat", "car", 1.0), ("car", "truck", score)]
    with pytest.raises(TypeError, match=r"^the human score of pair 2 \('car', 'truck'\) must be an int or a float "
                                        r"\(Python or NumPy\), got .* of type (Fraction|Decimal|ndarray)$"):
        word_similarity(TABLE, TOKENS, pairs)  # was "must be a finite number", which the value is


def test_a_word_glued_to_a_byte_order_mark_is_an_error_in_every_function_given_pairs():
    """A file read with open(..., encoding="utf-8") keeps the mark on its first word: the pair was dropped as
    out-of-vocabulary (rho on 2 of 3 pairs). The readers' rule: refused, naming the pair and the word."""
    pairs = [("\ufeffcat", "dog", 9.0), ("cat", "car", 1.0), ("dog", "car", 2.0)]
    message = (r"^pairs\[0\] \('\\ufeffcat', 'dog'\): word 1 '\\ufeffcat' holds a byte-order mark \(U\+FEFF\), allowed "
               r"only at the start of a file \(were two files joined, or a file read with encoding='utf-8' rather "
               r"than 'utf-8-sig'\?\); remove it$")
    for call in (lambda: word_similarity(TABLE, TOKENS, pairs), lambda: pair_cosines(TABLE, TOKENS, pairs),
                 lambda: similarity_by_frequency(TABLE, TOKENS, np.array([5, 5, 50, 50, 5]), pairs, [0, np.inf])):
        with pytest.raises(ValueError, match=message):
            call()
    with pytest.raises(ValueError, match=r"pairs\[1\] \('cat', 'car\\u2060'\): word 2 'car\\u2060' holds the "
                                         r"invisible format character U\+2060 \(WORD JOINER\)"):
        word_similarity(TABLE, TOKENS, [("cat", "dog", 9.0), ("cat", "car\u2060", 1.0), ("dog", "car", 2.0)])


def test_a_score_written_beyond_float64_is_not_called_not_finite(tmp_path):
    path = tmp_path / "pairs.tsv"
    path.write_text("x\ty\t1.0\na\tb\t2e308\n")  # and 1e999: both were "not finite"
    with pytest.raises(ValueError, match=re.escape("pairs.tsv, line 2: the score of ('a', 'b') is beyond float64's "
                                                   "range (about 1.8e308): '2e308'")):
        read_word_pairs(path)


def test_a_float32_confidence_is_kept_as_written():
    rng = np.random.default_rng(0)
    human = rng.normal(size=40)
    predicted = human + rng.normal(size=40)
    got = spearman_interval(predicted, human, confidence=np.float32(0.95), n_resamples=200)
    assert got.confidence == 0.95  # was 0.949999988079071
    assert got == spearman_interval(predicted, human, confidence=0.95, n_resamples=200)


def test_similarity_by_frequency_labels_a_huge_edge_briefly():
    pairs = [("cat", "dog", 9.0), ("cat", "car", 1.0), ("car", "truck", 8.5), ("dog", "pet", 3.0)]
    got = similarity_by_frequency(TABLE, TOKENS, [1, 2, 3, 4, 5], pairs, [0, 1e308])
    assert [label for label, _ in got] == ["0-1e+308"]  # was '0-' and the 309 digits of int(1e308) - 1
    got = similarity_by_frequency(TABLE, TOKENS, [1, 2, 3, 4, 5], pairs, [0, 10**19])
    assert got[0][0] == "0-1e+19"  # beyond int64, where no count lies; within it every digit (the test above)


def test_longdouble_scores_that_underflow_and_bools_among_scores_are_named():
    """Scores of 2e-4000, 1e-4000 and 3e-4000 became 0 in float64 and were called "all equal"; a True
    among the human scores was read as 1."""
    voc = list("abcd")
    L = np.longdouble
    pairs = [("a", "b", L("2e-4000")), ("a", "c", L("1e-4000")), ("b", "d", L("3e-4000"))]
    with pytest.raises(ValueError, match=r"got np.longdouble\('2e-4000'\), below float64's smallest subnormal "
                                         r"\(about 4.9e-324\), would become 0$"):
        word_similarity(ANALOGY_TABLE, voc, pairs)
    with pytest.raises(TypeError, match=r"^human must hold real numbers, got a bool among them"):
        spearman_interval([0.1, 0.5, 0.3, 0.8, 0.2, 0.6], [1, 5, 3, 8, 2, True], n_resamples=100)


# --- a score float64 reads as 0, words the tokeniser never returns ------------------------------------


def test_a_score_below_float64s_smallest_subnormal_names_file_line_and_pair(tmp_path):
    """float("1e-400") is 0.0: the score was read as 0 without a word."""
    path = tmp_path / "pairs.txt"
    path.write_text("cat\tdog\t7\ncar\tbus\t1e-400\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"^pairs.txt, line 2: the score of \('car', 'bus'\): number '1e-400' is below "
                                         r"float64's smallest subnormal \(about 4.9e-324\), would become 0$"):
        read_word_pairs(path)
    path.write_text("cat\tdog\t" + "1" * 101 + "\n", encoding="utf-8")  # was a message without file or line
    with pytest.raises(ValueError, match=r"^pairs.txt, line 1: the score of \('cat', 'dog'\): number '1{20}\.\.\.' has "
                                         r"101 digits; at most 100 are allowed$"):
        read_word_pairs(path)
    path.write_text("cat\tdog\t0e-400\ncar\tbus\t4e-324\n", encoding="utf-8")
    assert read_word_pairs(path) == [("cat", "dog", 0.0), ("car", "bus", 5e-324)]


def test_words_the_tokeniser_never_returns_are_kept_counted_and_reported(tmp_path):
    from lib.evaluation import NotATokenWarning

    path = tmp_path / "pairs.txt"
    path.write_text("Œuvre\tart\t7\nsouth-west\tnorth\t3\ncat\tdog\t5\nΟΔΟΣ\tŁódź\t2\nyear's\tday\t4\n", encoding="utf-8")
    with pytest.warns(NotATokenWarning) as record:
        pairs = read_word_pairs(path)
    assert len(record) == 1
    assert str(record[0].message) == (
        "pairs.txt: 3 of 5 pairs hold a word that lib.corpus.tokenize never returns as one token (a hyphen, a "
        "letter with no a-z form such as œ, ł or Greek), so they count as out-of-vocabulary; 4 such words: "
        "line 1 'Œuvre' (tokenize gives ['uvre']), line 2 'south-west' (tokenize gives ['south', 'west']), "
        "line 4 'ΟΔΟΣ' (tokenize gives []), line 4 'Łódź' (tokenize gives ['odz'])"
    )
    assert record[0].filename == __file__  # the caller's line, not the reader's
    # kept as read (folded), so that word_similarity counts them out-of-vocabulary, as the warning says
    assert [p[:2] for p in pairs] == [("œuvre", "art"), ("south-west", "north"), ("cat", "dog"), ("οδοσ", "łodz"),
                                      ("year's", "day")]
    vocab = tokenize("art north cat dog year's day south west uvre odz")
    table = np.random.default_rng(0).normal(size=(len(vocab), 3))
    assert word_similarity(table, vocab, pairs).n_used == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        read_word_pairs(path, lowercase=False)  # words kept as written, for a vocabulary of one's own: no check

    path = tmp_path / "questions.txt"
    path.write_text(": s\nathens greece œuvre a\nx y z w\nx-y y z w\n", encoding="utf-8")
    with pytest.warns(NotATokenWarning, match=r"^questions.txt: 2 of 3 questions hold a word .* 2 such words: "
                                              r"line 2 'œuvre' \(tokenize gives \['uvre'\]\), line 4 'x-y' "):
        read_analogies(path)
    path.write_text(": s\nathens greece œuvre a\n", encoding="utf-8")
    with pytest.warns(NotATokenWarning, match=r"^questions.txt: 1 of 1 questions holds a word .*, so it counts as "
                                              r"out-of-vocabulary; 1 such word: line 2 'œuvre'"):
        read_analogies(path)


def test_a_file_with_more_words_that_are_not_tokens_names_the_first_five_and_counts_the_rest(tmp_path):
    from lib.evaluation import NotATokenWarning

    path = tmp_path / "pairs.txt"
    path.write_text("".join(f"a-{i}\tcat\t{i}\n" for i in range(7)), encoding="utf-8")
    with pytest.warns(NotATokenWarning, match=r"^pairs.txt: 7 of 7 pairs hold .*; 7 such words: line 1 'a-0' .* "
                                              r"line 5 'a-4' \(tokenize gives \['a'\]\), and 2 more$"):
        read_word_pairs(path)


def test_the_shipped_benchmarks_hold_only_words_the_tokeniser_returns():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(read_word_pairs("wordsim353")) == 353 and len(read_word_pairs("simlex999")) == 999
        assert sum(map(len, read_analogies("analogies").values())) == 19544
