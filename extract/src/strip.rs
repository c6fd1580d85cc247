//! Removes inert markup before parsing: `<script>` (except JSON-LD, which the metadata
//! reader needs), `<style>`, inline `<svg>`, `<link>` (except canonical and author links)
//! and comments. On real pages these are often half the bytes, and
//! the HTML tokenizer would otherwise walk every one of them. The scan follows the
//! tokenizer's own rules closely enough: a script or style element ends at the first
//! `</script`/`</style` followed by whitespace, `/` or `>`; a comment at the first `-->`.

/// `html` without scripts (JSON-LD kept), styles and comments.
pub(crate) fn strip_inert(html: &str) -> String {
    let b = html.as_bytes();
    let mut out = String::with_capacity(html.len());
    let mut copied = 0; // html[copied..pos] not yet copied
    let mut pos = 0;
    while let Some(off) = html[pos..].find('<') {
        let i = pos + off;
        let rest = &b[i..];
        // only `<!--`, `<script`, `<style`, `<svg` and `<link` matter: most tags are none
        if !matches!(rest.get(1), Some(b'!' | b's' | b'S' | b'l' | b'L')) {
            pos = i + 1;
            continue;
        }
        if starts_tag(rest, b"link") {
            // stylesheets, preloads, icons, feeds: never text; a canonical or author link is
            // metadata and stays
            let end = html[i..].find('>').map_or(html.len(), |e| i + e + 1);
            let tag = &html[i..end];
            if !(trawl_core::text::contains_ascii_ci(tag, "canonical")
                || trawl_core::text::contains_ascii_ci(tag, "author"))
            {
                out.push_str(&html[copied..i]);
                copied = end;
            }
            pos = end.max(i + 1);
            continue;
        }
        if rest.starts_with(b"<!--") {
            let end = html[i + 4..]
                .find("-->")
                .map_or(html.len(), |e| i + 4 + e + 3);
            out.push_str(&html[copied..i]);
            copied = end;
            pos = end;
            continue;
        }
        let tag = if starts_tag(rest, b"script") {
            Some("script")
        } else if starts_tag(rest, b"style") {
            Some("style")
        } else if starts_tag(rest, b"svg") {
            Some("svg") // inline icons: never text, often large paths
        } else {
            None
        };
        let Some(tag) = tag else {
            pos = i + 1;
            continue;
        };
        let open_end = html[i..].find('>').map_or(html.len(), |e| i + e + 1);
        let close = find_close(html, open_end, tag);
        let end = html[close..]
            .find('>')
            .map_or(html.len(), |e| close + e + 1);
        let keep = tag == "script" && html[i..open_end].to_ascii_lowercase().contains("ld+json");
        if !keep {
            out.push_str(&html[copied..i]);
            copied = end;
        }
        pos = end.max(i + 1);
    }
    out.push_str(&html[copied.min(html.len())..]);
    out
}

/// `<name` followed by whitespace, `>` or `/`, case-insensitively.
fn starts_tag(rest: &[u8], name: &[u8]) -> bool {
    rest.len() > name.len() + 1
        && rest[1..=name.len()].eq_ignore_ascii_case(name)
        && matches!(
            rest[name.len() + 1],
            b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'>' | b'/'
        )
}

/// Offset of the closing `</tag` at or after `from` (the end of the input when missing).
fn find_close(html: &str, from: usize, tag: &str) -> usize {
    let b = html.as_bytes();
    let mut p = from;
    while let Some(off) = html[p..].find("</") {
        let i = p + off;
        let after = i + 2 + tag.len();
        if b.len() >= after
            && b[i + 2..after].eq_ignore_ascii_case(tag.as_bytes())
            && (after == b.len()
                || matches!(
                    b[after],
                    b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'>' | b'/'
                ))
        {
            return i;
        }
        p = i + 2;
    }
    html.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_scripts_styles_comments_keeps_json_ld() {
        let html = "<p>a</p><SCRIPT type=text/javascript>if (a < b) { x = '</p>'; }</Script ><style>p{}</style><!-- c <p>hidden</p> --><scripts>kept</scripts>\
                    <script type=\"application/ld+json\">{\"@type\":\"Article\"}</script><p>b</p><script>never closed";
        assert_eq!(strip_inert(html), "<p>a</p><scripts>kept</scripts><script type=\"application/ld+json\">{\"@type\":\"Article\"}</script><p>b</p>");
        assert_eq!(strip_inert("<!-- open"), "");
        assert_eq!(strip_inert("x < y <script"), "x < y <script");
        assert_eq!(strip_inert("é<style>ü</style>ß"), "éß");
        assert_eq!(
            strip_inert("<p>a<svg viewBox=\"0 0 9 9\"><path d=\"M0 0\"/></svg>b</p>"),
            "<p>ab</p>"
        );
        assert_eq!(
            strip_inert("<head><LINK rel=stylesheet href=a.css><link rel=\"canonical\" href=\"/c\"><link rel=author href=/me><links>x</links></head>"),
            "<head><link rel=\"canonical\" href=\"/c\"><link rel=author href=/me><links>x</links></head>"
        );
    }
}
