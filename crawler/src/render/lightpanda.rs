//! The light engine tier: [lightpanda](https://lightpanda.io) processes (a headless browser
//! with its own DOM and V8, no layout or paint) driven over CDP by [`crate::cdp`]. Pages go
//! through the same visit as in Chromium: the fetched response fulfils the main document,
//! every sub-request goes through the same [`Policy`] (robots.txt, the SSRF guard, blocked
//! types and hosts, the request budget), the same init script and in-page driver (load,
//! settle, banners, scrolling, clicks, the DOM back as JSON).
//!
//! Each process serves `tabs_per_browser` CDP connections (each its own browser context with
//! one page), is restarted after `restart_after_pages` pages, above `max_browser_memory_mb`,
//! or when it dies; its telemetry is off (`LIGHTPANDA_DISABLE_TELEMETRY`) and its log lines
//! go to `tracing` (target `lightpanda`), so they follow `--quiet` and `-v`.

use std::io::BufRead;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{json, Value};

use super::{paused, PageCtx, Paused, Policy, RenderConfig, Visit};
use crate::cdp::{Cdp, Reply};

/// One lightpanda process.
struct Proc {
    child: Child,
    addr: SocketAddr,
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One CDP connection with its page, and the page it is rendering.
pub(super) struct Lane {
    cdp: Cdp,
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

/// Counters of the lightpanda pool.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LightStats {
    /// Processes launched.
    pub launches: u64,
    /// Processes found dead after a failed render.
    pub crashes: u64,
}

/// The pool of lightpanda processes.
pub(super) struct Pool {
    bin: PathBuf,
    slots: Mutex<(Vec<Slot>, LightStats)>,
    freed: Condvar,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "lightpanda::Pool({})", self.bin.display())
    }
}

/// A checked-out lane: slot, generation, lane.
type Checkout = (usize, u64, Lane);

impl Pool {
    pub(super) fn new(bin: PathBuf, processes: usize) -> Pool {
        Pool {
            bin,
            slots: Mutex::new((
                (0..processes).map(|_| Slot::default()).collect(),
                LightStats::default(),
            )),
            freed: Condvar::new(),
        }
    }

    pub(super) fn stats(&self) -> LightStats {
        self.slots.lock().expect("pool lock").1
    }

    pub(super) fn pids(&self) -> Vec<u32> {
        let g = self.slots.lock().expect("pool lock");
        g.0.iter()
            .filter_map(|s| s.proc.as_ref().map(|p| p.child.id()))
            .collect()
    }

    fn launch(&self, cfg: &RenderConfig) -> Result<Proc, String> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| format!("no free port for lightpanda: {e}"))?
            .port();
        let level = if tracing::enabled!(target: "lightpanda", tracing::Level::DEBUG) {
            "info"
        } else {
            "error"
        };
        let mut child = Command::new(&self.bin)
            .args(["serve", "--host", "127.0.0.1", "--port", &port.to_string()])
            .args(["--log-level", level, "--log-format", "logfmt"])
            .args([
                "--cdp-max-connections",
                &(cfg.tabs_per_browser + 1).to_string(),
            ])
            .args(["--http-timeout", &cfg.page_timeout_ms.to_string()])
            .env("LIGHTPANDA_DISABLE_TELEMETRY", "true")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("launching {}: {e}", self.bin.display()))?;
        if let Some(err) = child.stderr.take() {
            std::thread::spawn(move || {
                for line in std::io::BufReader::new(err).lines().map_while(Result::ok) {
                    tracing::debug!(target: "lightpanda", "{line}");
                }
            });
        }
        Ok(Proc {
            child,
            addr: SocketAddr::from(([127, 0, 0, 1], port)),
        })
    }

    fn new_lane(addr: SocketAddr) -> Result<Lane, String> {
        let mut cdp = Cdp::connect(addr, Duration::from_secs(10))?;
        let dl = || Instant::now() + Duration::from_secs(10);
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
            json!({ "patterns": [{ "urlPattern": "*" }] }),
            dl(),
        )?;
        Ok(Lane {
            cdp,
            session,
            ctx: Default::default(),
        })
    }

    fn checkout(&self, cfg: &RenderConfig) -> Result<Checkout, String> {
        let mut g = self.slots.lock().expect("pool lock");
        loop {
            let (slots, stats) = &mut *g;
            let pick = slots
                .iter()
                .enumerate()
                .filter(|(_, s)| {
                    let restart =
                        s.proc.is_none() || s.served >= cfg.restart_after_pages || s.over_memory;
                    s.busy < cfg.tabs_per_browser && !(restart && s.busy > 0)
                })
                .min_by_key(|(_, s)| s.busy)
                .map(|(i, _)| i);
            let Some(i) = pick else {
                g = self.freed.wait(g).expect("pool lock");
                continue;
            };
            let s = &mut slots[i];
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
                    let addr = s.proc.as_ref().expect("launched").addr;
                    Self::new_lane(addr)?
                }
            };
            s.busy += 1;
            return Ok((i, s.generation, lane));
        }
    }

    fn checkin(&self, cfg: &RenderConfig, i: usize, generation: u64, lane: Lane, ok: bool) {
        let mut g = self.slots.lock().expect("pool lock");
        let (slots, stats) = &mut *g;
        let s = &mut slots[i];
        if s.generation == generation {
            s.busy = s.busy.saturating_sub(1);
            s.served += 1;
            let dead = s
                .proc
                .as_mut()
                .is_none_or(|p| !matches!(p.child.try_wait(), Ok(None)));
            if dead {
                stats.crashes += 1;
                s.proc = None;
                s.idle.clear();
                s.busy = 0;
                s.generation += 1;
            } else if ok {
                s.idle.push(lane);
            }
            if s.served % 10 == 0 {
                if let Some(p) = &s.proc {
                    s.over_memory = super::tree_rss_mb(p.child.id()) > cfg.max_browser_memory_mb;
                }
            }
        }
        drop(g);
        self.freed.notify_all();
    }

    /// Renders a page: the visit's answer, or why not (`timeout`, `crash`, or a message).
    pub(super) fn render(
        &self,
        cfg: &RenderConfig,
        policy: &Policy,
        page: &trawl_core::FetchedPage,
        visit: &Visit,
        info: &mut trawl_core::RenderInfo,
    ) -> Result<Value, String> {
        info.attempts += 1;
        let (i, generation, mut lane) = self.checkout(cfg)?;
        let r = drive(&mut lane, policy, page, visit);
        {
            let c = lane.ctx.lock().expect("ctx");
            info.requests += c.requests;
            for (k, v) in &c.blocked {
                *info.blocked.entry(k.clone()).or_default() += v;
            }
        }
        let ok = r.is_ok();
        let crashed = {
            let mut g = self.slots.lock().expect("pool lock");
            let s = &mut g.0[i];
            s.generation == generation
                && s.proc
                    .as_mut()
                    .is_some_and(|p| !matches!(p.child.try_wait(), Ok(None)))
        };
        self.checkin(cfg, i, generation, lane, ok);
        r.map_err(|e| if crashed { "crash".to_string() } else { e })
    }
}

/// Answers a paused request through the policy.
fn answer(policy: &Policy, ctx: &Mutex<PageCtx>, params: &Value) -> Reply {
    let id = params["requestId"].clone();
    let url = params["request"]["url"].as_str().unwrap_or("");
    let rtype = params["resourceType"].as_str().unwrap_or("Other");
    match paused(policy, ctx, url, rtype) {
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
    policy: &Policy,
    page: &trawl_core::FetchedPage,
    visit: &Visit,
) -> Result<Value, String> {
    *lane.ctx.lock().expect("ctx") = visit.ctx(page);
    let ctx = lane.ctx.clone();
    let mut on_event = |m: &str, p: &Value| -> Vec<Reply> {
        if m == "Fetch.requestPaused" {
            vec![answer(policy, &ctx, p)]
        } else {
            Vec::new()
        }
    };
    let s = Some(lane.session.as_str());
    let deadline = visit.deadline();
    lane.cdp.call(
        s,
        "Page.navigate",
        json!({ "url": visit.url }),
        deadline,
        &mut on_event,
    )?;
    let answer = loop {
        let r = lane.cdp.call(
            s,
            "Runtime.evaluate",
            json!({ "expression": visit.js, "awaitPromise": true, "returnByValue": true }),
            deadline,
            &mut on_event,
        )?;
        if let Some(e) = r.get("exceptionDetails") {
            return Err(format!(
                "evaluate: {}",
                e["exception"]["description"]
                    .as_str()
                    .or(e["text"].as_str())
                    .unwrap_or("exception")
            ));
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
    // the caller; no request of the blank page goes out: `main` is empty)
    {
        let mut c = lane.ctx.lock().expect("ctx");
        c.main.clear();
    }
    lane.cdp.call(
        s,
        "Page.navigate",
        json!({ "url": "about:blank" }),
        Instant::now() + Duration::from_secs(5),
        &mut on_event,
    )?;
    Ok(answer)
}
