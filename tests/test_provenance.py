"""lib.provenance: the embedding audit record and its rendering."""

import dataclasses

import numpy as np
import pytest

from lib.corpus import Vocabulary, corpus_hash
from lib.provenance import NOT_APPLICABLE, Provenance, for_corpus, seen_tokens, software_versions


def test_rows_follow_the_audit_groups_and_skip_missing_fields():
    p = Provenance(vocabulary_size=15, corpus="toy", objective="skip-gram", learning_rate=0.04, seed=17, extra={"note": 1})
    assert p.rows() == [
        ("items", "vocabulary size", "15"),
        ("data", "corpus", "toy"),
        ("objective", "objective", "skip-gram"),
        ("objective", "learning rate", "0.04"),
        ("objective", "seed", "17"),
        ("other", "note", "1"),
    ]
    full = p.rows(include_missing=True)
    assert len(full) == len(dataclasses.fields(Provenance)) - 1 + 1  # every field but extra, plus one extra
    assert ("items", "minimum count", NOT_APPLICABLE) in full


def test_text_and_markdown_tables():
    p = Provenance(corpus="a|b", corpus_hash="f" * 64, dimension=8)
    text = p.to_text().splitlines()
    assert text[0].split() == ["group", "field", "value"]
    assert set(text[1]) == {"-", " "}
    assert text[3].endswith("ffffffffffffffff…") and "f" * 17 not in text[3]  # hash shortened to 16 hex
    assert str(p) == p.to_text()
    md = p.to_markdown().splitlines()
    assert md[0] == "| group | field | value |" and md[2] == "| data | corpus | a\\|b |"


def test_record_is_frozen_and_replace_checks_field_names():
    p = Provenance(seed=1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.seed = 2
    assert p.replace(seed=2).seed == 2 and p.seed == 1
    with pytest.raises(TypeError):
        p.replace(colour="red")
    with pytest.raises(TypeError, match="extra must be a mapping with str keys"):
        Provenance(extra={1: "x"})
    assert Provenance(extra={"k": [1]}).as_dict()["extra"] == {"k": [1]}


def test_for_corpus_fills_items_and_data():
    sents = [["a", "b", "a"], ["c"]]
    vocab = Vocabulary.from_sentences(sents, min_count=2, unknown="skip")
    p = for_corpus(vocab, sents, corpus="tiny", dimension=4)
    assert (p.vocabulary_size, p.min_count, p.n_sentences, p.n_tokens) == (1, 2, 2, 4)
    assert p.unknown_policy == "skip (dropped, no unknown row)"
    assert p.corpus_hash == corpus_hash(sents) and p.dimension == 4
    with pytest.raises(TypeError):
        for_corpus(vocab, sents, corpus="tiny", colour="red")


def test_software_versions():
    import numpy

    assert software_versions("numpy") == f"numpy {numpy.__version__}"
    with pytest.raises(ValueError, match="not installed"):
        software_versions("no-such-package-xyz")
    with pytest.raises(TypeError, match=r"^package name 1 must be a str, got 3$"):
        software_versions("numpy", 3)  # was the regular expression module's "expected string or bytes-like object"


def test_seen_tokens_counts_distinct_ids_and_shows_in_the_record():
    assert seen_tokens([np.array([0, 2, 2]), np.array([2, 5])], 7) == {"tokens_seen": 3, "tokens_never_seen": 4}
    assert seen_tokens(np.array([1, 1]), 2) == {"tokens_seen": 1, "tokens_never_seen": 1}
    assert seen_tokens([[], []], 3) == {"tokens_seen": 0, "tokens_never_seen": 3}
    with pytest.raises(ValueError, match="token id 7 out of range for vocabulary of 7"):
        seen_tokens([[0, 7]], 7)
    with pytest.raises(TypeError, match="token ids must be integers"):
        seen_tokens([[0.5]], 7)
    with pytest.raises(ValueError, match="vocab_size must be an integer in \\[1, 268435456\\], got 0"):
        seen_tokens([[0]], 0)
    rows = Provenance(vocabulary_size=7, **seen_tokens([[0, 2]], 7)).rows()
    assert rows[:3] == [("items", "vocabulary size", "7"), ("items", "tokens seen in training", "2"),
                        ("items", "tokens never seen in training", "5")]


def test_include_missing_must_be_true_or_false():
    prov = Provenance(corpus="c")
    for bad in ("no", 1, None):
        with pytest.raises(TypeError) as info:  # "no" showed the missing fields
            prov.to_text(include_missing=bad)
        assert str(info.value) == f"include_missing must be True or False, got {bad!r}"


def test_counts_get_thousands_separators_and_the_seed_does_not():
    p = Provenance(vocabulary_size=4041, n_tokens=59576, n_pairs=5075156, dimension=100, seed=12345,
                   tokens_never_seen=np.int64(1234), extra={"note": 98765})
    values = {label: value for _, label, value in p.rows()}
    assert values["vocabulary size"] == "4,041"
    assert values["tokens"] == "59,576"
    assert values["training pairs"] == "5,075,156"
    assert values["tokens never seen in training"] == "1,234"
    assert values["dimension"] == "100"
    assert values["seed"] == "12345"  # a name of a run, not a count
    assert values["note"] == "98765"  # extra values are shown as given


def test_the_corpus_hash_is_labelled_as_the_hash_of_the_tokens():
    sents = [["a", "b"], ["c"]]
    rows = Provenance(corpus_hash=corpus_hash(sents)).rows()
    assert rows == [("data", "tokenised corpus SHA-256", corpus_hash(sents)[:16] + "…")]


def test_worker_threads_is_singular_for_one():
    from lib.provenance import worker_threads

    assert [worker_threads(n) for n in (1, 2, 16)] == ["1 worker thread", "2 worker threads", "16 worker threads"]
    with pytest.raises(ValueError, match="workers"):
        worker_threads(0)
    with pytest.raises(TypeError, match="workers"):
        worker_threads(1.5)


def test_for_corpus_refuses_a_vocab_that_is_not_a_vocabulary():
    for bad in (["a"], {"a": 0}, None):
        with pytest.raises(TypeError, match=rf"^vocab must be a lib.corpus.Vocabulary, got {type(bad).__name__}$"):
            for_corpus(bad, [["a"]], corpus="x")
    p = for_corpus(Vocabulary.from_sentences([["a", "b", "a"]]), [["a", "b", "a"]], corpus="x")
    assert (p.n_sentences, p.n_tokens) == (1, 3)


def test_replace_names_an_unknown_field():
    assert Provenance().replace(seed=3).seed == 3
    with pytest.raises(TypeError, match=r"^Provenance has no field 'colour' \(put it in extra\); the fields are "
                                        r"vocabulary_size, vocabulary_order, "):
        Provenance().replace(colour="red")  # was "Provenance.__init__() got an unexpected keyword argument"
    with pytest.raises(TypeError, match=r"^Provenance has no field 'colour'; the fields are vocabulary_size, "):
        Provenance(colour="red")
