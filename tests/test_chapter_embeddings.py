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
    assert lines[0].split() == ["term", "rank", "this", "chapter", "source", "same"]
    assert lines[1].split() == ["a", "1", "b", "0.9939", "b", "0.9939", "yes"]
    assert lines[2].split() == ["a", "2", "c", "0.0000", "c", "0.0000", "yes"]
    assert result.all_same
    other = compare_neighbours(got, {"a": [("b", 0.99), ("c", 0.0)]})
    assert other.table.splitlines()[1].split()[-1] == "NO" and not other.all_same
    with pytest.raises(ValueError, match="same terms"):
        compare_neighbours(got, {"b": got["a"]})
