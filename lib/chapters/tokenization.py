"""The chapter chapters/tokenization.md: its experiments on the Lee corpus.

Concepts used: :mod:`lib.bpe` (byte-level byte-pair encoding), :mod:`lib.memory` (table sizes),
:mod:`lib.sgns` (skip-gram on BPE tokens), :mod:`lib.provenance` (tokens seen and never seen),
:mod:`lib.evaluation` (WordSim-353 cosines and bootstrap intervals), :mod:`lib.race` (the word-level
trainers and fastText :cite:p:`bojanowski2017enriching` under one :class:`lib.race.Settings`),
:mod:`lib.datasets` (the corpus).

- the corpus split (:func:`lee_split`: every tenth story held out) and the book's tokenizer trained on the
  rest (:func:`chapter_tokenizer`, cached per process);
- vocabulary size against tokens per held-out word, table size and attention cost
  (:func:`vocabulary_tradeoff`, :func:`gpt2_point`, :func:`tradeoff_table`);
- the same training with Hugging Face ``tokenizers`` :cite:p:`huggingface2019tokenizers`
  (:func:`train_tokenizers`), read back as bytes
  (:func:`tokenizers_merges`), and the comparison (:func:`compare_with_tokenizers`: exact results only;
  the speed ratio is measured by ``benchmarks/tokenization_bpe.py`` with :func:`time_against_tokenizers`);
- unseen words: word-level methods and fastText on WordSim-353, with coverage and bootstrap intervals
  (:func:`similarity_study`, :func:`similarity_table`), and what an unseen word's fastText vector is
  made of (:func:`ngram_breakdown`, :func:`unseen_neighbours`);
- skip-gram on BPE tokens and what it leaves untrained (:func:`untrained_rows`, cached per process);
- the worked merge trace and the views of one text under several vocabularies (:func:`merge_trace`,
  :func:`id_views`, :func:`renumber`).
"""

from __future__ import annotations

import json
import math
import statistics
import time
from collections.abc import Sized
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
from gensim.models.fasttext import FastTextKeyedVectors, compute_ngrams, ft_ngram_hashes
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

from lib import bpe, memory, tables, validate
from lib.chapters.lesson import GPT2_VOCAB, GPT2_WIDTH
from lib.datasets import provenance_extra, read_documents
from lib.embedding import nearest_neighbours
from lib.evaluation import Interval, pair_cosines, read_word_pairs, spearman_interval
from lib.notebook import fmt, logging_numbers, record_gap
from lib.provenance import Provenance, seen_tokens
from lib.race import Settings, Trained, train_book_sgns, train_fasttext, train_gensim, train_ppmi_svd
from lib.sgns import SGNSConfig, SGNSResult, train_sgns

#: Every ``HELD_OUT_EVERY``-th story of the Lee corpus (the 10th, 20th, ...) is held out from BPE training.
HELD_OUT_EVERY = 10
#: The largest vocabulary asked for; training on the Lee corpus runs out of pairs before it.
MAX_VOCAB = 16_384
#: Vocabulary sizes of the trade-off (each at most the trained tokenizer's size).
VOCAB_SIZES = (256, 512, 1_024, 2_048, 4_096, 8_192, 16_384)
#: Width for table sizes and attention cost: GPT-2 small's :cite:p:`radford2019language`.
WIDTH = GPT2_WIDTH
#: Length, in words, of the text whose attention cost is compared.
TEXT_WORDS = 1_000
#: The label of the vocabulary where training ran out of pairs.
END_LABEL = "no pair left"


# --- the corpus and the book's tokenizer --------------------------------------------------------------


def lee_split() -> Tuple[List[str], List[str]]:
    """``(training stories, held-out stories)`` of the Lee corpus (raw text, one ``str`` per story): story
    ``i`` (from 0) is held out when ``i % HELD_OUT_EVERY == HELD_OUT_EVERY - 1``. Raises like
    :func:`lib.datasets.read_documents` when the data are missing."""
    docs = read_documents("lee")
    held = [d for i, d in enumerate(docs) if i % HELD_OUT_EVERY == HELD_OUT_EVERY - 1]
    train = [d for i, d in enumerate(docs) if i % HELD_OUT_EVERY != HELD_OUT_EVERY - 1]
    return train, held


@lru_cache(maxsize=1)
def chapter_tokenizer() -> bpe.BPE:
    """The book's byte-level BPE trained on the training stories, asked for ``MAX_VOCAB`` tokens (it stops
    earlier, when every chunk of the training text is one token). Computed once per process."""
    return bpe.train(lee_split()[0], MAX_VOCAB)


def count_words(docs: Sequence[str]) -> int:
    """Words in ``docs``: runs of characters between whitespace (``str.split``), punctuation included.

    ``TypeError`` for ``docs`` that is one string (its characters would be counted as documents) or holds
    something other than strings.

    >>> count_words(["The fire, near Sydney.", "It spread"])
    6
    """
    docs = validate.collection(docs, "docs", "a sequence of str")
    for i, d in enumerate(docs):
        if not isinstance(d, str):
            raise TypeError(f"docs[{i}] must be a str, got {type(d).__name__}")
    return sum(len(d.split()) for d in docs)


def tokens_per_word(encode: Callable[[str], Sequence[int]], docs: Sequence[str]) -> float:
    """Tokens per word of ``docs``: ``sum(len(encode(d))) / count_words(docs)``; ``encode`` maps a ``str``
    to its ids. Raises ``ValueError`` when the documents hold no word, ``TypeError`` for an ``encode`` that is
    not a function or returns something without a length (``None``), and for ``docs`` as :func:`count_words`.

    >>> tokens_per_word(lambda d: list(d.encode("utf-8")), ["ab cd", "e"])
    2.0
    """
    if not callable(encode):
        raise TypeError(f"encode must be a function from str to ids, got {encode!r}")
    docs = validate.collection(docs, "docs", "a sequence of str")  # read once: count_words would exhaust a generator
    words = count_words(docs)
    if words == 0:
        raise ValueError("docs hold no word, so tokens per word is undefined")
    total = 0
    for i, d in enumerate(docs):
        ids = encode(d)
        if not isinstance(ids, Sized):
            raise TypeError(f"encode must return a sequence of ids, got {type(ids).__name__} for docs[{i}]")
        total += len(ids)
    return total / words


def attention_flops(n_tokens: float, width: int = WIDTH) -> float:
    """Floating-point operations of one attention layer's two sequence-by-sequence products for a sequence
    of ``n_tokens``: the scores ``Q Kᵀ`` and the weighted sum of values, ``2 n² d`` each, so ``4 n² d``
    (a multiply and an add count as two): the ``O(n² d)`` per layer that :cite:t:`vaswani2017attention`
    give in their Table 1. The projections and the MLP grow only linearly in ``n`` and are not counted. Raises
    ``ValueError`` for a negative ``n_tokens``, a ``width`` outside ``[1, lib.validate.MAX_SIZE]`` and a count
    beyond float64 (``n_tokens = 1e200``: it would be ``OverflowError``).

    >>> attention_flops(10, 4)
    1600.0
    """
    n_tokens = validate.number(n_tokens, "n_tokens", ge=0)
    width = validate.size(width, "width")
    if n_tokens > math.sqrt(np.finfo(np.float64).max / (4.0 * width)):
        raise ValueError(f"n_tokens = {n_tokens!r} at width {width}: 4 n² d is beyond the float64 range "
                         f"(about 1.8e308)")
    return 4.0 * n_tokens**2 * width


# --- vocabulary size against sequence length, table size and attention ----------------------------------


@dataclass(frozen=True)
class VocabPoint:
    """One vocabulary size: ``vocab_size``; ``tokens_per_word`` on the held-out stories (``None`` where it
    cannot be measured here, as for GPT-2); the ``(vocab_size, width)`` table's ``parameters`` and
    ``table_bytes`` in fp32 (:func:`lib.memory.table_bytes`); ``attention_gflop``, one attention layer's
    sequence-by-sequence products for a ``TEXT_WORDS``-word text (:func:`attention_flops`, in 10⁹);
    ``label``."""

    vocab_size: int
    tokens_per_word: Optional[float]
    parameters: int
    table_bytes: int
    attention_gflop: Optional[float]
    label: str


def vocabulary_tradeoff(
    tokenizer: bpe.BPE, held_out: Sequence[str], sizes: Sequence[int] = VOCAB_SIZES, width: int = WIDTH
) -> List[VocabPoint]:
    """One :class:`VocabPoint` per size in ``sizes`` that ``tokenizer`` reaches, plus one at its own size
    when a size asked for is beyond it (labelled as the end of training). Each smaller vocabulary is a
    prefix of the merges (:meth:`lib.bpe.BPE.truncate`). Raises ``ValueError`` for a size below 256."""
    sizes = validate.integers(sizes, "sizes", low=bpe.N_BYTES)
    width = validate.integer(width, "width", low=1)
    reached = sorted({s for s in sizes if s <= tokenizer.vocab_size})
    if any(s > tokenizer.vocab_size for s in sizes):
        reached.append(tokenizer.vocab_size)
    points = []
    for size in reached:
        tpw = tokens_per_word(tokenizer.truncate(size).encode, held_out)
        label = "bytes only" if size == bpe.N_BYTES else (END_LABEL if size not in sizes else "")
        points.append(
            VocabPoint(size, tpw, size * width, memory.table_bytes(size, width, "fp32"),
                       attention_flops(tpw * TEXT_WORDS, width) / 1e9, label)
        )
    return points


def gpt2_point() -> VocabPoint:
    """GPT-2 small's table, 50,257 × 768 :cite:p:`radford2019language`, computed like the others; its tokens
    per word on the Lee stories is ``None``: its merges are not shipped with any pinned package."""
    return VocabPoint(GPT2_VOCAB, None, GPT2_VOCAB * GPT2_WIDTH, memory.table_bytes(GPT2_VOCAB, GPT2_WIDTH, "fp32"),
                      None, "GPT-2 small")


def tradeoff_table(points: Sequence[VocabPoint]) -> str:
    """The trade-off as a Markdown table (:func:`lib.tables.markdown`): vocabulary, tokens per word (3
    decimals), the table's parameters at width ``WIDTH`` and its fp32 size, one attention layer's GFLOP
    for ``TEXT_WORDS`` words (1 decimal), and a note."""
    rows = []
    for p in points:
        rows.append([
            f"{p.vocab_size:,}",
            "–" if p.tokens_per_word is None else fmt(p.tokens_per_word, ".3f"),
            f"{p.parameters:,}",
            memory.format_bytes(p.table_bytes),
            "–" if p.attention_gflop is None else fmt(p.attention_gflop, ".1f"),
            p.label,
        ])
    header = ["vocabulary", "tokens/word", "parameters", "fp32", "attention GFLOP", "note"]
    return tables.markdown(header, rows, align="<>>>><")


# --- Hugging Face tokenizers ------------------------------------------------------------------------------


def gpt2_bytes_to_unicode() -> Dict[int, str]:
    """GPT-2's map from each byte to a printable character (``bytes_to_unicode`` in its ``encoder.py``
    :cite:p:`radford2019language`), which ``tokenizers``' ``ByteLevel`` uses to store tokens as text: the 188
    bytes that are printable Latin-1 characters map to themselves, the other 68 (space, control characters,
    ``0x7f``-``0xa0``, ``0xad``) to ``chr(256)``, ``chr(257)``, ... in byte order; the space becomes ``Ġ``.

    >>> chars = gpt2_bytes_to_unicode()
    >>> chars[ord("a")], chars[ord(" ")], len(set(chars.values()))
    ('a', 'Ġ', 256)
    """
    keep = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    out = {b: chr(b) for b in keep}
    for n, b in enumerate(b for b in range(256) if b not in out):
        out[b] = chr(256 + n)
    return out


def tokenizers_byte_order() -> List[int]:
    """The bytes in the order of ``tokenizers``' ids for them: its BPE trainer numbers the initial alphabet
    by character, so bytes go in the order of their :func:`gpt2_bytes_to_unicode` characters (the printable
    ones first, then space and the control characters). Pass it to :func:`lib.bpe.train` as ``byte_order``
    to break ties as the library does.

    >>> order = tokenizers_byte_order()
    >>> order[:3], order.index(ord(" ")) > order.index(ord("C"))
    ([33, 34, 35], True)
    """
    chars = gpt2_bytes_to_unicode()
    return sorted(range(256), key=lambda b: ord(chars[b]))


def train_tokenizers(texts: Sequence[str], vocab_size: int) -> Tokenizer:
    """A byte-level BPE ``tokenizers.Tokenizer`` trained on ``texts`` with ``vocab_size`` tokens, set up as
    the book's: GPT-2's split pattern with no space added in front (``ByteLevel(add_prefix_space=False)``),
    all 256 bytes in the initial alphabet, every pair eligible (``min_frequency=0``), no special tokens,
    and the ``ByteLevel`` decoder. Offline: nothing is downloaded. Raises ``ValueError`` for
    ``vocab_size < 256``."""
    vocab_size = validate.integer(vocab_size, "vocab_size", low=bpe.N_BYTES, hint="the byte tokens")
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, min_frequency=0, show_progress=False, special_tokens=[],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator(list(texts), trainer=trainer)
    return tok


def _as_bytes(token: str, back: Dict[str, int]) -> bytes:
    return bytes(back[c] for c in token)


def tokenizers_merges(tok: Tokenizer) -> List[Tuple[bytes, bytes]]:
    """The merges of a ``tokenizers`` BPE model in order, each as its two tokens' bytes."""
    back = {c: b for b, c in gpt2_bytes_to_unicode().items()}
    merges = json.loads(tok.to_str())["model"]["merges"]
    pairs = [m.split(" ") if isinstance(m, str) else m for m in merges]
    return [(_as_bytes(a, back), _as_bytes(b, back)) for a, b in pairs]


def tokenizers_vocab(tok: Tokenizer) -> Dict[int, bytes]:
    """``{id: bytes}`` of a ``tokenizers`` byte-level vocabulary."""
    back = {c: b for b, c in gpt2_bytes_to_unicode().items()}
    return {i: _as_bytes(s, back) for s, i in tok.get_vocab().items()}


def book_merges(tokenizer: bpe.BPE) -> List[Tuple[bytes, bytes]]:
    """The merges of a :class:`lib.bpe.BPE` in order, each as its two tokens' bytes.

    >>> book_merges(bpe.BPE(merges=((97, 98), (256, 99))))
    [(b'a', b'b'), (b'ab', b'c')]
    """
    return [(tokenizer.vocab[a], tokenizer.vocab[b]) for a, b in tokenizer.merges]


@dataclass(frozen=True)
class Comparison:
    """The book's BPE against ``tokenizers``, trained on the same stories with the same vocabulary size.
    Every field is exact, the same on every machine.

    ``vocab_size`` (of both), ``n_merges``; round trips ``roundtrip_book`` and ``roundtrip_library``
    (stories whose decoded ids equal the story) of ``n_docs``; ``first_difference`` (index of the first
    merge that differs, ``None`` if none), with the two pairs chosen there (``first_difference_pairs``) and
    their counts in the text at that step (``first_difference_counts``: the library does not report counts,
    so the second is taken from the book's trainer run with the library's byte order, which makes the
    library's merges, see ``same_merges_with_library_ties``); ``common_merges`` (merges both made, in any order);
    ``overlap`` (``{size: tokens both vocabularies hold}`` at equal sizes); ``tokens_per_word`` (``{size:
    (book, library)}`` on the held-out stories); ``same_merges_with_library_ties`` (the book's trainer
    with the library's byte order makes the same merges in the same order) and ``same_ids_docs``
    (stories for which that tokenizer and the library give the same tokens); ``library``, the trained
    ``tokenizers.Tokenizer``.
    """

    vocab_size: int
    n_merges: int
    n_docs: int
    roundtrip_book: int
    roundtrip_library: int
    first_difference: Optional[int]
    first_difference_pairs: Optional[Tuple[Tuple[bytes, bytes], Tuple[bytes, bytes]]]
    first_difference_counts: Optional[Tuple[int, int]]
    common_merges: int
    overlap: Dict[int, int]
    tokens_per_word: Dict[int, Tuple[float, float]]
    same_merges_with_library_ties: bool
    same_ids_docs: int
    library: Tokenizer = field(repr=False, compare=False)


def compare_with_tokenizers(
    book: bpe.BPE,
    train_docs: Sequence[str],
    docs: Sequence[str],
    held_out: Sequence[str],
    sizes: Sequence[int] = VOCAB_SIZES,
) -> Comparison:
    """Train ``tokenizers`` on ``train_docs`` with the vocabulary size of ``book`` (the book's tokenizer
    trained on the same stories) and compare them (:class:`Comparison`): round trips on ``docs``, merges,
    vocabulary overlap and tokens per word on ``held_out`` at each of ``sizes`` both reach, and the book's
    trainer with ``tokenizers``' byte order for ties. Timings are left to :func:`time_against_tokenizers`."""
    lib = train_tokenizers(train_docs, book.vocab_size)
    book_ids = [book.encode(d) for d in docs]
    lib_ids = [e.ids for e in lib.encode_batch(list(docs))]
    mine, theirs = book_merges(book), tokenizers_merges(lib)
    first = next((k for k, (a, b) in enumerate(zip(mine, theirs)) if a != b), None)
    if first is None and len(mine) != len(theirs):
        first = min(len(mine), len(theirs))
    lib_vocab = tokenizers_vocab(lib)
    overlap, tpw = {}, {}
    reach = min(book.vocab_size, lib.get_vocab_size())
    for size in sorted({s for s in sizes if s <= reach} | ({reach} if any(s > reach for s in sizes) else set())):
        ours = set(book.vocab[:size])
        lib_tokens = {v for i, v in lib_vocab.items() if i < size}
        overlap[size] = len(ours & lib_tokens)
        lib_small = _truncated_library(lib, size)
        tpw[size] = (tokens_per_word(book.truncate(size).encode, held_out),
                     tokens_per_word(lambda d: lib_small.encode(d).ids, held_out))
    tied = bpe.train(train_docs, book.vocab_size, byte_order=tokenizers_byte_order())
    same_ids = sum(
        [lib_vocab[i] for i in theirs_ids] == [tied.vocab[i] for i in tied.encode(d)]
        for d, theirs_ids in zip(docs, lib_ids)
    )
    return Comparison(
        vocab_size=book.vocab_size,
        n_merges=len(mine),
        n_docs=len(docs),
        roundtrip_book=sum(book.decode(ids) == d for ids, d in zip(book_ids, docs)),
        roundtrip_library=sum(lib.decode(ids) == d for ids, d in zip(lib_ids, docs)),
        first_difference=first,
        first_difference_pairs=None if first is None else (mine[first], theirs[first]),
        first_difference_counts=None if first is None else (book.counts[first], tied.counts[first]),
        common_merges=len(set(mine) & set(theirs)),
        overlap=overlap,
        tokens_per_word=tpw,
        same_merges_with_library_ties=book_merges(tied) == theirs,
        same_ids_docs=int(same_ids),
        library=lib,
    )


def _truncated_library(tok: Tokenizer, size: int) -> Tokenizer:
    """A ``tokenizers`` tokenizer with only the first ``size - 256`` merges of ``tok`` (ids below ``size``):
    what training it with ``vocab_size=size`` gives, since its training is greedy too."""
    spec = json.loads(tok.to_str())
    model = spec["model"]
    model["vocab"] = {s: i for s, i in model["vocab"].items() if i < size}
    model["merges"] = model["merges"][: size - bpe.N_BYTES]
    return Tokenizer.from_str(json.dumps(spec))


def comparison_table(comparison: Comparison) -> str:
    """Tokens per held-out word and vocabulary overlap at equal sizes, book against ``tokenizers``, as a
    Markdown table (3 decimals; overlap in per cent, 1 decimal)."""
    rows = []
    for size, (ours, theirs) in comparison.tokens_per_word.items():
        n = comparison.overlap[size]
        rows.append([f"{size:,}", fmt(ours, ".3f"), fmt(theirs, ".3f"), f"{n:,}", fmt(100 * n / size, ".1f") + " %"])
    header = ["vocabulary", "tokens/word, book", "tokens/word, tokenizers", "tokens in both", "overlap"]
    return tables.markdown(header, rows, align="<>>>>")


@dataclass(frozen=True)
class Timing:
    """Median wall seconds over ``repeats`` runs, ``(book, library)`` each: ``train_seconds`` (training
    from the stories) and ``encode_seconds`` (encoding every story, the book's tokenizer with an empty
    cache). Measured on the machine that runs it: for benchmarks, never for a compared output."""

    train_seconds: Tuple[float, float]
    encode_seconds: Tuple[float, float]
    repeats: int

    @property
    def train_ratio(self) -> float:
        """Book's training time ÷ the library's (above 1: the library is faster)."""
        return self.train_seconds[0] / self.train_seconds[1]

    @property
    def encode_ratio(self) -> float:
        """Book's encoding time ÷ the library's."""
        return self.encode_seconds[0] / self.encode_seconds[1]


def time_against_tokenizers(
    train_docs: Sequence[str], docs: Sequence[str], vocab_size: int = MAX_VOCAB, *, repeats: int = 3
) -> Timing:
    """Train the book's BPE and ``tokenizers`` on ``train_docs`` with ``vocab_size`` tokens and encode
    ``docs`` with each, ``repeats`` times, interleaved (so that a change in the machine's load falls on
    both), in one process; medians in a :class:`Timing`. Raises ``ValueError`` for ``repeats < 1``."""
    repeats = validate.integer(repeats, "repeats", low=1)
    times: Dict[str, List[float]] = {"book train": [], "lib train": [], "book encode": [], "lib encode": []}
    for _ in range(repeats):
        start = time.perf_counter()
        book = bpe.train(train_docs, vocab_size)
        times["book train"].append(time.perf_counter() - start)
        start = time.perf_counter()
        lib = train_tokenizers(train_docs, vocab_size)
        times["lib train"].append(time.perf_counter() - start)
        fresh = bpe.BPE(book.merges, book.pattern)  # an empty cache: every chunk encoded from its bytes
        start = time.perf_counter()
        for d in docs:
            fresh.encode(d)
        times["book encode"].append(time.perf_counter() - start)
        start = time.perf_counter()
        lib.encode_batch(list(docs))
        times["lib encode"].append(time.perf_counter() - start)
    median = statistics.median
    return Timing(
        (median(times["book train"]), median(times["lib train"])),
        (median(times["book encode"]), median(times["lib encode"])),
        repeats,
    )


# --- unseen words: word-level methods against fastText -------------------------------------------------


@dataclass(frozen=True)
class SimilarityRow:
    """One method on WordSim-353: ``pairs_scored`` of ``n_total``; ``shared``, ρ with its interval on the
    pairs every method scores; ``scored``, ρ on all the pairs this method scores (the same as ``shared``
    for a word-level method); ``unseen`` (fastText only), ρ on the pairs with at least one word outside
    the vocabulary."""

    method: str
    pairs_scored: int
    n_total: int
    shared: Interval
    scored: Interval
    unseen: Optional[Interval] = None


@dataclass(frozen=True)
class SimilarityStudy:
    """:func:`similarity_study`'s result: ``rows`` (:class:`SimilarityRow`), the trained ``models``
    (:class:`lib.race.Trained` by method), fastText's ``keyed_vectors`` (gensim's, which build a vector
    for any word), ``difference`` (fastText's ρ minus gensim Word2Vec's on the shared pairs, with a
    paired interval), and the WordSim ``pairs``."""

    rows: List[SimilarityRow]
    models: Dict[str, Trained]
    keyed_vectors: FastTextKeyedVectors = field(repr=False)
    difference: Interval
    pairs: list = field(repr=False)

    @property
    def fasttext(self) -> Trained:
        """The fastText model's :class:`lib.race.Trained` record."""
        return self.models[FASTTEXT]


#: Seed of the trained models, and bootstrap resamples: 10,000, so that the Monte Carlo error of an interval's
#: ends stays below the two decimals shown.
SIMILARITY_SEED = 0
BOOTSTRAP_RESAMPLES = 10_000
FASTTEXT = "gensim fastText"
#: Decimals of an interval's ends: one. fastText's float32 training differs slightly between processors'
#: code paths, and a BCa interval end moves by about 0.001 with it, too close to a rounding step at two
#: decimals; an interval about 0.3 wide needs no second decimal at its ends.
INTERVAL_DECIMALS = 1


def similarity_study(docs, settings: Settings = Settings(), *, seed: int = SIMILARITY_SEED) -> SimilarityStudy:
    """Train PPMI-SVD, the book's skip-gram, gensim's Word2Vec and gensim's fastText on ``docs`` (token
    lists, :func:`lib.datasets.load_corpus`) with the ``settings`` of chapters/real_text.md (seed ``seed``,
    one worker) and score them on WordSim-353 with paired BCa bootstrap intervals
    (:func:`lib.evaluation.spearman_interval`, ``BOOTSTRAP_RESAMPLES`` resamples, seed 0). Raises like
    the trainers."""
    seed = validate.seed(seed)
    pairs = read_word_pairs("wordsim353")
    fasttext, keyed = train_fasttext(docs, settings, seed=seed)
    models = {
        "PPMI-SVD": train_ppmi_svd(docs, settings),
        "book SGNS": train_book_sgns(docs, settings, seed=seed),
        "gensim Word2Vec": train_gensim(docs, settings, seed=seed),
        FASTTEXT: fasttext,
    }
    kwargs = dict(n_resamples=BOOTSTRAP_RESAMPLES, seed=0)
    rows, shared_cos = [], {}
    for method, trained in models.items():
        cos, human, used = pair_cosines(trained.vectors, trained.vocab, pairs)
        shared_cos[method] = cos
        shared = spearman_interval(cos, human, **kwargs)
        rows.append(SimilarityRow(method, int(used.sum()), len(pairs), shared, shared))
    words = sorted({w for a, b, _ in pairs for w in (a, b)})
    table = np.stack([keyed[w] for w in words])
    cos_all, human_all, _ = pair_cosines(table, words, pairs)
    in_vocab = np.array([a in fasttext.vocab and b in fasttext.vocab for a, b, _ in pairs])
    rows[-1] = SimilarityRow(
        FASTTEXT, len(pairs), len(pairs), rows[-1].shared,
        spearman_interval(cos_all, human_all, **kwargs),
        spearman_interval(cos_all[~in_vocab], human_all[~in_vocab], **kwargs),
    )
    human_shared = np.array([s for (a, b, s), u in zip(pairs, in_vocab) if u])
    difference = spearman_interval(shared_cos[FASTTEXT], human_shared, baseline=shared_cos["gensim Word2Vec"], **kwargs)
    return SimilarityStudy(rows, models, keyed, difference, pairs)


def interval_text(iv: Interval, digits: int = 2, end_digits: int = INTERVAL_DECIMALS) -> str:
    """``"0.19 [0.0, 0.3]"``: a statistic at ``digits`` decimals and its interval's ends at ``end_digits``
    (through ``fmt``). ``digits`` and ``end_digits`` are integers in [0, 12] (``TypeError`` for another type,
    ``ValueError`` naming the argument for one out of range); ``iv`` an :class:`lib.evaluation.Interval`
    with a finite statistic and ends (``ValueError`` otherwise: it would print ``nan``).

    >>> interval_text(Interval(0.1934, 0.021, 0.349, 0.95, 133, 10_000))
    '0.19 [0.0, 0.3]'
    """
    if not isinstance(iv, Interval):
        raise TypeError(f"iv must be an Interval (lib.evaluation), got {type(iv).__name__}")
    for field in ("statistic", "low", "high"):
        validate.number(getattr(iv, field), f"iv.{field}")
    digits = validate.integer(digits, "digits", low=0, high=12)
    end_digits = validate.integer(end_digits, "end_digits", low=0, high=12)
    spec, end = f".{digits}f", f".{end_digits}f"
    return f"{fmt(iv.statistic, spec)} [{fmt(iv.low, end)}, {fmt(iv.high, end)}]"


def similarity_table(study: SimilarityStudy) -> str:
    """Coverage and ρ side by side, ρ at two decimals (float32 training: the third decimal differs between
    BLAS code paths) with its 95 % interval, whose ends are shown at ``INTERVAL_DECIMALS``, as a Markdown
    table."""
    shared_n = study.rows[0].pairs_scored
    rows = []
    for r in study.rows:
        rows.append([
            r.method, f"{r.pairs_scored} of {r.n_total}", interval_text(r.shared),
            interval_text(r.scored) if r.scored is not r.shared else "same",
            "–" if r.unseen is None else interval_text(r.unseen),
        ])
    n_unseen = study.rows[-1].n_total - shared_n
    header = ["method", "pairs scored", f"ρ, {shared_n} shared", "ρ, all scored", f"ρ, {n_unseen} unseen"]
    return tables.markdown(header, rows, align="<>>>>")


def ngram_breakdown(study: SimilarityStudy, word: str) -> List[Tuple[str, bool]]:
    """The character n-grams of ``word`` in fastText's order (gensim's ``compute_ngrams``: the word wrapped
    in ``<`` ``>``, lengths ``FASTTEXT_MIN_N`` to ``FASTTEXT_MAX_N``), each with whether its hash bucket
    is shared with an n-gram of some in-vocabulary word (so was trained) or is not (keeps its random
    initial value). Raises ``TypeError`` for a ``word`` that is not a non-empty string."""
    if not isinstance(word, str) or not word:
        raise TypeError(f"word must be a non-empty str, got {word!r}")
    kv = study.keyed_vectors
    trained_buckets = set()
    for w in study.fasttext.vocab.tokens:
        trained_buckets.update(ft_ngram_hashes(w, kv.min_n, kv.max_n, kv.bucket))
    grams = compute_ngrams(word, kv.min_n, kv.max_n)
    buckets = ft_ngram_hashes(word, kv.min_n, kv.max_n, kv.bucket)
    return [(g, h in trained_buckets) for g, h in zip(grams, buckets)]


def unseen_neighbours(study: SimilarityStudy, word: str, k: int = 5) -> List[str]:
    """The ``k`` in-vocabulary words whose fastText vectors are closest in cosine to ``word``'s vector
    (built from its n-grams when it has no row), best first. The gap between the ``k``-th and the next
    is recorded among the rounding margins (:func:`lib.notebook.record_gap`). Raises ``ValueError``
    for ``k < 1``."""
    k = validate.integer(k, "k", low=1)
    ft = study.fasttext
    query = study.keyed_vectors[word].astype(np.float64)
    hits = nearest_neighbours(ft.vectors.astype(np.float64), query, k + 1, metric="cosine")
    if logging_numbers() and len(hits) > k:
        record_gap(f"fastText neighbours of {word!r}", hits[k - 1][1] - hits[k][1], 1.0)
    return [ft.vocab.tokens[i] for i, _ in hits[:k]]


# --- tokens that never get trained --------------------------------------------------------------------


@dataclass(frozen=True)
class RowStudy:
    """Skip-gram trained on BPE tokens: the ``tokenizer``, token ``counts`` ``(V,)`` in the encoded
    training stories, the ``result`` (:class:`lib.sgns.SGNSResult`), each row's ``distance`` from its
    initial value and ``norm`` ``(V,) float64``, and the model's ``provenance`` (with the tokens seen and
    never seen)."""

    tokenizer: bpe.BPE
    counts: np.ndarray
    result: SGNSResult
    distance: np.ndarray
    norm: np.ndarray
    provenance: Provenance

    @property
    def never_seen(self) -> np.ndarray:
        """Ids of the tokens that never occur in the encoded training stories."""
        return np.flatnonzero(self.counts == 0)


#: Epochs of the skip-gram on BPE tokens (word2vec's other defaults).
ROW_EPOCHS = 10


@lru_cache(maxsize=1)
def untrained_rows() -> RowStudy:
    """The book's skip-gram (:func:`lib.sgns.train_sgns`, word2vec's defaults, ``ROW_EPOCHS`` epochs, seed 0,
    one worker) on the training stories encoded by :func:`chapter_tokenizer`; computed once per process."""
    tokenizer = chapter_tokenizer()
    train_docs, _ = lee_split()
    ids = [np.array(tokenizer.encode(d), dtype=np.int64) for d in train_docs]
    counts = np.bincount(np.concatenate(ids), minlength=tokenizer.vocab_size)
    result = train_sgns(ids, counts, SGNSConfig(epochs=ROW_EPOCHS, seed=0, workers=1))
    distance = np.linalg.norm(result.vectors.astype(np.float64) - result.initial_vectors, axis=1)
    norm = np.linalg.norm(result.vectors.astype(np.float64), axis=1)
    prov = result.provenance.replace(
        vocabulary_size=tokenizer.vocab_size,
        vocabulary_order="BPE: 256 bytes, then merges in order",
        corpus=f"Lee background corpus, {len(train_docs)} training stories",
        n_sentences=len(train_docs),
        n_tokens=int(counts.sum()),
        extra={"tokenizer": f"lib.bpe, {tokenizer.vocab_size:,} tokens", **provenance_extra(("lee",))},
        **seen_tokens(ids, tokenizer.vocab_size),
    )
    return RowStudy(tokenizer, counts, result, distance, norm, prov)


def renumber(table, ids: Sequence[int], permutation) -> Tuple[np.ndarray, np.ndarray]:
    """Rename every token: id ``i`` becomes ``permutation[i]``, and the table's row ``i`` moves to row
    ``permutation[i]``. Returns ``(new table (V, d), new ids (n,) int64)``; looking the new ids up in the
    new table gives exactly the old vectors. Raises ``ValueError`` unless ``permutation`` is a
    permutation of ``0..V-1`` or ``table`` is not ``(V, d)``, and like :func:`lib.validate.ids` for bad
    ``ids``; ``TypeError`` for a ``permutation`` that is not integers (floats, bools) or a ``table`` that is not
    real numbers.

    >>> old = np.array([[0.0], [1.0], [2.0]])
    >>> table, ids = renumber(old, [0, 2], np.array([2, 0, 1]))
    >>> table.ravel().tolist(), ids.tolist()
    ([1.0, 2.0, 0.0], [2, 1])
    """
    table = validate.real_numbers(table, "table", "a (V, d) table")  # its dtype kept
    if table.ndim != 2:
        raise ValueError(f"table must be a (V, d) table, got shape {table.shape}")
    perm = validate.integer_array(permutation, "permutation", "a permutation of 0..V-1")  # [2.0, 0.0, 1.0]: TypeError
    if perm.shape != (table.shape[0],) or not np.array_equal(np.sort(perm), np.arange(table.shape[0])):
        raise ValueError(f"permutation must be a permutation of 0..{table.shape[0] - 1}")
    moved = np.empty_like(table)
    moved[perm] = table  # row i goes to row perm[i]
    return moved, perm[validate.ids(ids, table.shape[0])]


# --- the worked trace and the views of one text -----------------------------------------------------------

#: The dictionary of Sennrich et al.'s Algorithm 1 (low ×5, lower ×2, newest ×6, widest ×3), as text.
TRACE_TEXT = " low" * 5 + " lower" * 2 + " newest" * 6 + " widest" * 3
VISIBLE_SPACE = "\u2423"  # ␣, so that a token's leading space can be seen
NO_BREAK_SPACE = "\u00a0"  # between the tokens of a chunk in a table: a line never breaks inside the chunk


def show_token(tokenizer: bpe.BPE, i: int) -> str:
    """Token ``i`` as text with its spaces drawn as ``␣`` (:meth:`lib.bpe.BPE.token_text`).

    >>> show_token(bpe.BPE(merges=((32, 97),)), 256)
    '␣a'
    """
    return tokenizer.token_text(i).replace(" ", VISIBLE_SPACE)


def show_pair(pair: Tuple[bytes, bytes]) -> str:
    """A merge, a pair of tokens given as their bytes, as text: ``"␣ + C"``. A byte sequence that is not
    UTF-8 shows its bytes escaped (``\\xc3``); spaces are drawn as ``␣``. Raises ``TypeError`` for a pair
    that is not two ``bytes``.

    >>> show_pair((b" ", b"C"))
    '␣ + C'
    """
    if not (isinstance(pair, tuple) and len(pair) == 2 and all(isinstance(b, bytes) for b in pair)):
        raise TypeError(f"pair must be a tuple of two bytes objects, got {pair!r}")
    return " + ".join(b.decode("utf-8", errors="backslashreplace").replace(" ", VISIBLE_SPACE) for b in pair)


def provenance_items(record: Provenance) -> List[List[str]]:
    """The rows of ``record`` about its items (vocabulary size, tokens seen and never seen, identifier
    order) and its tokenizer, ``[[field, value], ...]``, counts as :meth:`lib.provenance.Provenance.rows`
    writes them (``13,067``).
    """
    rows = [[label, value] for group, label, value in record.rows() if group == "items"]
    if "tokenizer" in record.extra:
        rows.append(["tokenizer", str(record.extra["tokenizer"])])
    return rows


def segmentation(tokenizer: bpe.BPE, text: str, sep: str = " ") -> str:
    """``text`` as its tokens under ``tokenizer``, separated by ``sep``, spaces drawn as ``␣``.

    >>> segmentation(bpe.BPE(merges=((32, 97),)), " ab")
    '␣a b'
    """
    return sep.join(show_token(tokenizer, i) for i in tokenizer.encode(text))


def merge_trace(text: str = TRACE_TEXT, n_merges: int = 6) -> Tuple[str, str]:
    """Train on ``text`` for ``n_merges`` merges and return two Markdown tables: the merges (step, the
    pair's ids and tokens, its count, the new id and token), and each distinct chunk of ``text`` split into
    tokens after every step (step 0: bytes). The tokens of a chunk are separated by no-break spaces, so that
    a narrow column never breaks a line where no token boundary is. Raises ``ValueError`` for
    ``n_merges < 1``."""
    n_merges = validate.integer(n_merges, "n_merges", low=1)
    tok = bpe.train(text, bpe.N_BYTES + n_merges)
    merges = tables.markdown(
        ["step", "pair of ids", "pair of tokens", "count", "new id", "new token"],
        [[str(k + 1), f"({a}, {b})", f"{_code(show_token(tok, a))} + {_code(show_token(tok, b))}", str(c),
          str(bpe.N_BYTES + k), _code(show_token(tok, bpe.N_BYTES + k))]
         for k, ((a, b), c) in enumerate(zip(tok.merges, tok.counts))],
        align="><<>><",
    )
    chunks = list(dict.fromkeys(bpe.split(text)))
    rows = []
    for k in range(len(tok.merges) + 1):
        step = tok.truncate(bpe.N_BYTES + k)
        rows.append([str(k)] + [_code(segmentation(step, c, sep=NO_BREAK_SPACE)) for c in chunks])
    words = tables.markdown(["step"] + [c.replace(" ", VISIBLE_SPACE) for c in chunks], rows,
                            align=">" + "<" * len(chunks))
    return merges, words


def _code(text: str) -> str:
    return f"`{text}`"


def id_views(text: str, tokenizers: Sequence[Tuple[str, object]]) -> str:
    """``text`` under several tokenizers, as plain text: for each ``(name, tokenizer)`` its tokens and ids.
    A tokenizer is a :class:`lib.bpe.BPE` or a ``tokenizers.Tokenizer`` (its tokens shown from its bytes)."""
    lines = []
    for name, tok in tokenizers:
        if isinstance(tok, bpe.BPE):
            ids = tok.encode(text)
            pieces = [show_token(tok, i) for i in ids]
        else:
            vocab = tokenizers_vocab(tok)
            ids = tok.encode(text).ids
            pieces = [vocab[i].decode("utf-8", errors="backslashreplace").replace(" ", VISIBLE_SPACE) for i in ids]
        lines.append(f"{name}: {len(ids)} tokens")
        lines.append("  tokens: " + " | ".join(pieces))
        lines.append("  ids:    " + " ".join(str(i) for i in ids))
    return "\n".join(lines)


def absorbed_into(tokenizer: bpe.BPE, token: int, counts, k: int = 3) -> List[Tuple[int, int]]:
    """The ``k`` most frequent tokens (``(id, count)``, count descending, then id) that a merge made from
    ``token`` and another token and that occur in the data ``counts`` ``(V,)`` describes: where a token
    that never occurs on its own went. ``ValueError`` for ``counts`` of another shape or ``k < 1``,
    ``TypeError`` for counts that are not integers, and as :func:`lib.validate.one_id` for ``token``.

    >>> tokenizer = bpe.BPE(merges=((97, 98), (256, 99)))
    >>> absorbed_into(tokenizer, 256, np.array([0] * 256 + [0, 5]))
    [(257, 5)]
    """
    token = validate.one_id(token, tokenizer.vocab_size)
    counts = validate.integer_array(counts, "counts", "a (V,) array of counts")
    if counts.shape != (tokenizer.vocab_size,):
        raise ValueError(f"counts must have shape (V,) = ({tokenizer.vocab_size},), got {counts.shape}")
    k = validate.integer(k, "k", low=1)  # k = -1 would silently drop the last token
    made = [bpe.N_BYTES + j for j, (a, b) in enumerate(tokenizer.merges) if token in (a, b)]
    seen = sorted(((int(counts[i]), i) for i in made if counts[i] > 0), key=lambda t: (-t[0], t[1]))
    return [(i, c) for c, i in seen[:k]]


def untrained_share(tokenizer: bpe.BPE, train_docs: Sequence[str], docs: Sequence[str]) -> Tuple[int, float]:
    """For a tokenizer: how many merged tokens never occur in the encoded ``train_docs``, and the fraction of
    the tokens of ``docs`` (encoded alike) whose token never occurs in ``train_docs``."""
    V = tokenizer.vocab_size
    counts = np.bincount(np.concatenate([tokenizer.encode(d) for d in train_docs]), minlength=V)
    used = np.concatenate([tokenizer.encode(d) for d in docs])
    return int((counts[bpe.N_BYTES:] == 0).sum()), float((counts[used] == 0).mean())
