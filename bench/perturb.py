"""Pages rewritten so that what a rule may have learnt from the names of the pages it was
written against is gone while the content stays (the same pages, the same ground truth);
used by bench/wcxb.py and bench/extract.py (--perturb):
  names  every class and id token is replaced by a stable hash of itself (`c3f9a1b`): the
         page's structure and its repetition stay, every word in a name is lost (as on sites
         built with CSS modules or hashed utility classes);
  tags   the sectioning tags (article, main, nav, aside, header, footer, section) become
         `div` and `role` attributes go (as on pages without semantic markup);
  both   both.
Attribute values in quotes only, which is how nearly every page writes class and id.
And twelve editing patterns, for what a rule may have learnt about where links stand and
about boxes being named (the text stays; what is inserted, no ground truth holds):
  links  every other paragraph that opens with three words (ASCII letters) gets them made a
         link (`<p><a href="/topic/1">Tidal energy production</a> has ...`), as blogs link
         the opening words of a paragraph: the text and the ground truth stay the same;
  related
         after every third paragraph, a line linking another story (`<p><strong>Read
         more:</strong> <a href="/news/3">Council approves ...</a></p>`), as news sites set
         them inside an article: the ground truth does not hold them, so an extractor that
         keeps them loses precision, and one that lets them move its content root loses more;
  signup after the fourth paragraph, a newsletter sign-up box with no class names (a
         heading, a sentence, an e-mail form, small print), which no ground truth holds;
  wrap   every paragraph set inside three `div`s of its own, as page builders nest each
         block in its widget's wrappers: the text and the ground truth stay the same, only
         the depth and the number of siblings change;
  ads    after every fourth paragraph, an advertisement slot with no class names (a label
         `Advertisement`, a linked banner image, `Story continues below advertisement`),
         which no ground truth holds;
  consent
         at the top of the body, a cookie banner with no class names (a notice, two links,
         three buttons), which no ground truth holds;
  comments
         on pages with three paragraphs of 200 characters or more (a text comments are
         written under), after the element closing the last of them, a comment section with
         no class names: a heading, three comments (a linked name, a date, a paragraph, a
         Reply link), a reply form; no ground truth holds it (as the benchmarks leave
         comments out);
  menu   at the top of the body, a site menu with no class names and no `nav` tag (twelve
         sections, each with a nested list of three links), which no ground truth holds;
  crumbs before the first `h1`, a breadcrumb trail (`Home > News > Region > Current
         story`), which no ground truth holds;
  rail   after the element closing the text's last long paragraph, a `Most read` rail with
         no class names (five cards: a linked image and headline, a blurb), which no ground
         truth holds;
  br     no paragraph tags: every `<p>` opening tag goes and every `</p>` becomes `<br><br>`,
         as older sites and forum posts write paragraphs (the text runs on inside whatever
         held the paragraphs, split by line breaks): the text and the ground truth stay the
         same;
  headings
         no heading tags: every `<hN>` becomes `<div><b>` (its attributes kept) and every
         `</hN>` `</b></div>`, as page builders write headings: the text and the ground
         truth stay the same.
"""
import gzip
import hashlib
import os
import re

MODES = ["names", "tags", "both", "links", "related", "signup", "wrap", "ads", "consent", "comments", "menu", "crumbs", "rail", "br", "headings"]
NAME_ATTR = re.compile(r"""\b(class|id)=(["'])([^"']*)\2""", re.I)
SECTIONING = re.compile(r"<(/?)(article|main|nav|aside|header|footer|section)\b", re.I)
ROLE_ATTR = re.compile(r"""\srole=(["'])[^"']*\1""", re.I)
# a paragraph with no paragraph or div tag inside it (one that is balanced)
PARAGRAPH = re.compile(r"<p(?:\s[^>]*)?>(?:(?!<p[\s>]|</?div).)*?</p\s*>", re.I | re.S)
RELATED = [
    ("Read more:", "Council approves new budget for the harbour district after long debate"),
    ("Also read:", "Why the price of coffee keeps rising, and what growers say about it"),
    ("Related:", "Five things to know before the election on Sunday"),
    ("See also:", "The town that rebuilt its library with volunteers"),
]
SIGNUP = (
    "<div><h3>Get our morning briefing</h3><p>Sign up to receive the best stories of the day"
    " in your inbox, every morning, for free.</p><form action=\"/subscribe\"><input"
    " type=\"email\" placeholder=\"Your email address\"><button>Sign up</button></form>"
    "<p>You can unsubscribe at any time. By signing up you agree to our privacy policy.</p>"
    "</div>"
)
WRAP = '<div><div><div>{}</div></div></div>'
AD = ('<div><div>Advertisement</div><div><a href="https://ads.example/c?{}"><img'
      ' src="https://ads.example/b.gif" width="300" height="250"></a></div>'
      '<div>Story continues below advertisement</div></div>')
TAG = re.compile(r"<[^>]*>")
CLOSE = re.compile(r"</(?:div|article|section|main)\s*>", re.I)
BODY = re.compile(r"<body(?:\s[^>]*)?>", re.I)
CONSENT = (
    "<div><div><p>We use cookies and similar technologies to run this site, to measure how"
    " it is used and to show you personalised content and advertising. You can accept all"
    " cookies, reject those that are not necessary, or choose which ones we may use.</p>"
    '<p><a href="/privacy">Privacy policy</a> <a href="/cookies">Cookie settings</a></p>'
    "</div><div><button>Accept all</button><button>Reject all</button>"
    "<button>Manage choices</button></div></div>"
)
COMMENTS = "<div><h3>3 comments</h3>" + "".join(
    f'<div><div><a href="/user/{i}">{name}</a> <span>March {i + 3}, 2024 at 10:1{i} am</span>'
    f"</div><p>{text}</p><div><a href=\"#reply-{i}\">Reply</a></div></div>"
    for i, (name, text) in enumerate([
        ("Margaret", "Thank you for writing this, it is exactly what I was looking for and it"
         " answered every question I had after reading the manual twice."),
        ("dave_k", "I tried the second method last weekend and it worked, although it took me"
         " longer than the article suggests because my version is older."),
        ("Anonymous", "Does anyone know whether this still applies after the latest update? The"
         " settings seem to have moved and I cannot find the option anymore."),
    ])
) + ('<form action="/comment"><h3>Leave a reply</h3><textarea name="comment"></textarea>'
     "<input name=\"author\" placeholder=\"Name\"><button>Post comment</button></form></div>")
H1 = re.compile(r"<h1[\s>]", re.I)
SECTIONS = ["News", "World", "Business", "Technology", "Science", "Health", "Sport", "Culture",
            "Travel", "Food", "Opinion", "Video"]
MENU = "<div><ul>" + "".join(
    f'<li><a href="/{s.lower()}">{s}</a><ul>'
    + "".join(f'<li><a href="/{s.lower()}/{t}">{s} {t}</a></li>' for t in ("today", "archive", "in depth"))
    + "</ul></li>" for s in SECTIONS) + "</ul></div>"
CRUMBS = ('<div><a href="/">Home</a> &rsaquo; <a href="/news">News</a> &rsaquo; <a href="/news/region">Region'
          "</a> &rsaquo; <span>Current story</span></div>")
RAIL = "<div><h3>Most read</h3>" + "".join(
    f'<div><a href="/story/{i}"><img src="/img/{i}.jpg" alt=""><h4>{title}</h4></a><p>{blurb}</p></div>'
    for i, (title, blurb) in enumerate([
        ("Harbour district gets its new ferry line", "The line opens in spring and links the"
         " old docks with the station in twelve minutes, the council said on Monday."),
        ("A bakery that has run for a hundred years", "Three generations have kept the same"
         " oven going; the youngest wants to add a caf&eacute; upstairs next year."),
        ("What the new recycling rules mean for you", "From January, glass and paper are"
         " collected on different days, and the bins change colour."),
        ("Storm warning for the coast this weekend", "Forecasters expect gusts of up to 90 km/h"
         " on Saturday night and advise against travel on the coastal road."),
        ("The school that teaches chess to everyone", "Every pupil plays from the first year,"
         " and the school team has just won the regional championship."),
    ])
) + "</div>"
P_OPEN = re.compile(r"<p(?:\s[^>]*)?>", re.I)
P_CLOSE = re.compile(r"</p\s*>", re.I)
H_OPEN = re.compile(r"<h[1-6](\s[^>]*)?>", re.I)
H_CLOSE = re.compile(r"</h[1-6]\s*>", re.I)
OPENING = re.compile(r"(<p(?:\s[^>]*)?>)(\s*)([A-Za-z][A-Za-z'-]*\s+[A-Za-z'-]+\s+[A-Za-z'-]+)")


def _hashed(m):
    tokens = " ".join("c" + hashlib.sha1(t.encode()).hexdigest()[:6] for t in m.group(3).split())
    return f"{m.group(1)}={m.group(2)}{tokens}{m.group(2)}"


def _at(pattern, html, edit):
    """`html` with the n-th match of `pattern` (from 1) replaced by `edit(match, n)`, or kept
    where that is None."""
    seen = 0

    def sub(m):
        nonlocal seen
        seen += 1
        out = edit(m, seen)
        return m.group(0) if out is None else out

    return pattern.sub(sub, html)


def _related(m, n):
    """A paragraph and a related-story line after it (the n-th paragraph)."""
    label, title = RELATED[(n // 3) % len(RELATED)]
    return f'{m.group(0)}<p><strong>{label}</strong> <a href="/news/{n}">{title}</a></p>'


def _after_text(html, block, need):
    """`html` with `block` after the element closing its last paragraph of 200 characters or
    more (the text's end, not the footer's small print), on pages with `need` such
    paragraphs or more; as it was on others."""
    long = [m for m in PARAGRAPH.finditer(html) if len(TAG.sub("", m.group(0)).strip()) >= 200]
    end = CLOSE.search(html, long[-1].end()) if len(long) >= need else None
    return html[:end.end()] + block + html[end.end():] if end else html


def rewrite(html, mode):
    """One page's HTML rewritten (`mode`: one of MODES)."""
    if mode in ("names", "both"):
        html = NAME_ATTR.sub(_hashed, html)
    if mode in ("tags", "both"):
        html = ROLE_ATTR.sub("", SECTIONING.sub(r"<\1div", html))
    if mode == "links":
        html = _at(OPENING, html, lambda m, n: None if n % 2 else (
            f'{m.group(1)}{m.group(2)}<a href="/topic/{n}">{m.group(3)}</a>'))
    if mode == "related":
        html = _at(PARAGRAPH, html, lambda m, n: None if n % 3 else _related(m, n))
    if mode == "signup":
        html = _at(PARAGRAPH, html, lambda m, n: m.group(0) + SIGNUP if n == 4 else None)
    if mode == "wrap":
        html = _at(PARAGRAPH, html, lambda m, n: WRAP.format(m.group(0)))
    if mode == "ads":
        html = _at(PARAGRAPH, html, lambda m, n: None if n % 4 else m.group(0) + AD.format(n))
    if mode == "consent":
        html = BODY.sub(lambda m: m.group(0) + CONSENT, html, count=1)
    if mode == "comments":
        # (on a page with a text to comment on)
        html = _after_text(html, COMMENTS, 3)
    if mode == "menu":
        html = BODY.sub(lambda m: m.group(0) + MENU, html, count=1)
    if mode == "crumbs":
        html = H1.sub(lambda m: CRUMBS + m.group(0), html, count=1)
    if mode == "rail":
        html = _after_text(html, RAIL, 1)
    if mode == "br":
        html = P_CLOSE.sub("<br><br>", P_OPEN.sub("", html))
    if mode == "headings":
        html = H_CLOSE.sub("</b></div>", H_OPEN.sub(lambda m: f"<div{m.group(1) or ''}><b>", html))
    return html


def rewrite_dir(src, dst, mode):
    """Every page of folder `src` (`.html` or `.html.gz`) rewritten into `dst`, same names."""
    os.makedirs(dst, exist_ok=True)
    for fn in sorted(os.listdir(src)):
        gz = fn.endswith(".gz")
        raw = (gzip.open if gz else open)(os.path.join(src, fn), "rb").read()
        # Latin-1 maps every byte to one character and back: a page in any encoding keeps
        # its bytes but for the attributes rewritten (ASCII)
        out = rewrite(raw.decode("latin-1"), mode).encode("latin-1")
        if gz:
            with gzip.open(os.path.join(dst, fn), "wb", compresslevel=1) as f:
                f.write(out)
        else:
            with open(os.path.join(dst, fn), "wb") as f:
                f.write(out)
