//! `run.json` (what ran, with which config and binary, when, and how it ended) and
//! `trawl status`.

use anyhow::Result;
use serde::{Deserialize, Serialize};
use trawl_storage::{markers, Storage};

/// The content of `run.json` at the run root.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct RunInfo {
    /// Run id (`--run-id`, or UTC start time + config digest).
    pub run_id: String,
    /// XXH3-64 of the config text, hex.
    pub config_digest: String,
    /// The config as TOML.
    pub config: String,
    /// trawl version.
    pub version: String,
    /// Start of the first attempt (RFC 3339).
    pub started: String,
    /// Start of the latest attempt.
    pub attempt_started: String,
    /// Attempts so far (reruns after a crash add one).
    pub attempts: u32,
    /// End (RFC 3339), when finished.
    pub finished: Option<String>,
    /// `running`, `complete` or `failed`.
    pub status: String,
    /// The error of a failed run.
    pub error: Option<String>,
    /// Host name of the machine of the latest attempt.
    #[serde(default)]
    pub host: String,
    /// Process id of the latest attempt on that host.
    #[serde(default)]
    pub pid: u32,
    /// Last sign of life of a running attempt (RFC 3339), renewed every
    /// [`HEARTBEAT_SECS`] seconds: a `running` run whose heartbeat is older than
    /// [`STALE_SECS`] was killed or lost its machine.
    #[serde(default)]
    pub heartbeat: String,
}

/// How often a running `trawl run` renews `run.json`'s heartbeat.
pub const HEARTBEAT_SECS: u64 = 60;
/// A heartbeat older than this marks a `running` run as interrupted.
pub const STALE_SECS: u64 = 5 * HEARTBEAT_SECS;

/// This machine's host name (empty when unknown).
fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// Whether a process id is alive on this machine (`None`: cannot tell).
fn pid_alive(pid: u32) -> Option<bool> {
    if pid == 0 || !std::path::Path::new("/proc/self").exists() {
        return None;
    }
    Some(std::path::Path::new(&format!("/proc/{pid}")).exists())
}

impl RunInfo {
    /// The status as a reader should see it: a `running` attempt whose process is gone (same
    /// host) or whose heartbeat stopped is `interrupted`, with the reason.
    pub fn effective_status(&self, now: std::time::SystemTime) -> (String, Option<String>) {
        if self.status != "running" {
            return (self.status.clone(), None);
        }
        if !self.host.is_empty() && self.host == host_name() && pid_alive(self.pid) == Some(false) {
            return (
                "interrupted".into(),
                Some(format!(
                    "process {} on {} is gone; rerun the same command to resume",
                    self.pid, self.host
                )),
            );
        }
        if let Some(age) = trawl_core::time::parse_rfc3339(&self.heartbeat)
            .and_then(|t| now.duration_since(t).ok())
        {
            if age.as_secs() > STALE_SECS {
                return (
                    "interrupted".into(),
                    Some(format!(
                        "no heartbeat for {} s (process {} on {}); rerun the same command to resume",
                        age.as_secs(),
                        self.pid,
                        if self.host.is_empty() { "?" } else { &self.host }
                    )),
                );
            }
        }
        ("running".into(), None)
    }
}

pub fn digest(text: &str) -> String {
    format!("{:016x}", xxhash_rust::xxh3::xxh3_64(text.as_bytes()))
}

fn now() -> String {
    trawl_core::time::rfc3339(std::time::SystemTime::now())
}

/// A run id from the time and the config digest: `20261121T133400Z-1a2b3c4d`.
pub fn default_run_id(config_digest: &str) -> String {
    let t = now().replace(['-', ':'], "");
    format!("{}-{}", t, &config_digest[..8])
}

pub async fn start(root: &Storage, run_id: &str, config: &str) -> Result<RunInfo> {
    let mut info = match root.get_opt("run.json").await? {
        Some(b) => serde_json::from_slice::<RunInfo>(&b).unwrap_or_default(),
        None => RunInfo::default(),
    };
    // two runs on one root would interleave their commits and their run.json
    if info.effective_status(std::time::SystemTime::now()).0 == "running" && info.pid != 0 {
        return Err(crate::UsageError(format!(
            "{}: run {} is running there (process {} on {}, last heartbeat {}); wait for it to finish or use another root (a run that died is taken over once its process is gone, or after {} s without a heartbeat on another machine)",
            root.url(),
            info.run_id,
            info.pid,
            if info.host.is_empty() { "?" } else { &info.host },
            info.heartbeat,
            STALE_SECS
        ))
        .into());
    }
    let d = digest(config);
    if !info.run_id.is_empty() && info.config_digest != d {
        tracing::warn!(run = %info.run_id, "the config changed since this run started; finished shards are kept, the rest uses the new config");
    }
    if info.run_id.is_empty() {
        info.run_id = run_id.to_string();
        info.started = now();
    }
    info.config_digest = d;
    info.config = config.to_string();
    info.version = env!("CARGO_PKG_VERSION").to_string();
    info.attempt_started = now();
    info.attempts += 1;
    info.finished = None;
    info.status = "running".into();
    info.error = None;
    info.host = host_name();
    info.pid = std::process::id();
    info.heartbeat = now();
    root.put("run.json", serde_json::to_vec_pretty(&info)?.into())
        .await?;
    Ok(info)
}

/// Renews `run.json`'s heartbeat every [`HEARTBEAT_SECS`] until stopped.
pub struct Heartbeat {
    stop: tokio::sync::oneshot::Sender<()>,
    task: tokio::task::JoinHandle<()>,
}

impl Heartbeat {
    pub fn start(rt: &tokio::runtime::Runtime, root: Storage, mut info: RunInfo) -> Heartbeat {
        let (stop, mut stopped) = tokio::sync::oneshot::channel();
        let task = rt.spawn(async move {
            loop {
                tokio::select! {
                    _ = &mut stopped => return,
                    _ = tokio::time::sleep(std::time::Duration::from_secs(HEARTBEAT_SECS)) => {}
                }
                info.heartbeat = now();
                let body = serde_json::to_vec_pretty(&info).expect("run info serialises");
                if let Err(e) = root.put("run.json", body.into()).await {
                    tracing::warn!(error = %e, "cannot renew the run's heartbeat in run.json");
                }
            }
        });
        Heartbeat { stop, task }
    }

    /// Stops the renewals (waiting for one under way), so `finish` writes last.
    pub fn stop(self, rt: &tokio::runtime::Runtime) {
        let _ = self.stop.send(());
        let _ = rt.block_on(self.task);
    }
}

pub async fn finish(root: &Storage, mut info: RunInfo, error: Option<String>) -> Result<()> {
    info.finished = Some(now());
    info.status = if error.is_some() {
        "failed".into()
    } else {
        "complete".into()
    };
    info.error = error;
    root.put("run.json", serde_json::to_vec_pretty(&info)?.into())
        .await?;
    Ok(())
}

/// The newest run under `base` with this config digest that did not complete.
pub async fn latest_incomplete(base: &Storage, config_digest: &str) -> Result<Option<String>> {
    let mut best: Option<(String, String)> = None;
    for k in base.list("").await? {
        let Some(dir) = k.strip_suffix("/run.json") else {
            continue;
        };
        if dir.contains('/') {
            continue;
        }
        let Ok(info) = serde_json::from_slice::<RunInfo>(&base.get(&k).await?) else {
            continue;
        };
        if info.status != "complete"
            && info.config_digest == config_digest
            && best.as_ref().is_none_or(|(s, _)| info.started > *s)
        {
            best = Some((info.started.clone(), dir.to_string()));
        }
    }
    Ok(best.map(|(_, d)| d))
}

/// `trawl status ROOT`.
pub async fn status(root: &Storage) -> Result<String> {
    let mut out = String::new();
    match root.get_opt("run.json").await? {
        Some(b) => {
            let i: RunInfo = serde_json::from_slice(&b)?;
            let (status, why) = i.effective_status(std::time::SystemTime::now());
            out.push_str(&format!(
                "run {}  status {}  attempts {}  started {}  finished {}\nversion {}  config {}\n",
                i.run_id,
                status,
                i.attempts,
                i.started,
                i.finished.as_deref().unwrap_or("-"),
                i.version,
                i.config_digest
            ));
            if let Some(w) = why {
                out.push_str(&format!("{w}\n"));
            }
            if let Some(e) = &i.error {
                out.push_str(&format!("error: {e}\n"));
            }
        }
        None => out.push_str("no run.json (stages were run one by one)\n"),
    }
    let total = crawl_parts(root).await?;
    out.push_str(&format!(
        "{:<18} {:>12} {:>10} {:>10} {:>10} {:>8}\n",
        "stage", "shards", "in", "kept", "dropped", "errors"
    ));
    for id in trawl_core::StageId::ALL {
        let stage = id.name();
        let (stats, n) = markers::merged_stats(root, stage).await?;
        if n == 0 {
            continue;
        }
        let (mut seen, mut kept, mut dropped, mut errors) = (0, 0, 0, 0);
        if let (Some(first), Some(last)) = (stats.order.first(), stats.order.last()) {
            seen = stats.stages[first].seen;
            kept = stats.stages[last].kept;
        }
        for s in stats.stages.values() {
            dropped += s.dropped_total();
            errors += s.errors.values().sum::<u64>();
        }
        let shards = match total {
            Some(t) if !id.is_dedup_phase() => format!("{n}/{t}"),
            _ => n.to_string(),
        };
        out.push_str(&format!(
            "{stage:<18} {shards:>12} {seen:>10} {kept:>10} {dropped:>10} {errors:>8}\n"
        ));
    }
    if let Some(b) = root.get_opt("shards/manifest.json").await? {
        let m: serde_json::Value = serde_json::from_slice(&b)?;
        out.push_str(&format!(
            "token shards: {} documents, {} tokens, {} shards\n",
            m["documents"],
            m["tokens"],
            m["shards"].as_array().map_or(0, |a| a.len())
        ));
    }
    Ok(out)
}

/// Every stage's counters in the Prometheus text exposition format.
pub async fn prometheus(root: &Storage) -> Result<String> {
    let esc = |s: &str| s.replace('\\', "\\\\").replace('"', "\\\"");
    let run = match root.get_opt("run.json").await? {
        Some(b) => serde_json::from_slice::<RunInfo>(&b)
            .map(|i| i.run_id)
            .unwrap_or_default(),
        None => String::new(),
    };
    let mut out = String::new();
    let mut families: std::collections::BTreeMap<&str, (&str, Vec<String>)> =
        std::collections::BTreeMap::new();
    let mut add = |name: &'static str, help: &'static str, line: String| {
        families
            .entry(name)
            .or_insert((help, Vec::new()))
            .1
            .push(line)
    };
    for group in trawl_core::StageId::ALL.map(trawl_core::StageId::name) {
        let (stats, shards) = markers::merged_stats(root, group).await?;
        if shards == 0 {
            continue;
        }
        add(
            "trawl_shards_done",
            "Committed shards per stage.",
            format!(
                "trawl_shards_done{{run=\"{}\",stage=\"{group}\"}} {shards}",
                esc(&run)
            ),
        );
        for (step, s) in &stats.stages {
            let l = format!(
                "run=\"{}\",stage=\"{group}\",step=\"{}\"",
                esc(&run),
                esc(step)
            );
            add(
                "trawl_records_seen_total",
                "Records that entered a step.",
                format!("trawl_records_seen_total{{{l}}} {}", s.seen),
            );
            add(
                "trawl_records_kept_total",
                "Records that left a step.",
                format!("trawl_records_kept_total{{{l}}} {}", s.kept),
            );
            for (reason, n) in &s.dropped {
                add(
                    "trawl_records_dropped_total",
                    "Records dropped, by reason.",
                    format!(
                        "trawl_records_dropped_total{{{l},reason=\"{}\"}} {n}",
                        esc(reason)
                    ),
                );
            }
            add(
                "trawl_bytes_in_total",
                "Text bytes that entered a step.",
                format!("trawl_bytes_in_total{{{l}}} {}", s.bytes_in),
            );
            add(
                "trawl_step_seconds_total",
                "Time spent in a step.",
                format!(
                    "trawl_step_seconds_total{{{l}}} {:.3}",
                    s.nanos as f64 / 1e9
                ),
            );
            for (c, n) in &s.counters {
                add(
                    "trawl_counter_total",
                    "Other additive counters (tokens, statuses).",
                    format!("trawl_counter_total{{{l},counter=\"{}\"}} {n}", esc(c)),
                );
            }
        }
    }
    for (name, (help, lines)) in families {
        let kind = if name.ends_with("_total") {
            "counter"
        } else {
            "gauge"
        };
        out.push_str(&format!("# HELP {name} {help}\n# TYPE {name} {kind}\n"));
        for l in lines {
            out.push_str(&l);
            out.push('\n');
        }
    }
    Ok(out)
}

/// Parts of a complete crawl: `crawl/state.json` of a one-worker crawl, or the sum over the
/// workers' `crawl/state/IIIII-of-NNNNN.json` once every worker has written its own.
async fn crawl_parts(root: &Storage) -> Result<Option<usize>> {
    let parts = |b: &[u8]| -> Result<Option<usize>> {
        Ok(serde_json::from_slice::<serde_json::Value>(b)?["parts"]
            .as_u64()
            .map(|n| n as usize))
    };
    if let Some(b) = root.get_opt("crawl/state.json").await? {
        return parts(&b);
    }
    let (mut total, mut files, mut workers) = (0usize, 0usize, 0usize);
    for k in root.list("crawl/state").await? {
        let Some(n) = k
            .rsplit_once("-of-")
            .and_then(|(_, n)| n.strip_suffix(".json"))
            .and_then(|n| n.parse::<usize>().ok())
        else {
            continue;
        };
        workers = n;
        files += 1;
        match parts(&root.get(&k).await?)? {
            Some(p) => total += p,
            None => return Ok(None),
        }
    }
    Ok((files > 0 && files == workers).then_some(total))
}
