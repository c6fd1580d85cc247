//! Killing `trawl run` at random moments and rerunning gives the same output, byte for byte.

use std::time::{Duration, Instant};

use crate::support::{demo_port, files, ok, trawl};

/// Data outputs compared byte for byte. Stats, markers and the report hold timings, so
/// they are evidence of the run, not its data, and are left out.
fn data_files(dir: &std::path::Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    files(dir).into_iter().filter(|(k, _)| !(k.starts_with("stats/") || k.starts_with("_done/") || k.starts_with("report/"))).collect()
}

#[test]
fn kill_9_at_random_moments_then_rerun_is_byte_identical() {
    let port = demo_port();
    let args = |out: &std::path::Path| {
        let mut c = trawl();
        c.args(["run", "--quiet", "--demo-port", &port.to_string(), "--demo-delay-ms", "15", "--output"]).arg(out).env("SOURCE_DATE_EPOCH", "1767225600");
        c
    };
    let clean = tempfile::tempdir().unwrap();
    let t0 = Instant::now();
    ok(&mut args(clean.path()));
    let full = t0.elapsed();
    let expected = data_files(clean.path());
    assert!(expected.keys().any(|k| k.ends_with(".bin")));

    // moments spread over the run, plus a random jitter from the clock
    let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos() as u64;
    let mut moments = Vec::new();
    for i in 1..=5u64 {
        let frac = (i as f64 / 6.0) + ((seed.wrapping_mul(i * 2654435761) % 100) as f64 / 1000.0 - 0.05);
        moments.push(full.mul_f64(frac.clamp(0.02, 0.98)));
    }
    eprintln!("uninterrupted run took {full:?}; killing at {moments:?}");
    let crashed = tempfile::tempdir().unwrap();
    let mut killed = 0;
    for m in &moments {
        let mut child = args(crashed.path()).spawn().unwrap();
        std::thread::sleep(*m);
        if child.try_wait().unwrap().is_none() {
            child.kill().unwrap(); // SIGKILL
            killed += 1;
        }
        child.wait().unwrap();
    }
    assert!(killed >= 2, "the run finished before most kills ({killed} killed); slow it down");
    ok(&mut args(crashed.path()));
    let got = data_files(crashed.path());
    let missing: Vec<_> = expected.keys().filter(|k| !got.contains_key(*k)).collect();
    let extra: Vec<_> = got.keys().filter(|k| !expected.contains_key(*k)).collect();
    assert!(missing.is_empty() && extra.is_empty(), "missing {missing:?}, extra {extra:?}");
    for (k, v) in &expected {
        assert!(got[k] == *v, "{k} differs after kill and rerun");
    }
    let _ = Duration::ZERO;
}
