//! LLM-assisted extraction for chosen domains: the page's blocks, numbered, go to an
//! OpenAI-compatible chat-completions endpoint, which answers with the numbers of the blocks
//! that make up the main content. Any error, timeout or unusable answer leaves the
//! rule-based result in place, and the fallback is counted (`attrs.llm_fallback`).
//!
//! Requests run on one background thread with its own Tokio runtime, at most
//! `max_concurrency` at a time, so the extractor can stay synchronous and be called from
//! any thread.

use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// The `[extract.llm]` section.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LlmConfig {
    /// The chat-completions URL (e.g. `http://127.0.0.1:8000/v1/chat/completions`); empty:
    /// off.
    pub url: String,
    /// The model name sent in the request.
    pub model: String,
    /// Hosts (and their subdomains) whose pages go to the model.
    pub domains: Vec<String>,
    /// Per-request timeout, milliseconds.
    pub timeout_ms: u64,
    /// Requests in flight at most.
    pub max_concurrency: usize,
    /// The environment variable holding the API key (sent as a bearer token when set).
    pub api_key_env: String,
    /// The prompt carries the page's blocks up to this many characters (each block cut to
    /// 400); later blocks cannot be chosen.
    pub max_prompt_chars: usize,
}

impl Default for LlmConfig {
    fn default() -> Self {
        LlmConfig {
            url: String::new(),
            model: "gpt-4o-mini".into(),
            domains: Vec::new(),
            timeout_ms: 30_000,
            max_concurrency: 4,
            api_key_env: "OPENAI_API_KEY".into(),
            max_prompt_chars: 24_000,
        }
    }
}

impl LlmConfig {
    /// Checks values; returns the offending key and reason.
    pub fn validate(&self) -> Result<(), (String, String)> {
        if self.url.is_empty() {
            return Ok(());
        }
        if !(self.url.starts_with("http://") || self.url.starts_with("https://"))
            || url::Url::parse(&self.url).is_err()
        {
            return Err((
                "extract.llm.url".into(),
                format!("{:?} is not an http(s) URL", self.url),
            ));
        }
        if self.domains.is_empty() {
            return Err((
                "extract.llm.domains".into(),
                "list the domains whose pages go to the model (an empty list would send none)"
                    .into(),
            ));
        }
        if self.max_concurrency == 0 || self.timeout_ms == 0 {
            return Err((
                "extract.llm.max_concurrency".into(),
                "max_concurrency and timeout_ms must be positive".into(),
            ));
        }
        Ok(())
    }

    /// Whether pages of this host go to the model.
    pub fn applies_to(&self, host: &str) -> bool {
        let host = host.to_ascii_lowercase();
        !self.url.is_empty()
            && self
                .domains
                .iter()
                .any(|d| trawl_core::host_matches(&host, d))
    }
}

const SYSTEM: &str = "You isolate the main content of a web page. You get the page's text blocks, each \
starting with its number in brackets. Answer with JSON only: {\"blocks\": [numbers]} listing, in order, \
the blocks that belong to the main content (the article or document itself: its headings, paragraphs, \
lists, tables, code, quotes). Leave out navigation, menus, headers and footers, bylines and dates, \
share buttons, ads, cookie notices, newsletter prompts, related or recommended links, and comments.";

type Reply = Result<Vec<usize>, String>;
type Job = (Value, mpsc::Sender<Reply>);

/// The client: a background thread sending requests.
#[derive(Debug, Clone)]
pub(crate) struct Llm {
    cfg: LlmConfig,
    tx: tokio::sync::mpsc::UnboundedSender<Job>,
}

impl Llm {
    pub(crate) fn new(cfg: LlmConfig) -> Result<Llm, String> {
        let (tx, mut arx) = tokio::sync::mpsc::unbounded_channel::<Job>();
        let key = std::env::var(&cfg.api_key_env)
            .ok()
            .filter(|k| !k.is_empty());
        let client = reqwest::Client::builder()
            .timeout(Duration::from_millis(cfg.timeout_ms))
            .build()
            .map_err(|e| format!("extract.llm: {e}"))?;
        let (url, limit) = (cfg.url.clone(), cfg.max_concurrency);
        std::thread::Builder::new()
            .name("trawl-llm".into())
            .spawn(move || {
                let rt = match tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                {
                    Ok(rt) => rt,
                    Err(e) => {
                        tracing::error!(error = %e, "LLM extraction disabled: no runtime");
                        return;
                    }
                };
                let sem = Arc::new(tokio::sync::Semaphore::new(limit));
                rt.block_on(async move {
                    while let Some((body, reply)) = arx.recv().await {
                        let permit = sem.clone().acquire_owned().await.expect("semaphore open");
                        let (client, url, key) = (client.clone(), url.clone(), key.clone());
                        tokio::spawn(async move {
                            let r = ask(&client, &url, key.as_deref(), &body).await;
                            let _ = reply.send(r);
                            drop(permit);
                        });
                    }
                });
            })
            .map_err(|e| format!("extract.llm: cannot start its thread: {e}"))?;
        Ok(Llm { cfg, tx })
    }

    pub(crate) fn config(&self) -> &LlmConfig {
        &self.cfg
    }

    /// The model's choice of blocks (indices into `blocks`), or why there is none.
    pub(crate) fn choose(&self, url: &str, title: Option<&str>, blocks: &[&str]) -> Reply {
        let mut listing = String::new();
        for (i, b) in blocks.iter().enumerate() {
            let b: String = b.split_whitespace().collect::<Vec<_>>().join(" ");
            let cut: String = b.chars().take(400).collect();
            let line = format!("[{i}] {cut}\n");
            if listing.len() + line.len() > self.cfg.max_prompt_chars {
                break;
            }
            listing.push_str(&line);
        }
        let user = format!("URL: {url}\nTitle: {}\n\n{listing}", title.unwrap_or(""));
        let body = json!({
            "model": self.cfg.model,
            "temperature": 0,
            "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}],
        });
        let (rtx, rrx) = mpsc::channel();
        self.tx
            .send((body, rtx))
            .map_err(|_| "client stopped".to_string())?;
        let ids = rrx
            .recv_timeout(Duration::from_millis(self.cfg.timeout_ms + 2_000))
            .map_err(|_| "timeout".to_string())??;
        let ids: Vec<usize> = ids.into_iter().filter(|&i| i < blocks.len()).collect();
        if ids.is_empty() {
            return Err("no blocks chosen".into());
        }
        Ok(ids)
    }
}

async fn ask(client: &reqwest::Client, url: &str, key: Option<&str>, body: &Value) -> Reply {
    let mut req = client
        .post(url)
        .header("content-type", "application/json")
        .body(serde_json::to_vec(body).expect("json"));
    if let Some(k) = key {
        req = req.bearer_auth(k);
    }
    let resp = req.send().await.map_err(|e| {
        if e.is_timeout() {
            "timeout".to_string()
        } else {
            format!("request: {e}")
        }
    })?;
    let status = resp.status();
    if !status.is_success() {
        return Err(format!("http {}", status.as_u16()));
    }
    let bytes = resp.bytes().await.map_err(|e| {
        if e.is_timeout() {
            "timeout".to_string()
        } else {
            format!("reading the answer: {e}")
        }
    })?;
    let v: Value = serde_json::from_slice(&bytes).map_err(|e| format!("not JSON: {e}"))?;
    let content = v["choices"][0]["message"]["content"]
        .as_str()
        .ok_or("no choices[0].message.content")?;
    parse_answer(content)
}

/// Block numbers from the model's answer: `{"blocks": [..]}` (possibly in a code fence or
/// with prose around it) or a bare list.
pub(crate) fn parse_answer(content: &str) -> Reply {
    let from_value = |v: &Value| -> Option<Vec<usize>> {
        let list = v.get("blocks").unwrap_or(v).as_array()?;
        Some(
            list.iter()
                .filter_map(|x| {
                    x.as_u64()
                        .map(|n| n as usize)
                        .or_else(|| x.as_str().and_then(|s| s.trim().parse().ok()))
                })
                .collect(),
        )
    };
    for (open, close) in [('{', '}'), ('[', ']')] {
        if let (Some(a), Some(b)) = (content.find(open), content.rfind(close)) {
            if a < b {
                if let Some(ids) = serde_json::from_str::<Value>(&content[a..=b])
                    .ok()
                    .as_ref()
                    .and_then(from_value)
                {
                    return Ok(ids);
                }
            }
        }
    }
    Err(format!(
        "unusable answer: {:?}",
        content.chars().take(80).collect::<String>()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_parsed_leniently() {
        assert_eq!(parse_answer("{\"blocks\": [1, 2, 5]}"), Ok(vec![1, 2, 5]));
        assert_eq!(
            parse_answer("```json\n{\"blocks\":[\"3\",4]}\n```"),
            Ok(vec![3, 4])
        );
        assert_eq!(parse_answer("Here you go: [0, 7]"), Ok(vec![0, 7]));
        assert!(parse_answer("I cannot help with that.").is_err());
    }

    #[test]
    fn config_is_checked() {
        assert!(LlmConfig::default().validate().is_ok(), "off by default");
        let c = LlmConfig {
            url: "ftp://x".into(),
            domains: vec!["a.org".into()],
            ..Default::default()
        };
        assert_eq!(c.validate().unwrap_err().0, "extract.llm.url");
        let c = LlmConfig {
            url: "http://127.0.0.1:9/v1/chat/completions".into(),
            ..Default::default()
        };
        assert_eq!(c.validate().unwrap_err().0, "extract.llm.domains");
        let c = LlmConfig {
            url: "http://127.0.0.1:9/v1/chat/completions".into(),
            domains: vec!["docs.example.org".into()],
            ..Default::default()
        };
        assert!(
            c.applies_to("docs.example.org")
                && c.applies_to("a.docs.example.org")
                && !c.applies_to("example.org")
        );
    }
}
