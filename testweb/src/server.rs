use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

/// A misbehaviour to apply to a response.
#[derive(Clone, Debug, PartialEq)]
pub enum Fault {
    /// Close the connection without answering.
    Reset,
    /// Announce the full Content-Length, send only this many body bytes, then close.
    Truncate(usize),
    /// Send the body in chunks of `chunk` bytes with `pause` between them.
    Drip {
        /// Bytes per chunk.
        chunk: usize,
        /// Pause between chunks.
        pause: Duration,
    },
    /// Accept and never answer (until the client gives up).
    Hang,
}

/// A canned response.
#[derive(Clone, Debug, PartialEq)]
pub struct Response {
    /// HTTP status.
    pub status: u16,
    /// Headers (Content-Length is added).
    pub headers: Vec<(String, String)>,
    /// Body bytes (`{{site:NAME}}` is replaced in text bodies).
    pub body: Vec<u8>,
    /// Delay before the response starts.
    pub delay: Duration,
    /// Optional misbehaviour.
    pub fault: Option<Fault>,
}

impl Response {
    /// A `200 text/html; charset=utf-8` page.
    pub fn html(body: impl Into<String>) -> Response {
        Response::with_type(200, "text/html; charset=utf-8", body.into().into_bytes())
    }

    /// A `200 text/plain` body.
    pub fn text(body: impl Into<String>) -> Response {
        Response::with_type(200, "text/plain; charset=utf-8", body.into().into_bytes())
    }

    /// Any status with a content type and body.
    pub fn with_type(status: u16, content_type: &str, body: Vec<u8>) -> Response {
        Response {
            status,
            headers: vec![("Content-Type".into(), content_type.into())],
            body,
            delay: Duration::ZERO,
            fault: None,
        }
    }

    /// A bare status with a short text body.
    pub fn status(status: u16) -> Response {
        Response::with_type(
            status,
            "text/plain",
            format!("status {status}\n").into_bytes(),
        )
    }

    /// A redirect to `location` (may use `{{site:NAME}}`).
    pub fn redirect(status: u16, location: &str) -> Response {
        let mut r = Response::status(status);
        r.headers.push(("Location".into(), location.into()));
        r
    }

    /// Adds a header.
    pub fn header(mut self, k: &str, v: &str) -> Response {
        self.headers.push((k.into(), v.into()));
        self
    }

    /// Sets a delay before answering.
    pub fn delayed(mut self, d: Duration) -> Response {
        self.delay = d;
        self
    }

    /// Sets a fault.
    pub fn fault(mut self, f: Fault) -> Response {
        self.fault = Some(f);
        self
    }
}

/// A host of the test web: a name and its routes (path with query -> response).
#[derive(Clone, Debug, Default)]
pub struct Site {
    /// Name used in `{{site:NAME}}` and [`TestWeb::base_url`].
    pub name: String,
    /// Routes by exact path (with query). Missing paths answer 404.
    pub routes: BTreeMap<String, Response>,
    /// Delay added to every response of this site.
    pub delay: Duration,
    /// Paths answered by a sequence of responses, one per request (the last repeats).
    pub sequences: BTreeMap<String, Vec<Response>>,
}

impl Site {
    /// An empty site.
    pub fn new(name: &str) -> Site {
        Site {
            name: name.into(),
            ..Default::default()
        }
    }

    /// Adds a route.
    pub fn route(mut self, path: &str, r: Response) -> Site {
        self.routes.insert(path.into(), r);
        self
    }

    /// Adds a route answering request `i` with `responses[i]` (the last one repeats), e.g.
    /// two 503s with Retry-After, then the page.
    pub fn route_seq(mut self, path: &str, responses: Vec<Response>) -> Site {
        self.sequences.insert(path.into(), responses);
        self
    }
}

struct Shared {
    sites: Vec<Site>,
    bases: BTreeMap<String, String>,
    log: Mutex<Vec<(String, String)>>,
    times: Mutex<Vec<(String, String, std::time::Instant)>>,
    counters: Mutex<BTreeMap<(usize, String), usize>>,
}

/// A running test web. Dropping it stops every listener.
pub struct TestWeb {
    shared: Arc<Shared>,
    addrs: Vec<(String, SocketAddr)>,
    stop: watch::Sender<bool>,
}

impl std::fmt::Debug for TestWeb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestWeb")
            .field("hosts", &self.addrs)
            .finish()
    }
}

impl TestWeb {
    /// Binds every site on its own loopback address (127.0.0.2 upwards; 127.0.0.1 with
    /// distinct ports where the system refuses other loopback addresses) and starts serving.
    pub async fn start(sites: Vec<Site>) -> std::io::Result<TestWeb> {
        Self::start_with_delay(sites, Duration::ZERO).await
    }

    /// Like [`TestWeb::start`], adding `delay` to every response (to make runs slow enough
    /// to interrupt in tests).
    pub async fn start_with_delay(sites: Vec<Site>, delay: Duration) -> std::io::Result<TestWeb> {
        Self::start_on(sites, 0, delay).await
    }

    /// Like [`TestWeb::start_with_delay`], binding site `i` to `127.0.0.(2+i):port`, so
    /// URLs are the same from one start to the next (0 picks ephemeral ports).
    pub async fn start_on(
        mut sites: Vec<Site>,
        port: u16,
        delay: Duration,
    ) -> std::io::Result<TestWeb> {
        let mut listeners = Vec::new();
        let mut addrs = Vec::new();
        for (i, site) in sites.iter_mut().enumerate() {
            site.delay += delay;
            let ip = Ipv4Addr::new(127, 0, 0, 2 + (i % 250) as u8);
            let l = match TcpListener::bind(SocketAddr::new(IpAddr::V4(ip), port)).await {
                Ok(l) => l,
                Err(e) if port != 0 => {
                    return Err(std::io::Error::new(
                        e.kind(),
                        format!(
                            "cannot bind test web site `{}` to {ip}:{port}: {e}",
                            site.name
                        ),
                    ))
                }
                Err(_) => TcpListener::bind("127.0.0.1:0").await?,
            };
            addrs.push((site.name.clone(), l.local_addr()?));
            listeners.push(l);
        }
        let bases = addrs
            .iter()
            .map(|(n, a)| (n.clone(), format!("http://{a}")))
            .collect();
        let shared = Arc::new(Shared {
            sites,
            bases,
            log: Mutex::new(Vec::new()),
            times: Mutex::new(Vec::new()),
            counters: Mutex::new(BTreeMap::new()),
        });
        let (stop, stop_rx) = watch::channel(false);
        for (i, l) in listeners.into_iter().enumerate() {
            let shared = shared.clone();
            let mut stop_rx = stop_rx.clone();
            tokio::spawn(async move {
                loop {
                    tokio::select! {
                        _ = stop_rx.changed() => break,
                        acc = l.accept() => {
                            let Ok((sock, _)) = acc else { continue };
                            let shared = shared.clone();
                            let stop_rx = stop_rx.clone();
                            tokio::spawn(async move { serve_conn(shared, i, sock, stop_rx).await });
                        }
                    }
                }
            });
        }
        Ok(TestWeb {
            shared,
            addrs,
            stop,
        })
    }

    /// `http://ip:port` of a site.
    pub fn base_url(&self, name: &str) -> Option<String> {
        self.shared.bases.get(name).cloned()
    }

    /// Every site's name and address.
    pub fn hosts(&self) -> &[(String, SocketAddr)] {
        &self.addrs
    }

    /// Every request served so far as `(host:port, path)`.
    pub fn requests(&self) -> Vec<(String, String)> {
        self.shared.log.lock().expect("log lock").clone()
    }

    /// Every request with the instant it arrived (for politeness timing tests).
    pub fn request_times(&self) -> Vec<(String, String, std::time::Instant)> {
        self.shared.times.lock().expect("log lock").clone()
    }

    /// Stops serving.
    pub fn stop(&self) {
        let _ = self.stop.send(true);
    }
}

impl Drop for TestWeb {
    fn drop(&mut self) {
        self.stop();
    }
}

async fn serve_conn(
    shared: Arc<Shared>,
    site: usize,
    mut sock: TcpStream,
    mut stop: watch::Receiver<bool>,
) {
    let host = sock.local_addr().map(|a| a.to_string()).unwrap_or_default();
    let mut buf = Vec::new();
    loop {
        // read one request head
        let head_end = loop {
            if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break i;
            }
            if buf.len() > 64 * 1024 {
                return;
            }
            let mut chunk = [0u8; 4096];
            let n = tokio::select! {
                _ = stop.changed() => return,
                r = tokio::time::timeout(Duration::from_secs(30), sock.read(&mut chunk)) => match r {
                    Ok(Ok(n)) => n,
                    _ => return,
                },
            };
            if n == 0 {
                return;
            }
            buf.extend_from_slice(&chunk[..n]);
        };
        let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
        buf.drain(..head_end + 4);
        let mut lines = head.split("\r\n");
        let request_line = lines.next().unwrap_or("");
        let mut parts = request_line.split_whitespace();
        let method = parts.next().unwrap_or("GET").to_string();
        let target = parts.next().unwrap_or("/").to_string();
        let header_lines: Vec<String> = lines.map(|l| l.to_string()).collect();
        let close = header_lines.iter().any(|l| {
            l.to_ascii_lowercase().starts_with("connection:")
                && l.to_ascii_lowercase().contains("close")
        });
        let if_none_match = header_lines.iter().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim()
                .eq_ignore_ascii_case("if-none-match")
                .then(|| v.trim().to_string())
        });
        shared
            .log
            .lock()
            .expect("log lock")
            .push((host.clone(), target.clone()));
        shared.times.lock().expect("log lock").push((
            host.clone(),
            target.clone(),
            std::time::Instant::now(),
        ));
        let s = &shared.sites[site];
        let path_only = target.split('?').next().unwrap_or("/");
        let resp = if let Some(seq) = s
            .sequences
            .get(&target)
            .or_else(|| s.sequences.get(path_only))
        {
            let mut c = shared.counters.lock().expect("counter lock");
            let n = c.entry((site, target.clone())).or_insert(0);
            let r = seq[(*n).min(seq.len() - 1)].clone();
            *n += 1;
            r
        } else {
            s.routes
                .get(&target)
                .or_else(|| s.routes.get(path_only))
                .cloned()
                .unwrap_or_else(|| {
                    Response::with_type(
                        404,
                        "text/html",
                        b"<html><body><h1>Not found</h1></body></html>".to_vec(),
                    )
                })
        };
        let delay = s.delay + resp.delay;
        if !delay.is_zero() {
            tokio::time::sleep(delay).await;
        }
        let mut body = resp.body.clone();
        let is_text = resp.headers.iter().any(|(k, v)| {
            k.eq_ignore_ascii_case("content-type")
                && (v.starts_with("text/") || v.contains("json") || v.contains("xml"))
        });
        if is_text && body.windows(7).any(|w| w == b"{{site:") {
            body = substitute(&String::from_utf8_lossy(&body), &shared.bases).into_bytes();
        }
        // static 200 pages carry an ETag and answer a matching If-None-Match with 304
        let mut status = resp.status;
        let mut extra = String::new();
        if resp.status == 200 && resp.fault.is_none() && !s.sequences.contains_key(&target) {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            body.hash(&mut h);
            let etag = format!("\"{:016x}\"", h.finish());
            if if_none_match.as_deref() == Some(etag.as_str()) {
                status = 304;
                body.clear();
            }
            extra = format!("ETag: {etag}\r\n");
        }
        let mut out = format!("HTTP/1.1 {status} X\r\n{extra}");
        for (k, v) in &resp.headers {
            out.push_str(&format!("{k}: {}\r\n", substitute(v, &shared.bases)));
        }
        out.push_str(&format!("Content-Length: {}\r\n", body.len()));
        if close {
            out.push_str("Connection: close\r\n");
        }
        out.push_str("\r\n");
        match resp.fault {
            Some(Fault::Reset) => return,
            Some(Fault::Hang) => {
                let _ = stop.changed().await;
                return;
            }
            Some(Fault::Truncate(n)) => {
                let _ = sock.write_all(out.as_bytes()).await;
                let _ = sock.write_all(&body[..n.min(body.len())]).await;
                let _ = sock.shutdown().await;
                return;
            }
            Some(Fault::Drip { chunk, pause }) => {
                if sock.write_all(out.as_bytes()).await.is_err() {
                    return;
                }
                if method != "HEAD" {
                    for c in body.chunks(chunk.max(1)) {
                        if sock.write_all(c).await.is_err() {
                            return;
                        }
                        tokio::time::sleep(pause).await;
                    }
                }
            }
            None => {
                let mut all = out.into_bytes();
                if method != "HEAD" {
                    all.extend_from_slice(&body);
                }
                if sock.write_all(&all).await.is_err() {
                    return;
                }
            }
        }
        if close {
            return;
        }
    }
}

fn substitute(s: &str, bases: &BTreeMap<String, String>) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("{{site:") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 7..];
        match after.find("}}") {
            Some(j) => {
                let name = &after[..j];
                out.push_str(
                    bases
                        .get(name)
                        .map(String::as_str)
                        .unwrap_or("http://127.0.0.1:9"),
                );
                rest = &after[j + 2..];
            }
            None => {
                out.push_str(&rest[i..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}
