//! LLM-assisted extraction against a local server speaking the chat-completions protocol.
//! The server stands in for a model with a fixed rule (it chooses the blocks that mention
//! "harbour"), so the test checks the whole exchange: the numbered blocks sent, the answer
//! parsed, the text rebuilt from the chosen blocks, and every failure falling back to the
//! rule-based result with its reason.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use trawl_extract::{ExtractConfig, Extractor, LlmConfig};

#[derive(Clone, Copy)]
enum Mode {
    Model,
    Slow,
    Garbage,
    Error,
}

struct Server {
    url: String,
    requests: Arc<AtomicUsize>,
    max_in_flight: Arc<AtomicUsize>,
}

fn answer(body: &serde_json::Value) -> String {
    let user = body["messages"][1]["content"].as_str().unwrap_or("");
    let ids: Vec<usize> = user
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix('[')?;
            let (n, text) = rest.split_once("] ")?;
            text.to_lowercase()
                .contains("harbour")
                .then(|| n.parse().ok())
                .flatten()
        })
        .collect();
    serde_json::json!({"choices": [{"message": {"role": "assistant", "content": format!("```json\n{{\"blocks\": {ids:?}}}\n```")}}]}).to_string()
}

async fn serve(mode: Mode) -> Server {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!(
        "http://{}/v1/chat/completions",
        listener.local_addr().unwrap()
    );
    let requests = Arc::new(AtomicUsize::new(0));
    let in_flight = Arc::new(AtomicUsize::new(0));
    let max_in_flight = Arc::new(AtomicUsize::new(0));
    let (r, f, m) = (requests.clone(), in_flight.clone(), max_in_flight.clone());
    tokio::spawn(async move {
        loop {
            let Ok((mut sock, _)) = listener.accept().await else {
                return;
            };
            let (r, f, m) = (r.clone(), f.clone(), m.clone());
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 8192];
                // headers, then Content-Length bytes of body
                let (head_end, len) = loop {
                    let n = sock.read(&mut chunk).await.unwrap_or(0);
                    if n == 0 {
                        return;
                    }
                    buf.extend_from_slice(&chunk[..n]);
                    if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                        let head = String::from_utf8_lossy(&buf[..i]).to_lowercase();
                        let len = head
                            .lines()
                            .find_map(|l| {
                                l.strip_prefix("content-length:")
                                    .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                            })
                            .unwrap_or(0);
                        break (i + 4, len);
                    }
                };
                while buf.len() < head_end + len {
                    let n = sock.read(&mut chunk).await.unwrap_or(0);
                    if n == 0 {
                        return;
                    }
                    buf.extend_from_slice(&chunk[..n]);
                }
                r.fetch_add(1, Ordering::SeqCst);
                let now = f.fetch_add(1, Ordering::SeqCst) + 1;
                m.fetch_max(now, Ordering::SeqCst);
                let body: serde_json::Value =
                    serde_json::from_slice(&buf[head_end..head_end + len]).unwrap_or_default();
                tokio::time::sleep(Duration::from_millis(100)).await;
                let (status, payload) = match mode {
                    Mode::Model => (200, answer(&body)),
                    Mode::Slow => {
                        tokio::time::sleep(Duration::from_secs(5)).await;
                        (200, answer(&body))
                    }
                    Mode::Garbage => (200, serde_json::json!({"choices": [{"message": {"content": "I cannot help with that."}}]}).to_string()),
                    Mode::Error => (500, "{\"error\": \"overloaded\"}".to_string()),
                };
                f.fetch_sub(1, Ordering::SeqCst);
                let resp = format!("HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{payload}", payload.len());
                let _ = sock.write_all(resp.as_bytes()).await;
            });
        }
    });
    Server {
        url,
        requests,
        max_in_flight,
    }
}

const PAGE: &str = r#"<html><head><title>Harbour news</title></head><body>
<nav><a href="/">Home</a> <a href="/harbour">Harbour</a></nav>
<article>
<h1>The harbour reopens</h1>
<p>The harbour town woke slowly on Monday as the first ferries crossed the grey water, and the market stalls opened one by one along the quay.</p>
<p>Officials said the new breakwater, finished last spring, has already reduced the damage caused by the winter storms on the coast.</p>
<p>Fishermen unloaded crates of mackerel in the harbour before dawn, as they have done for generations.</p>
</article>
<footer>Copyright the harbour daily</footer>
</body></html>"#;

fn extractor(url: &str, timeout_ms: u64, max_concurrency: usize) -> Extractor {
    let llm = LlmConfig {
        url: url.into(),
        domains: vec!["news.example".into()],
        timeout_ms,
        max_concurrency,
        api_key_env: "TRAWL_TEST_NO_KEY".into(),
        ..Default::default()
    };
    Extractor::new(ExtractConfig {
        min_text_chars: 10,
        llm,
        ..Default::default()
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_chooses_the_blocks_and_every_failure_falls_back() {
    let rules = Extractor::new(ExtractConfig {
        min_text_chars: 10,
        ..Default::default()
    })
    .extract_html("https://news.example/a", PAGE.as_bytes(), None)
    .unwrap();
    assert!(rules.text.contains("breakwater"));

    let s = serve(Mode::Model).await;
    let ex = extractor(&s.url, 5_000, 2);
    let doc = tokio::task::spawn_blocking(move || {
        ex.extract_html("https://news.example/a", PAGE.as_bytes(), None)
            .unwrap()
    })
    .await
    .unwrap();
    assert_eq!(
        doc.attrs.get("extractor").and_then(|v| v.as_str()),
        Some("llm")
    );
    assert_eq!(
        doc.text,
        "# The harbour reopens\n\nThe harbour town woke slowly on Monday as the first ferries crossed the grey water, and the market stalls opened one by one along the quay.\n\nFishermen unloaded crates of mackerel in the harbour before dawn, as they have done for generations.",
        "exactly the blocks the model chose, in page order"
    );
    assert_eq!(s.requests.load(Ordering::SeqCst), 1);
    // other domains never go to the model
    let ex = extractor(&s.url, 5_000, 2);
    let other = tokio::task::spawn_blocking(move || {
        ex.extract_html("https://elsewhere.example/a", PAGE.as_bytes(), None)
            .unwrap()
    })
    .await
    .unwrap();
    assert_eq!(other.text, rules.text);
    assert!(!other.attrs.contains_key("extractor"));
    assert_eq!(s.requests.load(Ordering::SeqCst), 1);

    // at most max_concurrency requests in flight
    let ex = extractor(&s.url, 5_000, 2);
    let handles: Vec<_> = (0..6)
        .map(|_| {
            let ex = ex.clone();
            std::thread::spawn(move || {
                ex.extract_html("https://www.news.example/b", PAGE.as_bytes(), None)
                    .unwrap()
            })
        })
        .collect();
    for h in handles {
        assert_eq!(
            h.join()
                .unwrap()
                .attrs
                .get("extractor")
                .and_then(|v| v.as_str()),
            Some("llm")
        );
    }
    assert_eq!(s.requests.load(Ordering::SeqCst), 7);
    assert!(
        s.max_in_flight.load(Ordering::SeqCst) <= 2,
        "in flight: {}",
        s.max_in_flight.load(Ordering::SeqCst)
    );

    // failures: the rule-based text stands and the reason is recorded
    for (mode, timeout, reason) in [
        (Mode::Slow, 500, "timeout"),
        (Mode::Garbage, 5_000, "unusable answer"),
        (Mode::Error, 5_000, "http 500"),
    ] {
        let s = serve(mode).await;
        let ex = extractor(&s.url, timeout, 2);
        let t0 = std::time::Instant::now();
        let doc = tokio::task::spawn_blocking(move || {
            ex.extract_html("https://news.example/a", PAGE.as_bytes(), None)
                .unwrap()
        })
        .await
        .unwrap();
        assert_eq!(doc.text, rules.text, "{reason}: the rule-based result");
        assert_eq!(
            doc.attrs.get("extractor").and_then(|v| v.as_str()),
            Some("rules")
        );
        let why = doc
            .attrs
            .get("llm_fallback")
            .and_then(|v| v.as_str())
            .unwrap_or("")
            .to_string();
        assert!(why.starts_with(reason), "{why}");
        assert!(
            t0.elapsed() < Duration::from_secs(4),
            "bounded by the timeout"
        );
    }
    // a dead endpoint
    let ex = extractor("http://127.0.0.1:9/v1/chat/completions", 1_000, 1);
    let doc = tokio::task::spawn_blocking(move || {
        ex.extract_html("https://news.example/a", PAGE.as_bytes(), None)
            .unwrap()
    })
    .await
    .unwrap();
    assert_eq!(doc.text, rules.text);
    assert!(doc
        .attrs
        .get("llm_fallback")
        .and_then(|v| v.as_str())
        .is_some_and(|w| w.starts_with("request")));
}
