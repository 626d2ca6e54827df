//! Metric gates: a minimum for any of the paper's metrics, judged on the point
//! estimate or on the lower end of its 95% interval. The harness (`BEMULA_MIN`,
//! `BEMULA_GATE_ON`), `bemula run`, `bemula test` and `bemula report` (`--min`,
//! `--gate-on`) apply the same gate.
//!
//! ```
//! use bemula::gate::{GateOn, MetricGate};
//! let gate = MetricGate::parse("FE=0.3,Score=0.1", GateOn::Point, "--min").unwrap();
//! assert_eq!(gate.mins.len(), 2);
//! assert!(MetricGate::parse("FE=high", GateOn::Point, "--min").is_err());
//! ```

use crate::metrics::MetricSet;
use crate::report::Summary;

/// What a metric gate compares with its threshold.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum GateOn {
    /// The point estimate (the default).
    #[default]
    Point,
    /// The lower end of the 95% cluster-bootstrap interval: the gate passes only when
    /// the run is confidently above the threshold.
    Lower,
}

impl std::str::FromStr for GateOn {
    type Err = String;
    fn from_str(s: &str) -> Result<GateOn, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "point" | "estimate" => Ok(GateOn::Point),
            "lower" => Ok(GateOn::Lower),
            _ => Err(format!(
                "{s:?}: expected `point` (the point estimate) or `lower` (the lower end of the 95% interval)"
            )),
        }
    }
}

impl GateOn {
    /// How a gate line names it.
    pub fn describe(self) -> &'static str {
        match self {
            GateOn::Point => "point estimate",
            GateOn::Lower => "lower end of the 95% interval",
        }
    }
}

/// One minimum: a metric key of [`MetricSet::KEYS`] and a fraction in [0, 1].
#[derive(Debug, Clone, PartialEq)]
pub struct Minimum {
    /// The metric, spelt as in [`MetricSet::KEYS`].
    pub metric: &'static str,
    /// The threshold, a fraction.
    pub min: f64,
}

/// A gate on metric minimums.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricGate {
    /// The minimums, in the order given.
    pub mins: Vec<Minimum>,
    /// What is compared with them.
    pub on: GateOn,
    /// Where the gate came from (`--min`, `BEMULA_MIN`), for its lines.
    pub source: String,
}

/// A metric key as [`MetricSet::KEYS`] spells it, matched without regard to case.
pub fn metric_key(name: &str) -> Option<&'static str> {
    let name = name.trim();
    MetricSet::KEYS
        .iter()
        .copied()
        .find(|k| k.eq_ignore_ascii_case(name))
}

impl MetricGate {
    /// Parses `FE=0.3,Score=0.1`: comma-separated `METRIC=FRACTION` pairs, metrics
    /// among RA, FE, PR, RLA, AR, RPR, FA, UG and Score (any case), fractions in
    /// [0, 1]. An error names the part that is wrong.
    pub fn parse(spec: &str, on: GateOn, source: &str) -> Result<MetricGate, String> {
        let mut mins: Vec<Minimum> = Vec::new();
        for part in spec.split(',') {
            let part = part.trim();
            if part.is_empty() {
                return Err(format!(
                    "{spec:?}: an empty part; expected METRIC=FRACTION pairs separated by commas, e.g. FE=0.3,Score=0.1"
                ));
            }
            let (name, value) = part
                .split_once('=')
                .ok_or_else(|| format!("{part:?}: expected METRIC=FRACTION, e.g. FE=0.3"))?;
            let metric = metric_key(name).ok_or_else(|| {
                format!(
                    "{part:?}: unknown metric {:?} (expected one of {})",
                    name.trim(),
                    MetricSet::KEYS.join(", ")
                )
            })?;
            let min = value
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|x| (0.0..=1.0).contains(x))
                .ok_or_else(|| {
                    format!(
                        "{part:?}: {:?} is not a fraction in [0, 1] (percent 30 is 0.3)",
                        value.trim()
                    )
                })?;
            if mins.iter().any(|m| m.metric == metric) {
                return Err(format!("{part:?}: {metric} is given twice"));
            }
            mins.push(Minimum { metric, min });
        }
        Ok(MetricGate {
            mins,
            on,
            source: source.to_string(),
        })
    }

    /// The gate as `--min` takes it: `FE=0.3,Score=0.1`.
    pub fn spec(&self) -> String {
        self.mins
            .iter()
            .map(|m| format!("{}={}", m.metric, m.min))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Checks `summary`: whether every minimum holds, and one line per metric naming
    /// the metric, its value, its interval and its threshold.
    pub fn check(&self, summary: &Summary) -> (bool, Vec<String>) {
        let mut pass = true;
        let mut lines = Vec::new();
        for Minimum { metric, min } in &self.mins {
            let value = summary.metrics.get(metric);
            let interval = summary.intervals.get(*metric);
            let shown = match (value, interval) {
                (Some(v), Some(i)) => format!("{v:.3} [{:.3}, {:.3}]", i.lo, i.hi),
                (Some(v), None) => format!("{v:.3} (no interval)"),
                (None, _) => "undefined".to_string(),
            };
            let compared = match self.on {
                GateOn::Point => value,
                GateOn::Lower => value.and(interval.map(|i| i.lo)),
            };
            let (ok, why) = match compared {
                Some(x) => (x + 1e-12 >= *min, None),
                None if value.is_none() => (false, Some("the metric is undefined")),
                None => (
                    false,
                    Some("no interval to gate on (bootstrap resamples are 0)"),
                ),
            };
            pass &= ok;
            lines.push(format!(
                "bemula gate: {metric} {shown} {} {} {metric}={min} ({}): {}{}",
                if ok { ">=" } else { "<" },
                self.source,
                self.on.describe(),
                if ok { "PASS" } else { "FAIL" },
                why.map(|w| format!(" ({w})")).unwrap_or_default()
            ));
        }
        (pass, lines)
    }
}
