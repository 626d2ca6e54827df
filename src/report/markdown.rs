//! The Markdown summary of a run and the plain-text table of several systems (the
//! paper's Table 1).

use super::Summary;
use crate::dataset::{Attack, Tier};
use crate::metrics::MetricSet;
use std::collections::BTreeMap;
use std::fmt::Write;

/// The metric names in the order of the paper's Table 1.
pub const TABLE_METRICS: [&str; 7] = ["RA", "FE", "PR", "RLA", "AR", "RPR", "Score"];

/// A fraction as a percentage with one decimal, or `–` when undefined.
pub fn pct(value: Option<f64>) -> String {
    value.map_or_else(|| "–".to_string(), |v| format!("{:.1}", v * 100.0))
}

fn cell(summary: &Summary, metric: &str) -> String {
    let value = summary.metrics.get(metric);
    match summary.intervals.get(metric) {
        Some(i) if value.is_some() => {
            format!("{} [{}, {}]", pct(value), pct(Some(i.lo)), pct(Some(i.hi)))
        }
        _ => pct(value),
    }
}

/// A plain-text table of several systems' summaries: RA FE PR RLA AR RPR Score with
/// 95% intervals, as percentages, then passed requests, records that are errors and
/// records the judge left unscored.
pub fn render_table(rows: &[(String, &Summary)]) -> String {
    let mut cells: Vec<Vec<String>> = vec![
        std::iter::once("system".to_string())
            .chain(TABLE_METRICS.iter().map(|m| m.to_string()))
            .chain(["passed", "errors", "unscored"].map(String::from))
            .collect(),
    ];
    for (name, summary) in rows {
        let (passed, total) = summary.passed();
        cells.push(
            std::iter::once(crate::terminal::inline(name).into_owned())
                .chain(TABLE_METRICS.iter().map(|m| cell(summary, m)))
                .chain([
                    format!("{passed}/{total}"),
                    summary.counts.errors.to_string(),
                    summary.counts.unscored.to_string(),
                ])
                .collect(),
        );
    }
    let widths: Vec<usize> = (0..cells[0].len())
        .map(|c| {
            cells
                .iter()
                .map(|row| row[c].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for (r, row) in cells.iter().enumerate() {
        for (c, text) in row.iter().enumerate() {
            let pad = widths[c] - text.chars().count();
            if c == 0 {
                let _ = write!(out, "{text}{}", " ".repeat(pad));
            } else {
                let _ = write!(out, "  {}{text}", " ".repeat(pad));
            }
        }
        out.push('\n');
        if r == 0 {
            out.push_str(&"-".repeat(widths.iter().sum::<usize>() + 2 * (widths.len() - 1)));
            out.push('\n');
        }
    }
    out
}

/// The entries of a breakdown in the paper's order (`order`), then any others.
fn in_order<'a, V>(map: &'a BTreeMap<String, V>, order: &[&str]) -> Vec<(&'a str, &'a V)> {
    let mut entries: Vec<(&str, &V)> = order
        .iter()
        .filter_map(|k| map.get_key_value(*k))
        .map(|(k, v)| (k.as_str(), v))
        .collect();
    entries.extend(
        map.iter()
            .filter(|(k, _)| !order.contains(&k.as_str()))
            .map(|(k, v)| (k.as_str(), v)),
    );
    entries
}

fn metric_row(out: &mut String, label: &str, m: &MetricSet, names: &[&str]) {
    let _ = write!(out, "| {label} |");
    for name in names {
        let _ = write!(out, " {} |", pct(m.get(name)));
    }
    out.push('\n');
}

/// The Markdown summary: configuration, the metric table with intervals, breakdowns by
/// request type, attack type and tier, and the failing requests.
pub fn render_markdown(summary: &Summary) -> String {
    let mut out = String::new();
    let c = &summary.config;
    let (passed, total) = summary.passed();
    let _ = writeln!(out, "# bemula results: {}\n", c.system.name);
    let _ = writeln!(
        out,
        "- system: `{}`{}",
        c.system.name,
        c.system
            .version
            .as_deref()
            .map(|v| format!(" {v}"))
            .unwrap_or_default()
    );
    let _ = writeln!(out, "- judge: `{}`, answerer: `{}`", c.judge, c.answerer);
    let _ = writeln!(
        out,
        "- dataset: {} (sha256 `{}`)",
        c.dataset, c.dataset_checksum
    );
    if let Some(selection) = c.extra.get("selection").and_then(|v| v.as_str()) {
        let _ = writeln!(out, "- selection: **{selection}**");
    }
    let _ = writeln!(out, "- requests passed: **{passed} of {total}**");
    let k = &summary.counts;
    let _ = writeln!(
        out,
        "- items: {} records, {} correct, {} wrong, {} errors, {} unscored\n",
        k.records, k.correct, k.wrong, k.errors, k.unscored
    );
    let _ = writeln!(out, "- judged: {}\n", super::judging_line(&summary.judging));
    let _ = writeln!(
        out,
        "- calibration: {}\n",
        super::calibration_line(&summary.judging)
    );
    if k.errors > 0 || k.unscored > 0 {
        let _ = writeln!(
            out,
            "> **Note:** {} errors and {} unscored items count as not correct in every metric.\n",
            k.errors, k.unscored
        );
    }
    if !summary.errors.is_empty() {
        let _ = writeln!(out, "First error message of each kind:\n");
        for line in summary.error_lines(usize::MAX) {
            let _ = writeln!(out, "- {}", line.replace('`', "'"));
        }
        let _ = writeln!(out);
    }
    let _ = writeln!(
        out,
        "## Metrics (percent, 95% cluster-bootstrap intervals over instances, {} resamples)\n",
        c.bootstrap_resamples
    );
    let _ = writeln!(
        out,
        "| metric | name | value | 95% interval |\n|---|---|---:|---:|"
    );
    for doc in super::legend::METRICS {
        let name = doc.key;
        let interval = summary
            .intervals
            .get(name)
            .map(|i| format!("[{}, {}]", pct(Some(i.lo)), pct(Some(i.hi))))
            .unwrap_or_else(|| "–".into());
        let _ = writeln!(
            out,
            "| {name} | {} | {} | {interval} |",
            doc.name,
            pct(summary.metrics.get(name))
        );
    }
    let _ = writeln!(out, "\nWhat each metric measures:\n");
    for doc in super::legend::METRICS {
        let _ = writeln!(out, "- **{}** ({}): {}", doc.key, doc.name, doc.meaning);
    }
    let _ = writeln!(
        out,
        "\nThe same with figures: `{}` beside this file.",
        super::html::REPORT_HTML
    );
    let names = ["RA", "FE", "RLA", "AR", "RPR"];
    let _ = writeln!(
        out,
        "\n## By request type\n\n| type | RA | FE | RLA | AR | RPR |\n|---|---:|---:|---:|---:|---:|"
    );
    for (kind, m) in &summary.breakdowns.by_type {
        metric_row(&mut out, kind, m, &names);
    }
    let _ = writeln!(
        out,
        "\n## By attack type (attack robustness)\n\n| attack | AR |\n|---|---:|"
    );
    for (attack, value) in in_order(
        &summary.breakdowns.by_attack,
        &Attack::ALL.map(|a| a.name()),
    ) {
        let _ = writeln!(out, "| {attack} | {} |", pct(*value));
    }
    let all = ["RA", "FE", "PR", "RLA", "AR", "RPR", "Score"];
    let _ = writeln!(
        out,
        "\n## By length tier\n\n| tier | RA | FE | PR | RLA | AR | RPR | Score |\n|---|---:|---:|---:|---:|---:|---:|---:|"
    );
    for (tier, m) in in_order(&summary.breakdowns.by_tier, &Tier::ALL.map(|t| t.name())) {
        metric_row(&mut out, tier, m, &all);
    }
    let failing: Vec<_> = summary.requests.iter().filter(|r| !r.passed).collect();
    let _ = writeln!(
        out,
        "\n## Failing requests ({} of {total})\n",
        failing.len()
    );
    if failing.is_empty() {
        let _ = writeln!(out, "None.");
    } else {
        let _ = writeln!(out, "| request | failing items |\n|---|---|");
        for r in failing {
            let items: Vec<String> = r
                .failed
                .iter()
                .map(|f| format!("`{}` ({})", f.question_id, f.reason))
                .collect();
            let _ = writeln!(
                out,
                "| `{}` | {} |",
                super::outcome_name(r),
                items.join(", ")
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_shows_unscored_records_beside_errors() {
        let mut summary: Summary = serde_json::from_str(include_str!(
            "../../reports/reference/lite/null/summary.json"
        ))
        .unwrap();
        summary.counts.errors = 3;
        summary.counts.unscored = 48;
        let table = render_table(&[("judged".to_string(), &summary)]);
        let lines: Vec<&str> = table.lines().collect();
        assert!(lines[0].ends_with("  passed  errors  unscored"), "{table}");
        let cells: Vec<&str> = lines[2].split_whitespace().collect();
        assert_eq!(cells[cells.len() - 2..], ["3", "48"], "{table}");
        assert_eq!(
            lines[0].chars().count(),
            lines[2].chars().count(),
            "{table}"
        );
    }
}
