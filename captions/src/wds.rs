//! WebDataset shards: POSIX tar files whose members are grouped into samples by the part of
//! the file name before the first dot (`KEY.jpg` + `KEY.json`). Members are written with a
//! fixed mtime, owner and mode, so the same samples give byte-identical shards on a rerun.

/// One sample's files, appended in order.
pub struct TarWriter {
    out: tar::Builder<Vec<u8>>,
    /// `(member name, byte offset of its data in the tar, size)` of every member written.
    pub members: Vec<(String, u64, u64)>,
    offset: u64,
}

impl std::fmt::Debug for TarWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TarWriter")
            .field("members", &self.members.len())
            .field("bytes", &self.offset)
            .finish()
    }
}

impl Default for TarWriter {
    fn default() -> Self {
        Self::new()
    }
}

impl TarWriter {
    /// An empty shard.
    pub fn new() -> TarWriter {
        let mut out = tar::Builder::new(Vec::new());
        out.mode(tar::HeaderMode::Deterministic);
        TarWriter {
            out,
            members: Vec::new(),
            offset: 0,
        }
    }

    /// Appends a file. Keys must not contain dots or slashes (WebDataset splits on them).
    pub fn append(&mut self, name: &str, data: &[u8]) -> std::io::Result<()> {
        let mut h = tar::Header::new_ustar();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_mtime(0);
        h.set_uid(0);
        h.set_gid(0);
        h.set_entry_type(tar::EntryType::Regular);
        // names longer than ustar's 100 bytes use a GNU long-name record, which costs a block
        self.out.append_data(&mut h, name, data)?;
        self.offset = self.out.get_ref().len() as u64;
        let data_at = self.offset - (data.len() as u64).div_ceil(512) * 512;
        self.members
            .push((name.to_string(), data_at, data.len() as u64));
        Ok(())
    }

    /// Number of members.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Whether nothing was written.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// The finished tar bytes (with the two zero blocks that end an archive).
    pub fn finish(self) -> std::io::Result<Vec<u8>> {
        self.out.into_inner()
    }
}

/// Whether `key` is a valid WebDataset key (no dot, slash or NUL; not empty).
pub fn valid_key(key: &str) -> bool {
    !key.is_empty() && !key.contains(['.', '/', '\0'])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_round_trip_and_are_deterministic() {
        let build = || {
            let mut w = TarWriter::new();
            w.append("abc-0001.jpg", b"\xff\xd8jpeg bytes").unwrap();
            w.append("abc-0001.json", br#"{"alt":"a cat"}"#).unwrap();
            w.finish().unwrap()
        };
        let (a, b) = (build(), build());
        assert_eq!(a, b);
        let mut ar = tar::Archive::new(std::io::Cursor::new(a));
        let names: Vec<String> = ar
            .entries()
            .unwrap()
            .map(|e| e.unwrap().path().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["abc-0001.jpg", "abc-0001.json"]);
        assert!(valid_key("abc-0001") && !valid_key("a.b") && !valid_key(""));
    }
}
