"""_ext/bibstyle.py: author-year labels for the bibliography, with a letter where authors share a year."""

import sys

import pytest
from pybtex.database import parse_string

import booksite

sys.path.insert(0, str(booksite.ROOT / "_ext"))
import bibstyle  # noqa: E402

BIB = r"""
@inproceedings{mikolov2013efficient, author = {Mikolov, Tomas and Chen, Kai and Corrado, Greg and Dean, Jeffrey},
  title = {Efficient estimation of word representations in vector space}, year = {2013}, booktitle = {ICLR}}
@inproceedings{mikolov2013negative, author = {Mikolov, Tomas and Sutskever, Ilya and Chen, Kai},
  title = {Distributed representations of words and phrases}, year = {2013}, booktitle = {NIPS}}
@inproceedings{levy2014, author = {Levy, Omer and Goldberg, Yoav}, title = {Neural word embedding}, year = {2014},
  booktitle = {NIPS}}
@article{firth1957, author = {Firth, John R.}, title = {A synopsis}, year = {1957}, journal = {J}}
@inproceedings{rehurek2010, author = {{\v{R}}eh{\r{u}}{\v{r}}ek, Radim and Sojka, Petr}, title = {Gensim},
  year = {2010}, booktitle = {LREC}}
@article{smith2020, author = {Smith, Ann}, title = {One}, year = {2020}, journal = {J}}
@article{smith2020b, author = {Smith, Bob}, title = {Two}, year = {2020}, journal = {J}}
"""


def _labels():
    data = parse_string(BIB, "bibtex")
    style = bibstyle.AuthorYearStyle()
    entries = style.sort(data.entries.values())
    return {e.key: e.label for e in style.format_entries(entries)}


def test_labels_are_author_year():
    labels = _labels()
    assert labels["firth1957"] == "Firth, 1957"
    assert labels["levy2014"] == "Levy and Goldberg, 2014"
    assert labels["rehurek2010"] == "Řehůřek and Sojka, 2010"  # LaTeX accents decoded


def test_same_authors_same_year_get_letters_in_list_order():
    labels = _labels()
    # the list is sorted by the full author lists: Mikolov, Chen, ... before Mikolov, Sutskever, ...
    assert labels["mikolov2013efficient"] == "Mikolov et al., 2013a"
    assert labels["mikolov2013negative"] == "Mikolov et al., 2013b"


@pytest.mark.slow
def test_a_letter_only_where_labels_would_collide():
    labels = _labels()
    # two different Smiths in one year share the label "Smith, 2020", so they are told apart too
    assert sorted([labels["smith2020"], labels["smith2020b"]]) == ["Smith, 2020a", "Smith, 2020b"]
    assert len(set(labels.values())) == len(labels)


def _cited_keys() -> set:
    """Every key cited: by a page (MyST, ``{cite:t}`key```) or by a docstring of lib, which the API page
    shows (rST, ``:cite:t:`key```, pre- and post-text in braces)."""
    import re

    from sphinxcontrib.bibtex.citation_target import parse_citation_targets

    sources = [*booksite.ROOT.glob("*.md"), *(booksite.ROOT / "chapters").glob("*.md"),
               *(booksite.ROOT / "lib").rglob("*.py")]
    cited = set()
    for source in sources:
        text = source.read_text(encoding="utf-8")
        for targets in re.findall(r"(?:\{cite(?::[a-z]+)?\}|:cite(?::[a-z]+)?:)`([^`]+)`", text):
            cited.update(target.key for target in parse_citation_targets(targets))
    return cited


def test_the_bibliography_parses_and_lists_exactly_the_works_cited():
    """references.bib is valid BibTeX (a missing brace would stop the build), every key a page or a docstring
    cites is in it, and every entry is cited somewhere (bibliography.md says it lists the works cited)."""
    from pybtex.database import parse_file

    entries = set(parse_file(str(booksite.ROOT / "references.bib")).entries)
    cited = _cited_keys()
    assert sorted(cited - entries) == [], "cited but not in references.bib"
    assert sorted(entries - cited) == [], "in references.bib but cited nowhere"


def test_the_bibliography_is_alphabetised_without_regard_to_case_or_accents():
    from pybtex.database import parse_file
    from pybtex.plugin import find_plugin

    style = find_plugin("pybtex.style.formatting", bibstyle.NAME)()
    entries = parse_file(str(booksite.ROOT / "references.bib")).entries
    keys = [e.key for e in style.sort(entries.values())]
    firsts = [bibstyle._fold(style.sort.__self__.sorting_key(entries[k])[0])[:1] for k in keys]
    assert firsts == sorted(firsts)  # every entry in alphabetical order of its first author
    assert keys.index("rehurek2010software") < keys.index("vaswani2017attention")


def _title(bibtex_title: str) -> str:
    """The title of an article as the bibliography prints it (plain text, without the closing full stop)."""
    data = parse_string(f"@article{{k, author = {{Doe, Jane}}, title = {{{bibtex_title}}}, year = {{2016}},"
                        " journal = {J}}", "bibtex")
    style = bibstyle.AuthorYearStyle()
    entry = next(iter(style.format_entries(data.entries.values())))
    return entry.text.render_as("text").split(". ")[1]


def test_titles_are_in_sentence_case_with_a_capital_after_a_question_mark():
    # the two titles of references.bib that ask a question and go on with a second sentence
    assert _title("Man is to Computer Programmer as Woman is to Homemaker? Debiasing Word Embeddings") == (
        "Man is to computer programmer as woman is to homemaker? Debiasing word embeddings")
    assert _title("How Contextual are Contextualized Word Representations? Comparing the Geometry of {BERT}, "
                  "{ELMo}, and {GPT-2} Embeddings") == (
        "How contextual are contextualized word representations? Comparing the geometry of BERT, ELMo, and "
        "GPT-2 embeddings")
    # braces keep their case; a colon does not start a sentence; "!" does
    assert _title("Train Short, Test Long: Attention with {ALiBi}") == "Train short, test long: attention with ALiBi"
    assert _title("Stop! Think") == "Stop! Think"


def _links(fields: str) -> list[str]:
    """The links of an article with these BibTeX fields, as the bibliography prints it."""
    import re

    data = parse_string(f"@article{{k, author = {{Doe, Jane}}, title = {{T}}, year = {{2016}}, journal = {{J}}, {fields}}}",
                        "bibtex")
    entry = next(iter(bibstyle.AuthorYearStyle().format_entries(data.entries.values())))
    return re.findall(r'href="([^"]+)"', entry.text.render_as("html"))


def test_each_work_is_linked_once_doi_then_arxiv_then_url():
    arxiv = "eprint = {1412.6980}, archivePrefix = {arXiv}"
    url = "url = {https://arxiv.org/abs/1412.6980}"
    doi = "doi = {10.1162/tacl_a_00134}"
    assert _links(f"{arxiv}, {url}") == ["https://arxiv.org/abs/1412.6980"]  # once, not as URL and as arXiv id
    assert _links(f"{doi}, {arxiv}, {url}") == ["https://doi.org/10.1162/tacl_a_00134"]
    assert _links(url) == ["https://arxiv.org/abs/1412.6980"]
    assert _links("") == []


def _cited(role: str, *cites: tuple[str, str]) -> str:
    """The text of one citation of the works of BIB, ``(key, post-text)`` each, as the book's role ``role``
    (``"p"`` for ``{cite}``, ``"t"`` for ``{cite:t}``) writes it."""
    from sphinxcontrib.bibtex.style.referencing import format_references
    from sphinxcontrib.bibtex.style.template import SphinxReferenceInfo

    data = parse_string(BIB, "bibtex")
    style = bibstyle.AuthorYearStyle()
    formatted = {e.key: e for e in style.format_entries(style.sort(data.entries.values()))}
    references = [(data.entries[key], formatted[key],
                   SphinxReferenceInfo(builder=None, fromdocname="page", todocname="bibliography", citation_id=key,
                                       title=None, pre_text="", post_text=post)) for key, post in cites]
    return str(format_references(bibstyle.AuthorYearReferenceStyleWithSuffix(), role, references))


def test_works_in_one_bracket_are_separated_by_semicolons():
    # a comma stays between authors and year and before a post-text; a semicolon separates the works
    assert _cited("p", ("firth1957", "")) == "[Firth, 1957]"
    assert _cited("p", ("firth1957", "§2")) == "[Firth, 1957, §2]"
    assert _cited("p", ("levy2014", ""), ("firth1957", "")) == "[Levy and Goldberg, 2014; Firth, 1957]"
    assert _cited("p", ("mikolov2013efficient", "§3.2"), ("mikolov2013negative", ""), ("rehurek2010", "")) == (
        "[Mikolov et al., 2013a, §3.2; Mikolov et al., 2013b; Řehůřek and Sojka, 2010]")
    # the textual form has no bracket around its works, and keeps its commas
    assert _cited("t", ("levy2014", ""), ("firth1957", "")) == "Levy and Goldberg [2014], Firth [1957]"
