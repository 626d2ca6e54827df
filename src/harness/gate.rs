//! The gate on a run's outcomes, shared by the harness and `bemula report`.

use super::*;

/// A gate on a run's outcomes: a minimum request pass rate, an expectations file of
/// known failures, and complete coverage. The harness and `bemula report` apply the
/// same gate.
#[derive(Debug, Clone, Default)]
pub struct Gate {
    /// The minimum request pass rate and where it came from (`BEMULA_MIN_RPR`,
    /// `--min-rpr`).
    pub min_rpr: Option<(f64, String)>,
    /// The expectations file and its known failures.
    pub expectations: Option<(PathBuf, Expectations)>,
    /// Gate on the requests present even when some expected ones are missing.
    pub allow_partial: bool,
    /// Minimums of metrics, checked on the run's summary.
    pub metrics: Option<MetricGate>,
}

/// What a [`Gate`] decided, and the lines that say why.
#[derive(Debug, Clone, PartialEq)]
pub struct GateDecision {
    /// Whether the run passes.
    pub pass: bool,
    /// One line per check, ready to print.
    pub lines: Vec<String>,
    /// The pass-rate line, if there was a pass-rate gate.
    pub rate_line: Option<String>,
    /// The first check that failed, if any.
    pub failed_because: Option<String>,
}

impl GateDecision {
    /// Folds the regression gate's outcome into this decision: a failed regression
    /// fails the run (its first failing line says why); a passed one stands as the
    /// summary line when no pass-rate gate gave one. `lines` are the regression gate's.
    pub fn add_regression(&mut self, pass: bool, lines: &[String]) {
        if !pass {
            self.pass = false;
            self.failed_because.get_or_insert_with(|| {
                lines
                    .iter()
                    .find(|l| l.contains(": FAIL"))
                    .cloned()
                    .unwrap_or_default()
            });
        } else if self.rate_line.is_none() && !lines.is_empty() {
            self.rate_line = Some(
                lines
                    .iter()
                    .map(|l| l.trim_start_matches("bemula gate: "))
                    .collect::<Vec<_>>()
                    .join("; "),
            );
        }
    }

    /// The closing line of a gated run: the decision first, then why, then what
    /// libtest's `test result` line (printed just above) counts.
    pub fn closing_line(&self, failed_tests: u64) -> String {
        let verdict = if self.pass {
            "bemula gate: PASSED (exit status 0)"
        } else {
            "bemula gate: FAILED (exit status 1)"
        };
        let why = self
            .failed_because
            .clone()
            .or_else(|| self.rate_line.clone())
            .or_else(|| self.lines.first().cloned())
            .unwrap_or_default();
        let why = why
            .trim_start_matches("bemula gate: ")
            .trim_start_matches("bemula: ");
        if failed_tests > 0 {
            format!(
                "{verdict}: {why}. The {failed_tests} failed test(s) counted above are requests that failed; the gate decides the run."
            )
        } else {
            format!("{verdict}: {why}.")
        }
    }
}

impl Gate {
    /// Decides on `outcomes` (pass or fail by test name) with the report's `coverage`
    /// (`None`: not checked).
    pub fn decide(
        &self,
        outcomes: &BTreeMap<String, bool>,
        coverage: Option<&report::Coverage>,
    ) -> GateDecision {
        self.decide_with(outcomes, coverage, None)
    }

    /// [`Gate::decide`], with the run's summary for the metric gate (a metric gate
    /// without a summary fails, saying so).
    pub fn decide_with(
        &self,
        outcomes: &BTreeMap<String, bool>,
        coverage: Option<&report::Coverage>,
        summary: Option<&Summary>,
    ) -> GateDecision {
        let mut lines = Vec::new();
        let mut pass = true;
        let mut failed_because = None;
        if let Some(coverage) = coverage.filter(|c| !c.is_complete()) {
            if self.allow_partial {
                lines.push(format!(
                    "bemula gate: {} (allowed by --allow-partial)",
                    coverage.line()
                ));
            } else {
                pass = false;
                failed_because = Some(coverage.line());
                lines.push(format!(
                    "bemula gate: {}: FAIL (a gate needs every expected request; --allow-partial gates on those present)",
                    coverage.line()
                ));
            }
        }
        if let Some((path, known)) = &self.expectations {
            let unexpected: Vec<&String> = outcomes
                .iter()
                .filter(|(n, p)| **p && known.contains(n))
                .map(|(n, _)| n)
                .collect();
            let expected_failures = outcomes
                .iter()
                .filter(|(n, p)| !**p && known.contains(n))
                .count();
            let regressions: Vec<&String> = outcomes
                .iter()
                .filter(|(n, p)| !**p && !known.contains(n))
                .map(|(n, _)| n)
                .collect();
            lines.push(format!(
                "bemula: expectations {}: {expected_failures} expected failures, {} unexpected passes, {} regressions",
                path.display(),
                unexpected.len(),
                regressions.len()
            ));
            for name in &unexpected {
                lines.push(format!(
                    "bemula: unexpectedly passing: {name} (run with BEMULA_BLESS=1 to update the expectations)"
                ));
            }
            for name in &regressions {
                lines.push(format!("bemula: regression: {name}"));
            }
            if !regressions.is_empty() {
                pass = false;
                failed_because.get_or_insert_with(|| {
                    format!(
                        "{} regression(s), first {}",
                        regressions.len(),
                        regressions[0]
                    )
                });
            }
        }
        let mut rate_line = None;
        if let Some((min, source)) = &self.min_rpr {
            let total = outcomes.len();
            let passed = outcomes.values().filter(|p| **p).count();
            let rpr = if total == 0 {
                0.0
            } else {
                passed as f64 / total as f64
            };
            let ok = total > 0 && rpr + 1e-12 >= *min;
            pass &= ok;
            let line = format!(
                "bemula gate: request pass rate {rpr:.3} ({passed} of {total} requests) {} {source} {min}: {}",
                if rpr + 1e-12 >= *min { ">=" } else { "<" },
                if ok { "PASS" } else { "FAIL" }
            );
            if !ok {
                failed_because.get_or_insert_with(|| line.clone());
            }
            rate_line = Some(line.clone());
            lines.push(line);
        }
        if let Some(gate) = &self.metrics {
            let (ok, metric_lines) = match summary {
                Some(summary) => gate.check(summary),
                None => (
                    false,
                    vec![format!(
                        "bemula gate: {} {}: FAIL (no results to compute the metrics from)",
                        gate.source,
                        gate.spec()
                    )],
                ),
            };
            pass &= ok;
            if !ok {
                let first = metric_lines
                    .iter()
                    .find(|l| l.contains("FAIL"))
                    .cloned()
                    .unwrap_or_default();
                failed_because.get_or_insert(first);
            } else if rate_line.is_none() {
                rate_line = Some(
                    metric_lines
                        .iter()
                        .map(|l| l.trim_start_matches("bemula gate: "))
                        .collect::<Vec<_>>()
                        .join("; "),
                );
            }
            lines.extend(metric_lines);
        }
        GateDecision {
            pass,
            lines,
            rate_line,
            failed_because,
        }
    }
}
