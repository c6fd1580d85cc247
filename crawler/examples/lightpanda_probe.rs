//! What lightpanda's CDP server supports of what the renderer needs: a page target with a
//! flat session, an init script, request interception that fulfils the main document and a
//! script's fetch, and an awaited evaluation. Prints each step and the CPU the browser used.
//!
//! `cargo run --release -p trawl-crawler --example lightpanda_probe -- PATH_TO_LIGHTPANDA [pages]`

use std::time::{Duration, Instant};

use base64::Engine;
use serde_json::{json, Value};
use trawl_crawler::cdp::{Cdp, Reply};

const PAGE: &str = r#"<!doctype html><html><body><div id=a>static text</div>
<script>fetch('/api').then(r => r.json()).then(j => { document.getElementById('a').textContent = j.t; });</script>
<script>window.addEventListener('scroll', () => { if (!document.getElementById('s')) { const p = document.createElement('p'); p.id = 's'; p.textContent = 'loaded on scroll'; document.body.appendChild(p); } });</script>
</body></html>"#;

fn cpu_ms(pid: u32) -> u64 {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let f: Vec<&str> = s
        .rsplit(')')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect();
    let t: u64 = f.get(11).and_then(|x| x.parse().ok()).unwrap_or(0)
        + f.get(12).and_then(|x| x.parse().ok()).unwrap_or(0);
    t * 10
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let bin = args.get(1).expect("path to lightpanda");
    let pages: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(1);
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut child = std::process::Command::new(bin)
        .args([
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            &port.to_string(),
            "--log-level",
            "error",
        ])
        .env("LIGHTPANDA_DISABLE_TELEMETRY", "true")
        .spawn()
        .expect("spawn lightpanda");
    let addr = format!("127.0.0.1:{port}").parse().unwrap();
    let mut cdp = Cdp::connect(addr, "/", Duration::from_secs(5)).expect("connect");
    let dl = || Instant::now() + Duration::from_secs(10);
    let mut handler = |m: &str, p: &Value| -> Vec<Reply> {
        if m != "Fetch.requestPaused" {
            return vec![];
        }
        let id = p["requestId"].clone();
        let url = p["request"]["url"].as_str().unwrap_or("");
        let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
        let ok = |ct: &str, body: &str| {
            (
                "Fetch.fulfillRequest",
                json!({"requestId": id, "responseCode": 200,
                "responseHeaders": [{"name": "Content-Type", "value": ct}], "body": b64(body)}),
            )
        };
        if url.ends_with("/page") {
            vec![ok("text/html", PAGE)]
        } else if url.ends_with("/api") {
            vec![ok("application/json", r#"{"t": "text from the api"}"#)]
        } else {
            vec![(
                "Fetch.failRequest",
                json!({"requestId": id, "errorReason": "BlockedByClient"}),
            )]
        }
    };
    let t = cdp
        .simple(
            None,
            "Target.createTarget",
            json!({"url": "about:blank"}),
            dl(),
        )
        .expect("createTarget");
    println!("createTarget: {t}");
    let target = t["targetId"].as_str().unwrap().to_string();
    let a = cdp
        .simple(
            None,
            "Target.attachToTarget",
            json!({"targetId": target, "flatten": true}),
            dl(),
        )
        .expect("attach");
    let s = a["sessionId"].as_str().unwrap().to_string();
    let s = Some(s.as_str());
    for (m, p) in [
        ("Page.enable", json!({})),
        ("Runtime.enable", json!({})),
        (
            "Page.addScriptToEvaluateOnNewDocument",
            json!({"source": "window.__init = 'init ran';"}),
        ),
        ("Fetch.enable", json!({"patterns": [{"urlPattern": "*"}]})),
    ] {
        println!("{m}: {:?}", cdp.simple(s, m, p, dl()));
    }
    let start_cpu = cpu_ms(child.id());
    let t0 = Instant::now();
    for i in 0..pages {
        let nav = cdp.call(
            s,
            "Page.navigate",
            json!({"url": "http://127.0.0.1:9/page"}),
            dl(),
            &mut handler,
        );
        let js = "new Promise(r => { const t0 = Date.now(); const w = () => { if (document.readyState === 'complete' && Date.now() - t0 > 100) { window.scrollBy(0, 500); window.dispatchEvent(new Event('scroll')); setTimeout(() => r(document.body.innerText + ' | ' + window.__init), 50); } else setTimeout(w, 20); }; w(); })";
        let ev = cdp.call(
            s,
            "Runtime.evaluate",
            json!({"expression": js, "awaitPromise": true, "returnByValue": true}),
            dl(),
            &mut handler,
        );
        if i == 0 {
            println!("navigate: {nav:?}");
            println!("evaluate: {ev:?}");
            let probe = "new Promise(r => { let fired = 0, io = 'none'; window.addEventListener('scroll', () => fired++); const b = document.createElement('button'); b.textContent = 'Load more'; document.body.appendChild(b); if (window.IntersectionObserver) { io = 'exists'; new IntersectionObserver(es => { io = 'fired:' + es.map(e => e.isIntersecting).join(','); }).observe(b); } window.scrollBy(0, 500); setTimeout(() => r(JSON.stringify({ offsetParent: String(b.offsetParent), rects: b.getClientRects().length, scrollHeight: document.documentElement.scrollHeight, innerHeight: window.innerHeight, scrollY: window.scrollY, fired, io, perf: typeof performance.getEntriesByType, style: getComputedStyle(b).display })), 200); })";
            let pr = cdp.call(
                s,
                "Runtime.evaluate",
                json!({"expression": probe, "awaitPromise": true, "returnByValue": true}),
                dl(),
                &mut handler,
            );
            println!("layout probe: {pr:?}");
            let apis = "JSON.stringify({ matchMedia: typeof window.matchMedia, rAF: typeof requestAnimationFrame, bcr: document.body.getBoundingClientRect().width, canvas: typeof document.createElement('canvas').getContext, ctx: String(document.createElement('canvas').getContext && document.createElement('canvas').getContext('2d')), webgl: String(document.createElement('canvas').getContext && document.createElement('canvas').getContext('webgl')), fonts: typeof document.fonts, worker: typeof Worker, ce: typeof customElements, shadow: typeof document.body.attachShadow, offsetWidth: document.body.offsetWidth, innerWidth: window.innerWidth, elementFromPoint: typeof document.elementFromPoint, resize: typeof ResizeObserver })";
            let pr = cdp.call(
                s,
                "Runtime.evaluate",
                json!({"expression": apis, "returnByValue": true}),
                dl(),
                &mut handler,
            );
            println!("apis: {pr:?}");
        }
        let _ = cdp.call(
            s,
            "Page.navigate",
            json!({"url": "about:blank"}),
            dl(),
            &mut handler,
        );
    }
    let cpu = cpu_ms(child.id()) - start_cpu;
    println!(
        "{pages} pages in {:.2} s, lightpanda CPU {cpu} ms ({:.1} ms/page), RSS {} MB",
        t0.elapsed().as_secs_f64(),
        cpu as f64 / pages as f64,
        trawl_crawler::render::tree_rss_mb(child.id())
    );
    let _ = child.kill();
    let _ = child.wait();
}
