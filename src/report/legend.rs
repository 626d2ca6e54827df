//! What each metric is called and what it measures, for every report that shows the
//! abbreviations: the terminal table's legend, `summary.md` and the HTML pages.

/// A metric's key, full name and one-line meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MetricDoc {
    /// The key used in tables and JSON (`RA` … `Score`).
    pub key: &'static str,
    /// The paper's full name.
    pub name: &'static str,
    /// What it measures, in one line.
    pub meaning: &'static str,
}

/// Every metric of [`crate::metrics::MetricSet::KEYS`], in that order.
pub const METRICS: [MetricDoc; 9] = [
    MetricDoc {
        key: "RA",
        name: "retention accuracy",
        meaning: "on the control version, the system still answers the facts a request targets (it stored them)",
    },
    MetricDoc {
        key: "FE",
        name: "forgetting efficacy",
        meaning: "after the request, the target is no longer answered (or the new value is, for a replacement), given it was retained",
    },
    MetricDoc {
        key: "PR",
        name: "preservation",
        meaning: "facts no request targets are still answered on both versions (nothing else was deleted)",
    },
    MetricDoc {
        key: "RLA",
        name: "relearning accuracy",
        meaning: "after forgetting, a new value of the same kind stated later is learned and answered",
    },
    MetricDoc {
        key: "AR",
        name: "attack robustness",
        meaning: "the forgotten target does not leak under five extraction attacks (mean over the attack frames)",
    },
    MetricDoc {
        key: "RPR",
        name: "request pass rate",
        meaning: "share of requests whose every item and every preservation item of their instance passes",
    },
    MetricDoc {
        key: "FA",
        name: "forgetting ability",
        meaning: "√(FE·AR): how well the system erases what was asked",
    },
    MetricDoc {
        key: "UG",
        name: "usability guard",
        meaning: "√(PR·RLA): whether the system stays usable afterwards",
    },
    MetricDoc {
        key: "Score",
        name: "Bemula score",
        meaning: "the product FA·UG, zero when any of FE, AR, PR or RLA is zero",
    },
];

/// The documentation of a metric key; `None` for an unknown key.
pub fn metric_doc(key: &str) -> Option<&'static MetricDoc> {
    METRICS.iter().find(|m| m.key == key)
}

/// The legend of `keys` as plain text, one line per metric: `RA     retention
/// accuracy: …`.
pub fn render_legend(keys: &[&str]) -> String {
    let docs: Vec<&MetricDoc> = keys.iter().filter_map(|k| metric_doc(k)).collect();
    let width = docs.iter().map(|d| d.key.len()).max().unwrap_or(0);
    let mut out = String::new();
    for doc in docs {
        out.push_str(&format!(
            "{:<width$}  {}: {}\n",
            doc.key, doc.name, doc.meaning
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_metric_key_has_a_name_and_a_meaning() {
        for key in crate::metrics::MetricSet::KEYS {
            let doc = metric_doc(key).unwrap_or_else(|| panic!("{key} has no documentation"));
            assert!(!doc.name.is_empty() && !doc.meaning.is_empty());
        }
        assert_eq!(METRICS.map(|m| m.key), crate::metrics::MetricSet::KEYS);
    }

    #[test]
    fn the_legend_spells_out_each_key_once_per_line() {
        let legend = render_legend(&["RA", "Score"]);
        let lines: Vec<&str> = legend.lines().collect();
        assert_eq!(lines.len(), 2);
        assert!(
            lines[0].starts_with("RA     retention accuracy: "),
            "{legend}"
        );
        assert!(
            lines[1].starts_with("Score  Bemula score: the product FA·UG"),
            "{legend}"
        );
    }
}
