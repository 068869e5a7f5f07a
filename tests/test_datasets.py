"""lib.datasets: finding gensim's shipped data, hashing it, reading the corpus, clear errors when it is
missing, and reading text files whatever byte-order mark and line ends they carry."""

import codecs
import hashlib

import pytest

import lib.datasets as datasets
from lib import evaluation
from lib.corpus import TOKEN_PATTERN
from lib.datasets import (
    DATA_FILES,
    MissingDataError,
    data_path,
    dataset_hashes,
    load_corpus,
    locate,
    provenance_extra,
    read_documents,
    read_text,
    sha256_file,
    text_lines,
)

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
    digest = sha256_file(data_path("lee"))
    assert extra["data file lee_background.cor"] == "sha256 " + " ".join(digest[i:i + 16] for i in (0, 16, 32, 48))
    assert extra["data files from"].startswith("gensim 4.")


def test_missing_gensim_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(datasets.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(MissingDataError, match=r"gensim is not installed.*pip install gensim==4\.4\.0"):
        data_path("lee")


def test_missing_file_names_the_file_and_folder(monkeypatch, tmp_path):
    monkeypatch.setattr(datasets, "gensim_test_data_dir", lambda: tmp_path)
    with pytest.raises(MissingDataError, match=r"SimLex-999 \(simlex999\.txt\) is missing from .*pip install"):
        data_path("simlex999")
    with pytest.raises(FileNotFoundError):  # MissingDataError is a FileNotFoundError
        data_path("lee")


def test_missing_test_data_folder_is_a_clear_error(monkeypatch, tmp_path):
    class Spec:
        submodule_search_locations = [str(tmp_path / "gensim")]

    monkeypatch.setattr(datasets.importlib.util, "find_spec", lambda name: Spec())
    with pytest.raises(MissingDataError, match="has no test data folder"):
        data_path("lee")


def test_unknown_names_are_rejected():
    with pytest.raises(ValueError, match="unknown data file 'brown'.*'lee'"):
        data_path("brown")
    with pytest.raises(TypeError):
        data_path(3)


def test_locate_takes_a_short_name_or_a_path(tmp_path):
    assert locate("wordsim353") == data_path("wordsim353")
    assert locate(tmp_path / "x.txt") == tmp_path / "x.txt"
    assert locate(str(tmp_path / "x.txt")) == tmp_path / "x.txt"
    with pytest.raises(TypeError, match="path or a data-file name"):
        locate(3)


# --- documents ---------------------------------------------------------------------------------------


def test_lee_corpus_has_300_documents():
    docs = read_documents("lee")
    corpus = load_corpus("lee")
    assert len(docs) == len(corpus) == 300  # gensim's description of lee_background.cor
    assert corpus[0][:4] == ["hundreds", "of", "people", "have"]
    assert 55_000 < sum(map(len, corpus)) < 65_000
    assert all(t == t.lower() and TOKEN_PATTERN.fullmatch(t) for d in corpus for t in d)


# --- text files: byte-order marks and line ends -----------------------------------------------------------

ENCODINGS = {  # how an editor may save the same text: the bytes written for it
    "utf-8": lambda t: t.encode("utf-8"),
    "utf-8 with BOM": lambda t: t.encode("utf-8-sig"),
    "utf-16 (LE, with BOM)": lambda t: codecs.BOM_UTF16_LE + t.encode("utf-16-le"),
    "utf-16 (BE, with BOM)": lambda t: codecs.BOM_UTF16_BE + t.encode("utf-16-be"),
    "utf-32 (LE, with BOM)": lambda t: codecs.BOM_UTF32_LE + t.encode("utf-32-le"),
}


@pytest.mark.parametrize("encoding", sorted(ENCODINGS))
def test_read_text_removes_the_byte_order_mark(tmp_path, encoding):
    path = tmp_path / "f.txt"
    path.write_bytes(ENCODINGS[encoding]("Año 1\r\nline two\n"))
    assert read_text(path) == "Año 1\r\nline two\n"
    assert text_lines(read_text(path)) == ["Año 1", "line two", ""]


def test_text_lines_counts_lines_as_an_editor_does():
    assert text_lines("\ufeffa\r\nb\rc\nd") == ["a", "b", "c", "d"]
    # form feed, vertical tab, U+2028 and NEL are characters inside a line, not line ends (str.splitlines splits there)
    assert text_lines("a\x0cb\x0bc\u2028d\x85e\n") == ["a\x0cb\x0bc\u2028d\x85e", ""]
    assert text_lines("a\ufeffb") == ["a\ufeffb"]  # only a mark at the very start is a byte-order mark
    with pytest.raises(TypeError, match="text must be a str"):
        text_lines(b"a")


def test_read_text_refuses_a_byte_order_mark_decoded_as_cp1252(tmp_path):
    # the reader of every text file, the corpus's (read_documents) included: "ï»¿" would stick to the first word
    path = tmp_path / "corpus.txt"
    mojibake = codecs.BOM_UTF8.decode("cp1252")
    for text, line in ((mojibake + "the cat\nsat\n", 1), ("the cat\r\n" + mojibake + "sat\n", 2)):
        path.write_bytes(text.encode("utf-8"))
        with pytest.raises(ValueError, match=rf"^corpus.txt, line {line}: (starts with|holds) 'ï»¿', a byte-order mark "
                                             r"decoded as cp1252 .*re-save the file as UTF-8$"):
            read_text(path)
    path.write_bytes("the cat\n".encode("utf-8-sig"))
    assert read_text(path) == "the cat\n"


def test_read_text_refuses_a_byte_order_mark_after_the_start_naming_its_line(tmp_path):
    # was let through: read_documents kept it and tokenize split 'ca\ufefft' into ['ca', 't']
    path = tmp_path / "corpus.txt"
    for text, line, char in (("the cat\nsat\nca\ufefft\n", 3, "a byte-order mark \\(U\\+FEFF\\)"),
                             ("the cat\r\n\ufeffsat\n", 2, "a byte-order mark \\(U\\+FEFF\\)"),
                             ("the\rcat \ufffe\n", 2, "the character U\\+FFFE")):
        path.write_bytes(text.encode("utf-8-sig"))
        with pytest.raises(datasets.StrayMarkError, match=rf"^corpus.txt, line {line}: holds {char}") as info:
            read_text(path)
        assert info.value.line == line


def test_read_text_reports_bytes_that_are_not_utf8(tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes("caf\xe9".encode("latin-1"))
    with pytest.raises(UnicodeDecodeError):
        read_text(path)


def test_read_documents_of_a_corpus_saved_with_a_byte_order_mark(monkeypatch, tmp_path):
    (tmp_path / "lee_background.cor").write_bytes("Hundreds of people\r\n\r\nA second document.\r\n".encode("utf-8-sig"))
    monkeypatch.setattr(datasets, "gensim_test_data_dir", lambda: tmp_path)
    assert read_documents("lee") == ["Hundreds of people", "A second document."]  # not "\ufeffHundreds ..."
    assert load_corpus("lee")[0] == ["hundreds", "of", "people"]


def test_read_text_refuses_utf16_saved_without_a_mark(tmp_path):
    path = tmp_path / "u16.txt"
    path.write_bytes("WIDTH 1\n".encode("utf-16-le"))  # every other byte is 0
    with pytest.raises(UnicodeDecodeError) as info:
        read_text(path)
    # the NUL's byte is named (it was "position 0" for every codec but plain UTF-8)
    assert str(info.value) == "u16.txt, line 1: a NUL character at byte 1: not UTF-8 text (UTF-16 without a byte-order mark?)"


def test_read_text_names_the_file_line_and_byte_of_text_that_is_not_utf8(tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes(b"first line\ncaf\xe9\n")
    with pytest.raises(datasets.NotTextError) as info:
        read_text(path)
    assert isinstance(info.value, UnicodeDecodeError) and isinstance(info.value, ValueError)
    assert str(info.value) == "latin1.txt, line 2: not UTF-8 text (byte 0xe9 at byte 14); save the file as UTF-8"
    path.write_bytes(codecs.BOM_UTF8 + "WIDTH 1".encode("utf-16-le"))  # a UTF-8 mark, then UTF-16 text
    with pytest.raises(UnicodeDecodeError) as info:
        read_text(path)
    # the NUL is byte 4 (after the 3-byte mark and the 'W'); the message said "position 0"
    assert str(info.value) == "latin1.txt, line 1: a NUL character at byte 4: not UTF-8 text (UTF-16 without a byte-order mark?)"


def test_a_bad_byte_after_a_utf8_mark_is_named_at_its_place_in_the_file(tmp_path):
    """The utf-8-sig codec counts from after the 3-byte mark: the message named line 1 and 'byte 0x61 at
    byte 3' for the 0xff at byte 6, on line 2."""
    path = tmp_path / "bomlat.txt"
    path.write_bytes(codecs.BOM_UTF8 + b"ab\n\xff\n")
    with pytest.raises(datasets.NotTextError) as info:
        read_text(path)
    assert str(info.value) == "bomlat.txt, line 2: not UTF-8 text (byte 0xff at byte 6); save the file as UTF-8"
    assert info.value.start == 6
    path.write_bytes(codecs.BOM_UTF8 + b"first line\ncaf\xe9\n")  # as the file without a mark, 3 bytes on
    with pytest.raises(datasets.NotTextError) as info:
        read_text(path)
    assert str(info.value) == "bomlat.txt, line 2: not UTF-8 text (byte 0xe9 at byte 17); save the file as UTF-8"
    path.write_bytes(codecs.BOM_UTF16_LE + "a\n".encode("utf-16-le") + b"\x00\xd8\n\x00")  # a lone surrogate
    with pytest.raises(datasets.NotTextError) as info:
        read_text(path)
    assert str(info.value) == "bomlat.txt, line 2: not UTF-16 text (byte 0x00 at byte 6); save the file as UTF-8"


@pytest.mark.parametrize("path", [True, 1, None, 2.5])
def test_a_path_that_is_not_a_str_or_a_path_is_refused(path, capsys):
    # open(True, "rb") read the process's stdout (file descriptor 1) and then closed it
    with pytest.raises(TypeError, match=f"^path must be a str or a Path, got {type(path).__name__}$"):
        sha256_file(path)
    with pytest.raises(TypeError, match=f"^path must be a str or a Path, got {type(path).__name__}$"):
        read_text(path)
    print("stdout still open")
    assert capsys.readouterr().out == "stdout still open\n"


def test_the_empty_string_is_no_path():
    for read in (datasets.read_text, datasets.sha256_file):
        with pytest.raises(ValueError, match=r"^path must name a file, got the empty string '' \(read as the current folder\)$"):
            read("")
    for read in (evaluation.read_word_pairs, evaluation.read_analogies, datasets.locate):
        with pytest.raises(ValueError, match=r"^source must name a file, got the empty string ''"):
            read("")
    with pytest.raises(IsADirectoryError):  # a folder named as such: an OSError, as documented
        datasets.sha256_file(datasets.data_path("wordsim353").parent)


def test_a_line_or_names_of_the_wrong_kind_are_named():
    with pytest.raises(TypeError, match=r"^line must be a str, got int$"):
        datasets.other_line_end(3)  # was Python's "argument of type 'int' is not iterable"
    for call in (dataset_hashes, provenance_extra):
        # "lee" was read letter by letter ("unknown data file 'l'"), 3 gave "'int' object is not iterable"
        with pytest.raises(TypeError, match=r"^names must be a collection of data-file names \(e.g. names=\['lee'\]\), "
                                            r"got a single string 'lee'$"):
            call("lee")
        with pytest.raises(TypeError, match=r"^names must be a collection of data-file names .*, got 3$"):
            call(3)
