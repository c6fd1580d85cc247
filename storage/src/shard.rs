use std::fmt;
use std::str::FromStr;

/// A worker's share of a listing: worker `index` of `count`. Object `k` of the sorted listing
/// belongs to worker `k % count`, so the partition depends only on the listing, and output
/// names (derived from `k`) do not depend on the number of workers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShardSpec {
    /// This worker, 0-based.
    pub index: usize,
    /// Number of workers.
    pub count: usize,
}

impl Default for ShardSpec {
    fn default() -> Self {
        ShardSpec { index: 0, count: 1 }
    }
}

impl ShardSpec {
    /// Whether item `k` of a sorted listing is this worker's.
    pub fn owns(&self, k: usize) -> bool {
        k % self.count == self.index
    }

    /// Reads `SLURM_ARRAY_TASK_ID`/`SLURM_ARRAY_TASK_COUNT` or Kubernetes
    /// `JOB_COMPLETION_INDEX` with `TRAWL_SHARD_COUNT`, when present.
    pub fn from_env() -> Option<ShardSpec> {
        let get = |k: &str| {
            std::env::var(k)
                .ok()
                .and_then(|v| v.trim().parse::<usize>().ok())
        };
        if let (Some(i), Some(n)) = (get("SLURM_ARRAY_TASK_ID"), get("SLURM_ARRAY_TASK_COUNT")) {
            return Some(ShardSpec { index: i, count: n });
        }
        if let (Some(i), Some(n)) = (get("JOB_COMPLETION_INDEX"), get("TRAWL_SHARD_COUNT")) {
            return Some(ShardSpec { index: i, count: n });
        }
        None
    }
}

impl FromStr for ShardSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (i, n) = s
            .split_once('/')
            .ok_or_else(|| format!("`{s}` is not of the form i/n (e.g. 0/4)"))?;
        let index: usize = i
            .trim()
            .parse()
            .map_err(|_| format!("`{i}` in `{s}` is not a number"))?;
        let count: usize = n
            .trim()
            .parse()
            .map_err(|_| format!("`{n}` in `{s}` is not a number"))?;
        if count == 0 {
            return Err(format!("`{s}`: the number of shards must be at least 1"));
        }
        if index >= count {
            return Err(format!(
                "`{s}`: the shard index must be below {count} (shards are numbered from 0)"
            ));
        }
        Ok(ShardSpec { index, count })
    }
}

impl fmt::Display for ShardSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_partition() {
        let s: ShardSpec = "1/3".parse().unwrap();
        let mine: Vec<usize> = (0..10).filter(|k| s.owns(*k)).collect();
        assert_eq!(mine, vec![1, 4, 7]);
        assert!("3/3".parse::<ShardSpec>().is_err());
        assert!("0/0".parse::<ShardSpec>().is_err());
        assert!("x".parse::<ShardSpec>().is_err());
        // every item has exactly one owner
        let all: Vec<ShardSpec> = (0..4).map(|i| ShardSpec { index: i, count: 4 }).collect();
        for k in 0..100 {
            assert_eq!(all.iter().filter(|s| s.owns(k)).count(), 1);
        }
    }
}
