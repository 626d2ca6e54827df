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
    /// The gate of the `--min` flag, when given; an error names the flag.
    pub fn from_flag(spec: Option<&str>, on: GateOn) -> Result<Option<MetricGate>, String> {
        spec.map(|spec| MetricGate::parse(spec, on, "--min"))
            .transpose()
            .map_err(|e| format!("--min {e}"))
    }

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

/// A regression gate: the run fails when the paired cluster bootstrap (the machinery
/// of `bemula compare`) says a metric fell below a blessed baseline's by more than its
/// tolerance with 95% confidence, that is, when the whole 95% interval of
/// `run − baseline` lies below `−tolerance`.
#[derive(Debug, Clone, PartialEq)]
pub struct RegressionGate {
    /// The baseline's report directory (`summary.json` and `results.jsonl`).
    pub baseline: std::path::PathBuf,
    /// Tolerated drop per metric (fractions), `Score=0.02`; the same format as
    /// [`MetricGate::parse`]. Metrics not listed are reported but not gated.
    pub max_drop: Vec<Minimum>,
    /// The bootstrap of the paired differences.
    pub bootstrap: crate::metrics::BootstrapConfig,
}

/// What a baseline differs in from the run, when it cannot be compared: one entry per
/// difference, naming the setting and both values.
pub fn baseline_differences(
    baseline: &crate::report::RunInfo,
    run: &crate::report::RunInfo,
) -> Vec<String> {
    let mut out = Vec::new();
    let mut differ = |what: &str, a: &str, b: &str| {
        if a != b {
            out.push(format!("{what}: baseline {a:?}, this run {b:?}"));
        }
    };
    differ(
        "dataset checksum",
        &baseline.dataset_checksum,
        &run.dataset_checksum,
    );
    differ("dataset", &baseline.dataset, &run.dataset);
    differ("judge", &baseline.judge, &run.judge);
    differ("answerer", &baseline.answerer, &run.answerer);
    out
}

impl RegressionGate {
    /// Parses `--max-drop Score=0.02,FE=0.05` for the baseline at `baseline`.
    pub fn parse(
        baseline: impl Into<std::path::PathBuf>,
        max_drop: &str,
        bootstrap: crate::metrics::BootstrapConfig,
    ) -> Result<RegressionGate, String> {
        let gate = MetricGate::parse(max_drop, GateOn::Point, "--max-drop")?;
        Ok(RegressionGate {
            baseline: baseline.into(),
            max_drop: gate.mins,
            bootstrap,
        })
    }

    /// Compares the run (`summary`, `records`) with the baseline: whether it passes,
    /// and one line per gated metric with both values, the paired difference and its
    /// 95% interval. An error when the baseline cannot be read or is of other data, or
    /// another judge or answerer, naming what differs.
    pub fn check(
        &self,
        summary: &Summary,
        records: &[crate::record::Record],
    ) -> Result<(bool, Vec<String>), String> {
        let (base, base_records) =
            crate::report::read_verified(&self.baseline).map_err(|e| {
                format!(
                    "the baseline {} cannot be read: {e} (write one with `bemula bless-baseline REPORT_DIR {}`)",
                    self.baseline.display(),
                    self.baseline.display()
                )
            })?;
        let differences = baseline_differences(&base.config, &summary.config);
        if !differences.is_empty() {
            return Err(format!(
                "the baseline {} is not comparable with this run: {}",
                self.baseline.display(),
                differences.join("; ")
            ));
        }
        let intervals =
            crate::metrics::bootstrap_difference(records, &base_records, &self.bootstrap)
                .map_err(|e| format!("the paired bootstrap against the baseline: {e}"))?;
        let mut pass = true;
        let mut lines = Vec::new();
        for Minimum { metric, min: tol } in &self.max_drop {
            let (now, before) = (summary.metrics.get(metric), base.metrics.get(metric));
            let diff = now.zip(before).map(|(n, b)| n - b);
            let interval = intervals.get(*metric);
            let (ok, verdict) = match (diff, interval) {
                (Some(_), Some(i)) if i.hi < -tol - 1e-12 => (
                    false,
                    format!("FAIL (worse by more than {tol} with 95% confidence)"),
                ),
                (Some(_), Some(_)) => (true, "PASS".to_string()),
                (Some(d), None) if d < -tol - 1e-12 => (
                    false,
                    format!(
                        "FAIL (worse by more than {tol}; no interval, bootstrap resamples are 0)"
                    ),
                ),
                (Some(_), None) => (true, "PASS (no interval)".to_string()),
                (None, _) => (false, "FAIL (the metric is undefined)".to_string()),
            };
            pass &= ok;
            let show = |v: Option<f64>| v.map(|v| format!("{v:.3}")).unwrap_or("undefined".into());
            lines.push(format!(
                "bemula gate: {metric} {} against baseline {}: difference {}{} (paired 95% interval), --max-drop {metric}={tol}: {verdict}",
                show(now),
                show(before),
                diff.map(signed).unwrap_or("undefined".into()),
                interval
                    .map(|i| format!(" [{}, {}]", signed(i.lo), signed(i.hi)))
                    .unwrap_or_default(),
            ));
        }
        Ok((pass, lines))
    }
}

/// A difference with its sign and three decimals; one that rounds to zero is `+0.000`
/// whatever its sign (two sums of the same records in another order may differ in the
/// last bit, and "-0.000" would read as a drop).
fn signed(value: f64) -> String {
    let text = format!("{value:+.3}");
    if text == "-0.000" {
        "+0.000".to_string()
    } else {
        text
    }
}

/// Writes the report directory `from` (its `summary.json` and `results.jsonl`, checked
/// to belong together, and `summary.md`) as the baseline `to`. When `from` is the
/// output directory of a `bemula run` of several systems (one report directory per
/// system), each system's reports become `to/<system dir>`, the layout `bemula run
/// --baseline` reads.
pub fn bless_baseline(from: &std::path::Path, to: &std::path::Path) -> Result<String, String> {
    if !from.join(crate::report::SUMMARY_JSON).is_file() {
        let mut systems: Vec<std::path::PathBuf> = std::fs::read_dir(from)
            .map_err(|e| format!("{}: {e}", from.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.join(crate::report::SUMMARY_JSON).is_file())
            .collect();
        systems.sort();
        if systems.is_empty() {
            return Err(format!(
                "{}: no report to bless: neither a {} here nor report directories holding one",
                from.display(),
                crate::report::SUMMARY_JSON
            ));
        }
        let mut lines = Vec::new();
        for system in systems {
            let name = system.file_name().unwrap_or_default();
            lines.push(bless_one(&system, &to.join(name))?);
        }
        return Ok(lines.join("\n"));
    }
    bless_one(from, to)
}

/// Blesses one report directory.
fn bless_one(from: &std::path::Path, to: &std::path::Path) -> Result<String, String> {
    let (summary, _) = crate::report::read_verified(from).map_err(|e| e.to_string())?;
    std::fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    for name in [
        crate::report::SUMMARY_JSON,
        crate::report::RESULTS,
        crate::report::SUMMARY_MD,
    ] {
        let source = from.join(name);
        if !source.is_file() && name == crate::report::SUMMARY_MD {
            continue;
        }
        let bytes = std::fs::read(&source).map_err(|e| format!("{}: {e}", source.display()))?;
        crate::report::write_file(&to.join(name), &bytes).map_err(|e| e.to_string())?;
    }
    let (passed, total) = summary.passed();
    Ok(format!(
        "bemula: blessed {} as the baseline {} ({}, Score {}, {passed} of {total} requests passed)",
        from.display(),
        to.display(),
        summary.config.system.name,
        summary
            .metrics
            .score
            .map(|s| format!("{s:.3}"))
            .unwrap_or("undefined".into())
    ))
}

#[cfg(test)]
mod tests {
    use super::signed;

    #[test]
    fn a_difference_that_rounds_to_zero_has_no_minus_sign() {
        assert_eq!(signed(-1e-16), "+0.000");
        assert_eq!(signed(-0.0), "+0.000");
        assert_eq!(signed(0.0004), "+0.000");
        assert_eq!(signed(-0.0006), "-0.001");
        assert_eq!(signed(0.25), "+0.250");
    }
}
