"""lib.chapters.real_text: the study's structure on a small corpus, and every summary of a study on
studies built by hand, whose scores, strata, agreement and tables are known in advance."""

import numpy as np
import pytest

from lib.chapters import real_text
from lib.chapters.real_text import Scores, Study
from lib.corpus import Vocabulary
from lib.datasets import load_corpus
from lib.evaluation import AnalogyResult, SimilarityResult
from lib.provenance import Provenance
from lib.race import Settings, Trained

METHODS = ("PPMI-SVD", "book SGNS", "gensim")


def _trained(method, tokens, counts, vectors):
    return Trained(method, Vocabulary(tokens, counts), np.asarray(vectors, dtype=np.float64), 1.0, 10, Provenance())


def _study(models, scores=None):
    return Study(Settings(), models, scores or {}, [])


# --- the study on a small corpus --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small_study():
    docs = load_corpus("lee")[:120]
    return real_text.run_study(docs, Settings().replace(dim=8, epochs=1), seeds=(0, 1), fractions=(0.5, 1.0))


@pytest.mark.slow
def test_study_trains_every_method_and_seed(small_study):
    study = small_study
    assert set(study.models) == {("PPMI-SVD", 0), ("book SGNS", 0), ("book SGNS", 1), ("gensim", 0), ("gensim", 1)}
    assert set(study.scores) == set(study.models)
    full = [p for p in study.curve if p.fraction == 1.0]
    for p in full:  # the full-corpus points reuse the seed-0 models
        trained = study.models[(p.method, 0)]
        assert p.wordsim == study.scores[(p.method, 0)].wordsim and p.vocab_size == len(trained.vocab)
    half = [p for p in study.curve if p.fraction == 0.5]
    assert len(half) == 3 and all(h.n_tokens < full[0].n_tokens for h in half)
    scores = study.scores[("gensim", 1)]
    assert scores.wordsim.n_total == 353 and scores.simlex.n_total == 999 and scores.analogies.total == 19_544


# --- scores by hand ----------------------------------------------------------------------------------------


def _scores(method, seed, ws, sl, correct):
    return Scores(method, seed, SimilarityResult(ws, 200, 353), SimilarityResult(sl, 600, 999),
                  AnalogyResult(correct, 100, 19_544, {}))


SCORES = {
    ("PPMI-SVD", 0): _scores("PPMI-SVD", 0, 0.5, 0.1, 10),
    ("book SGNS", 0): _scores("book SGNS", 0, 0.2, 0.05, 4),
    ("book SGNS", 1): _scores("book SGNS", 1, 0.4, 0.15, 6),
    ("gensim", 0): _scores("gensim", 0, 0.3, 0.0, 5),
}


def test_score_summary_by_hand():
    study = _study({}, SCORES)
    assert real_text.score_summary(study, "book SGNS", "wordsim") == pytest.approx((0.3, 0.2, 0.4, 2))
    assert real_text.score_summary(study, "book SGNS", "analogies") == pytest.approx((0.05, 0.04, 0.06, 2))
    assert real_text.score_summary(study, "PPMI-SVD", "simlex") == pytest.approx((0.1, 0.1, 0.1, 1))
    with pytest.raises(ValueError, match="metric must be one of"):
        real_text.score_summary(study, "gensim", "men")
    with pytest.raises(ValueError, match="no runs of method 'glove'"):
        real_text.score_summary(study, "glove", "wordsim")


def test_scores_table_by_hand():
    assert real_text.scores_table(_study({}, SCORES)).splitlines() == [
        "| method | runs | WordSim-353 rho | pairs used | SimLex-999 rho | pairs used | analogy accuracy | questions covered |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
        "| PPMI-SVD | 1 | 0.50 | 200 of 353 | 0.10 | 600 of 999 | 0.1000 | 100 of 19,544 |",
        "| book SGNS | 2 | 0.30 (0.20 to 0.40) | 200 of 353 | 0.10 (0.05 to 0.15) | 600 of 999 "
        "| 0.0500 (0.0400 to 0.0600) | 100 of 19,544 |",
        "| gensim | 1 | 0.30 | 200 of 353 | 0.00 | 600 of 999 | 0.0500 | 100 of 19,544 |",
    ]


# --- WordSim-353 by frequency stratum, by hand -------------------------------------------------------------

# Six WordSim-353 pairs whose twelve words form no other WordSim-353 pair, by human score, and the corpus
# count each word gets here: the first three pairs have a rarer word seen 2 or 3 times, the last three 4+.
STRATA_PAIRS = [  # (word, count, word, count, human score)
    ("smart", 2, "student", 5, 4.62),
    ("bread", 3, "butter", 7, 6.19),
    ("company", 9, "stock", 2, 7.08),
    ("plane", 4, "car", 6, 5.77),
    ("love", 8, "sex", 5, 6.77),
    ("book", 10, "paper", 4, 7.46),
]


def _strata_model(method, reverse_first_stratum):
    """Pair j gets its own plane: cosine(word1, word2) = cos(angle_j), the angles chosen so that within
    each stratum the cosines rank the pairs as the human scores do (or the opposite way)."""
    tokens, counts = [], []
    vectors = np.zeros((12, 12))
    for j, (a, ca, b, cb, _) in enumerate(STRATA_PAIRS):
        rank = j % 3  # 0, 1, 2 within a stratum, by human score
        if reverse_first_stratum and j < 3:
            rank = 2 - rank
        angle = (1.2, 0.8, 0.4)[rank]  # a smaller angle is a larger cosine
        tokens += [a, b]
        counts += [ca, cb]
        vectors[2 * j, 2 * j] = 1.0
        vectors[2 * j + 1, 2 * j], vectors[2 * j + 1, 2 * j + 1] = np.cos(angle), np.sin(angle)
    return _trained(method, tokens, counts, vectors)


def test_strata_scores_by_hand():
    models = {(m, 0): _strata_model(m, False) for m in METHODS}
    models[("book SGNS", 1)] = _strata_model("book SGNS", True)  # the first stratum ranked backwards
    strata = real_text.strata_scores(_study(models), edges=(2, 4, float("inf")))
    assert strata["gensim"] == [("2-3", 1.0, 1.0, 1.0, 3), ("4+", 1.0, 1.0, 1.0, 3)]
    label, mean, lo, hi, n = strata["book SGNS"][0]
    assert (label, lo, hi, n) == ("2-3", -1.0, 1.0, 3) and mean == pytest.approx(0.0)
    assert strata["book SGNS"][1] == ("4+", 1.0, 1.0, 1.0, 3)


def test_median_rarer_count_by_hand():
    study = _study({("PPMI-SVD", 0): _strata_model("PPMI-SVD", False)})
    assert real_text.median_rarer_count(study) == 3.5  # rarer counts 2, 3, 2, 4, 5, 4


# --- neighbours, by hand ------------------------------------------------------------------------------------

TOKENS, COUNTS = ["w0", "w1", "w2", "w3"], [2, 3, 5, 9]
A = [[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9]]  # nearest: w0-w1, w2-w3
B = [[1.0, 0.0], [0.0, 1.0], [0.9, 0.1], [0.1, 0.9]]  # nearest: w0-w2, w1-w3


def _neighbour_study():
    return _study({
        ("PPMI-SVD", 0): _trained("PPMI-SVD", TOKENS, COUNTS, A),
        ("book SGNS", 0): _trained("book SGNS", TOKENS, COUNTS, A),
        ("book SGNS", 1): _trained("book SGNS", TOKENS, COUNTS, A),
        ("gensim", 0): _trained("gensim", TOKENS, COUNTS, A),
        ("gensim", 1): _trained("gensim", TOKENS, COUNTS, B),
    })


def test_seed_agreement_by_hand():
    agreement = real_text.seed_agreement(_neighbour_study(), bands=(2, 4, float("inf")), k=1)
    assert agreement["book SGNS"] == [("2-3", 1.0, 2), ("4+", 1.0, 2)]  # the same table twice
    assert agreement["gensim"] == [("2-3", 0.0, 2), ("4+", 0.0, 2)]  # no nearest neighbour in common


def test_seed_agreement_needs_two_seeds():
    one_seed = _study({("gensim", 0): None, ("book SGNS", 0): None})
    with pytest.raises(ValueError, match="two seeds"):
        real_text.seed_agreement(one_seed)


def test_neighbour_table_by_hand():
    study = _neighbour_study()
    assert real_text.neighbour_table(study, words=("w0", "w3"), k=1).splitlines() == [
        "| word (count) | PPMI-SVD | book SGNS | gensim |",
        "| --- | --- | --- | --- |",
        "| w0 (2) | w1 | w1 | w1 |",
        "| w3 (9) | w2 | w2 | w2 |",
    ]
    with pytest.raises(ValueError, match="not in the vocabulary"):
        real_text.neighbour_table(study, words=("zyzzyva",))


# --- paired intervals, leads, overlap and subsampling ----------------------------------------------------


def _pair_models():
    """Two models over the words of 40 WordSim-353 pairs: one whose cosines follow the human scores, one
    whose cosines ignore them."""
    from lib.evaluation import read_word_pairs

    pairs = [p for p in read_word_pairs("wordsim353") if p[0] != p[1]][:40]
    words = sorted({w for a, b, _ in pairs for w in (a, b)})
    rng = np.random.default_rng(0)
    noise = rng.standard_normal((len(words), 6))
    return pairs, words, _trained("PPMI-SVD", words, [5] * len(words), noise)


def test_paired_difference_of_a_model_with_itself_is_exactly_zero():
    _, words, model = _pair_models()
    same = real_text.paired_difference(model, model, "wordsim", n_resamples=200, method="percentile")
    assert same.statistic == 0.0 and same.low == 0.0 and same.high == 0.0
    single = real_text.rho_interval(model, "wordsim", n_resamples=200)
    assert single.low <= single.statistic <= single.high and single.n > 3


def test_paired_difference_matches_scipy_spearman_and_refuses_other_pairs():
    import scipy.stats

    from lib.evaluation import pair_cosines, read_word_pairs

    _, words, a = _pair_models()
    b = _trained("gensim", words, [5] * len(words), np.random.default_rng(1).standard_normal((len(words), 6)))
    diff = real_text.paired_difference(a, b, "wordsim", n_resamples=200)
    pairs = read_word_pairs("wordsim353")
    ca, human, _ = pair_cosines(a.vectors, a.vocab, pairs)
    cb, _, _ = pair_cosines(b.vectors, b.vocab, pairs)
    expected = scipy.stats.spearmanr(ca, human).statistic - scipy.stats.spearmanr(cb, human).statistic
    assert diff.statistic == pytest.approx(expected, abs=1e-12) and diff.low < diff.statistic < diff.high
    fewer = _trained("gensim", words[1:], [5] * (len(words) - 1), b.vectors[1:])
    with pytest.raises(ValueError, match="different pairs"):
        real_text.paired_difference(a, fewer, "wordsim")
    with pytest.raises(ValueError, match="metric"):
        real_text.paired_difference(a, b, "analogies")


def test_excludes_zero_and_format_interval_by_hand():
    from lib.evaluation import Interval

    assert real_text.format_interval(Interval(0.2345, -0.1, 0.5678, 0.95, 50, 1000)) == "0.23 (-0.1 to 0.6)"
    assert not real_text.excludes_zero(Interval(0.1, 0.04, 0.3, 0.95, 50, 1000))  # shown as 0.0: touches 0
    assert real_text.excludes_zero(Interval(-0.2, -0.3, -0.06, 0.95, 50, 1000))


def test_excludes_zero_and_format_interval_refuse_nan_and_truncated_decimals():
    from lib.evaluation import Interval

    nan_end = Interval(0.1, float("nan"), 0.5, 0.95, 10, 100)
    with pytest.raises(ValueError, match=r"^interval.low must be a finite number, got nan$"):
        real_text.excludes_zero(nan_end)  # was False, with no error
    with pytest.raises(ValueError, match=r"^interval.statistic must be a finite number, got nan$"):
        real_text.format_interval(Interval(float("nan"), 0.0, 0.5, 0.95, 10, 100))  # printed 'nan (0.0 to 0.5)'
    with pytest.raises(ValueError, match=r"^interval.low must be a finite number, got -inf$"):
        real_text.format_interval(Interval(0.1, float("-inf"), 0.5, 0.95, 10, 100))
    with pytest.raises(TypeError, match=r"^interval must be an Interval \(lib.evaluation\), got str$"):
        real_text.excludes_zero("x")  # was AttributeError
    interval = Interval(0.1, 0.04, 0.3, 0.95, 50, 1000)
    for bad in (1.9, "1", True):  # 1.9 was truncated to 1, "1" accepted
        with pytest.raises(TypeError, match=r"^decimals must be an integer in \[0, 12\], got "):
            real_text.excludes_zero(interval, bad)
    with pytest.raises(ValueError, match=r"^decimals must be an integer in \[0, 12\], got -1$"):
        real_text.excludes_zero(interval, -1)
    assert not real_text.excludes_zero(interval, 1) and real_text.excludes_zero(interval, 2)  # 0.0 vs 0.04


def test_format_interval_checks_its_decimals():
    from lib.evaluation import Interval

    interval = Interval(0.123, -0.04, 0.2, 0.95, 10, 2000)
    for bad in (2.7, "2", True):  # 2.7 and "2" were truncated by int() to 2
        with pytest.raises(TypeError, match=r"^decimals must be an integer in \[0, 12\], got "):
            real_text.format_interval(interval, bad)
    with pytest.raises(ValueError, match=r"^decimals must be an integer in \[0, 12\], got -1$"):
        real_text.format_interval(interval, -1)  # was notebook's spec error "got '.-1f'"
    with pytest.raises(ValueError, match=r"^end_decimals must be an integer in \[0, 12\], got 13$"):
        real_text.format_interval(interval, 2, 13)
    assert real_text.format_interval(interval, 3, 2) == "0.123 (-0.04 to 0.20)"


def test_method_differences_pair_every_seed_and_fill_the_table():
    _, words, a = _pair_models()
    rng = np.random.default_rng(2)
    models = {("PPMI-SVD", 0): a}
    for m in ("book SGNS", "gensim"):
        for s in (0, 1):
            models[(m, s)] = _trained(m, words, [5] * len(words), rng.standard_normal((len(words), 6)))
    diffs = real_text.method_differences(_study(models), n_resamples=200)
    assert [(d.first, d.second) for d in diffs] == [
        (("PPMI-SVD", 0), ("book SGNS", 0)), (("PPMI-SVD", 0), ("book SGNS", 1)),
        (("PPMI-SVD", 0), ("gensim", 0)), (("PPMI-SVD", 0), ("gensim", 1)),
        (("book SGNS", 0), ("gensim", 0)), (("book SGNS", 1), ("gensim", 1)),
    ]
    lines = real_text.difference_table(diffs).splitlines()
    assert lines[0].startswith("| difference in rho | seed | WordSim-353 (95 % interval) | excludes 0 |")
    assert len(lines) == 2 + 6 and lines[-1].startswith("| book SGNS − gensim | 1 and 1 | ")


def test_curve_leads_and_the_largest_by_hand():
    from lib.chapters.real_text import CurvePoint

    human = np.arange(10.0)
    good, bad = human.copy(), human[::-1].copy()  # rho 1 and -1
    curve = []
    for fraction, ppmi in ((0.5, bad), (1.0, good)):
        for method, cos in (("PPMI-SVD", ppmi), ("book SGNS", good), ("gensim", bad)):
            curve.append(CurvePoint(fraction, int(1000 * fraction), 10, method, SimilarityResult(0.0, 10, 353), cos, human))
    study = Study(Settings(), {}, {}, curve)
    leads = real_text.curve_leads(study, "gensim", n_resamples=200, method="percentile")
    assert [lead.interval.statistic for lead in leads] == pytest.approx([0.0, 2.0])
    assert real_text.largest_lead(leads).fraction == 1.0
    assert real_text.curve_leads(study, "book SGNS", n_resamples=200, method="percentile")[0].interval.statistic == pytest.approx(-2.0)
    table = real_text.lead_table({"gensim": leads}).splitlines()
    assert table[0].startswith("| corpus | tokens in its vocabulary | pairs |")
    assert table[2].startswith("| 50.0 % | 500 | 10 | 0.00 (")
    assert table[3].startswith("| 100.0 % | 1,000 | 10 | 2.00 (")
    with pytest.raises(ValueError, match="rival"):
        real_text.curve_leads(study, "PPMI-SVD")


def test_method_overlap_of_identical_and_of_reordered_tables():
    words = ["a", "b", "c", "d"]
    x = [[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9]]
    y = [[1.0, 0.0], [0.0, 1.0], [0.9, 0.1], [0.1, 0.9]]  # b and c swapped
    models = {("book SGNS", 0): _trained("book SGNS", words, [4, 3, 2, 1], x),
              ("gensim", 0): _trained("gensim", words, [4, 3, 2, 1], x),
              ("gensim", 1): _trained("gensim", words, [4, 3, 2, 1], y)}
    study = _study(models)
    assert real_text.method_overlap(study, ("book SGNS", 0), ("gensim", 0), k=1) == 1.0
    # nearest neighbour of a, b, c, d: b, a, d, c in the first table and c, d, a, b in the second
    assert real_text.method_overlap(study, ("gensim", 0), ("gensim", 1), k=1) == 0.0


def test_subsampling_table_by_hand():
    vocab = Vocabulary(["the", "cat"], [99, 1])  # f = 0.99 and 0.01
    lines = real_text.subsampling_table(vocab, 0.01, n=2).splitlines()
    # paper: sqrt(0.01/0.99) = 0.1005; word2vec.c: (sqrt(99) + 1) * 0.01/0.99 = 0.1106; cat: f = t, keep 1
    assert lines[2] == "| the | 99 | 0.9900 | 0.1005 | 0.1106 |"
    assert lines[3] == "| cat | 1 | 0.0100 | 1.0000 | 1.0000 |"


def test_stratum_interval_takes_the_pairs_of_its_band():
    pairs, words, model = _pair_models()  # every word has count 5
    everything = real_text.stratum_interval(model, 5, n_resamples=200)
    assert everything.statistic == pytest.approx(real_text.rho_interval(model, "wordsim", n_resamples=200).statistic)
    with pytest.raises(ValueError, match="only 0 pairs"):
        real_text.stratum_interval(model, 6)


def test_stratum_interval_names_a_bad_low_or_high():
    _, _, model = _pair_models()
    with pytest.raises(TypeError, match=r"^low must be a finite number >= 0, got '5'$"):
        real_text.stratum_interval(model, "5")  # was NumPy's UFuncTypeError
    with pytest.raises(TypeError, match=r"^low must be a finite number >= 0, got None$"):
        real_text.stratum_interval(model, None)
    with pytest.raises(ValueError, match=r"^low must be a finite number >= 0, got nan$"):
        real_text.stratum_interval(model, float("nan"))  # said "only 0 pairs have ... in [nan, inf)"
    with pytest.raises(TypeError, match=r"^high must be a real number, got '9'$"):
        real_text.stratum_interval(model, 1, "9")
    for high in (float("nan"), 1, 0.5):
        with pytest.raises(ValueError, match=r"^high must be a number > low \(1.0\) or inf, got "):
            real_text.stratum_interval(model, 1, high)


def test_how_many_reads_none_one_and_a_number_with_the_right_verb():
    assert real_text.how_many(0, "has", "have") == "none has"
    assert real_text.how_many(1, "excludes", "exclude") == "one excludes"
    assert real_text.how_many(2, "excludes", "exclude") == "2 exclude"
    assert real_text.how_many(np.int64(12345), "has", "have") == "12,345 have"
    with pytest.raises(ValueError, match="count"):
        real_text.how_many(-1, "has", "have")
    with pytest.raises(TypeError, match="count"):
        real_text.how_many(1.5, "has", "have")
    with pytest.raises(TypeError, match="plural"):
        real_text.how_many(2, "has", None)
