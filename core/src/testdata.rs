//! Where tests and benchmarks find the shared test data: `../shared/testdata` beside the
//! checkout (the labelled pages, WCXB, the robots.txt cases). A clone elsewhere has none, so
//! a test that needs it asks [`shared`] and skips when the answer is `None`.

use std::path::{Path, PathBuf};

/// `rel` under the shared test data, or `None` (and a `SKIP:` line on stderr) when it is not
/// there. The checkout is found from `CARGO_MANIFEST_DIR` read when the test runs (not
/// `env!`, which names the checkout the binary was compiled in: cargo reuses test binaries
/// between checkouts that share a target folder), walking up to the workspace root (the
/// folder with `Cargo.lock`); outside cargo, from the working directory.
pub fn shared(rel: &str) -> Option<PathBuf> {
    let start = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok())?;
    let root = start
        .ancestors()
        .find(|d| d.join("Cargo.lock").is_file())
        .unwrap_or(&start);
    let path = shared_under(root, rel);
    if path.exists() {
        Some(path)
    } else {
        eprintln!(
            "SKIP: {} not found (the shared test data sits beside the checkout)",
            path.display()
        );
        None
    }
}

/// The labelled pages (`extract/*/html`) and every `wcxb_step`-th WCXB development page
/// (gunzipped), as served, in a fixed order; none when the shared data is absent. Bytes that
/// are not UTF-8 are replaced, as a test of parsing needs text, not the charset reader.
pub fn pages(wcxb_step: usize) -> Vec<String> {
    let mut out = Vec::new();
    for set in [
        "extract/scrapinghub/html",
        "extract/readability/html",
        "extract/trafilatura/html",
        "wcxb-dev/html",
    ] {
        let Some(dir) = shared(set) else { continue };
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        let mut files: Vec<PathBuf> = entries.filter_map(|e| Some(e.ok()?.path())).collect();
        files.sort();
        let step = if set.starts_with("wcxb") {
            wcxb_step.max(1)
        } else {
            1
        };
        for p in files.into_iter().step_by(step) {
            let Ok(raw) = std::fs::read(&p) else { continue };
            let raw = if p.extension().is_some_and(|e| e == "gz") {
                use std::io::Read;
                let mut out = Vec::new();
                if flate2::read::GzDecoder::new(&raw[..])
                    .read_to_end(&mut out)
                    .is_err()
                {
                    continue;
                }
                out
            } else {
                raw
            };
            out.push(String::from_utf8_lossy(&raw).into_owned());
        }
    }
    out
}

/// `rel` under `<root>/../shared/testdata`.
fn shared_under(root: &Path, rel: &str) -> PathBuf {
    root.join("../shared/testdata").join(rel)
}

/// Pieces of markup that exercise the tree builder's modes and the tokenizer's states
/// (character references in every form, raw text and RCDATA, script escapes, foreign
/// content, tables, comments, doctypes, links).
const MARKUP_PIECES: &[&str] = &[
    "<p>",
    "</p>",
    "<div class=a>",
    "</div>",
    "<b>",
    "</b>",
    "<i>",
    "</i>",
    "<a href=x>",
    "</a>",
    "<table>",
    "</table>",
    "<tr>",
    "<td>",
    "</td>",
    "<th>",
    "<tbody>",
    "<caption>",
    "<ul>",
    "<li>",
    "</ul>",
    "<ol>",
    "<h1>",
    "</h1>",
    "<h2 id=t>",
    "<br>",
    "<br/>",
    "<img src=a alt='b'>",
    "<hr>",
    "<span>",
    "</span>",
    "<form>",
    "</form>",
    "<input type=text>",
    "<select>",
    "<option>",
    "</select>",
    "<button>",
    "</button>",
    "<pre>",
    "</pre>",
    "\n",
    " ",
    "text",
    "words here",
    "&amp;",
    "&nbsp;",
    "&copy",
    "&copy=",
    "&notit;",
    "&#65;",
    "&#x263A;",
    "&#150;",
    "&bogus;",
    "&",
    "<",
    "a<b",
    "<title>a &amp; <b></title>",
    "<textarea>\nx</textarea>",
    "<style>a>b{}</style>",
    "<noscript><p>n</p></noscript>",
    "</title>",
    "</style>",
    "<svg>",
    "</svg>",
    "<math>",
    "</math>",
    "<html>",
    "<head>",
    "</head>",
    "<body>",
    "</body>",
    "<meta charset=utf-8>",
    "<link rel=x>",
    "<template>",
    "</template>",
    "<frameset>",
    "<nobr>",
    "<font>",
    "</font>",
    "<center>",
    "<dd>",
    "<dt>",
    "<dl>",
    "</dl>",
    "<em class=\"x y\" class=z>",
    "</em>",
    "<section hidden>",
    "</section>",
    "<x-y z=1>",
    "</x-y>",
    "<DIV CLASS=Up>",
    "<p/>",
    "<a title=\"q&amp;a\" data-v='1&2'>",
    "<col>",
    "<colgroup>",
    "<thead>",
    "<tfoot>",
    "<area>",
    "<object>",
    "</object>",
    "<applet>",
    "<marquee>",
    "<rb>",
    "<ruby>",
    "<rt>",
    "<rp>",
    "<optgroup>",
    "<image>",
    "<isindex>",
    "<main>",
    "<nav>",
    "<article>",
    "<header>",
    "<footer>",
    "<aside>",
    "<figure>",
    "<figcaption>",
    "<details>",
    "<summary>",
    "<label>",
    "<script>{\"a\": 1}</script>",
    "</script>",
    "<xmp><p></xmp>",
    "<listing>",
    "<!DOCTYPE html>",
    "<iframe>x</iframe>",
    "&#10",
    "&#10;",
    "&#x0a",
    "</>",
    "<!--c-->",
    "<?x?>",
    "</ x>",
    "<script><!-- x",
    "<script><!--<script>",
    "-->",
    "<script>",
    "<a href='/p?a=1&amp;b=2&copy=3'>",
    "<a href=\"/q#&lt;x\" rel=nofollow>",
    "<A HREF=/up>",
    "<meta name=robots content=nofollow>",
];

/// `count` documents, each 1 to 40 of the pieces above picked at random (a fixed xorshift
/// generator: the same documents every run), for tests that compare two parsers or two
/// tokenizers on markup no page author would write.
pub fn random_markup(count: usize) -> impl Iterator<Item = String> {
    let mut x = 0x9E3779B97F4A7C15u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    (0..count).map(move |_| {
        let n = 1 + (next() % 40) as usize;
        (0..n)
            .map(|_| MARKUP_PIECES[(next() % MARKUP_PIECES.len() as u64) as usize])
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shared_data_sits_beside_the_workspace_root() {
        assert_eq!(
            shared_under(Path::new("/work/main"), "robots/cases.json"),
            Path::new("/work/main/../shared/testdata/robots/cases.json")
        );
        // from a member crate, the root is found by its Cargo.lock; a missing path is None
        assert_eq!(shared("no/such/file"), None);
    }
}
