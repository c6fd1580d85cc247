//! The SSRF guard: trawl never connects to private, loopback, link-local, multicast or
//! otherwise non-public addresses unless `allow_private_addresses` is set (the tests and the
//! demo set it, their web is on 127.0.0.x). IP-literal URLs and `resolve` overrides are
//! checked before a request; names are checked after DNS resolution by the resolver every
//! connection goes through, so redirects cannot bypass it.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use url::Url;

/// The guard.
#[derive(Debug, Clone, Default)]
pub struct Guard {
    /// Allow non-public addresses.
    pub allow_private: bool,
    /// `host` -> address overrides (from `[crawl] resolve`).
    pub resolve: HashMap<String, SocketAddr>,
}

/// Whether an address is publicly routable.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            !(v4.is_private()
                || v4.is_loopback()
                || v4.is_link_local()
                || v4.is_multicast()
                || v4.is_broadcast()
                || v4.is_unspecified()
                || v4.is_documentation()
                || o[0] == 0
                || (o[0] == 100 && (64..128).contains(&o[1])) // CGNAT 100.64/10
                || (o[0] == 192 && o[1] == 0 && o[2] == 0) // IETF protocol assignments
                || (o[0] == 198 && (18..20).contains(&o[1])) // benchmarking
                || o[0] >= 240)
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_public(IpAddr::V4(v4));
            }
            let s = v6.segments();
            !(v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (s[0] & 0xfe00) == 0xfc00
                || (s[0] & 0xffc0) == 0xfe80
                || s[0] == 0x2001 && s[1] == 0x0db8)
        }
    }
}

impl Guard {
    /// Whether the guard lets trawl connect to `ip`.
    pub fn ip_allowed(&self, ip: IpAddr) -> bool {
        self.allow_private || is_public(ip)
    }

    /// Checks a URL whose address is known without DNS (IP literal or `resolve` override).
    pub fn check_url(&self, u: &Url) -> Result<(), String> {
        let host = u.host_str().unwrap_or("");
        let ip = match u.host() {
            Some(url::Host::Ipv4(v4)) => Some(IpAddr::V4(v4)),
            Some(url::Host::Ipv6(v6)) => Some(IpAddr::V6(v6)),
            _ => self.resolve.get(&host.to_ascii_lowercase()).map(|a| a.ip()),
        };
        match ip {
            Some(ip) if !self.ip_allowed(ip) => Err(format!("{host} is the non-public address {ip} (set crawl.allow_private_addresses to crawl it)")),
            _ => Ok(()),
        }
    }
}

/// DNS through the guard, cached for five minutes per name: addresses the guard refuses are
/// removed; a name left without any address fails to resolve.
pub(crate) struct GuardResolver(pub Arc<Guard>, pub DnsCache);

/// Resolved addresses by name, with the time they were looked up.
pub(crate) type DnsCache =
    Arc<std::sync::Mutex<HashMap<String, (std::time::Instant, Vec<SocketAddr>)>>>;

const DNS_TTL: std::time::Duration = std::time::Duration::from_secs(300);

/// The addresses of `host`, from the cache while fresh, else from DNS (then cached).
pub(crate) async fn lookup_cached(
    cache: &DnsCache,
    host: &str,
) -> std::io::Result<Vec<SocketAddr>> {
    let cached = cache
        .lock()
        .expect("dns cache")
        .get(host)
        .filter(|(t, _)| t.elapsed() < DNS_TTL)
        .map(|(_, a)| a.clone());
    if let Some(a) = cached {
        return Ok(a);
    }
    let a: Vec<SocketAddr> = tokio::net::lookup_host((host, 0)).await?.collect();
    cache
        .lock()
        .expect("dns cache")
        .insert(host.to_string(), (std::time::Instant::now(), a.clone()));
    Ok(a)
}

impl reqwest::dns::Resolve for GuardResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let guard = self.0.clone();
        let cache = self.1.clone();
        let host = name.as_str().to_string();
        Box::pin(async move {
            let addrs = lookup_cached(&cache, &host).await?;
            let allowed: Vec<SocketAddr> = addrs
                .iter()
                .copied()
                .filter(|a| guard.ip_allowed(a.ip()))
                .collect();
            if allowed.is_empty() && !addrs.is_empty() {
                return Err(format!(
                    "ssrf guard: {host} resolves only to non-public addresses ({})",
                    addrs
                        .iter()
                        .map(|a| a.ip().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
                .into());
            }
            Ok(Box::new(allowed.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn address_classes() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "224.0.0.1",
            "::1",
            "fe80::1",
            "fd00::1",
            "::ffff:127.0.0.1",
        ] {
            assert!(!is_public(ip.parse().unwrap()), "{ip} is not public");
        }
        for ip in ["93.184.216.34", "8.8.8.8", "2606:4700::1111"] {
            assert!(is_public(ip.parse().unwrap()), "{ip} is public");
        }
        let g = Guard::default();
        assert!(g
            .check_url(&Url::parse("http://169.254.169.254/latest/meta-data").unwrap())
            .is_err());
        assert!(g
            .check_url(&Url::parse("http://[::1]:8080/").unwrap())
            .is_err());
        assert!(g
            .check_url(&Url::parse("http://example.org/").unwrap())
            .is_ok());
        let mut g = Guard::default();
        g.resolve
            .insert("news.test".into(), "127.0.0.2:80".parse().unwrap());
        assert!(g
            .check_url(&Url::parse("http://news.test/").unwrap())
            .is_err());
        g.allow_private = true;
        assert!(g
            .check_url(&Url::parse("http://news.test/").unwrap())
            .is_ok());
    }
}
