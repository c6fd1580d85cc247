//! The closed list of trawl's stages. Everything that walks "every stage" (the config
//! fingerprint, `--force`, `trawl status`, dry runs, the report) derives from it, so adding
//! a stage is a new variant and the compiler points at every `match` that must handle it.

use std::fmt;

/// A stage: a folder of output and a group of completion markers under the run root.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StageId {
    /// Fetching pages into WARC parts.
    Crawl,
    /// Pages to documents.
    Extract,
    /// Language, quality, safety and consent filters.
    Filter,
    /// Streaming exact and near-duplicate removal (also the batch `apply` phase).
    Dedup,
    /// Batch dedup phase 1: MinHash signatures per input shard.
    DedupSignatures,
    /// Batch dedup phase 2: LSH buckets.
    DedupBuckets,
    /// Batch dedup phase 3: duplicate clusters.
    DedupClusters,
    /// Image/alt-text pairs and interleaved documents.
    Captions,
    /// Token shards.
    Shards,
}

impl StageId {
    /// Every stage, in pipeline order (batch dedup phases after the streaming dedup).
    pub const ALL: [StageId; 9] = [
        StageId::Crawl,
        StageId::Extract,
        StageId::Filter,
        StageId::Dedup,
        StageId::DedupSignatures,
        StageId::DedupBuckets,
        StageId::DedupClusters,
        StageId::Captions,
        StageId::Shards,
    ];

    /// The stages `trawl run` runs, in order.
    pub const PIPELINE: [StageId; 6] = [
        StageId::Crawl,
        StageId::Extract,
        StageId::Filter,
        StageId::Dedup,
        StageId::Captions,
        StageId::Shards,
    ];

    /// The names of [`StageId::PIPELINE`], for tables keyed by folder.
    pub const PIPELINE_NAMES: [&'static str; 6] = [
        StageId::PIPELINE[0].name(),
        StageId::PIPELINE[1].name(),
        StageId::PIPELINE[2].name(),
        StageId::PIPELINE[3].name(),
        StageId::PIPELINE[4].name(),
        StageId::PIPELINE[5].name(),
    ];

    /// The name: the output folder, the marker group (`_done/<name>/`) and the CLI word.
    pub const fn name(self) -> &'static str {
        match self {
            StageId::Crawl => "crawl",
            StageId::Extract => "extract",
            StageId::Filter => "filter",
            StageId::Dedup => "dedup",
            StageId::DedupSignatures => "dedup-signatures",
            StageId::DedupBuckets => "dedup-buckets",
            StageId::DedupClusters => "dedup-clusters",
            StageId::Captions => "captions",
            StageId::Shards => "shards",
        }
    }

    /// The stage of this name.
    pub fn from_name(name: &str) -> Option<StageId> {
        StageId::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The stage whose documents this one's output is made from (its config counts in this
    /// stage's fingerprint). The batch dedup phases all descend from the filter's output.
    pub const fn upstream(self) -> Option<StageId> {
        match self {
            StageId::Crawl => None,
            StageId::Extract => Some(StageId::Crawl),
            StageId::Filter => Some(StageId::Extract),
            StageId::Dedup
            | StageId::DedupSignatures
            | StageId::DedupBuckets
            | StageId::DedupClusters => Some(StageId::Filter),
            StageId::Captions | StageId::Shards => Some(StageId::Dedup),
        }
    }

    /// This stage and every stage upstream of it, from the first.
    pub fn lineage(self) -> Vec<StageId> {
        let mut v = vec![self];
        while let Some(u) = v.last().and_then(|s| s.upstream()) {
            v.push(u);
        }
        v.reverse();
        v
    }

    /// Whether the stage is a batch dedup phase (markers only, its shards are not the
    /// crawl's parts).
    pub const fn is_dedup_phase(self) -> bool {
        matches!(
            self,
            StageId::DedupSignatures | StageId::DedupBuckets | StageId::DedupClusters
        )
    }
}

impl fmt::Display for StageId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_lineage_starts_at_the_crawl() {
        for s in StageId::ALL {
            assert_eq!(StageId::from_name(s.name()), Some(s));
            assert_eq!(s.lineage()[0], StageId::Crawl);
            assert_eq!(*s.lineage().last().unwrap(), s);
        }
        assert_eq!(
            StageId::Shards.lineage(),
            [
                StageId::Crawl,
                StageId::Extract,
                StageId::Filter,
                StageId::Dedup,
                StageId::Shards
            ]
        );
        assert!(StageId::PIPELINE.iter().all(|s| StageId::ALL.contains(s)));
    }
}
