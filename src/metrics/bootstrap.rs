//! The cluster bootstrap over instances (Appendix K).
//!
//! Instances are the independent unit: each resample draws as many instance ids as
//! there are instances, uniformly with replacement, and recomputes every metric over
//! all items of the drawn instances (both versions). Effective correctness is computed
//! per instance before resampling, so control-probe conditioning is kept; each
//! instance is reduced to pass/total counts, and a resample is a sum of those.
//!
//! Intervals are percentile intervals: the bounds are the (1 − level)/2 and
//! (1 + level)/2 quantiles of the resampled values, each by linear interpolation
//! between order statistics (Hyndman–Fan type 7, the default of R and NumPy: with the
//! m values sorted, quantile p is read at position (m − 1)·p from 0). A metric
//! undefined in a resample is left out of that metric's values; a metric undefined in
//! every resample has no interval.
//!
//! Draws are deterministic for a seed: `ChaCha8Rng::seed_from_u64(seed)`, each index
//! drawn from 64 random bits by rejection of the biased low range (as OpenBSD's
//! `arc4random_uniform`), so the same seed gives the same intervals everywhere.

use super::MetricSet;
use super::effective;
use super::summary::{Summary, summarise};
use crate::record::Record;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// Settings of the bootstrap.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BootstrapConfig {
    /// Number of resamples (the paper uses 10,000).
    pub resamples: usize,
    /// Seed of the draws.
    pub seed: u64,
    /// Confidence level, strictly between 0 and 1 (0.95 for 95% intervals).
    pub level: f64,
}

impl Default for BootstrapConfig {
    fn default() -> Self {
        BootstrapConfig {
            resamples: 10_000,
            seed: 42,
            level: 0.95,
        }
    }
}

/// A confidence interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// Lower bound.
    pub lo: f64,
    /// Upper bound.
    pub hi: f64,
}

impl Interval {
    /// Whether `value` lies in the interval, bounds included.
    pub fn contains(&self, value: f64) -> bool {
        self.lo <= value && value <= self.hi
    }
}

/// An invalid bootstrap setting.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum BootstrapError {
    /// The confidence level is not strictly between 0 and 1.
    #[error("bootstrap confidence level {0} must be strictly between 0 and 1")]
    Level(f64),
    /// Zero resamples were asked for.
    #[error("bootstrap resamples must be at least 1")]
    NoResamples,
}

impl BootstrapConfig {
    /// Checks the settings.
    pub fn validate(&self) -> Result<(), BootstrapError> {
        if !(self.level > 0.0 && self.level < 1.0) {
            return Err(BootstrapError::Level(self.level));
        }
        if self.resamples == 0 {
            return Err(BootstrapError::NoResamples);
        }
        Ok(())
    }
}

/// Percentile intervals of every metric (keys [`MetricSet::KEYS`]); a metric with no
/// defined resample is absent. No records give an empty map.
pub fn bootstrap(
    records: &[Record],
    config: &BootstrapConfig,
) -> Result<BTreeMap<String, Interval>, BootstrapError> {
    config.validate()?;
    let items = effective::score(records);
    let summaries: Vec<Summary> = summarise(&items, |_| true).into_values().collect();
    Ok(resample(summaries.len(), config, |drawn| {
        total(&summaries, drawn).metrics().values()
    }))
}

/// Percentile intervals of the difference `a − b` of every metric between two systems
/// on the same instances: each resample draws one set of instance ids and uses it for
/// both (a paired bootstrap). An instance present in only one of the two counts as
/// empty for the other. A metric undefined for either system in a resample is left
/// out of that resample.
pub fn bootstrap_difference(
    a: &[Record],
    b: &[Record],
    config: &BootstrapConfig,
) -> Result<BTreeMap<String, Interval>, BootstrapError> {
    config.validate()?;
    let items_a = effective::score(a);
    let items_b = effective::score(b);
    let by_a = summarise(&items_a, |_| true);
    let by_b = summarise(&items_b, |_| true);
    let ids: BTreeSet<&str> = by_a.keys().chain(by_b.keys()).copied().collect();
    let pick = |map: &BTreeMap<&str, Summary>| -> Vec<Summary> {
        ids.iter()
            .map(|id| map.get(id).copied().unwrap_or_default())
            .collect()
    };
    let (summaries_a, summaries_b) = (pick(&by_a), pick(&by_b));
    Ok(resample(ids.len(), config, |drawn| {
        let ma = total(&summaries_a, drawn).metrics().values();
        let mb = total(&summaries_b, drawn).metrics().values();
        std::array::from_fn(|k| Some(ma[k]? - mb[k]?))
    }))
}

/// The sum of the drawn instances' summaries.
fn total(summaries: &[Summary], drawn: &[usize]) -> Summary {
    let mut sum = Summary::default();
    for &i in drawn {
        sum.merge(&summaries[i]);
    }
    sum
}

/// Runs the resamples over `n` instances and turns each metric's values into an
/// interval.
fn resample(
    n: usize,
    config: &BootstrapConfig,
    mut evaluate: impl FnMut(&[usize]) -> [Option<f64>; 9],
) -> BTreeMap<String, Interval> {
    let mut intervals = BTreeMap::new();
    if n == 0 {
        return intervals;
    }
    let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
    let mut drawn = vec![0usize; n];
    let mut values: [Vec<f64>; 9] = std::array::from_fn(|_| Vec::with_capacity(config.resamples));
    for _ in 0..config.resamples {
        for slot in drawn.iter_mut() {
            *slot = draw_index(&mut rng, n);
        }
        for (k, value) in evaluate(&drawn).into_iter().enumerate() {
            values[k].extend(value);
        }
    }
    let tail = (1.0 - config.level) / 2.0;
    for (key, mut metric_values) in MetricSet::KEYS.into_iter().zip(values) {
        if metric_values.is_empty() {
            continue;
        }
        metric_values.sort_by(f64::total_cmp);
        intervals.insert(
            key.to_string(),
            Interval {
                lo: quantile(&metric_values, tail),
                hi: quantile(&metric_values, 1.0 - tail),
            },
        );
    }
    intervals
}

/// A uniform index in `0..n` (n ≥ 1), without modulo bias.
fn draw_index(rng: &mut ChaCha8Rng, n: usize) -> usize {
    let n = n as u64;
    // 2^64 mod n: values below it would make the low residues more likely.
    let threshold = n.wrapping_neg() % n;
    loop {
        let x = rng.next_u64();
        if x >= threshold {
            return (x % n) as usize;
        }
    }
}

/// The type-7 quantile `p` of sorted, non-empty `values`.
fn quantile(values: &[f64], p: f64) -> f64 {
    let position = (values.len() - 1) as f64 * p;
    let below = position.floor() as usize;
    let above = position.ceil() as usize;
    let fraction = position - below as f64;
    values[below] + fraction * (values[above] - values[below])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_interpolate_between_order_statistics() {
        let values = [0.0, 1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile(&values, 0.0), 0.0);
        assert_eq!(quantile(&values, 1.0), 4.0);
        assert_eq!(quantile(&values, 0.5), 2.0);
        assert!((quantile(&values, 0.025) - 0.1).abs() < 1e-12);
        assert!((quantile(&values, 0.975) - 3.9).abs() < 1e-12);
        assert_eq!(quantile(&[7.0], 0.3), 7.0);
    }

    #[test]
    fn index_draws_are_in_range_and_cover_it() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut seen = [0usize; 7];
        for _ in 0..7_000 {
            seen[draw_index(&mut rng, 7)] += 1;
        }
        // Each residue about 1,000 times; far outside 800..1200 would mean a bias.
        assert!(seen.iter().all(|&c| (800..1200).contains(&c)), "{seen:?}");
        assert_eq!(draw_index(&mut rng, 1), 0);
    }

    #[test]
    fn invalid_settings_are_errors() {
        let bad_level = BootstrapConfig {
            level: 1.0,
            ..BootstrapConfig::default()
        };
        assert_eq!(bad_level.validate(), Err(BootstrapError::Level(1.0)));
        let nan = BootstrapConfig {
            level: f64::NAN,
            ..BootstrapConfig::default()
        };
        assert!(nan.validate().is_err());
        let none = BootstrapConfig {
            resamples: 0,
            ..BootstrapConfig::default()
        };
        assert_eq!(none.validate(), Err(BootstrapError::NoResamples));
        assert_eq!(BootstrapConfig::default().validate(), Ok(()));
    }
}
