//! The browser pools: Chromium and lightpanda processes driven over CDP by
//! [`crate::cdp`], the same way. Pages go through one visit: the fetched response fulfils
//! the main document, every sub-request goes through the [`Policy`] (robots.txt, the SSRF
//! guard, blocked types and hosts, the request budget), the init script counts requests in
//! flight and the in-page driver waits, settles, dismisses banners, scrolls, clicks and
//! returns the DOM as JSON.
//!
//! A pool runs `browsers` processes with up to `tabs_per_browser` pages each (one CDP
//! connection and one page target per lane, reused); a process is restarted after
//! `restart_after_pages` pages, above `max_browser_memory_mb` (its process tree), or when it
//! dies. Chromium gets a fresh `--user-data-dir` per process and the `[crawl] resolve`
//! overrides as host-resolver rules; lightpanda runs with its telemetry off
//! (`LIGHTPANDA_DISABLE_TELEMETRY`). The browsers' own log lines go to `tracing` (targets
//! `chromium` and `lightpanda`, at debug level), so they follow `--quiet` and `-v`.

use std::io::BufRead;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{json, Value};

use super::{paused, EngineKind, PageCtx, Paused, Policy, RenderConfig, Visit};
use crate::cdp::{Cdp, Reply};

/// One browser process.
struct Proc {
    child: Child,
    addr: SocketAddr,
    /// The WebSocket path of the browser endpoint.
    path: String,
    /// Chromium's profile folder (removed with the process).
    profile: Option<tempfile::TempDir>,
}

impl Drop for Proc {
    fn drop(&mut self) {
        // the whole tree: Debian's /usr/bin/chromium* are shell scripts that run the browser
        // as their child, which killing the script alone would leave running; when the
        // script is already gone, the browser's processes are found by their profile folder
        let mut pids = super::process_tree(self.child.id());
        pids.remove(0);
        if let Some(dir) = &self.profile {
            let arg = format!("--user-data-dir={}", dir.path().display());
            pids.extend(processes_with_arg(&arg));
        }
        pids.sort_unstable();
        pids.dedup();
        if !pids.is_empty() {
            let _ = Command::new("kill")
                .arg("-KILL")
                .args(pids.iter().map(|p| p.to_string()))
                .stderr(Stdio::null())
                .status();
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Processes (Linux `/proc`) with `arg` among their command-line arguments.
fn processes_with_arg(arg: &str) -> Vec<u32> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir("/proc") else {
        return out;
    };
    for e in rd.flatten() {
        let Some(p) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        if let Ok(cmd) = std::fs::read(format!("/proc/{p}/cmdline")) {
            if cmd.split(|b| *b == 0).any(|a| a == arg.as_bytes()) {
                out.push(p);
            }
        }
    }
    out
}

/// One CDP connection with its page, and the page it is rendering.
struct Lane {
    cdp: Cdp,
    target: String,
    session: String,
    ctx: Arc<Mutex<PageCtx>>,
}

#[derive(Default)]
struct Slot {
    generation: u64,
    proc: Option<Proc>,
    idle: Vec<Lane>,
    busy: usize,
    served: usize,
    over_memory: bool,
}

/// Counters of one engine's pool (launches, restarts and their causes).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EngineStats {
    /// Browser processes launched.
    pub launches: u64,
    /// Restarts after `restart_after_pages`.
    pub restarts_pages: u64,
    /// Restarts over the memory bound.
    pub restarts_memory: u64,
    /// Browsers found dead after a failed render.
    pub crashes: u64,
}

/// The pool of one engine.
pub(super) struct Pool {
    kind: EngineKind,
    bin: PathBuf,
    /// Extra command-line arguments (Chromium's flags).
    args: Vec<String>,
    slots: Mutex<(Vec<Slot>, EngineStats)>,
    freed: Condvar,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Pool({}, {})", self.kind.name(), self.bin.display())
    }
}

/// How long a browser may take to start and answer.
const START: Duration = Duration::from_secs(20);

impl Pool {
    pub(super) fn new(kind: EngineKind, bin: PathBuf, args: Vec<String>, processes: usize) -> Pool {
        Pool {
            kind,
            bin,
            args,
            slots: Mutex::new((
                (0..processes).map(|_| Slot::default()).collect(),
                EngineStats::default(),
            )),
            freed: Condvar::new(),
        }
    }

    pub(super) fn stats(&self) -> EngineStats {
        self.slots.lock().expect("pool lock").1.clone()
    }

    /// Kills every process of the pool; lanes still out come back to a new generation.
    pub(super) fn shutdown(&self) {
        let mut g = self.slots.lock().expect("pool lock");
        for s in g.0.iter_mut() {
            s.idle.clear();
            s.proc = None;
            s.busy = 0;
            s.generation += 1;
        }
        drop(g);
        self.freed.notify_all();
    }

    pub(super) fn pids(&self) -> Vec<u32> {
        let g = self.slots.lock().expect("pool lock");
        g.0.iter()
            .filter_map(|s| s.proc.as_ref().map(|p| p.child.id()))
            .collect()
    }

    fn launch(&self, cfg: &RenderConfig) -> Result<Proc, String> {
        let target = self.kind.name();
        let verbose = match self.kind {
            EngineKind::Chromium => tracing::enabled!(target: "chromium", tracing::Level::DEBUG),
            EngineKind::Lightpanda => {
                tracing::enabled!(target: "lightpanda", tracing::Level::DEBUG)
            }
        };
        let mut cmd = Command::new(&self.bin);
        let mut profile = None;
        let mut port = 0;
        match self.kind {
            EngineKind::Lightpanda => {
                port = std::net::TcpListener::bind("127.0.0.1:0")
                    .and_then(|l| l.local_addr())
                    .map_err(|e| format!("no free port for lightpanda: {e}"))?
                    .port();
                cmd.args(["serve", "--host", "127.0.0.1", "--port", &port.to_string()])
                    .args(["--log-level", if verbose { "info" } else { "error" }])
                    .args(["--log-format", "logfmt"])
                    .args([
                        "--cdp-max-connections",
                        &(cfg.tabs_per_browser + 1).to_string(),
                    ])
                    .args(["--http-timeout", &cfg.page_timeout_ms.to_string()])
                    .env("LIGHTPANDA_DISABLE_TELEMETRY", "true");
            }
            EngineKind::Chromium => {
                let dir = tempfile::Builder::new()
                    .prefix("trawl-chromium-")
                    .tempdir()
                    .map_err(|e| format!("profile directory: {e}"))?;
                cmd.args(["--headless", "--no-sandbox"])
                    .arg("--remote-debugging-address=127.0.0.1")
                    .arg("--remote-debugging-port=0")
                    .arg(format!("--user-data-dir={}", dir.path().display()))
                    .args(&self.args)
                    .arg("about:blank");
                profile = Some(dir);
            }
        }
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("launching {}: {e}", self.bin.display()))?;
        let err = child.stderr.take().expect("piped");
        // Chromium says where its endpoint is on stderr; then the lines go to tracing
        let (tx, rx) = std::sync::mpsc::channel::<String>();
        std::thread::spawn(move || {
            let mut tx = Some(tx);
            for line in std::io::BufReader::new(err).lines().map_while(Result::ok) {
                if let Some(rest) = line.split("DevTools listening on ").nth(1) {
                    if let Some(t) = tx.take() {
                        let _ = t.send(rest.trim().to_string());
                    }
                }
                match target {
                    "chromium" => tracing::debug!(target: "chromium", "{line}"),
                    _ => tracing::debug!(target: "lightpanda", "{line}"),
                }
            }
        });
        let (addr, path) = match self.kind {
            EngineKind::Lightpanda => (SocketAddr::from(([127, 0, 0, 1], port)), "/".to_string()),
            EngineKind::Chromium => {
                let ws = rx.recv_timeout(START).map_err(|_| {
                    let _ = child.kill();
                    let _ = child.wait();
                    format!("{} did not open its DevTools endpoint", self.bin.display())
                })?;
                let rest = ws
                    .strip_prefix("ws://")
                    .ok_or_else(|| format!("endpoint {ws}"))?;
                let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
                let addr = host.parse().map_err(|e| format!("endpoint {ws}: {e}"))?;
                (addr, path.to_string())
            }
        };
        Ok(Proc {
            child,
            addr,
            path,
            profile,
        })
    }

    fn new_lane(&self, addr: SocketAddr, path: &str) -> Result<Lane, String> {
        let mut cdp = Cdp::connect(addr, path, START)?;
        let dl = || Instant::now() + START;
        if self.kind == EngineKind::Chromium {
            cdp.simple(
                None,
                "Browser.setDownloadBehavior",
                json!({ "behavior": "deny" }),
                dl(),
            )?;
        }
        let t = cdp.simple(
            None,
            "Target.createTarget",
            json!({ "url": "about:blank" }),
            dl(),
        )?;
        let target = t["targetId"]
            .as_str()
            .ok_or("createTarget: no targetId")?
            .to_string();
        let a = cdp.simple(
            None,
            "Target.attachToTarget",
            json!({ "targetId": target, "flatten": true }),
            dl(),
        )?;
        let session = a["sessionId"]
            .as_str()
            .ok_or("attachToTarget: no sessionId")?
            .to_string();
        let s = Some(session.as_str());
        cdp.simple(s, "Page.enable", json!({}), dl())?;
        cdp.simple(
            s,
            "Page.addScriptToEvaluateOnNewDocument",
            json!({ "source": super::INIT }),
            dl(),
        )?;
        cdp.simple(
            s,
            "Fetch.enable",
            json!({ "patterns": [{ "urlPattern": "*", "requestStage": "Request" }] }),
            dl(),
        )?;
        Ok(Lane {
            cdp,
            target,
            session,
            ctx: Default::default(),
        })
    }

    fn checkout(&self, cfg: &RenderConfig) -> Result<(usize, u64, Lane), String> {
        let mut g = self.slots.lock().expect("pool lock");
        loop {
            let (slots, stats) = &mut *g;
            let n = slots.len();
            // the least busy usable slot, rotating ties
            let start = (stats.launches as usize + slots.iter().map(|s| s.served).sum::<usize>())
                % n.max(1);
            let mut pick: Option<usize> = None;
            for k in 0..n {
                let i = (start + k) % n;
                let s = &slots[i];
                let restart =
                    s.proc.is_none() || s.served >= cfg.restart_after_pages || s.over_memory;
                if s.busy >= cfg.tabs_per_browser || (restart && s.busy > 0) {
                    continue; // full, or draining before a restart
                }
                if pick.is_none_or(|p| slots[p].busy > s.busy) {
                    pick = Some(i);
                }
            }
            let Some(i) = pick else {
                g = self.freed.wait(g).expect("pool lock");
                continue;
            };
            let s = &mut slots[i];
            if s.proc.is_some() && s.served >= cfg.restart_after_pages {
                stats.restarts_pages += 1;
                tracing::debug!(
                    engine = self.kind.name(),
                    slot = i,
                    pages = s.served,
                    "restarting the browser after its page budget"
                );
            } else if s.proc.is_some() && s.over_memory {
                stats.restarts_memory += 1;
                tracing::info!(
                    engine = self.kind.name(),
                    slot = i,
                    "restarting the browser over its memory bound"
                );
            }
            if s.proc.is_none() || s.served >= cfg.restart_after_pages || s.over_memory {
                s.idle.clear();
                s.proc = None;
                s.proc = Some(self.launch(cfg)?);
                stats.launches += 1;
                s.generation += 1;
                s.served = 0;
                s.over_memory = false;
            }
            let lane = match s.idle.pop() {
                Some(l) => l,
                None => {
                    let p = s.proc.as_ref().expect("launched");
                    let (addr, path) = (p.addr, p.path.clone());
                    // connecting waits for the browser: not under the pool's lock
                    s.busy += 1;
                    let generation = s.generation;
                    drop(g);
                    return match self.new_lane(addr, &path) {
                        Ok(l) => Ok((i, generation, l)),
                        Err(e) => {
                            let mut g = self.slots.lock().expect("pool lock");
                            let s = &mut g.0[i];
                            if s.generation == generation {
                                s.busy = s.busy.saturating_sub(1);
                                // a browser that cannot open a page is replaced
                                s.proc = None;
                                s.idle.clear();
                                s.generation += 1;
                            }
                            drop(g);
                            self.freed.notify_all();
                            Err(e)
                        }
                    };
                }
            };
            s.busy += 1;
            return Ok((i, s.generation, lane));
        }
    }

    /// Returns a lane; whether its browser died. After a failure the browser is given a
    /// moment to finish exiting: its connection closes before the process can be reaped.
    fn checkin(
        &self,
        cfg: &RenderConfig,
        i: usize,
        generation: u64,
        mut lane: Lane,
        ok: bool,
    ) -> bool {
        let mut g = self.slots.lock().expect("pool lock");
        let (slots, stats) = &mut *g;
        let s = &mut slots[i];
        let mut dead = false;
        if s.generation == generation {
            s.busy = s.busy.saturating_sub(1);
            s.served += 1;
            let end = Instant::now() + Duration::from_millis(if ok { 0 } else { 500 });
            dead = loop {
                let gone = s
                    .proc
                    .as_mut()
                    .is_none_or(|p| !matches!(p.child.try_wait(), Ok(None)));
                if gone || Instant::now() >= end {
                    break gone;
                }
                std::thread::sleep(Duration::from_millis(20));
            };
            if dead {
                stats.crashes += 1;
                // lanes still out on the dead browser come back with the old generation
                s.proc = None;
                s.idle.clear();
                s.busy = 0;
                s.generation += 1;
            } else if ok {
                s.idle.push(lane);
            } else {
                // a page in an unknown state: its target goes
                let _ = lane.cdp.simple(
                    None,
                    "Target.closeTarget",
                    json!({ "targetId": lane.target }),
                    Instant::now() + Duration::from_secs(2),
                );
            }
            if s.served % 10 == 0 {
                if let Some(p) = &s.proc {
                    s.over_memory = super::tree_rss_mb(p.child.id()) > cfg.max_browser_memory_mb;
                }
            }
        }
        drop(g);
        self.freed.notify_all();
        dead
    }

    /// Renders a page: the driver's answer, or why not (`timeout`, `crash` or a message).
    /// A browser that died during the visit is restarted and the page tried `retries` more
    /// times.
    pub(super) fn render(
        &self,
        cfg: &RenderConfig,
        policy: &Policy,
        page: &trawl_core::FetchedPage,
        visit: &Visit,
        info: &mut trawl_core::RenderInfo,
        retries: u32,
    ) -> Result<Value, String> {
        let mut attempt = 0;
        loop {
            attempt += 1;
            info.attempts += 1;
            let (i, generation, mut lane) = self.checkout(cfg)?;
            let r = drive(&mut lane, self.kind, policy, page, visit);
            {
                let c = lane.ctx.lock().expect("ctx");
                info.requests += c.requests;
                for (k, v) in &c.blocked {
                    *info.blocked.entry(k.clone()).or_default() += v;
                }
            }
            let ok = r.is_ok();
            let dead = self.checkin(cfg, i, generation, lane, ok);
            match r {
                Err(e) if dead => {
                    tracing::warn!(url = %page.url, engine = self.kind.name(), attempt, error = %e, "the browser died while rendering; restarting it");
                    if attempt > retries {
                        return Err("crash".into());
                    }
                }
                r => return r,
            }
        }
    }
}

/// Answers a paused request through the policy.
fn answer(kind: EngineKind, policy: &Policy, ctx: &Mutex<PageCtx>, params: &Value) -> Reply {
    let id = params["requestId"].clone();
    let url = params["request"]["url"].as_str().unwrap_or("");
    let rtype = params["resourceType"].as_str().unwrap_or("Other");
    // Chromium connects to `resolve` overrides (its host-resolver rules); lightpanda
    // resolves names itself, so a host known only by an override is refused there
    match paused(policy, ctx, url, rtype, kind == EngineKind::Chromium) {
        Paused::Fulfill(status, content_type, body) => (
            "Fetch.fulfillRequest",
            json!({
                "requestId": id,
                "responseCode": status,
                "responseHeaders": [{ "name": "Content-Type", "value": content_type }],
                "body": base64::engine::general_purpose::STANDARD.encode(body.as_slice()),
            }),
        ),
        Paused::Continue => ("Fetch.continueRequest", json!({ "requestId": id })),
        Paused::Fail => (
            "Fetch.failRequest",
            json!({ "requestId": id, "errorReason": "BlockedByClient" }),
        ),
    }
}

/// One visit on one lane: the driver's answer (JSON).
fn drive(
    lane: &mut Lane,
    kind: EngineKind,
    policy: &Policy,
    page: &trawl_core::FetchedPage,
    visit: &Visit,
) -> Result<Value, String> {
    *lane.ctx.lock().expect("ctx") = visit.ctx(page);
    let ctx = lane.ctx.clone();
    let mut on_event = |m: &str, p: &Value| -> Vec<Reply> {
        if m == "Fetch.requestPaused" {
            vec![answer(kind, policy, &ctx, p)]
        } else {
            Vec::new()
        }
    };
    let s = Some(lane.session.as_str());
    let deadline = visit.deadline;
    let nav = lane.cdp.call(
        s,
        "Page.navigate",
        json!({ "url": visit.url }),
        deadline,
        &mut on_event,
    )?;
    if let Some(e) = nav.get("errorText").and_then(Value::as_str) {
        return Err(format!("navigate: {e}"));
    }
    let answer = loop {
        let r = lane.cdp.call(
            s,
            "Runtime.evaluate",
            json!({ "expression": visit.js, "awaitPromise": true, "returnByValue": true }),
            deadline,
            &mut on_event,
        );
        let r = match r {
            Ok(r) => r,
            // the navigation committed while the script ran in the previous document
            Err(e) if Instant::now() < deadline && e.to_lowercase().contains("context") => continue,
            Err(e) => return Err(e),
        };
        if let Some(e) = r.get("exceptionDetails") {
            let msg = e["exception"]["description"]
                .as_str()
                .or(e["text"].as_str())
                .unwrap_or("exception");
            if Instant::now() < deadline && msg.to_lowercase().contains("context") {
                continue;
            }
            return Err(format!("evaluate: {msg}"));
        }
        let text = r["result"]["value"].as_str().unwrap_or_default();
        let v: Value = serde_json::from_str(text).map_err(|e| format!("driver answer: {e}"))?;
        // the script ran in the blank page before the navigation committed
        if v["url"].as_str() == Some("about:blank") && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
            continue;
        }
        break v;
    };
    // stop the page's timers and requests before the lane is reused (the counts stay for
    // the caller; nothing of the blank page goes out: `main` is empty)
    lane.ctx.lock().expect("ctx").main.clear();
    let end = Instant::now() + Duration::from_secs(5);
    if answer["timeout"].as_bool() == Some(true) {
        let _ = lane
            .cdp
            .call(s, "Page.stopLoading", json!({}), end, &mut on_event);
    }
    lane.cdp.call(
        s,
        "Page.navigate",
        json!({ "url": "about:blank" }),
        end,
        &mut on_event,
    )?;
    Ok(answer)
}
