"""lib.race: the settings passed whole, the three trainers against independent paths (lib.ppmi with another
solver, lib.sgns called directly, gensim called directly), and the race's bookkeeping by hand."""

import configparser
import math
import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from gensim.models import Word2Vec

from lib import race
from lib.corpus import Vocabulary
from lib.datasets import load_corpus
from lib.ppmi import ppmi_svd_embedding
from lib.race import (
    RaceRun,
    Settings,
    summarise_race,
    train_book_sgns,
    train_fasttext,
    train_gensim,
    train_ppmi_svd,
)
from lib.sgns import SGNSConfig, train_sgns

# --- the settings ----------------------------------------------------------------------------------------


def test_default_settings_are_word2vecs_with_20_epochs():
    s = Settings()
    c = s.sgns
    assert (c.dim, c.window, c.negatives, c.sample, c.alpha, c.min_alpha, c.power) == (100, 5, 5, 1e-3, 0.025, 1e-4, 0.75)
    assert c.epochs == 20 and c.dynamic_window
    assert (s.min_count, s.ppmi_alpha, s.svd_power, s.weighting) == (2, 0.75, 0.5, "linear")


def test_replace_changes_either_level_by_name():
    s = Settings().replace(window=2, min_count=3, dim=10)
    assert (s.sgns.window, s.sgns.dim, s.min_count) == (2, 10, 3)
    assert s.sgns.epochs == 20 and Settings().sgns.window == 5  # the rest kept, the original untouched
    t = Settings().replace(sgns=SGNSConfig(epochs=1), negatives=2)
    assert (t.sgns.epochs, t.sgns.negatives) == (1, 2)
    with pytest.raises(TypeError):
        Settings().replace(learning_rate=0.1)
    with pytest.raises(ValueError, match=r"window must be an integer in \[1, 268435456\]"):
        Settings().replace(window=0)  # SGNSConfig checks its own fields


def test_vocabulary_by_hand():
    vocab = race.vocabulary([["b", "a", "b"], ["c", "b", "a", "d"]], Settings(min_count=2))
    assert vocab.tokens == ("b", "a") and vocab.counts.tolist() == [3, 2]
    assert vocab.encode(["a", "z", "b"]).tolist() == [1, 0]  # unknown words are skipped


# --- the three trainers --------------------------------------------------------------------------------


SMALL = Settings().replace(dim=16, epochs=2, min_count=3)


@pytest.fixture(scope="module")
def small_corpus():
    return load_corpus("lee")[:40]


def test_ppmi_svd_equals_the_library_pipeline(small_corpus):
    """Independent path: lib.ppmi.ppmi_svd_embedding with the same parameters (sparse, ARPACK, where the
    trainer uses PROPACK: the two solvers agree to rounding)."""
    trained = train_ppmi_svd(small_corpus, SMALL)
    vocab = Vocabulary.from_sentences(small_corpus, min_count=3, unknown="skip")
    reference = ppmi_svd_embedding(small_corpus, vocab, k=16, window=5, weighting="linear", alpha=0.75, sparse=True)
    np.testing.assert_allclose(trained.vectors, reference.vectors, atol=1e-8)  # two solvers: equal to rounding
    assert trained.vocab.tokens == vocab.tokens
    assert trained.n_words == int(vocab.counts.sum()) and trained.seconds > 0
    assert trained.provenance.context == "±5 positions within the document, linear distance weighting"
    assert list(trained.provenance.extra)[:2] == ["SVD solver", "data file lee_background.cor"]


def test_book_sgns_equals_train_sgns(small_corpus):
    trained = train_book_sgns(small_corpus, SMALL, seed=5)
    vocab = trained.vocab
    direct = train_sgns(vocab.encode_sentences(small_corpus), vocab.counts, SGNSConfig(dim=16, epochs=2, seed=5))
    assert np.array_equal(trained.vectors, direct.vectors)
    assert trained.n_words == 2 * int(vocab.counts.sum())
    assert trained.provenance.seed == 5 and trained.provenance.corpus == "Lee background corpus"
    assert trained.provenance.context == "dynamic window ±5 within the document"


def test_gensim_rows_follow_the_book_vocabulary(small_corpus):
    trained = train_gensim(small_corpus, SMALL, seed=2)
    model = Word2Vec(small_corpus, vector_size=16, window=5, negative=5, sg=1, epochs=2, sample=1e-3, min_count=3, workers=1, seed=2)
    for row, token in enumerate(trained.vocab.tokens[:50]):
        np.testing.assert_array_equal(trained.vectors[row], model.wv[token])  # deterministic with one worker
    assert trained.vectors.shape == (len(trained.vocab), 16)
    assert trained.words_per_second > 0
    assert trained.provenance.context == "dynamic window ±5 within the document (gensim shrink_windows)"


def test_train_by_name():
    with pytest.raises(ValueError, match="method must be one of"):
        race.train("glove", [["a", "b"]])


# --- the race --------------------------------------------------------------------------------------------


TINY = Settings().replace(dim=8, epochs=1)


@pytest.fixture(scope="module")
def race_runs():
    return race.run_race(load_corpus("lee")[:40], TINY, scales=(1, 2), repeats=2, workers=2)


def test_race_interleaves_methods_and_keeps_the_vocabulary(race_runs):
    assert len(race_runs) == 2 * 2 * 3
    first_repeat = [r.method for r in race_runs[:3]]
    second_repeat = [r.method for r in race_runs[3:6]]
    assert first_repeat == ["gensim", "book SGNS", "PPMI-SVD"] and second_repeat == ["book SGNS", "PPMI-SVD", "gensim"]
    words = {(r.method, r.scale): r.n_words for r in race_runs}
    for method in ("gensim", "book SGNS", "PPMI-SVD"):  # min count scaled: same vocabulary, twice the tokens
        assert words[(method, 2)] == 2 * words[(method, 1)]
    assert all(r.seconds > 0 and -1 <= r.rho <= 1 and r.pairs_used >= 2 for r in race_runs)


def test_the_chapters_compact_table_is_masked_by_the_sanitizer(race_runs):
    config = configparser.ConfigParser()
    config.read(Path(__file__).with_name("nbval_sanitize.cfg"), encoding="utf-8")
    pattern = re.compile(config["real-text-measurements"]["regex"])
    summaries = summarise_race(race_runs)
    masked = pattern.sub("<measured>", race.race_table(summaries, compact=True))
    assert re.findall(r"\d", masked.replace("1x", "").replace("2x", "")) == []
    assert race.race_table(summaries, markdown=False).count("\n") == len(summaries)


def _runs():
    """Three repeats at scale 1, by hand: gensim takes 2, 4 and 3 s, the book 1, 2 and 1.5 s, 300 words each."""
    return [
        RaceRun("gensim", 1, 0, 2.0, 300, 0.50, 9),
        RaceRun("book SGNS", 1, 0, 1.0, 300, 0.40, 9),
        RaceRun("gensim", 1, 1, 4.0, 300, 0.60, 9),
        RaceRun("book SGNS", 1, 1, 2.0, 300, 0.44, 9),
        RaceRun("gensim", 1, 2, 3.0, 300, 0.55, 9),
        RaceRun("book SGNS", 1, 2, 1.5, 300, 0.42, 9),
    ]


def test_summarise_race_by_hand():
    gensim, book = summarise_race(_runs())
    assert (gensim.method, book.method) == ("gensim", "book SGNS")
    assert gensim.seconds == (3.0, 2.0, 4.0) and gensim.speed_ratio == 1.0
    assert book.seconds == (1.5, 1.0, 2.0)
    assert book.speed_ratio == 2.0  # 3 s / 1.5 s
    assert book.words_per_second == 200.0  # median of 300, 150 and 200
    assert book.us_per_word == pytest.approx(5000.0)  # 1.5 s / 300 words
    assert book.rho == pytest.approx((0.42, 0.40, 0.44)) and book.repeats == 3


def test_paired_ratios_by_hand():
    """Within each repeat gensim's time / the book's: 2/1, 4/2, 3/1.5, all 2; a slower third repeat of the
    book (3 s) gives 1, and the median and range follow; a scale of its own is reported apart."""
    (r,) = race.paired_ratios(_runs())
    assert (r.method, r.scale, r.ratios, r.median, r.low, r.high) == ("book SGNS", 1, (2.0, 2.0, 2.0), 2.0, 2.0, 2.0)
    runs = _runs()[:5] + [RaceRun("book SGNS", 1, 2, 3.0, 300, 0.42, 9)]
    runs += [RaceRun("gensim", 4, 0, 8.0, 1200, 0.5, 9), RaceRun("book SGNS", 4, 0, 2.0, 1200, 0.5, 9)]
    one, four = race.paired_ratios(runs)
    assert one.ratios == (2.0, 2.0, 1.0) and (one.median, one.low, one.high) == (2.0, 1.0, 2.0)
    assert (four.scale, four.ratios, four.median) == (4, (4.0,), 4.0)
    ppmi = race.paired_ratios([RaceRun("gensim", 1, 0, 2.0, 9, 0.5, 9), RaceRun("PPMI-SVD", 1, 0, 0.5, 9, 0.5, 9)],
                              method="PPMI-SVD")
    assert ppmi[0].ratios == (4.0,)


def test_paired_ratios_need_both_methods_in_a_repeat():
    with pytest.raises(ValueError, match="scale 1 has no repeat with both"):
        race.paired_ratios([RaceRun("gensim", 1, 0, 2.0, 9, 0.5, 9), RaceRun("book SGNS", 1, 1, 1.0, 9, 0.5, 9)])
    with pytest.raises(ValueError, match="no runs"):
        race.paired_ratios([])
    with pytest.raises(ValueError, match="method must be one of"):
        race.paired_ratios(_runs(), method="glove")


def test_race_table_by_hand():
    book = summarise_race(_runs())[1]
    assert race.race_table([book], compact=True) == (
        "| corpus | method | wall time | words/s | speed (× gensim's) |\n"
        "| --- | --- | --- | --- | --- |\n"
        "| 1x | book SGNS | 1.50 s | 2.00e-04 M words/s | 2.00× |"
    )
    assert race.race_table([book], markdown=False).splitlines()[1] == (
        "1x      book SGNS  1.50 s (1.00 to 2.00)        2.00e-04 M words/s  2.00×               5000.00 µs/word  "
        "0.42 (0.40 to 0.44)"
    )


def test_race_rejects_bad_arguments():
    docs = [["a", "b", "a", "b"]]
    with pytest.raises(ValueError, match="method must be one of"):
        race.run_race(docs, methods=("glove",))
    with pytest.raises(ValueError, match="repeats"):
        race.run_race(docs, repeats=0)
    with pytest.raises(ValueError, match="scale"):
        race.run_race(docs, scales=(0,))
    with pytest.raises(ValueError, match="no gensim run"):
        summarise_race([RaceRun("PPMI-SVD", 1, 0, 1.0, 10, 0.1, 5)])
    with pytest.raises(ValueError, match="no runs"):
        summarise_race([])


@pytest.mark.parametrize("arguments, error, message", [
    # repeats and scales had no upper bound: repeats=10**6 trained for days, scales=[10**6] filled the memory
    (dict(repeats=101), ValueError, "repeats must be an integer in [1, 100], got 101"),
    (dict(repeats=10**6), ValueError, "repeats must be an integer in [1, 100], got 1000000"),
    (dict(scales=(1, 1001)), ValueError, "scales[1] must be an integer in [1, 1000] (times the corpus is repeated), got 1001"),
    (dict(scales=(0,)), ValueError, "scales[0] must be an integer in [1, 1000] (times the corpus is repeated), got 0"),
    (dict(scales=4), TypeError, "scales must be a collection of integers, got 4"),
    (dict(workers=0), ValueError, "workers must be an integer in [1, 256] (threads), got 0"),
    # one string was read letter by letter ("method must be one of ..., got 'g'"); none or a repeat raced nothing
    # or mixed two methods' runs
    (dict(methods="gensim"), TypeError, "methods must be a sequence of method names, got a single string 'gensim'"),
    (dict(methods=()), ValueError, "methods must name at least one of ('PPMI-SVD', 'book SGNS', 'gensim'), got none"),
    (dict(methods=("gensim", "PPMI-SVD", "gensim")), ValueError, "methods must name each method once, got 'gensim' twice"),
])
def test_race_bounds_its_arguments_before_training(arguments, error, message):
    assert race.MAX_REPEATS == 100 and race.MAX_SCALE == 1000
    with pytest.raises(error, match=f"^{re.escape(message)}"):
        race.run_race([["a", "b", "a", "b"]], **arguments)


def test_measured_value_formats():
    assert race.format_seconds(2.414) == "2.41 s"
    assert race.format_ratio(1.4321) == "1.43×"
    assert race.format_rate(487_000) == "0.49 M words/s"
    assert race.format_cost(2.049) == "2.05 µs/word"



# --- fastText ---------------------------------------------------------------------------------------------


def test_fasttext_rows_follow_the_book_vocabulary_and_unseen_words_get_vectors(small_corpus):
    from gensim.models import FastText

    trained, keyed = train_fasttext(small_corpus, SMALL, seed=2, bucket=5000)
    model = FastText(small_corpus, vector_size=16, window=5, negative=5, sg=1, epochs=2, sample=1e-3, min_count=3,
                     workers=1, seed=2, min_n=3, max_n=6, bucket=5000)
    for row, token in enumerate(trained.vocab.tokens[:50]):
        np.testing.assert_array_equal(trained.vectors[row], model.wv[token])  # deterministic with one worker
    assert "zebrafish" not in trained.vocab.index
    np.testing.assert_array_equal(keyed["zebrafish"], model.wv["zebrafish"])
    assert keyed.bucket == 5000 and trained.method == "gensim fastText"
    assert "3-6-gram" in trained.provenance.objective


def test_fasttext_rejects_bad_ngram_settings(small_corpus):
    with pytest.raises(ValueError, match=r"max_n must be an integer >= 5 \(at least min_n\), got 3"):
        train_fasttext(small_corpus, SMALL, min_n=5, max_n=3)
    with pytest.raises(ValueError, match=r"bucket must be an integer in \[1, 268435456\], got 0"):
        train_fasttext(small_corpus, SMALL, bucket=0)
    with pytest.raises(TypeError, match="min_n must be an integer >= 1, got 3.0"):
        train_fasttext(small_corpus, SMALL, min_n=3.0)


def test_race_table_flags_must_be_true_or_false():
    for name in ("markdown", "compact"):
        with pytest.raises(TypeError) as info:
            race.race_table([], **{name: "no"})
        assert str(info.value) == f"{name} must be True or False, got 'no'"



def test_race_table_needs_summaries():
    # 3 was Python's "'int' object is not iterable", [] a table of headers only, a RaceRun an AttributeError
    with pytest.raises(TypeError, match=r"^summaries must be a collection of RaceSummary \(summarise_race\), got 3$"):
        race.race_table(3)
    with pytest.raises(TypeError, match=r"^summaries must hold RaceSummary records \(summarise_race\), got RaceRun$"):
        race.race_table(_runs())
    with pytest.raises(ValueError, match=r"^summaries must hold at least one RaceSummary \(summarise_race\), got none$"):
        race.race_table([])


def test_settings_name_an_unknown_setting_and_need_an_sgns_config():
    assert Settings().replace(window=2, min_count=3) == Settings(sgns=replace(Settings().sgns, window=2), min_count=3)
    with pytest.raises(TypeError, match=r"^Settings.replace: unknown setting 'windw'; the settings are sgns, min_count, "
                                        r"ppmi_alpha, svd_power, weighting, dim, window, "):
        Settings().replace(windw=2)  # was "SGNSConfig.__init__() got an unexpected keyword argument 'windw'"
    with pytest.raises(TypeError, match=r"^Settings has no field 'window'; the fields are sgns, min_count, ppmi_alpha, "
                                        r"svd_power, weighting$"):
        Settings(window=2)  # the constructor takes Settings' own fields only (replace reaches into sgns)
    with pytest.raises(TypeError, match=r"^sgns must be a lib.sgns.SGNSConfig, got dict$"):
        Settings(sgns={"window": 2})  # was accepted, failing at the first training with an AttributeError


def test_format_functions_check_their_number():
    for fn, name in ((race.format_seconds, "seconds"), (race.format_ratio, "ratio"), (race.format_rate, "words_per_second"),
                     (race.format_cost, "us_per_word")):
        with pytest.raises(ValueError, match=rf"^{name} must be a real number, got an integer of 401 digits, "
                                             r"beyond the float64 range \(about 1.8e308\)$"):
            fn(10**400)  # was OverflowError: int too large to convert to float
        with pytest.raises(TypeError, match=f"^{name} must be a real number, got '3'$"):
            fn("3")  # was "Unknown format code 'f' for object of type 'str'"
    assert race.format_seconds(2**70) == "1.18e+21 s"  # was 22 digits, of which float64 holds 17
    assert race.format_rate(np.float32(487_000)) == "0.49 M words/s"


def test_format_functions_print_no_negative_zero():
    # was '-0.00 M words/s', '-0.00 µs/word', '-0.00 s'
    assert race.format_rate(-0.0) == "0.00 M words/s"
    assert race.format_cost(-0.0) == "0.00 µs/word"
    assert race.format_seconds(-0.0) == "0.00 s"
    assert race.format_seconds(0.004) == "4.00e-03 s"  # was '0.00 s': a nonzero duration hidden


def test_format_functions_refuse_impossible_measurements():
    # printed '-1.00 s', 'inf×', '0.00 M words/s' for -1.0 words/s, '0.00×' for a ratio -0.001
    for f, name in ((race.format_seconds, "seconds"), (race.format_rate, "words_per_second"),
                    (race.format_cost, "us_per_word")):
        for bad, shown in ((-1.0, "-1.0"), (-0.004, "-0.004"), (float("inf"), "inf"), (float("-inf"), "-inf")):
            with pytest.raises(ValueError, match=rf"^{name} must be a finite number >= 0 \(a measurement\), got {shown}$"):
                f(bad)
    for bad, shown in ((0.0, "0.0"), (-0.001, "-0.001"), (float("inf"), "inf")):
        with pytest.raises(ValueError, match=rf"^ratio must be a finite number > 0 \(a measurement\), got {shown}$"):
            race.format_ratio(bad)
    assert race.format_ratio(0.004) == "4.00e-03×"  # was '0.00×', which reads as no speed at all


def test_format_functions_refuse_nan():
    # printed 'nan s', 'nan×', 'nan M words/s', 'nan µs/word'
    for f, name in ((race.format_seconds, "seconds"), (race.format_ratio, "ratio"),
                    (race.format_rate, "words_per_second"), (race.format_cost, "us_per_word")):
        with pytest.raises(ValueError, match=rf"^{name} must be a number, got nan \(a measurement is never NaN\)$"):
            f(float("nan"))
        with pytest.raises(ValueError, match=rf"^{name} must be a number, got nan"):
            f(np.float32("nan"))


def test_format_functions_show_tiny_and_huge_values_in_exponent_form():
    # two decimals wrote 0.00 for a nonzero measurement and 22 digits for 2**70 seconds
    assert race.format_cost(0.0012345) == "1.23e-03 µs/word"
    assert race.format_rate(1_000) == "1.00e-03 M words/s"
    assert race.format_seconds(1e300) == "1.00e+300 s"
    assert race.format_ratio(0.005) == "0.01×"  # from 0.005 on, two decimals show it
    assert race.format_seconds(9_999_999_999_999_998.0) == "9999999999999998.00 s"  # just below 1e16
    assert race.format_seconds(0.0) == "0.00 s"  # zero itself is shown as it is


def test_masked_measurements_include_the_exponent_form():
    config = configparser.ConfigParser()
    config.read(Path(__file__).parent / "nbval_sanitize.cfg", encoding="utf-8")
    pattern = re.compile(config["real-text-measurements"]["regex"])
    for shown in (race.format_seconds(0.004), race.format_rate(1_000), race.format_cost(1e17), race.format_ratio(1e-3),
                  race.format_seconds(2.41)):
        assert pattern.sub("<measured>", shown) == "<measured>", shown  # the number and its unit


@pytest.mark.parametrize("field, bad, error, message", [
    ("seconds", 0.0, ValueError,
     "seconds must be a finite number in [1e-09, 1000000000] (a measured wall time, from a nanosecond to about 32 "
     "years), got 0.0"),
    ("seconds", float("nan"), ValueError,
     "seconds must be a finite number in [1e-09, 1000000000] (a measured wall time, from a nanosecond to about 32 "
     "years), got nan"),
    ("n_words", 0, ValueError, "n_words must be an integer in [1, 9007199254740992] (exact in float64), got 0"),
    ("rho", float("nan"), ValueError, "rho must be a finite number in [-1, 1] (a Spearman correlation), got nan"),
    ("rho", 1.5, ValueError, "rho must be a finite number in [-1, 1] (a Spearman correlation), got 1.5"),
    ("pairs_used", 1, ValueError, "pairs_used must be an integer >= 2, got 1"),
    ("method", "glove", ValueError, "method must be one of"),
    ("scale", 1.0, TypeError, "scale must be an integer >= 1, got 1.0"),
])
def test_a_race_run_is_checked_when_it_is_made(field, bad, error, message):
    # a run of 0 s made paired_ratios raise ZeroDivisionError and summarise_race print inf; NaN printed nan
    fields = dict(method="gensim", scale=1, repeat=0, seconds=2.0, n_words=9, rho=0.5, pairs_used=9)
    with pytest.raises(error, match=f"^{re.escape(message)}"):
        RaceRun(**{**fields, field: bad})


def test_gensim_trainers_check_settings_seed_and_workers_before_gensim_sees_them():
    docs = [["a", "b", "a", "b"]]
    for train in (train_gensim, train_fasttext):
        with pytest.raises(ValueError, match=r"^workers must be an integer in \[1, 256\] \(threads\), got 0$"):
            train(docs, workers=0)  # gensim took 0 threads and trained nothing
        with pytest.raises(ValueError, match=r"^workers must be an integer in \[1, 256\] \(threads\), got 100000$"):
            train(docs, workers=100_000)
        with pytest.raises(ValueError, match=r"^seed must be an integer >= 0, got -1$"):
            train(docs, seed=-1)
        with pytest.raises(TypeError, match=r"^settings must be a lib.race.Settings, got dict$"):
            train(docs, {"min_count": 1})  # was AttributeError: 'dict' object has no attribute 'sgns'
    with pytest.raises(ValueError, match=r"^bucket and dim \(the n-gram table\): a result of shape \(10000000, 100\)"):
        train_fasttext(docs, bucket=10**7)


@pytest.mark.parametrize("value, rate, others", [
    (5e-324, "4.94e-330", "4.94e-324"),            # the smallest subnormal: 5e-324 / 1e6 was 0.0
    (1e-310, "1.00e-316", "1.00e-310"),            # a subnormal quotient kept few digits
    (2.2250738585072014e-308, "2.23e-314", "2.23e-308"),  # the smallest normal float
    (4999.0, "5.00e-03", "4999.00"),               # just below the fixed range in millions, not in units
    (5e-7, "5.00e-13", "5.00e-07"),
])
def test_format_functions_show_a_nonzero_tiny_value_as_nonzero(value, rate, others):
    # format_rate(5e-324) printed '0.00 M words/s': the division by 1e6 underflowed before the rule that
    # switches to exponent form; the digits are the value's own, the exponent lowered by 6 (exact)
    assert race.format_rate(value) == f"{rate} M words/s"
    assert race.format_seconds(value) == f"{others} s"
    assert race.format_cost(value) == f"{others} µs/word"
    assert race.format_ratio(value) == f"{others}×"
    assert race.format_rate(np.float32(1e-45)) == "1.40e-51 M words/s"  # a float32 subnormal, widened exactly


def test_race_table_writes_a_tiny_wall_time_range_in_exponent_form():
    runs = [RaceRun("gensim", 1, 0, 2.0, 300, 0.5, 9), RaceRun("book SGNS", 1, 0, 1e-3, 300, 0.4, 9),
            RaceRun("book SGNS", 1, 1, 1e-9, 300, 0.4, 9)]
    book = summarise_race(runs)[1]
    line = race.race_table([book], markdown=False).splitlines()[1]
    assert "(1.00e-09 to 1.00e-03)" in line  # was (0.00-0.00)


@pytest.mark.parametrize("gensim, book, n_words", [(1e-9, 1e9, 1), (1e9, 1e-9, 2**53), (1e-9, 1e-9, 2**53),
                                                    (1e9, 1e9, 1)])
def test_summaries_and_ratios_stay_finite_and_nonzero_at_the_ends_of_the_ranges(gensim, book, n_words):
    # a run of 5e-324 s gave infinite words per second (and an overflow warning), one of 1e308 s an
    # infinite cost per word; the ranges of RaceRun keep every derived value a finite nonzero float64
    runs = [RaceRun("gensim", 1, 0, gensim, n_words, 0.5, 9), RaceRun("book SGNS", 1, 0, book, n_words, 0.5, 9)]
    for s in summarise_race(runs):
        t = s.seconds[0]
        assert s.words_per_second == n_words / t and s.us_per_word == pytest.approx(t / n_words * 1e6, rel=1e-15)
        assert 0 < s.speed_ratio < math.inf and 0 < s.words_per_second < math.inf and 0 < s.us_per_word < math.inf
    assert race.paired_ratios(runs)[0].ratios == (gensim / book,)
    race.race_table(summarise_race(runs))  # every value printable


@pytest.mark.parametrize("field, bad", [("seconds", 5e-324), ("seconds", 9.9e-10), ("seconds", 1e308),
                                        ("seconds", 1.0000001e9), ("n_words", 2**53 + 1), ("n_words", 10**400)])
def test_a_race_run_refuses_values_whose_ratios_leave_float64(field, bad):
    fields = {"method": "gensim", "scale": 1, "repeat": 0, "seconds": 1.0, "n_words": 9, "rho": 0.5, "pairs_used": 9}
    fields[field] = bad
    expected = {"seconds": r"^seconds must be a finite number in \[1e-09, 1000000000\] \(a measured wall time, "
                           r"from a nanosecond to about 32 years\), got ",
                "n_words": r"^n_words must be an integer in \[1, 9007199254740992\] \(exact in float64\), got "}
    with pytest.raises(ValueError, match=expected[field]):
        RaceRun(**fields)
