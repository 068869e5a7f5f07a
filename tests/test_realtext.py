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
    """Independent path: lib.ppmi.ppmi_svd_embedding with the same parameters (sparse, ARPACK)."""
    trained = train_ppmi_svd(small_corpus, SMALL)
    vocab = Vocabulary.from_sentences(small_corpus, min_count=3, unknown="skip")
    reference = ppmi_svd_embedding(small_corpus, vocab, k=16, window=5, weighting="linear", alpha=0.75, sparse=True)
    np.testing.assert_allclose(trained.vectors, reference.vectors, atol=1e-10)
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
