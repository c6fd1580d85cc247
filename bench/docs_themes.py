#!/usr/bin/env python3
"""Documentation under themes no rule was written for (`bench/docs_themes.sh` sets it up).

Sphinx's own documentation (the `doc/` folder of its PyPI source) is built once with Sphinx's
text builder, the reference, and once per HTML theme: the same words in fifteen layouts
(sidebars, headers, footers, breadcrumbs, "previous/next" bars, search boxes, permalinks
and API signatures as each theme writes them). Every page but the indexes, the search page,
module sources and the changelog; word F1 as WCXB scores it (lowercase `\\w+` words, bag of
words, per page, averaged). What the reference holds that no extractor should keep is the
same under every theme (a toctree written as a list of links), so a theme's figure says how
well a tool reads that theme, and the tools are compared on equal terms. The pages split
into a tuning and a validation part as the WCXB pages do (`wcxb_split.part_of` of the page's
path, `usage/quickstart`): a page's themes fall on the same side.

Then, where the machine has it (`--node-docs`), Node.js's API reference: its Markdown,
scored as Python-Markdown renders it, against Node's own HTML layout and MkDocs' `mkdocs`,
`readthedocs` and Material themes built from the same Markdown (history tables and copy
buttons that Node's layout adds are not in the Markdown); and where `--generators` holds
them (`docs_themes.sh` installs them), the same Markdown under VitePress, Docusaurus and
mdBook, scored against Python-Markdown's text of the copy those three build from (the
copy escapes the `<` of a non-HTML word, `<Buffer 61 61>`, and drops a doubled `</tr>`,
which VitePress's template compiler refuses; browsers show both as text and ignore the
second). Last, where `--generators` holds Hexo and twelve of its themes, an article set:
Node.js's project guides (`contributing/` and the top-level guides beside the API, 59
pages of prose) as the posts of a blog under each theme (sidebars of recent posts, tags and
archives, related posts, post navigation, share and licence boxes), against
Python-Markdown's text of each guide.

  docs_themes.py --trawl BIN --python VENV_PYTHON --sphinx SPHINX_VENV_BIN --work DIR
                 [--generators DIR] [--only trawl,rs-trafilatura,resiliparse,trafilatura]

(`--ref TOOL IN OUT` is the worker the reference tools run in, under `--python`.)
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tarfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wcxb_split import part_of, prf  # noqa: E402

SPHINX = "8.1.3"
THEMES = ["alabaster", "classic", "sphinxdoc", "scrolls", "agogo", "traditional", "nature",
          "haiku", "pyramid", "bizstyle", "basic", "furo", "sphinx_rtd_theme",
          "pydata_sphinx_theme", "sphinx_book_theme"]
SKIP = ("genindex", "search", "py-modindex", "_modules", "_sources", "_static", "_images",
        "changes")
TOOLS = ["trawl", "rs-trafilatura", "resiliparse", "trafilatura"]


def ref_worker(tool, inp, out):
    """Runs one reference tool over a folder of pages (inside the reference venv)."""
    from ref_tools import extractor
    ex = extractor(tool)
    os.makedirs(out, exist_ok=True)
    for f in os.listdir(inp):
        with open(os.path.join(inp, f), encoding="utf-8", errors="replace") as fh:
            html = fh.read()
        try:
            text = ex(html)
        except Exception:  # a tool's failure on one page scores as an empty extraction
            text = ""
        with open(os.path.join(out, f[:-5] + ".txt"), "w") as fh:
            fh.write(text)


def sources(work, sphinx_bin):
    """Sphinx's `doc/` folder, its conf.py made offline and theme-neutral."""
    src = os.path.join(work, f"sphinx-{SPHINX}", "doc")
    if os.path.isdir(src):
        return src
    dl = os.path.join(work, "dl")
    subprocess.run([os.path.join(sphinx_bin, "pip"), "download", "--quiet", "--no-deps",
                    "--no-binary", ":all:", f"sphinx=={SPHINX}", "-d", dl], check=True)
    with tarfile.open(os.path.join(dl, f"sphinx-{SPHINX}.tar.gz")) as t:
        t.extractall(work, filter="data")
    conf = os.path.join(src, "conf.py")
    with open(conf) as fh:
        s = fh.read()
    # intersphinx fetches other projects' inventories over the network: not here
    s = s.replace("    'sphinx.ext.intersphinx',\n", "")
    s = s.replace("html_theme = 'sphinx13'", "html_theme = os.environ['DOCS_THEME']")
    s = s.replace("html_additional_pages = {'contents': 'contents.html'}", "html_additional_pages = {}")
    s += "\nhtml_css_files = []\nintersphinx_mapping = {}\n"
    with open(conf, "w") as fh:
        fh.write(s)
    return src


def build(work, sphinx_bin):
    src = sources(work, sphinx_bin)
    builds = [("text", "alabaster")] + [(f"html/{t}", t) for t in THEMES]
    for out, theme in builds:
        dest = os.path.join(work, out)
        if os.path.isdir(dest):
            continue
        print(f"building {out}", file=sys.stderr)
        kind = "text" if out == "text" else "html"
        env = dict(os.environ, DOCS_THEME=theme)
        r = subprocess.run([os.path.join(sphinx_bin, "sphinx-build"), "-q", "-b", kind, src,
                            dest + ".part"], env=env, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"sphinx-build {kind} ({theme}) failed:\n{r.stderr[-2000:]}")
        os.rename(dest + ".part", dest)


def pages(work):
    text = os.path.join(work, "text")
    out = []
    for f in glob.glob(os.path.join(text, "**", "*.txt"), recursive=True):
        rel = os.path.relpath(f, text)[:-4]
        if rel.split(os.sep)[0] not in SKIP:
            out.append(rel)
    return sorted(out)


def inputs(work, rels):
    """Per theme, a folder of the pages (links to the build), named `dir__page.html`."""
    for theme in THEMES:
        d = os.path.join(work, "in", theme)
        if os.path.isdir(d):
            continue
        os.makedirs(d + ".part", exist_ok=True)
        for rel in rels:
            src = os.path.join(work, "html", theme, rel + ".html")
            if os.path.exists(src):
                os.symlink(src, os.path.join(d + ".part", rel.replace(os.sep, "__") + ".html"))
        os.rename(d + ".part", d)


def run(tool, a, inp, out):
    subprocess.run(["rm", "-rf", out], check=True)
    if tool == "trawl":
        subprocess.run([a.trawl, "--quiet", "extract", "--format", "txt", "--input", inp,
                        "--output", out], check=True, stdout=subprocess.DEVNULL)
    else:
        subprocess.run([a.python, os.path.abspath(__file__), "--ref", tool, inp, out], check=True)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trawl")
    ap.add_argument("--python", help="the venv's python with the reference tools")
    ap.add_argument("--sphinx", help="bin folder of a venv with Sphinx and the themes")
    ap.add_argument("--work", help="where the sources, builds and outputs live")
    ap.add_argument("--only", default=",".join(TOOLS))
    ap.add_argument("--node-docs", default="/usr/share/doc/nodejs/api",
                    help="Node.js's API Markdown and HTML, where installed")
    ap.add_argument("--generators",
                    help="where docs_themes.sh installed VitePress, Docusaurus and mdBook")
    ap.add_argument("--ref", nargs=3, metavar=("TOOL", "IN", "OUT"), help=argparse.SUPPRESS)
    ap.add_argument("--md-text", nargs=2, metavar=("SRC", "OUT"), help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.ref:
        ref_worker(*a.ref)
        return
    if a.md_text:
        md_text(*a.md_text)
        return
    tools = [t for t in a.only.split(",") if t]
    build(a.work, a.sphinx)
    rels = pages(a.work)
    inputs(a.work, rels)
    table = scores(a, tools, THEMES, os.path.join(a.work, "in"), os.path.join(a.work, "out"),
                   {rel.replace(os.sep, "__"): (os.path.join(a.work, "text", rel + ".txt"),
                                                rel.replace(os.sep, "/")) for rel in rels})
    show(f"Sphinx {SPHINX} documentation, {len(rels)} pages per theme", "theme", tools, THEMES, table)
    if node_docs(a, tools):
        if a.generators:
            generators(a, tools)
            blogs(a, tools)


def part(a, tools, got, where, title, what):
    """Scores and shows one of the Node.js parts: `got` is its (layouts, references) or
    None (skipped), its pages under `where`/in. Whether it ran."""
    if not got:
        return False
    layouts, refs = got
    table = scores(a, tools, layouts, os.path.join(where, "in"), os.path.join(where, "out"), refs)
    print()
    show(title.format(n=len(refs)), what, tools, layouts, table)
    return True


def md_reference(a, src, out):
    """The reference text of a folder of Markdown (`md_text`, run in the documentation venv),
    made once into `out`."""
    if not os.path.isdir(out):
        subprocess.run([os.path.join(a.sphinx, "python"), os.path.abspath(__file__), "--md-text",
                        src, out + ".part"], check=True)
        os.rename(out + ".part", out)


def link_pages(d, stems, page):
    """Links each built page (`page(stem)`, where it exists) into folder `d` as `stem.html`."""
    os.makedirs(d, exist_ok=True)
    for s in stems:
        link = os.path.join(d, s + ".html")
        if os.path.exists(page(s)) and not os.path.lexists(link):
            os.symlink(page(s), link)


def copy_md(md, stems, dst):
    """Copies the Markdown pages `stems` of folder `md` into folder `dst` (made)."""
    os.makedirs(dst, exist_ok=True)
    for s in stems:
        subprocess.run(["cp", os.path.join(md, s + ".md"), dst], check=True)


def scores(a, tools, layouts, ins, outs, refs):
    """Word F1 per tool and layout, by part: `refs` maps a page's file stem to its reference
    text's path and the name its part is drawn from."""
    table = {}
    for tool in tools:
        for layout in layouts:
            inp = os.path.join(ins, layout)
            out = run(tool, a, inp, os.path.join(outs, tool, layout))
            got = {"tune": [], "valid": []}
            for key, (ref, name) in refs.items():
                if not os.path.exists(os.path.join(inp, key + ".html")):
                    continue
                pred_f = os.path.join(out, key + ".txt")
                pred = open(pred_f).read() if os.path.exists(pred_f) else ""
                got[part_of(name)].append(prf(pred, open(ref).read())[2])
            table[(tool, layout)] = got
    return table


def show(title, what, tools, layouts, table):
    mean = lambda v: sum(v) / len(v) if v else 0.0  # noqa: E731
    n = {p: len(table[(tools[0], layouts[0])][p]) for p in ("tune", "valid")}
    print(f"{title} ({n['tune']} tuning, {n['valid']} validation): word F1, tuning / validation")
    print(f"{what:22}" + "".join(f"{t:>18}" for t in tools))
    for layout in layouts:
        print(f"{layout:22}" + "".join(
            f"{mean(table[(t, layout)]['tune']):11.3f} /{mean(table[(t, layout)]['valid']):.3f}" for t in tools))
    for label, pick in (("mean", lambda v: sum(v) / len(v)), (f"worst {what}", min)):
        print(f"{label:22}" + "".join(
            f"{pick([mean(table[(t, x)]['tune']) for x in layouts]):11.3f} /"
            f"{pick([mean(table[(t, x)]['valid']) for x in layouts]):.3f}" for t in tools))


def md_text(src, out):
    """The reference of a folder of Markdown: Python-Markdown's HTML of each page, as text
    (run in the documentation venv, which has MkDocs' Markdown)."""
    import html.parser
    import markdown

    class Text(html.parser.HTMLParser):
        def __init__(self):
            super().__init__()
            self.parts = []

        def handle_data(self, d):
            self.parts.append(d)

        def handle_starttag(self, tag, attrs):
            if tag in ("p", "li", "pre", "tr", "br", "div", "table", "blockquote") or tag[:1] == "h":
                self.parts.append("\n")

    os.makedirs(out, exist_ok=True)
    for f in sorted(os.listdir(src)):
        if f.endswith(".md"):
            t = Text()
            t.feed(markdown.markdown(open(os.path.join(src, f), encoding="utf-8").read(),
                                     extensions=["tables", "fenced_code"]))
            with open(os.path.join(out, f[:-3] + ".txt"), "w") as fh:
                fh.write("".join(t.parts))


def node_docs(a, tools):
    """Node.js's API reference where the machine has it (`--node-docs`: its Markdown and its
    own HTML, as NodeSource's `nodejs` package installs them): its own layout, and MkDocs'
    two themes and Material built from the same Markdown. Whether it ran."""
    src = a.node_docs
    if not src or not glob.glob(os.path.join(src, "*.md")):
        print(f"\n(no Node.js API Markdown in {src}: that part skipped)")
        return False
    work = os.path.join(a.work, "node")
    docs = os.path.join(work, "src", "docs")
    if not os.path.isdir(os.path.join(work, "text")):
        copy_md(src, [os.path.basename(f)[:-3] for f in glob.glob(os.path.join(src, "*.md"))],
                docs)
    md_reference(a, docs, os.path.join(work, "text"))
    layouts = ["node"]
    for theme in ("mkdocs", "readthedocs", "material"):
        site = os.path.join(work, "html", theme)
        if not os.path.isdir(site):
            with open(os.path.join(work, "src", "mkdocs.yml"), "w") as fh:
                fh.write(f"site_name: Node.js API\ntheme:\n  name: {theme}\n"
                         "markdown_extensions:\n  - tables\n  - fenced_code\n")
            r = subprocess.run([os.path.join(a.sphinx, "mkdocs"), "build", "-q", "-f",
                                os.path.join(work, "src", "mkdocs.yml"), "-d", site + ".part"],
                               capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit(f"mkdocs build ({theme}) failed:\n{r.stderr[-2000:]}")
            os.rename(site + ".part", site)
        layouts.append(theme)
    stems = sorted(f[:-4] for f in os.listdir(os.path.join(work, "text")))
    for layout in layouts:
        link_pages(os.path.join(work, "in", layout), stems,
                   lambda s, layout=layout: os.path.join(src, s + ".html") if layout == "node"
                   else os.path.join(work, "html", layout, "" if s == "index" else s, "index.html"))
    refs = {s: (os.path.join(work, "text", s + ".txt"), "nodejs/" + s) for s in stems}
    return part(a, tools, (layouts, refs), work,
                "Node.js API reference (its Markdown), {n} pages per layout", "layout")

# HTML tags the Node.js Markdown writes; any other `<word` outside code is text to escape
HTML_TAGS = ("a|td|tr|th|table|code|kbd|sup|sub|span|i|strong|em|br|p|div|b|ul|li|ol|thead|"
             "tbody|img|pre|details|summary|dl|dt|dd|h[1-6]|hr|blockquote")
NOT_HTML = re.compile(r"<(?!/?(?:%s)\b[^<>]*>|!--)" % HTML_TAGS)


def vue_safe(text):
    """The Markdown as VitePress's template compiler takes it: outside code, a `<` that opens
    no HTML tag (`<Buffer 61 61>`) escaped, and a doubled `</tr>` written once."""
    out, fence = [], False
    for line in text.split("\n"):
        if line.lstrip().startswith(("```", "~~~")):
            fence = not fence
        elif not fence:
            parts = re.split(r"(`+[^`]*`+)", line)
            line = "".join(p if i % 2 else NOT_HTML.sub("&lt;", p) for i, p in enumerate(parts))
        out.append(line)
    return re.sub(r"</tr>(\s*)</tr>", "</tr>", "\n".join(out))


def build_once(site, cmd, cwd):
    """Runs a generator's build unless `site` is there (a failed build leaves nothing), with
    the project's `node_modules/.bin` on the path (a Hexo theme runs `hexo -v` to check)."""
    if os.path.isdir(site):
        return
    env = dict(os.environ)
    env["PATH"] = os.path.join(cwd, "node_modules", ".bin") + os.pathsep + env.get("PATH", "")
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env)
    if r.returncode != 0 or not os.path.isdir(site):
        sys.exit(f"{' '.join(cmd)} failed:\n{(r.stdout + r.stderr)[-2000:]}")


def generators(a, tools):
    """Node.js's API Markdown under VitePress, Docusaurus and mdBook (installed by
    `docs_themes.sh` in `--generators`), where they are."""
    g = a.generators
    need = [os.path.join(g, "vitepress", "node_modules", "vitepress"),
            os.path.join(g, "docusaurus", "node_modules", "@docusaurus", "core"),
            os.path.join(g, "mdbook", "bin", "mdbook")]
    src = a.node_docs
    if not all(os.path.exists(x) for x in need) or not glob.glob(os.path.join(src, "*.md")):
        print(f"\n(VitePress, Docusaurus or mdBook not in {g}, or no Node.js Markdown: "
              "that part skipped)")
        return
    work = os.path.join(a.work, "node")
    md = os.path.join(work, "gen-md")
    if not os.path.isdir(os.path.join(work, "gen-text")):
        os.makedirs(md, exist_ok=True)
        for f in glob.glob(os.path.join(src, "*.md")):
            with open(os.path.join(md, os.path.basename(f)), "w") as fh:
                fh.write(vue_safe(open(f, encoding="utf-8").read()))
    md_reference(a, md, os.path.join(work, "gen-text"))
    stems = sorted(f[:-3] for f in os.listdir(md) if f.endswith(".md"))
    titles = {}
    for s in stems:
        title, _ = first_heading(open(os.path.join(md, s + ".md")).read(), s)
        titles[s] = title.replace("[", "").replace("]", "")
    # VitePress: the default theme with a sidebar of every page, an outline, search, an edit
    # link, social links and a footer (markdown-it-attrs off: Node writes types as `{string}`)
    vp = os.path.join(g, "vitepress")
    site_vp = os.path.join(vp, "docs", ".vitepress", "dist")
    if not os.path.isdir(site_vp):
        subprocess.run(["rm", "-rf", os.path.join(vp, "docs")], check=True)
        os.makedirs(os.path.join(vp, "docs", ".vitepress"))
        copy_md(md, stems, os.path.join(vp, "docs"))
        items = [{"text": titles[s], "link": "/" + s} for s in stems]
        with open(os.path.join(vp, "docs", ".vitepress", "config.mjs"), "w") as fh:
            fh.write("export default " + json.dumps({
                "title": "Node.js API", "ignoreDeadLinks": True,
                "markdown": {"attrs": {"disable": True}},
                "themeConfig": {
                    "nav": [{"text": "Home", "link": "/"}, {"text": "API", "link": "/documentation"}],
                    "sidebar": [{"text": "Reference", "items": items}],
                    "search": {"provider": "local"},
                    "editLink": {"pattern": "https://example.invalid/edit/:path"},
                    "socialLinks": [{"icon": "github", "link": "https://example.invalid"}],
                    "footer": {"message": "Released under the MIT License.",
                               "copyright": "Copyright © Example"}}}, indent=1) + "\n")
    build_once(site_vp, ["node", os.path.join(vp, "node_modules", "vitepress", "bin", "vitepress.js"),
                         "build", "docs"], vp)
    # Docusaurus: the classic preset, docs at the root with the sidebar generated from the
    # folder, a navbar, an edit link and a footer of links; `.md` read as CommonMark
    du = os.path.join(g, "docusaurus")
    site_du = os.path.join(du, "build")
    if not os.path.isdir(site_du):
        subprocess.run(["rm", "-rf", os.path.join(du, "docs")], check=True)
        copy_md(md, stems, os.path.join(du, "docs"))
        with open(os.path.join(du, "docusaurus.config.js"), "w") as fh:
            fh.write("module.exports = " + json.dumps({
                "title": "Node.js API", "url": "http://127.0.0.1", "baseUrl": "/",
                "onBrokenLinks": "ignore", "onBrokenAnchors": "ignore",
                "markdown": {"format": "detect", "hooks": {"onBrokenMarkdownLinks": "ignore"}},
                "presets": [["classic", {"docs": {"routeBasePath": "/",
                                                  "editUrl": "https://example.invalid/edit/"},
                                         "blog": False}]],
                "themeConfig": {
                    "navbar": {"title": "Node.js API", "items": [
                        {"type": "docSidebar", "sidebarId": "defaultSidebar", "label": "Docs"},
                        {"href": "https://example.invalid", "label": "GitHub", "position": "right"}]},
                    "footer": {"style": "dark", "links": [{"title": "Community", "items": [
                        {"label": "Forum", "href": "https://example.invalid/forum"}]}],
                               "copyright": "Copyright © Example"}}}, indent=1) + ";\n")
    build_once(site_du, ["node", os.path.join(du, "node_modules", "@docusaurus", "core", "bin",
                                              "docusaurus.mjs"), "build"], du)
    # mdBook: its one theme (chapter list, menu bar, search, print and edit links)
    mb = os.path.join(work, "mdbook")
    site_mb = os.path.join(mb, "book")
    if not os.path.isdir(site_mb):
        subprocess.run(["rm", "-rf", mb], check=True)
        copy_md(md, stems, os.path.join(mb, "src"))
        with open(os.path.join(mb, "src", "SUMMARY.md"), "w") as fh:
            fh.write("# Summary\n\n" + "".join(f"- [{titles[s]}](./{s}.md)\n" for s in stems))
        with open(os.path.join(mb, "book.toml"), "w") as fh:
            fh.write('[book]\ntitle = "Node.js API"\nsrc = "src"\n\n[output.html]\n'
                     'git-repository-url = "https://example.invalid/node"\n'
                     'edit-url-template = "https://example.invalid/edit/{path}"\n')
    build_once(site_mb, [os.path.join(g, "mdbook", "bin", "mdbook"), "build"], mb)
    pages = {"vitepress": lambda s: os.path.join(site_vp, s + ".html"),
             "docusaurus": lambda s: os.path.join(site_du, "" if s == "index" else s, "index.html"),
             "mdbook": lambda s: os.path.join(site_mb, s + ".html")}
    for layout, page in pages.items():
        link_pages(os.path.join(work, "in", layout), stems, page)
    refs = {s: (os.path.join(work, "gen-text", s + ".txt"), "nodejs/" + s) for s in stems}
    part(a, tools, (list(pages), refs), work,
         "The same Markdown under three more generators, {n} pages each", "generator")


def first_heading(text, default):
    """A Markdown page's first `# ` heading and where it ends (`default` and 0 without one)."""
    m = re.search(r"^#\s+(.+)$", text, re.M)
    return (m.group(1).strip(), m.end()) if m else (default, 0)


# Hexo themes from the npm registry (`docs_themes.sh` pins them), as `theme:` names them
HEXO_THEMES = ["landscape", "next", "butterfly", "fluid", "redefine", "keep", "icarus",
               "stellar", "volantis", "pure", "apollo", "anzhiyu"]


def blogs(a, tools):
    """Node.js's project guides as the posts of a Hexo blog under each of `HEXO_THEMES`
    (installed by `docs_themes.sh` in `--generators`/hexo), where they are."""
    site = os.path.join(a.generators, "hexo")
    doc = os.path.dirname(a.node_docs.rstrip("/"))
    guides = sorted(glob.glob(os.path.join(doc, "contributing", "**", "*.md"), recursive=True))
    guides += [os.path.join(doc, f) for f in ("BUILDING.md", "CONTRIBUTING.md", "GOVERNANCE.md",
               "onboarding.md", "glossary.md", "SECURITY.md", "CODE_OF_CONDUCT.md")]
    guides = [g for g in guides if os.path.exists(g)]
    themes = [t for t in HEXO_THEMES
              if os.path.isdir(os.path.join(site, "node_modules", "hexo-theme-" + t))]
    if not guides or len(themes) < len(HEXO_THEMES):
        print(f"\n(Hexo and its themes not in {site}, or no Node.js guides in {doc}: "
              "that part skipped)")
        return
    work = os.path.join(a.work, "blog")
    md = os.path.join(work, "md")
    posts = os.path.join(site, "source", "_posts")
    if not os.path.isdir(os.path.join(work, "text")):
        subprocess.run(["rm", "-rf", md, posts], check=True)
        os.makedirs(md)
        os.makedirs(posts)
        tags = ["process", "security", "build", "community", "testing", "release"]
        for i, g in enumerate(guides):
            stem = os.path.basename(g)[:-3].lower()
            text = open(g, encoding="utf-8").read()
            title, end = first_heading(text, stem)
            # the body under the title (the theme writes the title), without its images
            # (the guides' pictures are not part of the blog)
            body = re.sub(r"!\[[^\]]*\]\([^)]*\)", "", text[end:])
            day = f"2024-{1 + i // 28:02d}-{1 + i % 28:02d}"
            with open(os.path.join(posts, stem + ".md"), "w") as fh:
                fh.write(f"---\ntitle: {json.dumps(title)}\ndate: {day} 10:00:00\n"
                         f"tags: [{tags[i % 6]}, {tags[(i + 2) % 6]}]\n"
                         f"categories: [{'guides' if i % 2 else 'maintaining'}]\n---\n{body}")
            with open(os.path.join(md, stem + ".md"), "w") as fh:
                fh.write(f"# {title}\n{body}")
    md_reference(a, md, os.path.join(work, "text"))
    stems = sorted(f[:-4] for f in os.listdir(os.path.join(work, "text")))
    for theme in themes:
        html = os.path.join(work, "html", theme)
        if not os.path.isdir(html):
            with open(os.path.join(site, "_config.yml"), "w") as fh:
                fh.write("title: Node.js Notes\nsubtitle: Guides from the project\n"
                         "author: The Editors\nlanguage: en\nurl: http://127.0.0.1\n"
                         f"permalink: posts/:title/\ntheme: {theme}\npublic_dir: public\n"
                         # a post's "updated" stamp is its date, not the build's time
                         "updated_option: date\nindex_generator:\n  per_page: 10\n")
            # (and no theme's own config left by an earlier build: Icarus writes its
            # `_config.icarus.yml` of sample widgets on its first build, and reads it on the
            # next, which then shows "You need to set install_url" notices: every build is
            # a first one)
            subprocess.run(["rm", "-rf", os.path.join(site, "db.json"), os.path.join(site, "public")]
                           + glob.glob(os.path.join(site, "_config.*.yml")), check=True)
            build_once(os.path.join(site, "public"),
                       ["node", os.path.join(site, "node_modules", "hexo", "bin", "hexo"),
                        "generate"], site)
            os.makedirs(os.path.dirname(html), exist_ok=True)
            os.rename(os.path.join(site, "public"), html)
        link_pages(os.path.join(work, "in", theme), stems,
                   lambda s, html=html: os.path.join(html, "posts", s, "index.html"))
    refs = {s: (os.path.join(work, "text", s + ".txt"), "nodeblog/" + s) for s in stems}
    part(a, tools, (themes, refs), work,
         "Node.js's project guides as a Hexo blog, {n} posts per theme", "theme")


if __name__ == "__main__":
    main()
