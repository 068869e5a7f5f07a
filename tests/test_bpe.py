"""lib.bpe: byte-level byte-pair encoding.

Hand-computed merge sequences (Sennrich et al.'s dictionary, Wikipedia's example), the tie rule, round trips
on random bytes and on text from every Unicode plane (hypothesis), the empty string, the errors, and the
merges of Hugging Face ``tokenizers`` reproduced exactly when ties are ranked as it ranks them.
"""

import doctest
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lib import bpe

ROOT = Path(__file__).resolve().parents[1]

# Sennrich, Haddow & Birch (2016), Algorithm 1's dictionary: low x5, lower x2, newest x6, widest x3
SENNRICH = " low" * 5 + " lower" * 2 + " newest" * 6 + " widest" * 3

# A small multilingual training text, so that merges join bytes of multi-byte characters too (it runs out
# of pairs at 367 tokens).
MIXED = (
    "The quick brown fox jumps over the lazy dog. " * 3
    + "naïve café crème brûlée " * 4
    + "東京 東京都 京都 " * 4
    + "Привет мир, привет! " * 3
    + "🙂🙂 🙃 👍🏽 " * 3
    + "x² + y² = z²; ½ ≠ ⅓. " * 2
)


@pytest.fixture(scope="module")
def mixed():
    return bpe.train(MIXED, 420)


def test_docstring_examples_run():
    result = doctest.testmod(bpe, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 9 and result.failed == 0


# --- hand-computed merges ----------------------------------------------------------------------------


def test_sennrich_dictionary_merges_by_hand():
    # chunks: " low" x5, " lower" x2, " newest" x6, " widest" x3. Pair counts at the start:
    # e s 9, s t 9, w e 8, ␣ l 7, l o 7, o w 7, ␣ n 6, n e 6, e w 6, ...
    # 1: e s (101,115) ties with s t (115,116) at 9: smaller ranks win      -> 256 "es"
    # 2: es t 9                                                          -> 257 "est"
    # 3: ␣ l, l o, o w tie at 7: (32,108) is smallest                     -> 258 " l"
    # 4: ␣l o (258,111) and o w (111,119) tie at 7: 111 < 258              -> 259 "ow"
    # 5: ␣l ow 7                                                          -> 260 " low"
    # 6: ␣ n (32,110), n e, e w, w est tie at 6: (32,110)                  -> 261 " n"
    # 7: ␣n e (261,101), e w (101,119), w est (119,257) at 6: (101,119)    -> 262 "ew"
    # 8: ␣n ew (261,262) and ew est (262,257) at 6: 261 < 262              -> 263 " new"
    tok = bpe.train(SENNRICH, 256 + 8)
    assert tok.merges == ((101, 115), (256, 116), (32, 108), (111, 119), (258, 259), (32, 110), (101, 119), (261, 262))
    assert tok.counts == (9, 9, 7, 7, 7, 6, 6, 6)
    assert [tok.vocab[i] for i in range(256, 264)] == [b"es", b"est", b" l", b"ow", b" low", b" n", b"ew", b" new"]
    assert [tok.vocab[i] for i in tok.encode(" lowest newer")] == [b" low", b"est", b" new", b"e", b"r"]


def test_wikipedia_example_with_overlapping_pairs():
    # "aaabdaaabac": aa counts 4 (two overlapping per "aaa"), merged left to right: Z=aa -> "ZabdZabac";
    # then Z a and a b tie at 2 and (97, 98) < (256, 97): Y=ab -> "ZYdZYac"; then X=ZY.
    tok = bpe.train("aaabdaaabac", 259, pattern=None)
    assert tok.merges == ((97, 97), (97, 98), (256, 257))
    assert tok.counts == (4, 2, 2)
    assert tok.encode("aaabdaaabac") == [258, 100, 258, 97, 99]


def test_count_pairs_and_merge():
    assert bpe.count_pairs([1, 1, 1, 1]) == {(1, 1): 3}
    assert bpe.count_pairs([1, 2], {(1, 2): 3}, weight=5) == {(1, 2): 8}
    assert bpe.merge([1, 1, 1, 1], (1, 1), 9) == [9, 9]
    assert bpe.merge([1, 1, 1], (1, 1), 9) == [9, 1]
    assert bpe.merge([1, 2, 3], (2, 1), 9) == [1, 2, 3]
    assert bpe.merge([], (1, 2), 9) == []


# --- the tie rule and determinism -----------------------------------------------------------------------


def test_ties_go_to_the_smallest_pair_of_ranks():
    tok = bpe.train("abcd", 257, pattern=None)  # ab, bc, cd: one each
    assert tok.merges == ((97, 98),)
    # rank c before b before a: (98, 99) "bc" has ranks (1, 0), (99, 100) "cd" (0, 3), (97, 98) (2, 1)
    order = [99, 98, 97] + [b for b in range(256) if b not in (97, 98, 99)]
    assert bpe.train("abcd", 257, pattern=None, byte_order=order).merges == ((99, 100),)


def test_training_does_not_depend_on_document_order():
    docs = MIXED.split(". ")
    forward = bpe.train(docs, 400)
    backward = bpe.train(docs[::-1], 400)
    shuffled = bpe.train([docs[i] for i in np.random.default_rng(0).permutation(len(docs))], 400)
    assert forward.merges == backward.merges == shuffled.merges
    assert forward.counts == backward.counts


@pytest.mark.slow
def test_training_does_not_depend_on_the_hash_seed():
    code = "from lib import bpe; import tests.test_bpe as t; print(bpe.train(t.MIXED, 380).merges)"
    outputs = set()
    for seed in ("0", "1", "12345"):
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                             env={"PYTHONHASHSEED": seed, "PATH": ""}, check=True)
        outputs.add(run.stdout)
    assert len(outputs) == 1


def test_training_stops_when_no_pair_is_left():
    tok = bpe.train(["ab ab", "cd"], 1000)
    assert tok.vocab_size == 256 + 3  # "ab", then " a" ... until every chunk is one token
    assert all(len(tok.encode(c)) == 1 for c in ("ab", " ab", "cd"))


def test_truncate_is_training_to_the_smaller_size():
    small = bpe.train(MIXED, 300)
    large = bpe.train(MIXED, 420)
    assert large.vocab_size == 367  # MIXED runs out of pairs there
    assert large.truncate(300) == small and large.truncate(300).counts == small.counts


# --- round trips ------------------------------------------------------------------------------------------


def test_empty_string(mixed):
    assert mixed.encode("") == []
    assert mixed.decode([]) == ""
    assert mixed.decode_bytes([]) == b""
    assert mixed.encode_bytes(b"") == []


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_round_trip_of_random_bytes(data):
    tok = _MIXED_TOKENIZER
    ids = tok.encode_bytes(data)
    assert tok.decode_bytes(ids) == data
    assert all(0 <= i < tok.vocab_size for i in ids) and len(ids) <= len(data)


ALL_PLANES = st.characters(min_codepoint=0, max_codepoint=0x10FFFF, exclude_categories=("Cs",))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=ALL_PLANES, max_size=80))
def test_round_trip_of_text_from_every_plane(text):
    tok = _MIXED_TOKENIZER
    ids = tok.encode(text)
    assert tok.decode(ids) == text
    assert len(ids) <= len(text.encode("utf-8"))


def test_one_character_from_each_of_the_17_planes(mixed):
    text = "".join(chr(plane * 0x10000 + 0x41) for plane in range(17)) + "\U0010FFFF"
    assert {ord(c) >> 16 for c in text} == set(range(17))
    assert mixed.decode(mixed.encode(text)) == text


def test_merges_of_multibyte_characters_are_used(mixed):
    ids = mixed.encode("東京")
    assert len(ids) < len("東京".encode("utf-8"))  # the training text taught the bytes of 東 and 京
    assert mixed.decode(ids) == "東京"


def test_decode_of_a_partial_character_uses_the_replacement_character(mixed):
    assert mixed.decode([0xE6]) == "\ufffd"  # the first byte of 東 alone
    assert mixed.token_text(0xE6) == "\\xe6"


# --- split ------------------------------------------------------------------------------------------------


def test_split_follows_gpt2_on_ascii():
    assert bpe.split("Hello world's 2024 best!!  ok\n") == ["Hello", " world", "'s", " 2024", " best", "!!", " ", " ok", "\n"]
    assert bpe.split("snake_case") == ["snake", "_", "case"]  # GPT-2 puts the underscore with the symbols
    assert bpe.split("", None) == [] and bpe.split("a b", None) == ["a b"]


def test_split_matches_tokenizers_on_the_lee_corpus():
    from tokenizers import pre_tokenizers

    from lib.datasets import read_documents

    docs = read_documents("lee")[:40]
    reference = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    from lib.chapters.tokenization import gpt2_bytes_to_unicode

    back = {c: b for b, c in gpt2_bytes_to_unicode().items()}
    for doc in docs:
        theirs = [bytes(back[c] for c in piece) for piece, _ in reference.pre_tokenize_str(doc)]
        assert [c.encode("utf-8") for c in bpe.split(doc)] == theirs


# --- errors -----------------------------------------------------------------------------------------------


def test_vocabulary_smaller_than_256_is_rejected():
    with pytest.raises(ValueError, match=r"vocab_size must be an integer >= 256 \(the byte tokens\), got 255"):
        bpe.train("some text", 255)
    with pytest.raises(TypeError, match=r"vocab_size must be an integer >= 256 \(the byte tokens\), got 300.0"):
        bpe.train("some text", 300.0)
    with pytest.raises(TypeError, match="vocab_size must be an integer >= 256 .*, got True"):
        bpe.train("some text", True)


def test_empty_corpus_is_rejected():
    for empty in ("", [], ["", ""]):
        with pytest.raises(ValueError, match="the training text is empty"):
            bpe.train(empty, 300)


def test_bad_training_input():
    with pytest.raises(TypeError, match=r"texts\[1\] must be a str, got int"):
        bpe.train(["ok", 3], 300)
    with pytest.raises(ValueError, match="byte_order must list each of the 256 byte values"):
        bpe.train("abc", 300, byte_order=range(255))
    with pytest.raises(TypeError, match=r"byte_order\[0\] must be an integer >= 0, got 0.0"):
        bpe.train("abc", 300, byte_order=[0.0] + list(range(1, 256)))
    with pytest.raises(ValueError, match="lone surrogate U\\+D800 at index 2"):
        bpe.train(["ok", "ab\ud800"], 300)


def test_bad_encode_and_decode_input(mixed):
    with pytest.raises(TypeError, match="text must be a str, got bytes"):
        mixed.encode(b"abc")
    with pytest.raises(ValueError, match="text holds a lone surrogate U\\+DFFF at index 1"):
        mixed.encode("a\udfff")
    with pytest.raises(TypeError, match="data must be bytes, got str"):
        mixed.encode_bytes("abc")
    V = mixed.vocab_size
    with pytest.raises(ValueError, match=rf"token id {V} out of range for vocabulary of {V} \(allowed 0..{V - 1}\)"):
        mixed.decode([1, V])
    with pytest.raises(ValueError, match="token id -1 out of range"):
        mixed.decode([-1])
    with pytest.raises(TypeError, match="token ids must be integers, got dtype float64"):
        mixed.decode([1.0])
    with pytest.raises(TypeError, match="token ids must be integers, got dtype <U3"):
        mixed.decode("abc")
    with pytest.raises(ValueError, match=r"ids must be a 1-D sequence of token ids, got shape \(1, 2\)"):
        mixed.decode([[1, 2]])
    assert mixed.decode(np.array([104, 105], dtype=object)) == "hi"  # was "token ids must fit in int64"
    with pytest.raises(TypeError, match=r"^token ids must be an integer or an array of integers .*got a generator"):
        mixed.decode(i for i in [104, 105])
    with pytest.raises(ValueError, match=rf"vocab_size must be an integer in \[256, {V}\], got {V + 1}"):
        mixed.truncate(V + 1)


def test_bad_patterns_and_merges():
    with pytest.raises(ValueError, match="does not match every character"):
        bpe.split("a, b", r"[a-z]+")
    with pytest.raises(ValueError, match="capturing groups"):
        bpe.split("ab", r"(a)|b")
    with pytest.raises(ValueError, match="not a valid regular expression"):
        bpe.split("ab", r"[")
    with pytest.raises(ValueError, match=r"merges\[1\] = \(257, 97\) names an id outside 0..256"):
        bpe.BPE(merges=((97, 98), (257, 97)))
    with pytest.raises(TypeError, match=r"merges\[0\]\[1\] must be an integer >= 0, got 98.0"):
        bpe.BPE(merges=((97, 98.0),))
    with pytest.raises(ValueError, match=r"merges\[0\] must be a pair of token ids, got \(97, 98, 99\)"):
        bpe.BPE(merges=((97, 98, 99),))
    with pytest.raises(ValueError, match="counts has 1 entries for 2 merges"):
        bpe.BPE(merges=((97, 98), (256, 99)), counts=(3,))


# --- against Hugging Face tokenizers --------------------------------------------------------------------


def test_same_merges_and_tokens_as_tokenizers_with_its_byte_order():
    from lib.chapters.tokenization import tokenizers_byte_order, tokenizers_merges, tokenizers_vocab, train_tokenizers
    from lib.datasets import read_documents

    docs = read_documents("lee")[:60]
    lib = train_tokenizers(docs, 1500)
    ours = bpe.train(docs, 1500, byte_order=tokenizers_byte_order())
    assert [(ours.vocab[a], ours.vocab[b]) for a, b in ours.merges] == tokenizers_merges(lib)
    vocab = tokenizers_vocab(lib)
    for doc in docs[:20]:
        assert [vocab[i] for i in lib.encode(doc).ids] == [ours.vocab[i] for i in ours.encode(doc)]


_MIXED_TOKENIZER = bpe.train(MIXED, 420)


@pytest.mark.parametrize("counts, error, match", [((2.7,), TypeError, r"counts\[0\] must be an integer >= 0, got 2.7"),
                                                  ((-1,), ValueError, r"counts\[0\] must be an integer >= 0, got -1"),
                                                  (("3",), TypeError, r"counts\[0\] must be an integer >= 0")])
def test_bpe_counts_must_be_integers_not_coerced(counts, error, match):
    with pytest.raises(error, match=match):
        bpe.BPE(merges=((97, 98),), counts=counts)
    assert bpe.BPE(merges=((97, 98),), counts=(np.int64(3),)).counts == (3,)


def test_merge_and_count_pairs_check_their_arguments():
    with pytest.raises(TypeError, match="^new_id must be an integer >= 0, got None$"):
        bpe.merge([1, 2, 1, 2], (1, 2), None)  # gave [None, None]
    with pytest.raises(ValueError, match="^new_id must be an integer >= 0, got -1$"):
        bpe.merge([1, 2, 1, 2], (1, 2), -1)
    with pytest.raises(ValueError, match="^new_id 1 already occurs in ids or pair: the merged token must have an id of its own$"):
        bpe.merge([1, 2, 1, 2], (1, 2), 1)  # gave [1, 1]
    with pytest.raises(ValueError, match="^new_id 5 already occurs in ids or pair"):
        bpe.merge([1, 2, 5], (1, 2), 5)
    with pytest.raises(ValueError, match=r"^pair must be two ids \(a, b\), got 3$"):
        bpe.merge([1, 2], (1, 2, 3), 9)
    with pytest.raises(ValueError, match=r"^weight must be an integer >= 1 \(the number of times the word occurs\), got -1$"):
        bpe.count_pairs([1, 2, 1], weight=-1)  # gave negative counts
    # a NumPy weight is taken as a Python int: the second add no longer wraps around
    counts = bpe.count_pairs([1, 2, 1, 2], weight=np.uint64(2**64 - 1))
    assert counts == {(1, 2): 2 * (2**64 - 1), (2, 1): 2**64 - 1} and type(counts[(1, 2)]) is int
    with pytest.raises(TypeError, match=r"^ids\[1\] must be an integer >= 0, got 2.0$"):
        bpe.count_pairs([1, 2.0])
    assert bpe.merge([97, 97, 97, 98], (97, 97), 256) == [256, 97, 98]


def test_texts_that_are_not_a_collection_are_named():
    for bad in (None, 5):
        with pytest.raises(TypeError, match=f"^texts must be a str or a sequence of str documents, got {bad}$"):
            bpe.chunk_counts(bad)
        with pytest.raises(TypeError, match=f"^texts must be a str or a sequence of str documents, got {bad}$"):
            bpe.train(bad, 300)
