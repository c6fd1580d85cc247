//! Additive statistics: merged across batches, shards and workers with `+=`.

use std::collections::BTreeMap;
use std::ops::AddAssign;

use serde::{Deserialize, Serialize};

/// A histogram over fixed, caller-chosen bucket upper bounds (the last bucket is open).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Histogram {
    /// Upper bounds of the buckets, ascending.
    pub bounds: Vec<f64>,
    /// Counts, one more than `bounds` (the overflow bucket).
    pub counts: Vec<u64>,
}

impl Histogram {
    /// An empty histogram with these bucket upper bounds.
    pub fn with_bounds(bounds: Vec<f64>) -> Self {
        let n = bounds.len() + 1;
        Histogram {
            bounds,
            counts: vec![0; n],
        }
    }

    /// Count one value.
    pub fn add(&mut self, v: f64) {
        let i = self
            .bounds
            .iter()
            .position(|b| v <= *b)
            .unwrap_or(self.bounds.len());
        if self.counts.len() != self.bounds.len() + 1 {
            self.counts.resize(self.bounds.len() + 1, 0);
        }
        self.counts[i] += 1;
    }
}

impl AddAssign<&Histogram> for Histogram {
    fn add_assign(&mut self, o: &Histogram) {
        if self.bounds.is_empty() && self.counts.is_empty() {
            *self = o.clone();
            return;
        }
        if self.bounds != o.bounds {
            // Different bucketings cannot be merged bucket-wise; keep totals in overflow so
            // counts stay additive rather than silently wrong.
            let total: u64 = o.counts.iter().sum();
            if let Some(last) = self.counts.last_mut() {
                *last += total;
            }
            return;
        }
        for (a, b) in self.counts.iter_mut().zip(&o.counts) {
            *a += *b;
        }
    }
}

/// Accounting for one stage: done by the runner, never by the stage.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct StageStats {
    /// Records that entered the stage.
    pub seen: u64,
    /// Records that left it.
    pub kept: u64,
    /// Records dropped, per reason.
    pub dropped: BTreeMap<String, u64>,
    /// Records dropped because processing failed, per error kind (also counted in
    /// `dropped["record_error"]`).
    pub errors: BTreeMap<String, u64>,
    /// Bytes of text that entered.
    pub bytes_in: u64,
    /// Bytes of text that left.
    pub bytes_out: u64,
    /// Time spent in the stage, nanoseconds.
    pub nanos: u64,
    /// Extra additive counters (tokens written, pages rendered, ...).
    pub counters: BTreeMap<String, u64>,
    /// Histograms of signals, by name.
    pub histograms: BTreeMap<String, Histogram>,
}

impl StageStats {
    /// Total dropped over all reasons.
    pub fn dropped_total(&self) -> u64 {
        self.dropped.values().sum()
    }

    /// Count a drop for `reason`.
    pub fn drop_for(&mut self, reason: &str) {
        *self.dropped.entry(reason.to_string()).or_default() += 1;
    }

    /// Add to a named counter.
    pub fn count(&mut self, name: &str, n: u64) {
        *self.counters.entry(name.to_string()).or_default() += n;
    }
}

impl AddAssign<&StageStats> for StageStats {
    fn add_assign(&mut self, o: &StageStats) {
        self.seen += o.seen;
        self.kept += o.kept;
        for (k, v) in &o.dropped {
            *self.dropped.entry(k.clone()).or_default() += v;
        }
        for (k, v) in &o.errors {
            *self.errors.entry(k.clone()).or_default() += v;
        }
        self.bytes_in += o.bytes_in;
        self.bytes_out += o.bytes_out;
        self.nanos += o.nanos;
        for (k, v) in &o.counters {
            *self.counters.entry(k.clone()).or_default() += v;
        }
        for (k, h) in &o.histograms {
            *self.histograms.entry(k.clone()).or_default() += h;
        }
    }
}

/// Stats of several stages, keyed by stage name, in pipeline order of first appearance.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunStats {
    /// Stage names in order.
    pub order: Vec<String>,
    /// Stats per stage.
    pub stages: BTreeMap<String, StageStats>,
}

impl RunStats {
    /// The stats of a stage, if it ran.
    pub fn stage(&self, name: &str) -> Option<&StageStats> {
        self.stages.get(name)
    }

    /// The stats of a stage, created on first use.
    pub fn stage_mut(&mut self, name: &str) -> &mut StageStats {
        if !self.stages.contains_key(name) {
            self.order.push(name.to_string());
        }
        self.stages.entry(name.to_string()).or_default()
    }
}

impl AddAssign<&RunStats> for RunStats {
    fn add_assign(&mut self, o: &RunStats) {
        for name in &o.order {
            let s = &o.stages[name];
            *self.stage_mut(name) += s;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_add() {
        let mut a = StageStats {
            seen: 3,
            kept: 2,
            ..Default::default()
        };
        a.drop_for("x");
        let mut b = StageStats {
            seen: 1,
            kept: 0,
            ..Default::default()
        };
        b.drop_for("x");
        let mut h = Histogram::with_bounds(vec![1.0, 2.0]);
        h.add(1.5);
        b.histograms.insert("len".into(), h);
        a += &b;
        assert_eq!((a.seen, a.kept, a.dropped["x"]), (4, 2, 2));
        assert_eq!(a.histograms["len"].counts, vec![0, 1, 0]);
    }
}
