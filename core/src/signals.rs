//! Machine-readable AI-use preferences beyond robots.txt's Allow/Disallow, parsed where they
//! live and recorded per document and per image in [`crate::Consent::signals`]:
//!
//! - **Content-Signal** (contentsignals.org, draft-romm-aipref-contentsignals): a robots.txt
//!   line inside a user-agent group, `Content-Signal: search=yes, ai-input=yes, ai-train=no`,
//!   optionally scoped by a leading path.
//! - **Content-Usage** (IETF aipref: draft-ietf-aipref-attach and -vocab): a robots.txt line
//!   `Content-Usage: [path] train-ai=n` (path-scoped like Allow/Disallow, longest match
//!   wins) and a `Content-Usage` response header in structured-field dictionary syntax.
//!   The training categories read are `train-ai` and `train-genai` (and the earlier drafts'
//!   `ai`, `genai`, `tdm`, `all`); `search` and the rest are recorded, not acted on.
//! - **TDMRep** (W3C TDMRep Community Group final report, 2024): `tdm-reservation` (0/1) and
//!   `tdm-policy` response headers, `<meta name="tdm-reservation">`, and the rules of
//!   `/.well-known/tdmrep.json`.
//!
//! Parsers are tolerant: an unknown key is recorded and ignored, a value that cannot be read
//! is recorded as unparsed (`parsed: false`) and decides nothing. What a signal does is the
//! [`SignalPolicy`]'s choice (by default a reservation against AI training from any source
//! opts the document out).

use serde::{Deserialize, Serialize};

/// One preference found for a page or an image.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConsentSignal {
    /// `content-signal`, `content-usage`, `tdm-reservation` or `tdm-policy`.
    pub signal: String,
    /// Where it was found: `robots.txt line 4`, `header`, `meta`, `tdmrep.json rule 2`.
    pub source: String,
    /// The value as written (cut to 300 bytes).
    pub value: String,
    /// What it says about AI training: `Some(false)` reserved / `n` / `no`, `Some(true)`
    /// allowed, `None` silent about training or unreadable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub training: Option<bool>,
    /// Whether the value could be read.
    pub parsed: bool,
}

impl ConsentSignal {
    fn new(signal: &str, source: impl Into<String>, value: &str) -> ConsentSignal {
        let mut v = value.trim().to_string();
        if v.len() > 300 {
            v.truncate(crate::text::floor_char_boundary(&v, 300));
        }
        ConsentSignal {
            signal: signal.into(),
            source: source.into(),
            value: v,
            training: None,
            parsed: true,
        }
    }

    /// A short description for exclusion records and logs: `content-signal (robots.txt
    /// line 4): ai-train=no`.
    pub fn describe(&self) -> String {
        format!("{} ({}): {}", self.signal, self.source, self.value)
    }
}

/// `key=value` pairs of a comma-separated list (values may be quoted; `;params` dropped).
/// `None` when an item is not `key=value` or a key is not a token.
fn pairs(value: &str) -> Option<Vec<(String, String)>> {
    let mut out = Vec::new();
    for item in value.split(',') {
        let item = item.split(';').next().unwrap_or("").trim();
        if item.is_empty() {
            continue;
        }
        let (k, v) = item.split_once('=')?;
        let k = k.trim().to_ascii_lowercase();
        if k.is_empty()
            || !k
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '*'))
        {
            return None;
        }
        out.push((k, v.trim().trim_matches('"').to_ascii_lowercase()));
    }
    if out.is_empty() {
        None
    } else {
        Some(out)
    }
}

/// Reads a Content-Signal value (`search=yes, ai-train=no`): `ai-train` decides training.
pub fn content_signal(source: impl Into<String>, value: &str) -> ConsentSignal {
    let mut s = ConsentSignal::new("content-signal", source, value);
    match pairs(value) {
        Some(p) => {
            for (k, v) in p {
                if k == "ai-train" {
                    s.training = match v.as_str() {
                        "yes" | "y" => Some(true),
                        "no" | "n" => Some(false),
                        _ => {
                            s.parsed = false;
                            None
                        }
                    };
                }
            }
        }
        None => s.parsed = false,
    }
    s
}

/// The aipref categories that cover training AI models (current and earlier drafts).
const TRAINING_CATEGORIES: &[&str] = &["train-ai", "train-genai", "ai", "genai", "tdm", "all"];

/// Reads a Content-Usage value (`train-ai=n, search=y`; structured-field tokens `y`/`n`,
/// booleans `?0`/`?1` accepted): any training category set to `n` reserves, else one set to
/// `y` allows.
pub fn content_usage(source: impl Into<String>, value: &str) -> ConsentSignal {
    let mut s = ConsentSignal::new("content-usage", source, value);
    match pairs(value) {
        Some(p) => {
            let mut allowed = None;
            for (k, v) in p {
                let yes = match v.as_str() {
                    "y" | "yes" | "?1" => true,
                    "n" | "no" | "?0" => false,
                    _ => {
                        s.parsed = false;
                        continue;
                    }
                };
                if TRAINING_CATEGORIES.contains(&k.as_str()) {
                    allowed = Some(match allowed {
                        Some(a) => a && yes,
                        None => yes,
                    });
                }
            }
            s.training = allowed;
        }
        None => s.parsed = false,
    }
    s
}

/// Reads a `tdm-reservation` value: `1` reserves, `0` does not.
pub fn tdm_reservation(source: impl Into<String>, value: &str) -> ConsentSignal {
    let mut s = ConsentSignal::new("tdm-reservation", source, value);
    match value.trim() {
        "1" => s.training = Some(false),
        "0" => s.training = Some(true),
        _ => s.parsed = false,
    }
    s
}

/// The signals in response headers (names lowercased): `Content-Usage`, `tdm-reservation`,
/// `tdm-policy`.
pub fn from_headers(headers: &[(String, String)]) -> Vec<ConsentSignal> {
    let mut out = Vec::new();
    for (k, v) in headers {
        match k.as_str() {
            "content-usage" => out.push(content_usage("header", v)),
            "tdm-reservation" => out.push(tdm_reservation("header", v)),
            "tdm-policy" => out.push(ConsentSignal::new("tdm-policy", "header", v)),
            _ => {}
        }
    }
    out
}

/// One rule of `/.well-known/tdmrep.json`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TdmRule {
    /// The `location` pattern (a path; `*` matches any run of characters).
    pub location: String,
    /// `tdm-reservation`.
    pub reservation: Option<u8>,
    /// `tdm-policy`.
    pub policy: Option<String>,
}

/// Parses `tdmrep.json` (an array of `{location, tdm-reservation, tdm-policy}`); `Err` with
/// the reason for anything else.
pub fn parse_tdmrep(body: &[u8]) -> Result<Vec<TdmRule>, String> {
    let v: serde_json::Value =
        serde_json::from_slice(body).map_err(|e| format!("not JSON: {e}"))?;
    let arr = v.as_array().ok_or("not a JSON array")?;
    let mut rules = Vec::new();
    for (i, r) in arr.iter().enumerate() {
        let loc = r["location"]
            .as_str()
            .ok_or_else(|| format!("rule {} has no location", i + 1))?;
        let reservation = match &r["tdm-reservation"] {
            serde_json::Value::Number(n) => n.as_u64().filter(|n| *n <= 1).map(|n| n as u8),
            serde_json::Value::String(s) => s.trim().parse::<u8>().ok().filter(|n| *n <= 1),
            _ => None,
        };
        rules.push(TdmRule {
            location: loc.to_string(),
            reservation,
            policy: r["tdm-policy"].as_str().map(String::from),
        });
    }
    Ok(rules)
}

/// The signal of the first `tdmrep.json` rule whose location matches `path` (rules are
/// checked in file order).
pub fn tdmrep_signal(rules: &[TdmRule], path: &str) -> Option<ConsentSignal> {
    let (i, r) = rules
        .iter()
        .enumerate()
        .find(|(_, r)| location_matches(&r.location, path))?;
    let source = format!("tdmrep.json rule {}", i + 1);
    Some(match r.reservation {
        Some(v) => {
            let mut s = tdm_reservation(source, &v.to_string());
            if let Some(p) = &r.policy {
                s.value = format!("{v} (policy {p})");
            }
            s
        }
        None => {
            let mut s = ConsentSignal::new("tdm-reservation", source, "");
            s.parsed = false;
            s
        }
    })
}

/// TDMRep location patterns: a path where `*` matches any run of characters; a pattern
/// without `*` matches the path itself and, ending in `/`, everything below it.
fn location_matches(pattern: &str, path: &str) -> bool {
    let pattern = pattern.trim();
    let pattern = match pattern.find("://") {
        // an absolute URL: its path
        Some(i) => pattern[i + 3..]
            .find('/')
            .map_or("/", |j| &pattern[i + 3 + j..]),
        None => pattern,
    };
    if !pattern.contains('*') {
        return path == pattern || (pattern.ends_with('/') && path.starts_with(pattern));
    }
    crate::text::wildcard_match(pattern, path, true)
}

/// What a signal kind does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Policy {
    /// A reservation against training opts the document (or image) out.
    #[default]
    Honour,
    /// Recorded in the consent record only.
    Record,
}

/// The policy per signal kind (`[filter.consent_signals]`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SignalPolicy {
    /// Content-Signal lines in robots.txt.
    pub content_signal: Policy,
    /// Content-Usage lines in robots.txt and `Content-Usage` headers.
    pub content_usage: Policy,
    /// TDMRep: headers, `<meta>` and `/.well-known/tdmrep.json`.
    pub tdmrep: Policy,
}

impl SignalPolicy {
    /// The first signal that opts out of AI training under this policy, if any.
    pub fn opt_out<'a>(&self, signals: &'a [ConsentSignal]) -> Option<&'a ConsentSignal> {
        signals.iter().find(|s| {
            let p = match s.signal.as_str() {
                "content-signal" => self.content_signal,
                "content-usage" => self.content_usage,
                "tdm-reservation" | "tdm-policy" => self.tdmrep,
                _ => Policy::Record,
            };
            p == Policy::Honour && s.parsed && s.training == Some(false)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_read_tolerantly() {
        let s = content_signal("robots.txt line 2", "search=yes, ai-input=yes, ai-train=no");
        assert_eq!((s.training, s.parsed), (Some(false), true));
        assert_eq!(content_signal("x", "ai-train=yes").training, Some(true));
        assert_eq!(content_signal("x", "search=yes").training, None);
        let bad = content_signal("x", "ai-train maybe");
        assert!(!bad.parsed && bad.training.is_none());
        assert_eq!(content_usage("header", "train-ai=n").training, Some(false));
        assert_eq!(
            content_usage("header", "train-ai=y, search=n").training,
            Some(true)
        );
        assert_eq!(
            content_usage("header", "train-genai=?0").training,
            Some(false)
        );
        assert_eq!(content_usage("header", "search=n").training, None);
        assert!(!content_usage("header", "train-ai").parsed);
        assert_eq!(tdm_reservation("meta", " 1 ").training, Some(false));
        assert_eq!(tdm_reservation("meta", "0").training, Some(true));
        assert!(!tdm_reservation("meta", "yes").parsed);
        let h = from_headers(&[
            ("content-usage".into(), "train-ai=n".into()),
            ("tdm-reservation".into(), "1".into()),
            ("x-other".into(), "1".into()),
        ]);
        assert_eq!(h.len(), 2);
    }

    #[test]
    fn tdmrep_rules_match_in_file_order() {
        let rules = parse_tdmrep(
            br#"[{"location": "/private/*", "tdm-reservation": 1, "tdm-policy": "https://h/p.json"},
                 {"location": "/blog/", "tdm-reservation": 0},
                 {"location": "*", "tdm-reservation": "1"}]"#,
        )
        .unwrap();
        let at = |p: &str| tdmrep_signal(&rules, p).map(|s| (s.source, s.training));
        assert_eq!(
            at("/private/a"),
            Some(("tdmrep.json rule 1".into(), Some(false)))
        );
        assert_eq!(
            at("/blog/post"),
            Some(("tdmrep.json rule 2".into(), Some(true)))
        );
        assert_eq!(
            at("/other"),
            Some(("tdmrep.json rule 3".into(), Some(false)))
        );
        assert!(parse_tdmrep(b"<html>").is_err());
        assert!(parse_tdmrep(b"{\"location\": 1}").is_err());
    }

    #[test]
    fn the_policy_decides_what_a_reservation_does() {
        let sig = vec![
            content_signal("robots.txt line 3", "ai-train=yes"),
            tdm_reservation("header", "1"),
        ];
        let honour = SignalPolicy::default();
        assert_eq!(honour.opt_out(&sig).unwrap().signal, "tdm-reservation");
        let record = SignalPolicy {
            tdmrep: Policy::Record,
            ..Default::default()
        };
        assert!(record.opt_out(&sig).is_none());
        // an unreadable value decides nothing
        assert!(honour
            .opt_out(&[content_usage("header", "train-ai=perhaps")])
            .is_none());
    }
}
