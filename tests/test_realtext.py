"""lib.realtext: locating gensim's shipped data, hashing, tokenising, subsets, and the three trainers."""

import hashlib

import numpy as np
import pytest

import lib.realtext as realtext
from lib.corpus import Vocabulary
from lib.ppmi import ppmi_svd_embedding
from lib.realtext import (
    DATA_FILES,
    MissingDataError,
    Settings,
    corpus_fraction,
    data_path,
    dataset_hashes,
    load_corpus,
    provenance_extra,
    read_documents,
    repeat_corpus,
    sha256_file,
    tokenize,
    train_book_sgns,
    train_gensim,
    train_ppmi_svd,
)
from lib.sgns import SGNSConfig, train_sgns

# --- locating and identifying the data ------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(DATA_FILES))
def test_every_data_file_is_found_in_the_installed_gensim(name):
    path = data_path(name)
    assert path.is_file() and path.name == DATA_FILES[name].filename
    assert path.parent.name == "test_data" and "gensim" in path.parts
    assert data_path(DATA_FILES[name].filename) == path  # by file name as well


def test_sha256_matches_the_fips_test_vector(tmp_path):
    """FIPS 180-2, appendix B.1: SHA-256("abc")."""
    path = tmp_path / "abc.txt"
    path.write_bytes(b"abc")
    assert sha256_file(path) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"


def test_dataset_hashes_are_the_hashes_of_the_bytes():
    hashes = dataset_hashes()
    assert set(hashes) == {f.filename for f in DATA_FILES.values()}
    for name in DATA_FILES:
        path = data_path(name)
        assert hashes[path.name] == hashlib.sha256(path.read_bytes()).hexdigest()


def test_provenance_extra_names_file_hash_and_gensim_version():
    extra = provenance_extra(["lee"])
    assert extra["data file lee_background.cor"] == "sha256 " + sha256_file(data_path("lee"))
    assert extra["data files from"].startswith("gensim 4.")


def test_missing_gensim_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(realtext.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(MissingDataError, match=r"gensim is not installed.*pip install gensim==4\.4\.0"):
        data_path("lee")


def test_missing_file_names_the_file_and_folder(monkeypatch, tmp_path):
    monkeypatch.setattr(realtext, "gensim_test_data_dir", lambda: tmp_path)
    with pytest.raises(MissingDataError, match=r"SimLex-999 \(simlex999\.txt\) is missing from .*pip install"):
        data_path("simlex999")
    with pytest.raises(FileNotFoundError):  # MissingDataError is a FileNotFoundError
        data_path("lee")


def test_missing_test_data_folder_is_a_clear_error(monkeypatch, tmp_path):
    class Spec:
        submodule_search_locations = [str(tmp_path / "gensim")]

    monkeypatch.setattr(realtext.importlib.util, "find_spec", lambda name: Spec())
    with pytest.raises(MissingDataError, match="has no test data folder"):
        data_path("lee")


def test_unknown_names_are_rejected():
    with pytest.raises(ValueError, match="unknown data file 'brown'.*'lee'"):
        data_path("brown")
    with pytest.raises(TypeError):
        data_path(3)


# --- tokens and documents ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, tokens",
    [
        ("New Year's Eve", ["new", "year's", "eve"]),
        ("south-west of Sydney, at 4:00pm AEDT.", ["south", "west", "of", "sydney", "at", "pm", "aedt"]),
        ("It\u2019s 100 km", ["it's", "km"]),
        ("'quoted' don't", ["quoted", "don't"]),
        ("", []),
    ],
)
def test_tokenize_by_hand(text, tokens):
    assert tokenize(text) == tokens


def test_tokenize_rejects_non_strings():
    with pytest.raises(TypeError, match="str"):
        tokenize(["a"])


def test_lee_corpus_has_300_documents():
    docs = read_documents("lee")
    corpus = load_corpus("lee")
    assert len(docs) == len(corpus) == 300  # gensim's description of lee_background.cor
    assert corpus[0][:4] == ["hundreds", "of", "people", "have"]
    assert 55_000 < sum(map(len, corpus)) < 65_000
    assert all(t == t.lower() and realtext.TOKEN_PATTERN.fullmatch(t) for d in corpus for t in d)


def test_corpus_fraction_is_nested_ordered_and_seeded():
    docs = [[f"d{i}"] for i in range(40)]
    quarter, half = corpus_fraction(docs, 0.25, seed=3), corpus_fraction(docs, 0.5, seed=3)
    assert len(quarter) == 10 and len(half) == 20
    assert all(d in half for d in quarter)
    for part in (quarter, half):
        numbers = [int(d[0][1:]) for d in part]
        assert numbers == sorted(numbers)  # original order kept
    assert corpus_fraction(docs, 0.25, seed=4) != quarter
    assert corpus_fraction(docs, 1.0) == docs
    assert len(corpus_fraction(docs, 0.001)) == 1


@pytest.mark.parametrize("fraction, error", [(0.0, ValueError), (1.5, ValueError), (-0.2, ValueError), (True, TypeError), ("0.5", TypeError)])
def test_corpus_fraction_rejects_bad_fractions(fraction, error):
    with pytest.raises(error, match="fraction"):
        corpus_fraction([["a"]], fraction)


def test_repeat_corpus():
    docs = [["a", "b"], ["c"]]
    assert repeat_corpus(docs, 3) == [["a", "b"], ["c"]] * 3
    with pytest.raises(ValueError, match="times"):
        repeat_corpus(docs, 0)
    with pytest.raises(TypeError, match="single string"):
        repeat_corpus("abc", 2)
    with pytest.raises(ValueError, match="at least one document"):
        repeat_corpus([], 2)


# --- the three trainers --------------------------------------------------------------------------------


SMALL = Settings(dim=16, epochs=2, min_count=3)


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
    assert "data file lee_background.cor" in trained.provenance.extra


def test_book_sgns_equals_train_sgns(small_corpus):
    trained = train_book_sgns(small_corpus, SMALL, seed=5)
    vocab = trained.vocab
    direct = train_sgns(vocab.encode_sentences(small_corpus), vocab.counts, SGNSConfig(dim=16, epochs=2, seed=5))
    assert np.array_equal(trained.vectors, direct.vectors)
    assert trained.n_words == 2 * int(vocab.counts.sum())
    assert trained.provenance.seed == 5 and trained.provenance.corpus == "Lee background corpus"


def test_gensim_rows_follow_the_book_vocabulary(small_corpus):
    from gensim.models import Word2Vec

    trained = train_gensim(small_corpus, SMALL, seed=2)
    model = Word2Vec(small_corpus, vector_size=16, window=5, negative=5, sg=1, epochs=2, sample=1e-3, min_count=3, workers=1, seed=2)
    for row, token in enumerate(trained.vocab.tokens[:50]):
        np.testing.assert_array_equal(trained.vectors[row], model.wv[token])  # deterministic with one worker
    assert trained.vectors.shape == (len(trained.vocab), 16)
    assert trained.words_per_second > 0


# --- the study and the race ----------------------------------------------------------------------------


TINY = Settings(dim=8, epochs=1)


@pytest.fixture(scope="module")
def study():
    docs = load_corpus("lee")[:120]
    return realtext.run_study(docs, TINY, seeds=(0, 1), fractions=(0.5, 1.0))


def test_study_trains_every_method_and_seed(study):
    assert set(study.models) == {("PPMI-SVD", 0), ("book SGNS", 0), ("book SGNS", 1), ("gensim", 0), ("gensim", 1)}
    assert set(study.scores) == set(study.models)
    full = [p for p in study.curve if p.fraction == 1.0]
    for p in full:  # the full-corpus points reuse the seed-0 models
        trained = study.models[(p.method, 0)]
        assert p.wordsim == study.scores[(p.method, 0)].wordsim and p.vocab_size == len(trained.vocab)
    half = [p for p in study.curve if p.fraction == 0.5]
    assert len(half) == 3 and all(h.n_tokens < full[0].n_tokens for h in half)


def test_score_summary_is_mean_min_max_over_seeds(study):
    rhos = [study.scores[("gensim", s)].wordsim.rho for s in (0, 1)]
    assert realtext.score_summary(study, "gensim", "wordsim") == pytest.approx((np.mean(rhos), min(rhos), max(rhos), 2))
    acc = study.scores[("PPMI-SVD", 0)].analogies.accuracy
    assert realtext.score_summary(study, "PPMI-SVD", "analogies") == pytest.approx((acc, acc, acc, 1))
    with pytest.raises(ValueError, match="metric"):
        realtext.score_summary(study, "gensim", "men")
    with pytest.raises(ValueError, match="no runs of method 'glove'"):
        realtext.score_summary(study, "glove", "wordsim")


def test_strata_and_agreement_follow_the_evaluation_functions(study):
    from lib.evaluation import neighbour_overlap, read_word_pairs, similarity_by_frequency

    edges = (2, 5, float("inf"))
    pairs = read_word_pairs("wordsim353")
    got = realtext.strata_scores(study, edges)["book SGNS"]
    per_seed = [
        similarity_by_frequency(t.vectors, t.vocab, t.vocab.counts, pairs, edges)
        for (m, _), t in study.models.items()
        if m == "book SGNS"
    ]
    for k, (label, mean, lo, hi, n) in enumerate(got):
        rhos = [run[k][1].rho for run in per_seed]
        assert (label, n) == (per_seed[0][k][0], per_seed[0][k][1].n_used)
        assert (mean, lo, hi) == pytest.approx((np.mean(rhos), min(rhos), max(rhos)))
    bands = (2, 10, float("inf"))
    agreement = realtext.seed_agreement(study, bands, k=5)
    a, b = study.models[("gensim", 0)], study.models[("gensim", 1)]
    rare = np.flatnonzero((a.vocab.counts >= 2) & (a.vocab.counts < 10))
    assert agreement["gensim"][0] == ("2-9", pytest.approx(neighbour_overlap(a.vectors, b.vectors, rare, 5).mean()), rare.size)
    assert agreement["gensim"][1][0] == "10+"


def test_seed_agreement_needs_two_seeds():
    one_seed = realtext.Study(TINY, {("gensim", 0): None, ("book SGNS", 0): None}, {}, [])
    with pytest.raises(ValueError, match="two seeds"):
        realtext.seed_agreement(one_seed)


def test_tables_of_the_study(study):
    table = realtext.scores_table(study)
    assert table.count("\n") == 4 and "| PPMI-SVD | 1 |" in table and "| gensim | 2 |" in table
    neighbours = realtext.neighbour_table(study, words=("police",), k=3)
    row = neighbours.splitlines()[2]
    from lib.evaluation import nearest_words

    t = study.models[("gensim", 0)]
    assert ", ".join(w for w, _ in nearest_words(t.vectors, t.vocab, "police", 3)) in row
    with pytest.raises(ValueError, match="not in the vocabulary"):
        realtext.neighbour_table(study, words=("zyzzyva",))


def test_median_rarer_count(study):
    from lib.evaluation import read_word_pairs

    vocab = study.models[("PPMI-SVD", 0)].vocab
    idx = vocab.index
    rarer = [min(vocab.counts[idx[a]], vocab.counts[idx[b]]) for a, b, _ in read_word_pairs("wordsim353") if a in idx and b in idx]
    assert realtext.median_rarer_count(study) == float(np.median(rarer))


@pytest.fixture(scope="module")
def race_runs():
    return realtext.race(load_corpus("lee")[:40], TINY, scales=(1, 2), repeats=2, workers=2)


def test_race_interleaves_methods_and_keeps_the_vocabulary(race_runs):
    assert len(race_runs) == 2 * 2 * 3
    first_repeat = [r.method for r in race_runs[:3]]
    second_repeat = [r.method for r in race_runs[3:6]]
    assert first_repeat == ["gensim", "book SGNS", "PPMI-SVD"] and second_repeat == ["book SGNS", "PPMI-SVD", "gensim"]
    words = {(r.method, r.scale): r.n_words for r in race_runs}
    for method in ("gensim", "book SGNS", "PPMI-SVD"):  # min count scaled: same vocabulary, twice the tokens
        assert words[(method, 2)] == 2 * words[(method, 1)]
    assert all(r.seconds > 0 and -1 <= r.rho <= 1 and r.pairs_used >= 2 for r in race_runs)


def test_race_summary_and_table(race_runs):
    import configparser
    import re
    from pathlib import Path

    summaries = realtext.summarise_race(race_runs)
    by_key = {(s.method, s.scale): s for s in summaries}
    assert by_key[("gensim", 1)].speed_ratio == pytest.approx(1.0)
    book = [r for r in race_runs if r.method == "book SGNS" and r.scale == 1]
    s = by_key[("book SGNS", 1)]
    assert s.seconds[0] == pytest.approx(np.median([r.seconds for r in book]))
    assert s.us_per_word == pytest.approx(1e6 * np.median([r.seconds / r.n_words for r in book]))
    gensim_time = np.median([r.seconds for r in race_runs if r.method == "gensim" and r.scale == 1])
    assert s.speed_ratio == pytest.approx(gensim_time / s.seconds[0])
    # the chapter's compact table: every measured value is masked by the sanitizer the chapter relies on
    config = configparser.ConfigParser()
    config.read(Path(__file__).with_name("nbval_sanitize.cfg"), encoding="utf-8")
    pattern = re.compile(config["real-text-measurements"]["regex"])
    compact = realtext.race_table(summaries, compact=True)
    masked = pattern.sub("<measured>", compact)
    assert re.findall(r"\d", masked.replace("1x", "").replace("2x", "")) == []
    assert realtext.race_table(summaries, markdown=False).count("\n") == len(summaries)


def test_race_rejects_bad_arguments():
    docs = [["a", "b", "a", "b"]]
    with pytest.raises(ValueError, match="unknown method"):
        realtext.race(docs, methods=("glove",))
    with pytest.raises(ValueError, match="repeats"):
        realtext.race(docs, repeats=0)
    with pytest.raises(ValueError, match="scale"):
        realtext.race(docs, scales=(0,))
    with pytest.raises(ValueError, match="no gensim run"):
        realtext.summarise_race([realtext.RaceRun("PPMI-SVD", 1, 0, 1.0, 10, 0.1, 5)])
    with pytest.raises(ValueError, match="no runs"):
        realtext.summarise_race([])


def test_measured_value_formats():
    assert realtext.format_seconds(2.414) == "2.41 s"
    assert realtext.format_ratio(1.4321) == "1.43×"
    assert realtext.format_rate(487_000) == "0.49 M words/s"
    assert realtext.format_cost(2.049) == "2.05 µs/word"
