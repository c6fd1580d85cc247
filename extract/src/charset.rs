use encoding_rs::Encoding;

/// The `charset` parameter of a Content-Type header.
pub(crate) fn from_content_type(ct: &str) -> Option<&str> {
    ct.split(';').skip(1).find_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| v.trim().trim_matches(['"', '\'']))
    })
}

/// Decodes HTML bytes to text. In order: a BOM; bytes that are valid UTF-8 with non-ASCII
/// text are UTF-8 whatever a declaration says (legacy encodings practically never form valid
/// multi-byte UTF-8, while pages re-encoded to UTF-8 often keep their old `<meta charset>`);
/// the HTTP charset, then a `<meta charset>` or `http-equiv` declaration in the first 2 KiB;
/// when there is no usable declaration (or UTF-8 is declared but the bytes are not UTF-8),
/// detection with chardetng. Invalid bytes become U+FFFD; nothing panics.
pub fn decode<'a>(bytes: &'a [u8], declared: Option<&str>) -> std::borrow::Cow<'a, str> {
    if let Some((enc, bom_len)) = Encoding::for_bom(bytes) {
        return enc.decode_without_bom_handling(&bytes[bom_len..]).0;
    }
    if let Ok(s) = std::str::from_utf8(bytes) {
        return std::borrow::Cow::Borrowed(s);
    }
    let enc = declared
        .and_then(|d| Encoding::for_label(d.as_bytes()))
        .or_else(|| sniff_meta(&bytes[..bytes.len().min(2048)]));
    // a declared UTF-16 without BOM is almost always wrong for HTML; declared UTF-8 is
    // wrong here (the bytes are not UTF-8)
    let enc = enc.filter(|e| {
        *e != encoding_rs::UTF_16LE && *e != encoding_rs::UTF_16BE && *e != encoding_rs::UTF_8
    });
    let enc = enc.unwrap_or_else(|| {
        // from just before the first byte beyond ASCII: the head's scripts and styles before
        // it say nothing of the encoding, and read from the top they crowd the page's text out
        // of the bytes read (`bench/charset.py`: of 769 WCXB pages written in legacy encodings
        // without their declarations, 746 read back exactly, against 725 read from the top)
        let first = bytes.iter().position(|b| !b.is_ascii()).unwrap_or(0);
        let from = first.saturating_sub(DETECT_CONTEXT);
        let mut det = chardetng::EncodingDetector::new();
        det.feed(&bytes[from..bytes.len().min(from + DETECT_BYTES)], true);
        det.guess(None, true)
    });
    enc.decode_without_bom_handling(bytes).0
}

/// Bytes chardetng reads ([`decode`]; with 64 or 128 KiB fewer pages read back exactly).
const DETECT_BYTES: usize = 256 * 1024;
/// ASCII bytes it reads before the first byte beyond ASCII (the words around it).
const DETECT_CONTEXT: usize = 256;

fn sniff_meta(head: &[u8]) -> Option<&'static Encoding> {
    let lower: Vec<u8> = head.iter().map(|b| b.to_ascii_lowercase()).collect();
    let mut i = 0;
    while let Some(pos) = find(&lower[i..], b"charset") {
        let start = i + pos + 7;
        let rest = &lower[start..];
        let rest = rest
            .iter()
            .skip_while(|b| b.is_ascii_whitespace())
            .collect::<Vec<_>>();
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
        assert!(decode(b"<p>\xff\xfe\xfd</p>", None).starts_with("<p>"));
        assert!(decode(b"\x80\x81\xfe\xff\x00<", Some("utf-16")).len() >= 3);
        assert_eq!(
            from_content_type("text/html; charset=\"Shift_JIS\""),
            Some("Shift_JIS")
        );
        // re-encoded to UTF-8 but still declaring gb2312
        let re = "<meta charset=gb2312><p>谷歌在2014年收购的人工智能公司</p>";
        assert!(decode(re.as_bytes(), None).contains("人工智能公司"));
        assert!(decode(re.as_bytes(), Some("gb2312")).contains("人工智能公司"));
        // no declaration: detected
        let (gbk, _, _) = encoding_rs::GBK.encode(
            "<p>谷歌在2014年收购的人工智能公司开发出一款能够用自己的记忆学习新知识的计算机。</p>",
        );
        assert!(decode(&gbk, None).contains("人工智能公司"));
        let (sjis, _, _) =
            encoding_rs::SHIFT_JIS.encode("<p>東京の天気は晴れです。明日は雨が降るでしょう。</p>");
        assert!(decode(&sjis, None).contains("東京の天気"));
        // UTF-8 declared but the bytes are windows-1252
        assert!(decode(
            b"<p>Caf\xe9 cr\xe8me br\xfbl\xe9e for the na\xefve</p>",
            Some("utf-8")
        )
        .contains("Café crème"));
    }

    #[test]
    fn detection_reads_the_text_after_a_long_ascii_head() {
        // 300 KB of scripts before the first Cyrillic paragraph, no declaration: read from the
        // top, the detector saw ASCII only and guessed windows-1252
        let head = format!(
            "<html><head><script>{}</script></head><body>",
            "var a = b + c; // setup\n".repeat(12_000)
        );
        let (body, _, _) = encoding_rs::WINDOWS_1251
            .encode("<p>Москва является столицей России и крупнейшим городом страны.</p>");
        let mut page = head.into_bytes();
        page.extend_from_slice(&body);
        assert!(page.len() > DETECT_BYTES);
        assert!(decode(&page, None).contains("столицей России"));
    }
}
