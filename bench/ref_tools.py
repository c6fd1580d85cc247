"""How the benchmarks call the reference extractors, in one place (`wcxb.py`, `extract.py` and
`docs_themes.py` run it inside the reference venv): the main text of one page as a string."""


def extractor(name):
    """The function from a page's HTML to its main text for reference tool `name`."""
    if name == "rs-trafilatura":
        import rs_trafilatura

        return lambda html: rs_trafilatura.extract(html).main_content or ""
    if name == "trafilatura":
        import trafilatura

        return lambda html: trafilatura.extract(html, include_comments=False, include_tables=True) or ""
    if name == "resiliparse":
        from resiliparse.extract.html2text import extract_plain_text

        return lambda html: extract_plain_text(html, main_content=True)
    if name == "readability":
        import lxml.html
        from readability import Document

        def ex(html):
            s = Document(html).summary(html_partial=True)
            return lxml.html.fromstring(s).text_content() if s.strip() else ""

        return ex
    raise ValueError(f"unknown reference tool: {name}")
