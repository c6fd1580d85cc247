use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use trawl_core::DropReason;

use crate::reasons;

/// A completed HTTP exchange.
#[derive(Debug)]
pub(crate) struct Fetched {
    pub status: u16,
    pub final_url: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

/// A failed fetch: a fixed reason plus detail.
#[derive(Debug)]
pub(crate) struct FetchFail {
    pub reason: DropReason,
    pub detail: String,
}

/// Headers describing transfer framing of the original response; the stored body is
/// decompressed, so they no longer apply.
const FRAMING: &[&str] = &[
    "content-length",
    "transfer-encoding",
    "content-encoding",
    "connection",
    "keep-alive",
];

#[derive(Debug, Clone)]
pub(crate) struct Fetcher {
    client: reqwest::Client,
    max_body: usize,
}

impl Fetcher {
    /// A client whose every connection goes through the guard. `max_redirects` = 0: no
    /// redirect is followed (the crawler follows page redirects itself, re-checking robots
    /// and the guard per hop); otherwise up to that many, each hop checked by the guard.
    pub fn new(
        user_agent: &str,
        timeout: Duration,
        max_body: usize,
        max_redirects: usize,
        guard: Arc<crate::guard::Guard>,
    ) -> Result<Fetcher, String> {
        let policy = if max_redirects == 0 {
            reqwest::redirect::Policy::none()
        } else {
            let g = guard.clone();
            reqwest::redirect::Policy::custom(move |attempt| {
                if attempt.previous().len() > max_redirects {
                    return attempt.error("too many redirects");
                }
                match g.check_url(attempt.url()) {
                    Ok(()) => attempt.follow(),
                    Err(e) => attempt.error(e),
                }
            })
        };
        let mut b = reqwest::Client::builder()
            .user_agent(user_agent)
            .timeout(timeout)
            .connect_timeout(timeout.min(Duration::from_secs(10)))
            .read_timeout(timeout.min(Duration::from_secs(20)))
            .redirect(policy)
            .pool_max_idle_per_host(1)
            .dns_resolver(Arc::new(crate::guard::GuardResolver(
                guard.clone(),
                Default::default(),
            )));
        for (host, addr) in &guard.resolve {
            b = b.resolve(host, *addr);
        }
        let client = b.build().map_err(|e| e.to_string())?;
        Ok(Fetcher { client, max_body })
    }

    /// GET with a body cap. `cut_at` truncates instead of failing (robots.txt's 500 KiB rule).
    pub async fn get(&self, url: &str, cut_at: Option<usize>) -> Result<Fetched, FetchFail> {
        self.get_with(url, cut_at, &[]).await
    }

    /// GET with extra request headers (conditional requests).
    pub async fn get_with(
        &self,
        url: &str,
        cut_at: Option<usize>,
        headers: &[(String, String)],
    ) -> Result<Fetched, FetchFail> {
        let mut req = self.client.get(url);
        for (k, v) in headers {
            req = req.header(k.as_str(), v.as_str());
        }
        let resp = req.send().await.map_err(classify)?;
        let status = resp.status().as_u16();
        let final_url = resp.url().to_string();
        let headers: Vec<(String, String)> = resp
            .headers()
            .iter()
            .filter(|(k, _)| !FRAMING.contains(&k.as_str()))
            .map(|(k, v)| {
                (
                    k.as_str().to_ascii_lowercase(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect();
        let limit = cut_at.unwrap_or(self.max_body);
        if cut_at.is_none() {
            if let Some(len) = resp.content_length() {
                // Content-Length is of the encoded body; decoded size is checked while reading.
                if len as usize > limit && !resp.headers().contains_key("content-encoding") {
                    return Err(FetchFail {
                        reason: reasons::TOO_LARGE,
                        detail: format!("Content-Length {len} > {limit}"),
                    });
                }
            }
        }
        // sized once from Content-Length (capped), instead of growing by copies
        let mut body = Vec::with_capacity(
            resp.content_length()
                .map_or(0, |n| (n as usize).min(limit).min(64 << 20)),
        );
        let mut stream = resp.bytes_stream();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(classify)?;
            if body.len() + chunk.len() > limit {
                if cut_at.is_some() {
                    body.extend_from_slice(&chunk[..limit - body.len()]);
                    break;
                }
                return Err(FetchFail {
                    reason: reasons::TOO_LARGE,
                    detail: format!("body exceeds {limit} bytes after decoding"),
                });
            }
            body.extend_from_slice(&chunk);
        }
        Ok(Fetched {
            status,
            final_url,
            headers,
            body,
        })
    }
}

fn classify(e: reqwest::Error) -> FetchFail {
    let mut detail = e.to_string();
    let mut src = std::error::Error::source(&e);
    while let Some(s) = src {
        detail.push_str(": ");
        detail.push_str(&s.to_string());
        src = s.source();
    }
    let reason = if detail.contains("ssrf guard") || detail.contains("non-public address") {
        reasons::PRIVATE_ADDRESS
    } else if e.is_timeout() {
        reasons::TIMEOUT
    } else if e.is_redirect() {
        reasons::REDIRECTS
    } else {
        reasons::FETCH_ERROR
    };
    FetchFail { reason, detail }
}

/// Per-host request pacing shared by every task of a crawl (or an image fetch): the next
/// request to a host waits for the slot the previous one left, and a 429/503 answer is
/// retried after its Retry-After (seconds or an HTTP date), else after an exponential
/// backoff, up to `max_retries` times and never longer than `max_backoff` per wait.
#[derive(Debug, Clone, Default)]
pub(crate) struct Politeness {
    slots: Arc<tokio::sync::Mutex<std::collections::HashMap<String, std::time::Instant>>>,
    /// Hosts that answered 429/503, until when (set by [`Politeness::fetch_or_defer`]).
    backoff: Arc<tokio::sync::Mutex<std::collections::HashMap<String, std::time::Instant>>>,
    max_retries: u32,
    max_backoff: Duration,
}

impl Politeness {
    pub fn new(max_retries: u32, max_backoff: Duration) -> Politeness {
        Politeness {
            slots: Default::default(),
            backoff: Default::default(),
            max_retries,
            max_backoff,
        }
    }

    /// Runs `request` for `host` with `gap` between requests to it, retrying overload
    /// answers after their backoff; a server still overloaded after the retries is
    /// `server_overloaded`.
    pub async fn fetch<F, Fut>(
        &self,
        host: &str,
        gap: Duration,
        mut request: F,
    ) -> Result<Fetched, FetchFail>
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = Result<Fetched, FetchFail>>,
    {
        // each attempt waits for the host's slot, which a backoff pushes out
        let mut attempt = 0u32;
        loop {
            match self.fetch_or_defer(host, gap, attempt, &mut request).await {
                Attempt::Done(r) => return r,
                Attempt::Backoff => attempt += 1,
            }
        }
    }
}

/// The result of [`Politeness::fetch_or_defer`].
#[derive(Debug)]
pub(crate) enum Attempt {
    /// The answer (an overloaded server past its retries is `server_overloaded`).
    Done(Result<Fetched, FetchFail>),
    /// The host answered 429/503 and is in backoff: ask again later.
    Backoff,
}

impl Politeness {
    /// Like [`Politeness::fetch`], but one request: a 429/503 within the retry limits puts the
    /// host in backoff (Retry-After, or exponential from the gap) and returns
    /// [`Attempt::Backoff`] instead of waiting, so the caller can go on with other hosts.
    /// `tries` is the number of 429/503 answers the URL has had before.
    pub async fn fetch_or_defer<F, Fut>(
        &self,
        host: &str,
        gap: Duration,
        tries: u32,
        request: F,
    ) -> Attempt
    where
        F: FnOnce() -> Fut,
        Fut: std::future::Future<Output = Result<Fetched, FetchFail>>,
    {
        let wait = self
            .slots
            .lock()
            .await
            .get(host)
            .map(|t| t.saturating_duration_since(std::time::Instant::now()));
        if let Some(w) = wait {
            tokio::time::sleep(w).await;
        }
        let r = request().await;
        let mut next_gap = gap;
        let overloaded = matches!(&r, Ok(f) if f.status == 429 || f.status == 503);
        if overloaded {
            let f = r.as_ref().expect("checked");
            let asked = f
                .headers
                .iter()
                .find(|(k, _)| k == "retry-after")
                .and_then(|(_, v)| retry_after(v));
            let backoff = asked
                .unwrap_or_else(|| gap.max(Duration::from_millis(500)) * 2u32.pow(tries.min(6)));
            if tries < self.max_retries && backoff <= self.max_backoff {
                let until = std::time::Instant::now() + backoff.max(gap);
                self.slots.lock().await.insert(host.to_string(), until);
                self.backoff.lock().await.insert(host.to_string(), until);
                return Attempt::Backoff;
            }
            next_gap = gap.max(backoff.min(self.max_backoff));
        }
        self.slots
            .lock()
            .await
            .insert(host.to_string(), std::time::Instant::now() + next_gap);
        Attempt::Done(if overloaded {
            let status = r.as_ref().map(|f| f.status).unwrap_or(0);
            Err(FetchFail {
                reason: reasons::OVERLOADED,
                detail: format!("status {status} after {tries} retries"),
            })
        } else {
            r
        })
    }

    /// Whether a host is still in a backoff [`Politeness::fetch_or_defer`] started.
    pub async fn in_backoff(&self, host: &str) -> bool {
        self.backoff
            .lock()
            .await
            .get(host)
            .is_some_and(|t| *t > std::time::Instant::now())
    }

    /// How long until the first of these hosts leaves its backoff (None: none is in one).
    pub async fn earliest_backoff<'a>(
        &self,
        hosts: impl Iterator<Item = &'a String>,
    ) -> Option<Duration> {
        let now = std::time::Instant::now();
        let b = self.backoff.lock().await;
        hosts
            .filter_map(|h| b.get(h))
            .filter(|t| **t > now)
            .map(|t| t.duration_since(now))
            .min()
    }
}

/// A Retry-After value: delay-seconds or an HTTP date.
pub(crate) fn retry_after(v: &str) -> Option<Duration> {
    let v = v.trim();
    if let Ok(secs) = v.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let t = httpdate::parse_http_date(v).ok()?;
    Some(
        t.duration_since(std::time::SystemTime::now())
            .unwrap_or(Duration::ZERO),
    )
}
