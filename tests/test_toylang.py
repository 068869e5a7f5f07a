"""The toy language: the properties the lesson states and relies on, checked on the grammar and on samples."""

import numpy as np
import pytest
from scipy.stats import entropy

from lib import toylang as tl

SUBJECTS = ["cat", "dog", "fox", "baker", "farmer", "teacher", "bird", "boy"]
VERBS = ["chased", "watched", "found", "liked", "followed", "saw"]


@pytest.fixture(scope="module")
def corpus():
    return tl.make_corpus()


@pytest.fixture(scope="module")
def exact():
    return tl.transition_matrix()


def follows(ids, token):
    """Set of tokens that directly follow ``token`` in ``ids``."""
    ids = np.asarray(ids)
    where = np.flatnonzero(ids[:-1] == tl.STOI[token]) + 1
    return {tl.VOCAB[i] for i in ids[where]}


# --- vocabulary and grammar --------------------------------------------------------------------------


def test_vocabulary_has_34_distinct_tokens_in_sorted_order():
    assert tl.V == 34 == len(set(tl.VOCAB))
    assert list(tl.VOCAB) == sorted(tl.VOCAB)
    assert all(tl.VOCAB[tl.STOI[w]] == w for w in tl.VOCAB)


def test_vocabulary_contains_the_lessons_words():
    lesson_words = SUBJECTS + VERBS + ["ball", "fish", "bus", "tree", "drum", "boat", "red", "small", "loud",
                                       "quickly", "slowly", "again", "today", "at", "night", ".", "the", "a"]
    assert set(lesson_words) <= set(tl.VOCAB)


def test_roles_cover_the_vocabulary():
    assert set(tl.ROLES) == set(tl.VOCAB)
    assert sorted(w for w, r in tl.ROLES.items() if r == "subject") == sorted(SUBJECTS)
    assert sorted(w for w, r in tl.ROLES.items() if r == "verb") == sorted(VERBS)
    assert sorted(w for w, r in tl.ROLES.items() if r == "adjective") == ["loud", "red", "small"]
    order = tl.tokens_by_role()
    assert sorted(order) == sorted(tl.VOCAB)
    ranks = [tl.ROLE_ORDER.index(tl.ROLES[w]) for w in order]
    assert ranks == sorted(ranks)


def test_each_subject_has_its_article():
    subjects = dict(reversed(exp.split()) for exp, _ in tl.GRAMMAR["subject"])
    assert sorted(subjects) == sorted(SUBJECTS)
    assert {w for w, art in subjects.items() if art == "a"} == {"fox", "bird"}


def test_grammar_rows_are_the_grammar_and_sum_to_one_per_part():
    rows = tl.grammar_rows()
    assert len(rows) == sum(len(v) for v in tl.GRAMMAR.values())
    for part in tl.PARTS:
        assert sum(r["probability"] for r in rows if r["part"] == part) == pytest.approx(1.0)
    table = tl.grammar_markdown().splitlines()
    assert len(table) == len(rows) + 2
    assert table[2] == f"| subject | `{rows[0]['expansion']}` | {rows[0]['probability']:.2f} |"


# --- the properties the lesson relies on, on the exact transition probabilities ------------------------


def test_exact_transition_rows_sum_to_one(exact):
    np.testing.assert_allclose(exact.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert tl.bigram_distribution().sum() == pytest.approx(1.0, abs=1e-12)


def test_every_subject_is_followed_by_the_same_verbs_with_the_same_probabilities(exact):
    rows = exact[[tl.STOI[w] for w in SUBJECTS]]
    np.testing.assert_allclose(rows, np.broadcast_to(rows[0], rows.shape), rtol=0, atol=1e-12)
    verb_probs = dict(tl.GRAMMAR["verb"])
    for v in VERBS:
        assert rows[0, tl.STOI[v]] == pytest.approx(verb_probs[v], abs=1e-12)


def test_every_verb_is_followed_by_the_same_objects(exact):
    rows = exact[[tl.STOI[w] for w in VERBS]]
    np.testing.assert_allclose(rows, np.broadcast_to(rows[0], rows.shape), rtol=0, atol=1e-12)
    # after a verb comes the object's article: P(a | verb) is the mass of the objects that take "a"
    p_a = sum(p for exp, p in tl.GRAMMAR["object"] if exp.startswith("a "))
    assert rows[0, tl.STOI["a"]] == pytest.approx(p_a, abs=1e-12)
    assert rows[0, tl.STOI["the"]] == pytest.approx(1 - p_a, abs=1e-12)


def test_a_precedes_only_bird_fox_fish_small_loud(exact):
    after_a = {tl.VOCAB[j] for j in np.flatnonzero(exact[tl.STOI["a"]] > 0)}
    assert after_a == {"bird", "fox", "fish", "small", "loud"}


def test_red_is_always_followed_by_bus_and_small_by_boat(exact):
    assert exact[tl.STOI["red"], tl.STOI["bus"]] == 1.0
    assert exact[tl.STOI["small"], tl.STOI["boat"]] == 1.0


def test_the_row_by_hand(exact):
    # P(cat | the) = P(subject = "the cat") / (P(subject starts with "the") + P(object starts with "the")),
    # since each sentence uses "the" once per noun phrase that starts with it.
    subj, obj = dict(tl.GRAMMAR["subject"]), dict(tl.GRAMMAR["object"])
    the_mass = sum(p for e, p in subj.items() if e.startswith("the ")) + sum(p for e, p in obj.items() if e.startswith("the "))
    assert exact[tl.STOI["the"], tl.STOI["cat"]] == pytest.approx(subj["the cat"] / the_mass, abs=1e-12)
    assert exact[tl.STOI["the"], tl.STOI["red"]] == pytest.approx(obj["the red bus"] / the_mass, abs=1e-12)


def test_bigram_entropy_by_rows(exact):
    # H(next | prev) = sum_i pi_i H(P[i]); the subject rows carry exactly the entropy of the verb choice
    pi = tl.bigram_distribution().sum(axis=1)
    by_rows = sum(pi[i] * entropy(exact[i]) for i in range(tl.V))
    assert tl.bigram_entropy() == pytest.approx(by_rows, abs=1e-12)
    verb_probs = [p for _, p in tl.GRAMMAR["verb"]]
    assert entropy(exact[tl.STOI["cat"]]) == pytest.approx(entropy(verb_probs), abs=1e-12)


# --- samples ----------------------------------------------------------------------------------------


def test_samples_obey_the_grammar(corpus):
    ids = np.concatenate([corpus.train, corpus.val])
    assert follows(ids, "a") == {"bird", "fox", "fish", "small", "loud"}
    assert follows(ids, "red") == {"bus"}
    assert follows(ids, "small") == {"boat"}
    for s in SUBJECTS:
        assert follows(ids, s) == set(VERBS)


def test_sample_frequencies_match_the_exact_distribution(corpus):
    counts = np.zeros((tl.V, tl.V))
    np.add.at(counts, (corpus.train[:-1], corpus.train[1:]), 1)
    empirical = counts / counts.sum()
    total_variation = 0.5 * np.abs(empirical - tl.bigram_distribution()).sum()
    # ~60,000 pairs over ~100 possible bigrams: sampling noise in the total variation is about 0.01
    assert total_variation < 0.02


def test_sentences_are_deterministic_from_the_seed():
    assert tl.sample_sentences(20, seed=3) == tl.sample_sentences(20, seed=3)
    assert tl.sample_sentences(20, seed=3) != tl.sample_sentences(20, seed=4)
    assert tl.sample_sentences(5, seed=np.random.default_rng(3)) == tl.sample_sentences(5, seed=3)
    first = tl.sample_sentences(50, seed=0)[0].split()
    assert first[-1] == "." and first[0] in ("the", "a")


def test_split_is_by_sentences(corpus):
    assert corpus.n_train_sentences + corpus.n_val_sentences == tl.N_SENTENCES
    assert corpus.n_val_sentences == round(tl.N_SENTENCES * tl.VAL_FRACTION)
    for part, n in ((corpus.train, corpus.n_train_sentences), (corpus.val, corpus.n_val_sentences)):
        assert part.dtype == np.int64
        assert int((part == tl.STOI["."]).sum()) == n
        assert part[-1] == tl.STOI["."]
        assert tl.VOCAB[part[0]] in ("the", "a")
    whole = tl.encode(" ".join(tl.sample_sentences(tl.N_SENTENCES, seed=tl.SEED)))
    np.testing.assert_array_equal(np.concatenate([corpus.train, corpus.val]), whole)


def test_split_sentences_inverts_the_join(corpus):
    sentences = tl.sample_sentences(tl.N_SENTENCES, seed=tl.SEED)
    assert tl.split_sentences(corpus.train) == sentences[: corpus.n_train_sentences]
    assert tl.split_sentences(tl.encode("the cat saw a fish . the dog")) == ["the cat saw a fish .", "the dog"]


def test_encode_decode_round_trip():
    text = "the cat chased a small boat at night ."
    ids = tl.encode(text)
    assert ids.dtype == np.int64 and ids.shape == (9,)
    assert tl.decode(ids) == text
    np.testing.assert_array_equal(tl.encode(text.split()), ids)


# --- errors -----------------------------------------------------------------------------------------


def test_encode_rejects_unknown_tokens_and_types():
    with pytest.raises(ValueError, match="'zebra' is not in the toy vocabulary of 34"):
        tl.encode("the zebra chased")
    with pytest.raises(TypeError, match="string or a list of strings"):
        tl.encode(5)


def test_decode_rejects_out_of_range_ids():
    with pytest.raises(ValueError, match="token id 34 out of range for vocabulary of 34"):
        tl.decode([0, 34])
    with pytest.raises(ValueError, match="out of range"):
        tl.decode([-1])


def test_decode_reads_an_object_array_of_ints_and_names_a_generator():
    assert tl.decode(np.array([29, 10], dtype=object)) == "the cat"  # was "token ids must fit in int64"
    with pytest.raises(TypeError, match=r"^token ids must be an integer or an array of integers .*got a generator"):
        tl.decode(i for i in [29, 10])


@pytest.mark.parametrize("kwargs, kind, message", [
    (dict(n_sentences=1), ValueError, "n_sentences must be >= 2"),
    (dict(n_sentences=0), ValueError, "n_sentences must be an integer in \\[1, 268435456\\]"),
    (dict(n_sentences=2.5), TypeError, "n_sentences must be an integer"),
    (dict(val_fraction=0.0), ValueError, r"val_fraction must be a finite number in \(0, 1\)"),
    (dict(val_fraction=1.0), ValueError, r"in \(0, 1\)"),
    (dict(val_fraction="0.1"), TypeError, r"in \(0, 1\)"),
    (dict(seed=-1), ValueError, "seed must be an integer >= 0"),
])
def test_make_corpus_rejects_bad_arguments(kwargs, kind, message):
    with pytest.raises(kind, match=message):
        tl.make_corpus(**kwargs)


def test_sample_sentences_rejects_bad_arguments():
    with pytest.raises(ValueError, match="n must be an integer in \\[1, 268435456\\]"):
        tl.sample_sentences(0)
    with pytest.raises(TypeError, match="seed must be"):
        tl.sample_sentences(3, seed="x")


def test_next_token_kinds_group_tokens_with_equal_rows():
    P = tl.transition_matrix()
    kinds = tl.next_token_kinds()
    assert kinds.shape == (tl.V,) and kinds.dtype == np.int64
    for i in range(tl.V):
        for j in range(tl.V):
            assert (kinds[i] == kinds[j]) == bool(np.allclose(P[i], P[j], rtol=0, atol=1e-12))
    assert sorted(set(kinds.tolist())) == list(range(11))
    # the articles and the adjectives share a role but not a kind; every subject is of one kind
    assert kinds[tl.STOI["a"]] != kinds[tl.STOI["the"]] and kinds[tl.STOI["red"]] != kinds[tl.STOI["small"]]
    assert len({kinds[tl.STOI[w]] for w, r in tl.ROLES.items() if r == "subject"}) == 1


# --- exact entropies ----------------------------------------------------------------------------------


def test_sentence_distribution_lists_every_sentence_once():
    sentences = tl.sentence_distribution()
    assert len(sentences) == 8 * 6 * 10 * 7 == 3360
    assert sum(p for _, p in sentences) == pytest.approx(1.0, abs=1e-12)
    assert len({tuple(words) for words, _ in sentences}) == 3360


def test_next_given_previous_by_enumeration_is_the_bigram_entropy():
    # an independent count of (previous, next) pairs over every sentence and its successor's first token
    joint = {}
    first = {}
    sentences = tl.sentence_distribution()
    for words, p in sentences:
        first[words[0]] = first.get(words[0], 0.0) + p
        for a, b in zip(words[:-1], words[1:]):
            joint[(a, b)] = joint.get((a, b), 0.0) + p
    for w, p in first.items():
        joint[(".", w)] = joint.get((".", w), 0.0) + p
    total = sum(joint.values())
    prev = {}
    for (a, _), p in joint.items():
        prev[a] = prev.get(a, 0.0) + p
    h = -sum(p / total * np.log(p / prev[a]) for (a, _), p in joint.items())
    assert h == pytest.approx(tl.bigram_entropy(), abs=1e-12)
    assert round(tl.bigram_entropy(), 5) == 1.16329


@pytest.mark.slow
def test_entropy_given_position_is_the_entropy_rate():
    assert tl.positional_entropy() == pytest.approx(tl.sentence_entropy() / tl.mean_sentence_length(), abs=1e-12)
    assert tl.entropy_rate() == pytest.approx(tl.positional_entropy(), abs=1e-12)
    assert round(tl.entropy_rate(), 5) == 0.98073
    assert tl.entropy_rate() < tl.bigram_entropy()


def test_sentence_entropy_and_length_from_the_parts():
    parts = [np.array([p for _, p in tl.GRAMMAR[part]]) for part in tl.PARTS]
    assert tl.sentence_entropy() == pytest.approx(sum(entropy(p) for p in parts), abs=1e-12)
    lengths = sum(sum(p * len(e.split()) for e, p in tl.GRAMMAR[part]) for part in tl.PARTS)
    assert tl.mean_sentence_length() == pytest.approx(lengths, abs=1e-12)
    assert tl.mean_sentence_length() == pytest.approx(7.52, abs=1e-12)


def test_decode_refuses_a_batch_of_sequences():
    with pytest.raises(ValueError, match=r"^ids must be one id or a 1-D sequence of ids, got shape \(1, 2\) \(decode each row\)$"):
        tl.decode([[0, 1]])
    assert tl.decode(np.array([29, 10, 11, 1, 6, 0])) == "the cat chased a bird ."
    assert tl.decode(29) == "the" and tl.decode([]) == ""
