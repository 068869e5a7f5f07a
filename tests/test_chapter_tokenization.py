"""lib.chapters.tokenization: the experiments of the chapter "Where token ids come from".

GPT-2's byte-to-character map against ``tokenizers``' own alphabet, attention cost and table sizes in closed
form, GPT-2 small's table, the comparison with ``tokenizers`` on a small corpus, the worked trace, renumbering,
and fastText's n-grams against gensim's hashing.
"""

import numpy as np
import pytest

from lib import bpe, memory
from lib.chapters import tokenization as tz
from lib.datasets import read_documents
from lib.embedding import lookup
from lib.provenance import Provenance
from lib.race import Settings, train_fasttext


def test_gpt2_byte_map_is_the_tokenizers_alphabet():
    from tokenizers import pre_tokenizers

    chars = tz.gpt2_bytes_to_unicode()
    assert sorted(chars) == list(range(256))
    assert set(chars.values()) == set(pre_tokenizers.ByteLevel.alphabet())
    assert chars[32] == "Ġ" and chars[ord("a")] == "a" and chars[0] == chr(256)
    order = tz.tokenizers_byte_order()
    assert order[:3] == [33, 34, 35] and order.index(32) > order.index(ord("z"))


def test_attention_flops_closed_form_and_errors():
    assert tz.attention_flops(10, 4) == 4 * 10**2 * 4
    assert tz.attention_flops(0, 768) == 0.0
    assert tz.attention_flops(1000 * 1.5, 768) == pytest.approx(4 * 1500**2 * 768)
    with pytest.raises(ValueError, match="n_tokens must be a finite number >= 0, got -1"):
        tz.attention_flops(-1)
    with pytest.raises(ValueError, match=r"width must be an integer in \[1, 268435456\], got 0"):
        tz.attention_flops(5, 0)


def test_tokens_per_word():
    byte_level = bpe.BPE(merges=())
    assert tz.count_words(["a bb", " c\n"]) == 3
    assert tz.tokens_per_word(byte_level.encode, ["a bb", "c"]) == pytest.approx(5 / 3)  # a, " ", b, b, c
    with pytest.raises(TypeError, match=r"^encode must return a sequence of ids, got NoneType for docs\[1\]$"):
        tz.tokens_per_word(lambda s: None if s == "c" else [1], ["a bb", "c"])  # was "object of type 'NoneType'"
    with pytest.raises(ValueError, match="docs hold no word"):
        tz.tokens_per_word(byte_level.encode, ["   "])


def test_gpt2_point_and_tradeoff_sizes():
    gpt2 = tz.gpt2_point()
    assert gpt2.parameters == 38_597_376 and gpt2.table_bytes == 154_389_504
    assert gpt2.tokens_per_word is None
    text = [" low lower newest widest" * 3, "lowest new wide"]
    tok = bpe.train(text, 300)
    points = tz.vocabulary_tradeoff(tok, ["newer lows"], sizes=(256, 260, 300))
    assert [p.vocab_size for p in points] == [256, 260, tok.vocab_size]  # 300 is beyond: the end instead
    for p in points:
        assert p.parameters == p.vocab_size * tz.WIDTH
        assert p.table_bytes == memory.table_bytes(p.vocab_size, tz.WIDTH, "fp32")
        assert p.attention_gflop == pytest.approx(tz.attention_flops(p.tokens_per_word * tz.TEXT_WORDS) / 1e9)
    assert points[0].tokens_per_word == pytest.approx(len(b"newer lows") / 2)
    assert points[-1].label == tz.END_LABEL
    table = tz.tradeoff_table(points + [gpt2]).splitlines()
    assert table[0] == "| vocabulary | tokens/word | parameters | fp32 | attention GFLOP | note |"
    assert table[-1] == "| 50,257 | – | 38,597,376 | 154.4 MB | – | GPT-2 small |"
    assert table[2] == f"| 256 | 5.000 | 196,608 | 786.4 kB | {4 * 5000**2 * 768 / 1e9:.1f} | bytes only |"


def test_merge_trace_tables():
    merges, words = tz.merge_trace(n_merges=3)
    merges, words = merges.splitlines(), words.splitlines()
    assert merges[2] == "| 1 | (101, 115) | `e` + `s` | 9 | 256 | `es` |"
    assert "| `␣` + `l` |" in merges[4]
    assert words[0] == "| step | ␣low | ␣lower | ␣newest | ␣widest |"
    nb = "\u00a0"  # tokens of a chunk are joined by no-break spaces: a table cell never breaks inside a chunk
    assert words[2].startswith(f"| 0 | `␣{nb}l{nb}o{nb}w` |") and f"`␣{nb}n{nb}e{nb}w{nb}est`" in words[5]
    assert all(" " not in cell for row in words[2:] for cell in row.strip("| ").split(" | "))
    with pytest.raises(ValueError, match="n_merges must be an integer >= 1, got 0"):
        tz.merge_trace(n_merges=0)


def test_show_pair_and_provenance_items():
    assert tz.show_pair((b" ", b"C")) == "␣ + C"
    assert tz.show_pair((b"\xc3", b"r i")) == "\\xc3 + r␣i"
    with pytest.raises(TypeError, match="pair must be a tuple of two bytes objects, got"):
        tz.show_pair(("a", "b"))
    record = Provenance(vocabulary_size=13067, tokens_seen=7780, extra={"tokenizer": "lib.bpe, 13,067 tokens"})
    items = dict(map(tuple, tz.provenance_items(record)))
    assert items["vocabulary size"] == "13,067" and items["tokens seen in training"] == "7,780"
    assert items["tokenizer"] == "lib.bpe, 13,067 tokens"


def test_compare_with_tokenizers_on_a_small_corpus():
    docs = read_documents("lee")[:40]
    book = bpe.train(docs[:30], 1200)
    cmp = tz.compare_with_tokenizers(book, docs[:30], docs, docs[30:], sizes=(256, 512, 1200))
    assert cmp.roundtrip_book == cmp.roundtrip_library == cmp.n_docs == 40
    assert cmp.same_merges_with_library_ties and cmp.same_ids_docs == 40
    assert cmp.vocab_size == 1200 and cmp.n_merges == 944
    assert set(cmp.overlap) == {256, 512, 1200} and cmp.overlap[256] == 256
    assert cmp.common_merges <= cmp.n_merges
    if cmp.first_difference is not None:  # a tie the two rank differently: equal counts
        (a, b), (c, d) = cmp.first_difference_counts, cmp.first_difference_pairs
        assert a == b and c != d
    table = tz.comparison_table(cmp).splitlines()
    assert len(table) == 2 + 3 and table[2].startswith("| 256 | ")
    assert table[2].endswith(" | 256 | 100.0 % |")


def test_timing_against_tokenizers_runs_both_and_checks_repeats():
    docs = read_documents("lee")[:10]
    timing = tz.time_against_tokenizers(docs, docs, 400, repeats=1)
    assert timing.repeats == 1 and all(t > 0 for t in timing.train_seconds + timing.encode_seconds)
    assert timing.train_ratio == timing.train_seconds[0] / timing.train_seconds[1]
    with pytest.raises(ValueError, match="repeats must be an integer >= 1, got 0"):
        tz.time_against_tokenizers(docs, docs, 300, repeats=0)


def test_truncated_library_is_training_to_the_smaller_size():
    docs = read_documents("lee")[:20]
    big = tz.train_tokenizers(docs, 900)
    small = tz.train_tokenizers(docs, 500)
    cut = tz._truncated_library(big, 500)
    assert tz.tokenizers_merges(cut) == tz.tokenizers_merges(small)
    assert all(cut.encode(d).ids == small.encode(d).ids for d in docs)


def test_renumbering_keeps_every_lookup():
    rng = np.random.default_rng(1)
    table = rng.normal(size=(7, 3))
    ids = [0, 3, 3, 6]
    perm = rng.permutation(7)
    moved, new_ids = tz.renumber(table, ids, perm)
    assert np.array_equal(lookup(moved, new_ids), lookup(table, ids))
    assert new_ids.tolist() == [int(perm[i]) for i in ids]
    with pytest.raises(ValueError, match="permutation must be a permutation of 0..6"):
        tz.renumber(table, ids, [0, 1, 2, 3, 4, 5, 5])


def test_absorbed_into_and_untrained_share():
    # " low" x5, " lower" x2: merges ␣l (256), ow (257), ␣low (258), er (259), ␣lower (260), by the tie rule
    text = " low" * 5 + " lower" * 2
    tok = bpe.train(text, 256 + 5)
    assert [tok.vocab[i] for i in range(256, 261)] == [b" l", b"ow", b" low", b"er", b" lower"]
    counts = np.bincount(tok.encode(text), minlength=tok.vocab_size)
    assert counts[258] == 5 and counts[260] == 2 and counts[256] == counts[257] == counts[259] == 0
    assert tz.absorbed_into(tok, 258, counts) == [(260, 2)]  # " low" went into " lower"
    assert tz.absorbed_into(tok, 256, counts) == [(258, 5)]  # " l" went into " low"
    n_never, share = tz.untrained_share(tok, [text], [" lowe"])
    assert n_never == 3  # " l", "ow", "er"
    assert share == 0.5  # " lowe" is " low" (seen) + "e" (never a token of its own in training)


def test_ngram_breakdown_marks_the_buckets_of_vocabulary_ngrams():
    from gensim.models.fasttext import ft_ngram_hashes

    docs = [["tiger", "tigers", "roar"]] * 5 + [["lion", "roar"]] * 5
    trained, kv = train_fasttext(docs, Settings().replace(dim=8, epochs=1, min_count=2), bucket=1000)
    study = tz.SimilarityStudy([], {tz.FASTTEXT: trained}, kv, None, [])
    parts = tz.ngram_breakdown(study, "tigress")
    vocab_buckets = {h for w in trained.vocab.tokens for h in ft_ngram_hashes(w, kv.min_n, kv.max_n, kv.bucket)}
    hashes = ft_ngram_hashes("tigress", kv.min_n, kv.max_n, kv.bucket)
    assert [g for g, _ in parts][:3] == ["<ti", "tig", "igr"]
    assert [t for _, t in parts] == [h in vocab_buckets for h in hashes]
    assert parts[0][1] and parts[1][1]  # "<ti" and "tig" come from "tiger"
    assert set(tz.unseen_neighbours(study, "tigress", 2)) <= {"tiger", "tigers", "roar", "lion"}
    with pytest.raises(ValueError, match="k must be an integer >= 1, got 0"):
        tz.unseen_neighbours(study, "tigress", 0)


def test_interval_text_names_a_bad_digits_and_refuses_nan():
    from lib.evaluation import Interval

    iv = Interval(0.1934, 0.021, 0.349, 0.95, 133, 10_000)
    assert tz.interval_text(iv, 3, 2) == "0.193 [0.02, 0.35]"
    with pytest.raises(TypeError, match=r"^digits must be an integer in \[0, 12\], got 2.5$"):
        tz.interval_text(iv, 2.5)  # named the format spec '.2.5f'
    with pytest.raises(ValueError, match=r"^end_digits must be an integer in \[0, 12\], got -1$"):
        tz.interval_text(iv, 2, -1)
    with pytest.raises(ValueError, match=r"^iv.low must be a finite number, got -inf$"):
        tz.interval_text(Interval(0.1, float("-inf"), 0.5, 0.95, 10, 100))  # printed '0.10 [-inf, 0.5]'
    with pytest.raises(TypeError, match=r"^iv must be an Interval \(lib.evaluation\), got tuple$"):
        tz.interval_text((0.1, 0.0, 0.5))


def test_word_counts_refuse_one_string_and_non_strings():
    # one string was counted character by character: count_words("The fire") was 7
    with pytest.raises(TypeError, match=r"^docs must be a sequence of str, got a single string 'The fire'$"):
        tz.count_words("The fire")
    with pytest.raises(TypeError, match=r"^docs\[1\] must be a str, got int$"):
        tz.count_words(["a b", 3])  # was AttributeError: 'int' object has no attribute 'split'
    with pytest.raises(TypeError, match=r"^encode must be a function from str to ids, got 3$"):
        tz.tokens_per_word(3, ["a b"])  # was TypeError: 'int' object is not callable
    # a generator of documents is read once, for the words and the tokens alike: 2 + 1 tokens over 3 words
    assert tz.tokens_per_word(lambda d: d.split(), (d for d in ["a b", "c"])) == 1.0


def test_attention_flops_beyond_float64_is_named():
    with pytest.raises(ValueError, match=r"^n_tokens = 1e\+200 at width 768: 4 n² d is beyond the float64 range"):
        tz.attention_flops(1e200, 768)  # was OverflowError: (34, 'Numerical result out of range')
    with pytest.raises(ValueError, match=r"^width must be an integer in \[1, 268435456\], got 1000000000000$"):
        tz.attention_flops(10, 10**12)
    assert tz.attention_flops(1e150, 1) == pytest.approx(4e300, rel=1e-15)


def test_renumber_refuses_a_permutation_that_is_not_integers():
    table = np.array([[0.0], [1.0], [2.0]])
    with pytest.raises(TypeError, match=r"^permutation must be integers, got dtype float64$"):
        tz.renumber(table, [0], [2.0, 0.0, 1.0])  # was NumPy's "arrays used as indices must be of integer type"
    with pytest.raises(TypeError, match=r"^permutation must be integers, got dtype bool$"):
        tz.renumber(np.array([[0.0], [1.0]]), [0], [True, False])
    with pytest.raises(ValueError, match=r"^table must be a \(V, d\) table, got shape \(3,\)$"):
        tz.renumber(np.arange(3.0), [0], [2, 0, 1])


def test_absorbed_into_checks_its_counts_and_k():
    tokenizer = bpe.BPE(merges=((97, 98), (256, 99)))
    counts = np.array([0] * 256 + [0, 5])
    with pytest.raises(ValueError, match=r"^k must be an integer >= 1, got -1$"):
        tz.absorbed_into(tokenizer, 256, counts, k=-1)  # seen[:-1] dropped the last token without a word
    with pytest.raises(ValueError, match=r"^counts must have shape \(V,\) = \(258,\), got \(257,\)$"):
        tz.absorbed_into(tokenizer, 256, counts[:-1])  # was IndexError
    with pytest.raises(TypeError, match=r"^counts must be integers, got dtype bool$"):
        tz.absorbed_into(tokenizer, 256, counts > 0)
    assert tz.absorbed_into(tokenizer, 256, counts) == [(257, 5)]
