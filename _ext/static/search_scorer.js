/* Search result order (see _ext/reader_page.py, which sets it as Sphinx's html_search_scorer).
 *
 * Sphinx's own scores, with one change: a result on the API page ("api", the reference of lib) comes after
 * every result on a page a reader reads (a chapter, the introduction, the notation page). Without it, a
 * query such as "RoPE" or "cosine" lists the functions whose names contain it (lib.positional.rope_angles,
 * ...) before the chapter that teaches it, since an object's name scores higher than a word in a page.
 * API_PENALTY is larger than any score Sphinx gives a single result of a word query (15 for a page title,
 * 11 + 5 for an object's full name), so the API's results keep their order among themselves, below.
 */
var Scorer = {
  API_PAGE: "api",
  API_PENALTY: 40,
  score: (result) => {
    const [docname, , , , score] = result;
    return docname === Scorer.API_PAGE ? score - Scorer.API_PENALTY : score;
  },
  // Sphinx's defaults (sphinx/themes/basic/static/searchtools.js, Sphinx 7.4)
  objNameMatch: 11,
  objPartialMatch: 6,
  objPrio: { 0: 15, 1: 5, 2: -5 },
  objPrioDefault: 0,
  title: 15,
  partialTitle: 7,
  term: 5,
  partialTerm: 2,
};
