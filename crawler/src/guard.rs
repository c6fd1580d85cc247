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
            if let Some(v4) = embedded_ipv4(v6) {
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

/// The IPv4 address an IPv6 address stands for, where a translator or tunnel delivers it to
/// that IPv4 host: IPv4-mapped (`::ffff:a.b.c.d`), IPv4-compatible (`::a.b.c.d`, deprecated but
/// still routed by some stacks), NAT64 (`64:ff9b::a.b.c.d`, RFC 6052, and the local-use
/// `64:ff9b:1::/48` of RFC 8215), 6to4 (`2002:AABB:CCDD::/48`, RFC 3056) and Teredo
/// (`2001:0::/32`, the client address stored inverted in the last 32 bits, RFC 4380). Such an
/// address is judged by the IPv4 address it carries: `64:ff9b::7f00:1` is loopback.
fn embedded_ipv4(v6: std::net::Ipv6Addr) -> Option<std::net::Ipv4Addr> {
    use std::net::Ipv4Addr;
    if let Some(v4) = v6.to_ipv4_mapped() {
        return Some(v4);
    }
    let s = v6.segments();
    let low =
        |hi: u16, lo: u16| Ipv4Addr::new((hi >> 8) as u8, hi as u8, (lo >> 8) as u8, lo as u8);
    // IPv4-compatible: 96 zero bits; `::` and `::1` are the unspecified and loopback addresses.
    if s[..6].iter().all(|&x| x == 0) && (s[6] != 0 || s[7] > 1) {
        return Some(low(s[6], s[7]));
    }
    if s[0] == 0x64 && s[1] == 0xff9b && (s[2..6].iter().all(|&x| x == 0) || s[2] == 1) {
        return Some(low(s[6], s[7]));
    }
    if s[0] == 0x2002 {
        return Some(low(s[1], s[2]));
    }
    if s[0] == 0x2001 && s[1] == 0 {
        return Some(low(!s[6], !s[7]));
    }
    None
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
            "::127.0.0.1",
            "::10.0.0.1",
            "64:ff9b::127.0.0.1",
            "64:ff9b::a9fe:a9fe",
            "64:ff9b:1::10.1.1.1",
            "2002:7f00:1::1",
            "2002:a9fe:a9fe::",
            "2002:c0a8:0101:1::5",
            "2001:0:4136:e378:8000:63bf:80ff:fffe", // Teredo for 127.0.0.1
        ] {
            assert!(!is_public(ip.parse().unwrap()), "{ip} is not public");
        }
        for ip in [
            "93.184.216.34",
            "8.8.8.8",
            "2606:4700::1111",
            "64:ff9b::8.8.8.8",
            "2002:5db8:d822::1",
        ] {
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
