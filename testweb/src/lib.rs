//! `trawl-testweb`: a fixture web on loopback for tests, benchmarks and the demo.
//!
//! Each [`Site`] is served by its own listener on its own 127.0.0.0/8 address (127.0.0.2,
//! 127.0.0.3, ... with an ephemeral port), so a crawler sees many distinct hosts, each with
//! its own robots.txt. Responses can carry faults: delays, slow drip, truncated bodies,
//! connection resets, redirects and arbitrary status codes. Nothing listens beyond loopback.
//!
//! Bodies may contain `{{site:NAME}}`, replaced at serve time by that site's base URL, so
//! sites can link to each other although ports are only known once bound.
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! let web = trawl_testweb::TestWeb::start(trawl_testweb::demo::sites()).await?;
//! println!("seed: {}", web.base_url("news").unwrap());
//! # Ok(()) }
//! ```
#![deny(missing_docs)]

pub mod demo;
mod server;

pub use server::{Fault, Response, Site, TestWeb};
