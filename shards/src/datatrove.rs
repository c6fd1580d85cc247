//! datatrove's tokenized layout: `<name>.ds` holds the tokens back to back (little-endian
//! uint16 or uint32), `<name>.ds.index` the cumulative document ends in tokens (uint64),
//! `<name>.ds.metadata` the tokenizer name and token count (`name|token_size\ncount\n`).

/// `(ds, index, metadata)` bytes for documents with `token_size` 2 or 4.
pub fn write(
    docs: &[&[u32]],
    token_size: usize,
    tokenizer_name: &str,
) -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    let mut ds = Vec::new();
    let mut index = Vec::with_capacity(docs.len() * 8);
    let mut end = 0u64;
    for d in docs {
        for t in *d {
            if token_size == 2 {
                ds.extend_from_slice(
                    &(u16::try_from(*t).expect("token fits uint16 for this vocabulary"))
                        .to_le_bytes(),
                );
            } else {
                ds.extend_from_slice(&t.to_le_bytes());
            }
        }
        end += d.len() as u64;
        index.extend_from_slice(&end.to_le_bytes());
    }
    let meta = format!("{tokenizer_name}|{token_size}\n{end}\n").into_bytes();
    (ds, index, meta)
}

/// Reads documents back.
pub fn read(ds: &[u8], index: &[u8], token_size: usize) -> Result<Vec<Vec<u32>>, String> {
    if index.len() % 8 != 0 || ds.len() % token_size != 0 {
        return Err("truncated datatrove files".into());
    }
    let toks: Vec<u32> = ds
        .chunks_exact(token_size)
        .map(|c| {
            if token_size == 2 {
                u16::from_le_bytes([c[0], c[1]]) as u32
            } else {
                u32::from_le_bytes([c[0], c[1], c[2], c[3]])
            }
        })
        .collect();
    let mut out = Vec::new();
    let mut start = 0usize;
    for c in index.chunks_exact(8) {
        let end = u64::from_le_bytes(c.try_into().expect("8 bytes")) as usize;
        if end < start || end > toks.len() {
            return Err(format!("bad document end {end}"));
        }
        out.push(toks[start..end].to_vec());
        start = end;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn roundtrip() {
        for ts in [2, 4] {
            let docs: Vec<&[u32]> = vec![&[1, 2, 3], &[9], &[]];
            let (ds, idx, meta) = super::write(&docs, ts, "t");
            assert_eq!(
                super::read(&ds, &idx, ts).unwrap(),
                vec![vec![1, 2, 3], vec![9], vec![]]
            );
            assert_eq!(String::from_utf8(meta).unwrap(), format!("t|{ts}\n4\n"));
        }
    }
}
