//! Serves the bundled demo web, or a generated benchmark web, until killed; prints the seed
//! URLs as a JSON list on the first line of stdout.
//!
//! `cargo run --release -p trawl-testweb --example serve -- [demo | bench HOSTS PAGES | render HOSTS PAGES | images HOSTS N | farm LINKS] [PORT]`
//!
//! `farm LINKS`: one host whose front page links to LINKS distinct pages spread over nine
//! other hosts (to measure what a queued URL costs the crawler).

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()?;
    rt.block_on(async {
        let (sites, port) = match args.first().map(String::as_str) {
            Some("images") => {
                let hosts = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(4);
                let n = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(500);
                (
                    trawl_testweb::demo::image_bench_sites(hosts, n),
                    args.get(3).and_then(|a| a.parse().ok()).unwrap_or(0),
                )
            }
            Some("farm") => {
                let links: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(100_000);
                let body: String = (0..links)
                    .map(|i| format!("<a href=\"{{{{site:t{}}}}}/p/{i}\">{i}</a>\n", i % 9))
                    .collect();
                let mut sites = vec![trawl_testweb::Site::new("farm")
                    .route("/robots.txt", trawl_testweb::Response::status(404))
                    .route(
                        "/",
                        trawl_testweb::Response::html(format!("<html><body>{body}</body></html>")),
                    )];
                for t in 0..9 {
                    sites.push(trawl_testweb::Site::new(&format!("t{t}")));
                }
                (sites, args.get(2).and_then(|a| a.parse().ok()).unwrap_or(0))
            }
            Some(kind @ ("bench" | "render")) => {
                let hosts = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(10);
                let pages = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(300);
                let sites = if kind == "render" {
                    trawl_testweb::demo::render_bench_sites(hosts, pages)
                } else {
                    trawl_testweb::demo::bench_sites(hosts, pages)
                };
                (sites, args.get(3).and_then(|a| a.parse().ok()).unwrap_or(0))
            }
            _ => (
                trawl_testweb::demo::sites(),
                args.get(1).and_then(|a| a.parse().ok()).unwrap_or(0),
            ),
        };
        let names: Vec<String> = sites.iter().map(|s| s.name.clone()).collect();
        let web = trawl_testweb::TestWeb::start_on(sites, port, std::time::Duration::ZERO).await?;
        let seeds: Vec<String> = names
            .iter()
            .filter_map(|n| web.base_url(n))
            .map(|b| format!("\"{b}/\""))
            .collect();
        println!("[{}]", seeds.join(", "));
        use std::io::Write;
        std::io::stdout().flush()?;
        std::future::pending::<()>().await;
        Ok(())
    })
}
