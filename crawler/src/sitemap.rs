//! Sitemaps (sitemaps.org protocol): `<urlset>` lists pages, `<sitemapindex>` lists further
//! sitemaps; files may be gzip-compressed. Only `<loc>` values are used.

use std::io::Read;

/// What a sitemap file holds.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Parsed {
    /// Page URLs (`<urlset>`).
    pub urls: Vec<String>,
    /// Nested sitemaps (`<sitemapindex>`).
    pub sitemaps: Vec<String>,
}

/// Decompresses (if gzip, bounded) and parses a sitemap body.
pub(crate) fn parse(body: &[u8], max_bytes: usize) -> Parsed {
    let mut data = Vec::new();
    let text = if body.starts_with(&[0x1f, 0x8b]) {
        let _ = flate2::read::GzDecoder::new(body)
            .take(max_bytes as u64)
            .read_to_end(&mut data);
        String::from_utf8_lossy(&data).into_owned()
    } else {
        String::from_utf8_lossy(body).into_owned()
    };
    let is_index = text.contains("<sitemapindex");
    let mut out = Parsed::default();
    let mut rest = text.as_str();
    while let Some(i) = rest.find("<loc>") {
        let after = &rest[i + 5..];
        let Some(j) = after.find("</loc>") else { break };
        let loc = unescape(after[..j].trim());
        if !loc.is_empty() {
            if is_index {
                out.sitemaps.push(loc);
            } else {
                out.urls.push(loc);
            }
        }
        rest = &after[j + 6..];
    }
    out
}

fn unescape(s: &str) -> String {
    let s = s
        .strip_prefix("<![CDATA[")
        .and_then(|x| x.strip_suffix("]]>"))
        .unwrap_or(s);
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urlsets_indexes_and_gzip() {
        let set = "<?xml version=\"1.0\"?><urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"><url><loc> https://a.example/x?a=1&amp;b=2 </loc></url><url><loc><![CDATA[https://a.example/y]]></loc></url></urlset>";
        assert_eq!(
            parse(set.as_bytes(), 1 << 20).urls,
            vec!["https://a.example/x?a=1&b=2", "https://a.example/y"]
        );
        let idx = "<sitemapindex><sitemap><loc>https://a.example/s1.xml.gz</loc></sitemap></sitemapindex>";
        assert_eq!(
            parse(idx.as_bytes(), 1 << 20).sitemaps,
            vec!["https://a.example/s1.xml.gz"]
        );
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut gz, set.as_bytes()).unwrap();
        assert_eq!(parse(&gz.finish().unwrap(), 1 << 20).urls.len(), 2);
        assert_eq!(parse(b"<urlset><loc>unterminated", 100), Parsed::default());
    }
}
