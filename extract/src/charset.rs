use encoding_rs::Encoding;

/// The `charset` parameter of a Content-Type header.
pub(crate) fn from_content_type(ct: &str) -> Option<&str> {
    ct.split(';').skip(1).find_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim().eq_ignore_ascii_case("charset").then(|| v.trim().trim_matches(['"', '\'']))
    })
}

/// Decodes HTML bytes to text: BOM first, then the HTTP charset, then a `<meta charset>` or
/// `http-equiv` declaration in the first 2 KiB, else UTF-8. Invalid bytes become U+FFFD;
/// nothing panics.
pub fn decode(bytes: &[u8], declared: Option<&str>) -> String {
    if let Some((enc, bom_len)) = Encoding::for_bom(bytes) {
        return enc.decode_without_bom_handling(&bytes[bom_len..]).0.into_owned();
    }
    let enc = declared
        .and_then(|d| Encoding::for_label(d.as_bytes()))
        .or_else(|| sniff_meta(&bytes[..bytes.len().min(2048)]))
        .unwrap_or(encoding_rs::UTF_8);
    // a declared UTF-16 without BOM is almost always wrong for HTML
    let enc = if enc == encoding_rs::UTF_16LE || enc == encoding_rs::UTF_16BE { encoding_rs::UTF_8 } else { enc };
    enc.decode_without_bom_handling(bytes).0.into_owned()
}

fn sniff_meta(head: &[u8]) -> Option<&'static Encoding> {
    let lower: Vec<u8> = head.iter().map(|b| b.to_ascii_lowercase()).collect();
    let mut i = 0;
    while let Some(pos) = find(&lower[i..], b"charset") {
        let start = i + pos + 7;
        let rest = &lower[start..];
        let rest = rest.iter().skip_while(|b| b.is_ascii_whitespace()).collect::<Vec<_>>();
        if rest.first() == Some(&&b'=') {
            let label: Vec<u8> = rest[1..]
                .iter()
                .map(|b| **b)
                .skip_while(|b| b.is_ascii_whitespace() || *b == b'"' || *b == b'\'')
                .take_while(|b| b.is_ascii_alphanumeric() || *b == b'-' || *b == b'_' || *b == b':')
                .collect();
            if let Some(e) = Encoding::for_label(&label) {
                return Some(e);
            }
        }
        i = start;
    }
    None
}

fn find(h: &[u8], n: &[u8]) -> Option<usize> {
    h.windows(n.len()).position(|w| w == n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charsets() {
        let latin1 = b"<meta charset=\"iso-8859-1\"><p>caf\xe9</p>";
        assert!(decode(latin1, None).contains("café"));
        assert!(decode(b"<p>caf\xc3\xa9</p>", Some("utf-8")).contains("café"));
        assert!(decode(b"\xef\xbb\xbf<p>x</p>", Some("iso-8859-1")).starts_with("<p>"));
        let w1252 = b"<meta http-equiv=\"Content-Type\" content=\"text/html; charset=windows-1252\"><p>\x93q\x94</p>";
        assert!(decode(w1252, None).contains("\u{201c}q\u{201d}"));
        // invalid utf-8 never panics
        assert!(decode(b"<p>\xff\xfe\xfd</p>", None).contains('\u{fffd}'));
        assert_eq!(from_content_type("text/html; charset=\"Shift_JIS\""), Some("Shift_JIS"));
    }
}
