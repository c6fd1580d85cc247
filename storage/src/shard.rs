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

    /// Reads this worker's shard from the environment: a Slurm job array
    /// (`SLURM_ARRAY_TASK_ID`, `SLURM_ARRAY_TASK_COUNT`, and `SLURM_ARRAY_TASK_MIN`/`_STEP`
    /// when the array does not start at 0 or steps: `--array=1-8` is shards 0..8) or a
    /// Kubernetes indexed Job (`JOB_COMPLETION_INDEX` with `TRAWL_SHARD_COUNT`). `None` when
    /// neither is set; an error naming the variable when the values cannot be a shard (a
    /// count of 0, an index past the count), so no task silently skips work.
    pub fn from_env() -> Result<Option<ShardSpec>, String> {
        Self::from_vars(|k| std::env::var(k).ok())
    }

    /// [`ShardSpec::from_env`] over any variable source (tests).
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Option<ShardSpec>, String> {
        let get = |k: &str| -> Result<Option<usize>, String> {
            match var(k) {
                None => Ok(None),
                Some(v) => v.trim().parse::<usize>().map(Some).map_err(|_| {
                    format!("environment variable {k}={v:?} is not a non-negative number")
                }),
            }
        };
        if let (Some(id), Some(count)) =
            (get("SLURM_ARRAY_TASK_ID")?, get("SLURM_ARRAY_TASK_COUNT")?)
        {
            let min = get("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
            let step = get("SLURM_ARRAY_TASK_STEP")?.unwrap_or(1).max(1);
            if count == 0 {
                return Err(
                    "SLURM_ARRAY_TASK_COUNT is 0: a job array needs at least one task".into(),
                );
            }
            if id < min || (id - min) % step != 0 {
                return Err(format!(
                    "SLURM_ARRAY_TASK_ID {id} is not in the array (SLURM_ARRAY_TASK_MIN {min}, step {step})"
                ));
            }
            let index = (id - min) / step;
            if index >= count {
                return Err(format!(
                    "SLURM_ARRAY_TASK_ID {id} gives shard {index} of {count}: shards are numbered from 0; \
                     submit --array=0-{} (or export SLURM_ARRAY_TASK_MIN), or pass --shard i/n",
                    count - 1
                ));
            }
            return Ok(Some(ShardSpec { index, count }));
        }
        if let Some(index) = get("JOB_COMPLETION_INDEX")? {
            let count = get("TRAWL_SHARD_COUNT")?.ok_or(
                "JOB_COMPLETION_INDEX is set but TRAWL_SHARD_COUNT is not: set it to the Job's completions",
            )?;
            if count == 0 || index >= count {
                return Err(format!(
                    "JOB_COMPLETION_INDEX {index} with TRAWL_SHARD_COUNT {count}: the index must be below the count (and the count at least 1)"
                ));
            }
            return Ok(Some(ShardSpec { index, count }));
        }
        Ok(None)
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

    fn env(vars: &[(&str, &str)]) -> Result<Option<ShardSpec>, String> {
        let m: std::collections::HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        ShardSpec::from_vars(|k| m.get(k).cloned())
    }

    #[test]
    fn shards_from_slurm_and_kubernetes_are_checked() {
        assert_eq!(env(&[]), Ok(None));
        let s = |index, count| Ok(Some(ShardSpec { index, count }));
        assert_eq!(
            env(&[
                ("SLURM_ARRAY_TASK_ID", "2"),
                ("SLURM_ARRAY_TASK_COUNT", "3")
            ]),
            s(2, 3)
        );
        // --array=1-3: Slurm sets MIN, so ids 1..3 are shards 0..2 and nothing is skipped
        let one_based = |id| {
            env(&[
                ("SLURM_ARRAY_TASK_ID", id),
                ("SLURM_ARRAY_TASK_COUNT", "3"),
                ("SLURM_ARRAY_TASK_MIN", "1"),
            ])
        };
        assert_eq!((one_based("1"), one_based("3")), (s(0, 3), s(2, 3)));
        // --array=0-8:4 (ids 0, 4, 8)
        let step = [
            ("SLURM_ARRAY_TASK_COUNT", "3"),
            ("SLURM_ARRAY_TASK_STEP", "4"),
        ];
        assert_eq!(
            env(&[step[0], step[1], ("SLURM_ARRAY_TASK_ID", "8")]),
            s(2, 3)
        );
        // a 1-based id without MIN is refused with the fix, never wrapped around
        let e = env(&[
            ("SLURM_ARRAY_TASK_ID", "3"),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
        ])
        .unwrap_err();
        assert!(
            e.contains("numbered from 0") && e.contains("--array=0-2"),
            "{e}"
        );
        assert!(env(&[
            ("SLURM_ARRAY_TASK_ID", "0"),
            ("SLURM_ARRAY_TASK_COUNT", "0")
        ])
        .is_err());
        assert!(env(&[
            ("SLURM_ARRAY_TASK_ID", "x"),
            ("SLURM_ARRAY_TASK_COUNT", "2")
        ])
        .is_err());
        assert_eq!(
            env(&[("JOB_COMPLETION_INDEX", "1"), ("TRAWL_SHARD_COUNT", "4")]),
            s(1, 4)
        );
        assert!(env(&[("JOB_COMPLETION_INDEX", "4"), ("TRAWL_SHARD_COUNT", "4")]).is_err());
        assert!(env(&[("JOB_COMPLETION_INDEX", "0"), ("TRAWL_SHARD_COUNT", "0")]).is_err());
        assert!(env(&[("JOB_COMPLETION_INDEX", "0")]).is_err());
    }
}
