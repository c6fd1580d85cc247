use url::Url;

/// Canonicalises a URL for dedup and robots matching: lowercase scheme and host, no
/// default port, no fragment, `removed` query parameters dropped (case-insensitive), empty
/// query removed, and percent-encoding normalised by the WHATWG parser. Returns `None` for
/// non-HTTP(S) URLs.
pub fn canonicalize(raw: &str, base: Option<&Url>, removed: &[String]) -> Option<Url> {
    let mut u = match base {
        Some(b) => b.join(raw.trim()).ok()?,
        None => Url::parse(raw.trim()).ok()?,
    };
    if u.scheme() != "http" && u.scheme() != "https" {
        return None;
    }
    u.host_str()?;
    u.set_fragment(None);
    if u.query().is_some() {
        let kept: Vec<(String, String)> = u
            .query_pairs()
            .filter(|(k, _)| !removed.iter().any(|r| r.eq_ignore_ascii_case(k)))
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        if kept.is_empty() {
            u.set_query(None);
        } else {
            u.query_pairs_mut().clear().extend_pairs(kept);
        }
    }
    Some(u)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_forms() {
        let strip = vec!["sessionid".to_string()];
        let c = |s: &str| canonicalize(s, None, &strip).map(|u| u.to_string());
        assert_eq!(
            c("HTTP://Example.COM:80/a#frag").as_deref(),
            Some("http://example.com/a")
        );
        assert_eq!(
            c("https://example.com:443/?SessionId=1").as_deref(),
            Some("https://example.com/")
        );
        assert_eq!(
            c("https://example.com/?a=1&sessionid=2&b=3").as_deref(),
            Some("https://example.com/?a=1&b=3")
        );
        assert_eq!(
            c("https://example.com/a b").as_deref(),
            Some("https://example.com/a%20b")
        );
        assert_eq!(c("mailto:x@y.z"), None);
        assert_eq!(c("javascript:alert(1)"), None);
        let base = Url::parse("http://h.test/dir/page.html").unwrap();
        assert_eq!(
            canonicalize("../x.html", Some(&base), &[])
                .unwrap()
                .as_str(),
            "http://h.test/x.html"
        );
    }
}
