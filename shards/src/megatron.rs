//! The Megatron-LM indexed dataset format (`MMIDIDX`), as read by megatron-core's
//! `IndexedDataset`: `.bin` holds the tokens of every sequence back to back; `.idx` holds
//! a header, the sequence lengths (int32), byte offsets (int64) and document boundaries
//! (int64, starting at 0). One document is one sequence here.

/// Token dtypes trawl writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DType {
    /// numpy uint16 (code 8): vocabularies below 65,536 ids.
    U16,
    /// numpy int32 (code 4).
    I32,
}

impl DType {
    /// The smallest dtype holding every id of a vocabulary.
    pub fn for_vocab(vocab: u32) -> DType {
        if vocab <= 65_536 {
            DType::U16
        } else {
            DType::I32
        }
    }
    fn code(self) -> u8 {
        match self {
            DType::U16 => 8,
            DType::I32 => 4,
        }
    }
    fn size(self) -> usize {
        match self {
            DType::U16 => 2,
            DType::I32 => 4,
        }
    }
    /// numpy name.
    pub fn name(self) -> &'static str {
        match self {
            DType::U16 => "uint16",
            DType::I32 => "int32",
        }
    }
}

const HEADER: &[u8; 9] = b"MMIDIDX\x00\x00";

/// Builds a `.bin`/`.idx` pair in memory.
#[derive(Debug)]
pub struct Writer {
    dtype: DType,
    bin: Vec<u8>,
    lengths: Vec<i32>,
}

impl Writer {
    /// An empty dataset with this dtype.
    pub fn new(dtype: DType) -> Writer {
        Writer {
            dtype,
            bin: Vec::new(),
            lengths: Vec::new(),
        }
    }

    /// Appends one document (one sequence).
    pub fn add_document(&mut self, ids: &[u32]) {
        for id in ids {
            match self.dtype {
                DType::U16 => self.bin.extend_from_slice(
                    &(u16::try_from(*id).expect("id fits the dtype chosen for the vocabulary"))
                        .to_le_bytes(),
                ),
                DType::I32 => self.bin.extend_from_slice(&(*id as i32).to_le_bytes()),
            }
        }
        self.lengths.push(ids.len() as i32);
    }

    /// `(bin, idx)` bytes.
    pub fn finish(self) -> (Vec<u8>, Vec<u8>) {
        let n = self.lengths.len();
        let mut idx = Vec::with_capacity(34 + n * 20);
        idx.extend_from_slice(HEADER);
        idx.extend_from_slice(&1u64.to_le_bytes());
        idx.push(self.dtype.code());
        idx.extend_from_slice(&(n as u64).to_le_bytes());
        idx.extend_from_slice(&((n + 1) as u64).to_le_bytes());
        for l in &self.lengths {
            idx.extend_from_slice(&l.to_le_bytes());
        }
        let mut ptr = 0i64;
        for l in &self.lengths {
            idx.extend_from_slice(&ptr.to_le_bytes());
            ptr += *l as i64 * self.dtype.size() as i64;
        }
        for d in 0..=n {
            idx.extend_from_slice(&(d as i64).to_le_bytes());
        }
        (self.bin, idx)
    }
}

/// Reads a dataset back: one token vector per sequence. Errors say what is malformed.
pub fn read(idx: &[u8], bin: &[u8]) -> Result<Vec<Vec<u32>>, String> {
    if idx.len() < 34 || &idx[..9] != HEADER {
        return Err("not a Megatron MMIDIDX index".into());
    }
    let u64_at = |o: usize| u64::from_le_bytes(idx[o..o + 8].try_into().expect("8 bytes"));
    if u64_at(9) != 1 {
        return Err(format!("unsupported index version {}", u64_at(9)));
    }
    let (dtype, size) = match idx[17] {
        8 => (DType::U16, 2),
        4 => (DType::I32, 4),
        c => return Err(format!("unsupported dtype code {c}")),
    };
    let n = u64_at(18) as usize;
    let lengths_at = 34;
    let pointers_at = lengths_at + 4 * n;
    if idx.len() < pointers_at + 8 * n {
        return Err("index truncated".into());
    }
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let len = i32::from_le_bytes(
            idx[lengths_at + 4 * i..lengths_at + 4 * i + 4]
                .try_into()
                .expect("4"),
        ) as usize;
        let ptr = i64::from_le_bytes(
            idx[pointers_at + 8 * i..pointers_at + 8 * i + 8]
                .try_into()
                .expect("8"),
        ) as usize;
        let end = ptr + len * size;
        if end > bin.len() {
            return Err(format!("sequence {i} runs past the end of .bin"));
        }
        let toks = bin[ptr..end]
            .chunks_exact(size)
            .map(|c| match dtype {
                DType::U16 => u16::from_le_bytes([c[0], c[1]]) as u32,
                DType::I32 => i32::from_le_bytes([c[0], c[1], c[2], c[3]]) as u32,
            })
            .collect();
        out.push(toks);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roundtrip_both_dtypes() {
        for dt in [DType::U16, DType::I32] {
            let mut w = Writer::new(dt);
            w.add_document(&[1, 2, 3]);
            w.add_document(&[]);
            w.add_document(&[65_000]);
            let (bin, idx) = w.finish();
            assert_eq!(
                read(&idx, &bin).unwrap(),
                vec![vec![1, 2, 3], vec![], vec![65_000]]
            );
            assert_eq!(idx.len(), 34 + 3 * 4 + 3 * 8 + 4 * 8);
        }
        assert!(read(b"garbage", b"").is_err());
    }
}
