//! The deploy files: Slurm scripts pass `bash -n` and submit the phases in order with
//! dependencies (checked with a recording `sbatch` on PATH, since no Slurm runs here); the
//! Kubernetes manifests parse and carry the fields trawl relies on; the systemd units are
//! complete.

use yaml_rust2::{Yaml, YamlLoader};

use crate::support::ok;

fn deploy(p: &str) -> std::path::PathBuf {
    crate::support::manifest_dir().join("deploy").join(p)
}

/// Writes an executable script standing in for a cluster command (no Slurm runs here).
fn stub_command(path: &std::path::Path, script: &str) {
    std::fs::write(path, script).unwrap();
    std::process::Command::new("chmod")
        .arg("+x")
        .arg(path)
        .status()
        .unwrap();
}

#[test]
fn slurm_scripts_are_valid_and_chain_every_phase() {
    for f in [
        "slurm/nightly.sh",
        "slurm/stage.sbatch",
        "slurm/crawl.sbatch",
    ] {
        let o = std::process::Command::new("bash")
            .arg("-n")
            .arg(deploy(f))
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{f}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("sbatch.log");
    stub_command(
        &dir.path().join("sbatch"),
        &format!(
            "#!/usr/bin/env bash\necho \"$*\" >> {}\nwc -l < {}\n",
            log.display(),
            log.display()
        ),
    );
    let path = format!(
        "{}:{}",
        dir.path().display(),
        std::env::var("PATH").unwrap()
    );
    let o = std::process::Command::new("bash")
        .arg(deploy("slurm/nightly.sh"))
        .env("PATH", path)
        .env("CONFIG", "/etc/trawl/p.toml")
        .env("ROOT", "s3://b/run")
        .env("WORKERS", "8")
        .env("CRAWLERS", "4")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let calls: Vec<String> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    let phases = [
        "crawl",
        "extract",
        "filter",
        "dedup-signatures",
        "dedup-buckets",
        "dedup-clusters",
        "dedup-apply",
        "captions",
        "shards",
        "pack",
        "report",
    ];
    assert_eq!(calls.len(), phases.len());
    for (i, (c, p)) in calls.iter().zip(phases).enumerate() {
        assert!(c.contains(&format!("--job-name=trawl-{p} ")), "{c}");
        if i > 0 {
            assert!(
                c.contains(&format!("--dependency=afterok:{i}")),
                "phase {p} waits for the one before: {c}"
            );
        }
        assert!(
            c.contains("--config /etc/trawl/p.toml --output s3://b/run"),
            "{c}"
        );
    }
    assert!(
        calls[0].contains("--ntasks=4") && calls[0].contains("crawl.sbatch"),
        "the crawl workers start together as one job: {}",
        calls[0]
    );
    assert!(
        calls[4].contains("--array=0-7"),
        "8 workers, 20 bands: 8 bucket tasks"
    );
    // the array script runs trawl with the task's share
    let out = dir.path().join("out");
    let input = dir.path().join("in");
    std::fs::create_dir_all(&input).unwrap();
    for i in 0..4 {
        std::fs::write(
            input.join(format!("{i}.jsonl")),
            format!("{{\"id\":\"d{i}\",\"text\":\"{}\"}}\n", "word ".repeat(60)),
        )
        .unwrap();
    }
    for task in 0..2 {
        let o = std::process::Command::new("bash")
            .arg(deploy("slurm/stage.sbatch"))
            .args(["filter", "--quiet", "--input"])
            .arg(&input)
            .arg("--output")
            .arg(&out)
            .env("TRAWL_BIN", env!("CARGO_BIN_EXE_trawl"))
            .env("SLURM_ARRAY_TASK_ID", task.to_string())
            .env("SLURM_ARRAY_TASK_COUNT", "2")
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let done = std::fs::read_dir(out.join("_done/filter")).unwrap().count();
        assert_eq!(
            done,
            2 * (task + 1),
            "task {task} took its half of the inputs"
        );
    }
}

#[test]
fn kubernetes_indexed_job_env_selects_the_share() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir_all(&input).unwrap();
    for i in 0..6 {
        std::fs::write(
            input.join(format!("{i}.jsonl")),
            format!("{{\"id\":\"d{i}\",\"text\":\"{}\"}}\n", "word ".repeat(60)),
        )
        .unwrap();
    }
    let out = dir.path().join("out");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_trawl"))
        .args(["filter", "--quiet", "--input"])
        .arg(&input)
        .arg("--output")
        .arg(&out)
        .env("JOB_COMPLETION_INDEX", "2")
        .env("TRAWL_SHARD_COUNT", "3")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut done: Vec<String> = std::fs::read_dir(out.join("_done/filter"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    done.sort();
    assert_eq!(
        done,
        vec!["00002", "00005"],
        "worker 2 of 3 takes inputs 2 and 5"
    );
}

fn get<'a>(y: &'a Yaml, path: &[&str]) -> &'a Yaml {
    path.iter().fold(y, |y, k| &y[*k])
}

#[test]
fn kubernetes_manifests_carry_what_trawl_needs() {
    let mut jobs = 0;
    for e in std::fs::read_dir(deploy("k8s")).unwrap() {
        let p = e.unwrap().path();
        let docs = YamlLoader::load_from_str(&std::fs::read_to_string(&p).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        for d in docs {
            let kind = d["kind"].as_str().unwrap();
            let (spec, pod) = match kind {
                "Job" => (get(&d, &["spec"]), get(&d, &["spec", "template", "spec"])),
                "CronJob" => {
                    assert!(
                        get(&d, &["spec", "schedule"]).as_str().is_some(),
                        "{}: schedule",
                        p.display()
                    );
                    assert_eq!(
                        get(&d, &["spec", "concurrencyPolicy"]).as_str(),
                        Some("Forbid"),
                        "nightly runs must not overlap"
                    );
                    (
                        get(&d, &["spec", "jobTemplate", "spec"]),
                        get(&d, &["spec", "jobTemplate", "spec", "template", "spec"]),
                    )
                }
                other => panic!("{}: unexpected kind {other}", p.display()),
            };
            let c = &pod["containers"][0];
            let args: Vec<&str> = c["args"]
                .as_vec()
                .unwrap()
                .iter()
                .map(|a| a.as_str().unwrap())
                .collect();
            assert!(args.contains(&"--config"), "{}: --config", p.display());
            if kind == "Job" {
                jobs += 1;
                assert_eq!(
                    spec["completionMode"].as_str(),
                    Some("Indexed"),
                    "{}",
                    p.display()
                );
                let n = spec["completions"].as_i64().unwrap();
                assert_eq!(spec["parallelism"].as_i64(), Some(n));
                let env = c["env"].as_vec().unwrap();
                let count = env
                    .iter()
                    .find(|e| e["name"].as_str() == Some("TRAWL_SHARD_COUNT"))
                    .expect("TRAWL_SHARD_COUNT");
                assert_eq!(
                    count["value"].as_str().unwrap().parse::<i64>().unwrap(),
                    n,
                    "{}: shard count equals completions",
                    p.display()
                );
                assert!(
                    args.contains(&"--wait"),
                    "{}: phases wait on the markers of the previous phase",
                    p.display()
                );
                assert!(args.contains(&"--output"), "{}", p.display());
            }
            assert_eq!(pod["restartPolicy"].as_str(), Some("OnFailure"));
            // the arguments are real trawl flags
            let mut check: Vec<&str> = args
                .iter()
                .copied()
                .filter(|a| !a.starts_with("s3://"))
                .collect();
            check.retain(|a| *a != "--wait" && a.parse::<u64>().is_err());
            let idx = check.iter().position(|a| *a == "--config").unwrap();
            check.drain(idx..idx + 2);
            let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_trawl"));
            let sub: Vec<&str> = check
                .iter()
                .copied()
                .filter(|a| !a.starts_with("--") && *a != "json")
                .collect();
            let o = cmd.args(&sub).arg("--help").output().unwrap();
            assert!(
                o.status.success(),
                "{}: `trawl {}` is not a command",
                p.display(),
                sub.join(" ")
            );
        }
    }
    assert!(jobs >= 2);
}

#[test]
fn systemd_units_are_complete() {
    let service = std::fs::read_to_string(deploy("systemd/trawl-nightly.service")).unwrap();
    let timer = std::fs::read_to_string(deploy("systemd/trawl-nightly.timer")).unwrap();
    assert!(
        service.contains("[Service]")
            && service.contains("Type=oneshot")
            && service.contains("ExecStart=/usr/local/bin/trawl")
    );
    assert!(
        timer.contains("[Timer]")
            && timer.contains("OnCalendar=")
            && timer.contains("Unit=trawl-nightly.service")
            && timer.contains("[Install]")
    );
    let exec = service
        .lines()
        .find(|l| l.starts_with("ExecStart="))
        .unwrap();
    let args: Vec<&str> = exec.split_whitespace().skip(1).collect();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_trawl"))
        .args(&args[..args.len() - 2])
        .arg("--help")
        .output()
        .unwrap();
    assert!(o.status.success(), "ExecStart uses real flags");
    let _ = ok;
}

/// `deploy/slurm/crawl.sbatch` starts its tasks with srun (a stub here that starts them all at
/// once, as Slurm does), each crawling its share of the registered domains.
#[test]
fn slurm_crawl_tasks_run_together_as_workers() {
    let demo = crate::support::demo_web();
    let seeds = &demo.seeds;
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("c.toml");
    std::fs::write(
        &cfg,
        format!(
            "[crawl]\nseeds = [{}]\ndelay_ms = 0\nallow_private_addresses = true\nstate_dir = \"{}\"\n",
            seeds,
            dir.path().join("journal").display()
        ),
    )
    .unwrap();
    stub_command(
        &dir.path().join("srun"),
        "#!/usr/bin/env bash\npids=()\nfor i in $(seq 0 $((SLURM_NTASKS - 1))); do SLURM_PROCID=$i \"$@\" & pids+=($!); done\nfor p in \"${pids[@]}\"; do wait \"$p\"; done\n",
    );
    let out = dir.path().join("run");
    let o = std::process::Command::new("bash")
        .arg(deploy("slurm/crawl.sbatch"))
        .args(["--quiet", "--config"])
        .arg(&cfg)
        .arg("--output")
        .arg(&out)
        .env(
            "PATH",
            format!(
                "{}:{}",
                dir.path().display(),
                std::env::var("PATH").unwrap()
            ),
        )
        .env("TRAWL_BIN", env!("CARGO_BIN_EXE_trawl"))
        .env("SLURM_NTASKS", "2")
        .env_remove("TRAWL_CRAWL_TASK")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for w in ["00000-of-00002", "00001-of-00002"] {
        assert!(
            out.join(format!("crawl/state/{w}.json")).exists(),
            "worker {w} finished"
        );
    }
    assert!(std::fs::read_dir(out.join("crawl/warc")).unwrap().count() >= 2);
}
