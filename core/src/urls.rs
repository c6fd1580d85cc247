//! URL patterns for takedowns and blocklists: exact URLs, URL prefixes (`https://x/a/*`)
//! and domains (`example.org`, matching its subdomains too).

/// One pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UrlPattern {
    /// The URL itself (fragment ignored, trailing slash optional).
    Exact(String),
    /// Every URL starting with this.
    Prefix(String),
    /// Every URL on this host or its subdomains.
    Domain(String),
}

fn norm(url: &str) -> String {
    let url = url.split('#').next().unwrap_or("");
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let (host, path) = rest
        .find('/')
        .map_or((rest, ""), |i| (&rest[..i], &rest[i..]));
    let host = host.to_ascii_lowercase();
    let host = host
        .strip_suffix(":80")
        .filter(|_| scheme.eq_ignore_ascii_case("http"))
        .or_else(|| {
            host.strip_suffix(":443")
                .filter(|_| scheme.eq_ignore_ascii_case("https"))
        })
        .unwrap_or(&host);
    let path = path.trim_end_matches('/');
    format!("{}://{host}{path}", scheme.to_ascii_lowercase())
}

/// Whether `host` is `domain` or one of its subdomains (`a.b.example` of `b.example`, not
/// `notexample` of `example`).
pub fn host_matches(host: &str, domain: &str) -> bool {
    host == domain
        || host
            .strip_suffix(domain)
            .is_some_and(|rest| rest.ends_with('.'))
}

fn host_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let auth = rest.split(['/', '?', '#']).next().unwrap_or("");
    let auth = auth.rsplit_once('@').map_or(auth, |(_, h)| h);
    auth.rsplit_once(':')
        .filter(|(_, p)| p.chars().all(|c| c.is_ascii_digit()))
        .map_or(auth, |(h, _)| h)
}

impl UrlPattern {
    /// Parses one line; blank lines and `#` comments give `None`.
    pub fn parse(line: &str) -> Option<UrlPattern> {
        let l = line.trim();
        if l.is_empty() || l.starts_with('#') {
            return None;
        }
        Some(if let Some(p) = l.strip_suffix('*') {
            UrlPattern::Prefix(p.to_string())
        } else if l.contains("://") {
            UrlPattern::Exact(norm(l))
        } else {
            UrlPattern::Domain(
                l.trim_start_matches("*.")
                    .trim_end_matches('/')
                    .to_ascii_lowercase(),
            )
        })
    }

    /// Whether `url` is covered.
    pub fn matches(&self, url: &str) -> bool {
        match self {
            UrlPattern::Exact(u) => norm(url) == *u,
            UrlPattern::Prefix(p) => url.starts_with(p.as_str()),
            UrlPattern::Domain(d) => host_matches(&host_of(url).to_ascii_lowercase(), d),
        }
    }
}

/// A list of patterns (one per line in files).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UrlBlocklist {
    /// The patterns.
    pub patterns: Vec<UrlPattern>,
}

impl UrlBlocklist {
    /// Parses a list, one pattern per line.
    pub fn parse(text: &str) -> UrlBlocklist {
        UrlBlocklist {
            patterns: text.lines().filter_map(UrlPattern::parse).collect(),
        }
    }

    /// Adds another list.
    pub fn extend(&mut self, other: UrlBlocklist) {
        self.patterns.extend(other.patterns);
    }

    /// Whether any pattern covers `url`.
    pub fn matches(&self, url: &str) -> bool {
        !url.is_empty() && self.patterns.iter().any(|p| p.matches(url))
    }

    /// No patterns.
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_match_their_domain_and_subdomains_only() {
        assert!(
            host_matches("example.org", "example.org")
                && host_matches("a.b.example.org", "example.org")
        );
        assert!(
            !host_matches("notexample.org", "example.org")
                && !host_matches("example.org.evil", "example.org")
        );
    }

    #[test]
    fn patterns() {
        let l = UrlBlocklist::parse("# takedown 2026-11\nhttps://News.example/a/b/\nhttps://blog.example/fr/*\nshop.example\n\n");
        assert_eq!(l.patterns.len(), 3);
        assert!(l.matches("https://news.example/a/b"));
        assert!(l.matches("https://news.example:443/a/b#x"));
        assert!(!l.matches("https://news.example/a/bc"));
        assert!(l.matches("https://blog.example/fr/village.html"));
        assert!(!l.matches("https://blog.example/de/stadt.html"));
        assert!(l.matches("http://shop.example:8080/x"));
        assert!(l.matches("https://www.shop.example/"));
        assert!(!l.matches("https://notshop.example/"));
        assert!(!l.matches(""));
    }
}
