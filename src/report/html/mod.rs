//! Static HTML pages of results, each one self-contained file (inline CSS and SVG, no
//! script, no external asset) that reads from disk:
//!
//! - `report.html` beside every `summary.json` ([`render_report`]): the metric table
//!   with intervals and every metric's name and meaning, the figures (efficacy against
//!   preservation, pass rate and efficacy by request type, attack robustness by frame,
//!   results by tier), the failing requests with their sub-assertions, and the run's
//!   configuration;
//! - `index.html` over the systems of one `bemula run` ([`write_index`]), with the same
//!   figures across systems and a request-by-system matrix linking to each report;
//! - the page of `bemula compare --html` ([`render_compare`]): paired differences with
//!   their intervals.
//!
//! Every figure comes from a [`Summary`]; no metric is recomputed here. The records
//! serve only to show the text of failing items (question, expected, answer). All text
//! is escaped, and a Content-Security-Policy forbids scripts, so an adversarial answer
//! stays text.

use super::svg::{self, ForestRow, ScatterPoint, escape};
use super::{ReportError, Summary, legend, write_file};
use crate::dataset::{Attack, RequestType, Tier, Version};
use crate::metrics::{FailedItem, Interval, RequestOutcome};
use crate::record::Record;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// File name of a system's page, beside its `summary.json`.
pub const REPORT_HTML: &str = "report.html";
/// File name of the page over all systems of a `bemula run`.
pub const INDEX_HTML: &str = "index.html";

mod figures;

use figures::figures;

const CSS: &str = r#"
:root{--ink:#1b1b1b;--muted:#5b5b5b;--line:#d6d6d6;--bg:#ffffff;--soft:#f5f6f8;--bad:#b00020;--good:#1a7f37}
*{box-sizing:border-box}
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:var(--ink);background:var(--bg);margin:0 auto;max-width:1180px;padding:20px 28px 60px}
h1{font-size:26px;margin:8px 0 4px}h2{font-size:20px;margin:34px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}h3{font-size:16px;margin:18px 0 6px}
p.lead{color:var(--muted);margin:0 0 12px}
nav{font-size:14px;margin:10px 0 0}nav a{margin-right:14px}
a{color:#0b57d0}
table{border-collapse:collapse;margin:8px 0;font-size:14px}
th,td{border:1px solid var(--line);padding:4px 8px;vertical-align:top;text-align:left}
th{background:var(--soft);font-weight:600}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.ci{color:var(--muted);font-size:12px;display:block}
table.metrics th{white-space:nowrap}
abbr{text-decoration:underline dotted;cursor:help}
dl.legend{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;font-size:14px;margin:10px 0}
dl.legend dt{font-weight:600}dl.legend dd{margin:0}
figure{margin:14px 0 24px}figcaption{color:var(--muted);font-size:13px;max-width:760px;margin-top:4px}
svg.chart{max-width:100%;height:auto;font-family:inherit}
svg .grid{stroke:#ececec;stroke-width:1}svg .axis{stroke:#777;stroke-width:1}svg .zero{stroke:#333;stroke-width:1.5;stroke-dasharray:4 3}
svg .tick{font-size:11px;fill:#555}svg .axis-label,svg .panel-title{font-size:13px;fill:#222;font-weight:600}
svg .col-label,svg .row-label,svg .legend,svg .label{font-size:12px;fill:#222}
svg .label{font-weight:600}
svg .interval{stroke-width:1.6}svg .leader{stroke:#bbb;stroke-width:1}
svg .target{fill:#1a7f37;fill-opacity:.08;stroke:#1a7f37;stroke-opacity:.35;stroke-dasharray:3 3}
svg .series{fill:none;stroke-width:2}svg .cell text{font-size:12px}
svg .difference rect{fill:#222}svg .difference .interval{stroke:#222}
.pass{color:var(--good);font-weight:600}.fail{color:var(--bad);font-weight:600}
details.request{border:1px solid var(--line);border-radius:4px;margin:6px 0;padding:4px 10px}
details.request>summary{cursor:pointer;font-size:14px}
details.request:target{outline:2px solid #0b57d0}
details.request table{width:100%;table-layout:fixed}
details.request td{word-wrap:break-word;overflow-wrap:anywhere;white-space:pre-wrap}
code{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:13px}
.note{background:#fff7e0;border-left:4px solid #e0a800;padding:6px 10px;margin:8px 0}
table.matrix td{text-align:center;padding:2px 8px}table.matrix td:first-child{text-align:left}
"#;

/// The head of a page: charset, a policy that forbids every script and remote
/// resource, the title and the style sheet.
fn head(title: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"generator\" content=\"bemula {}\">\n<title>{}</title>\n<style>{CSS}</style>\n</head>\n<body>\n",
        env!("CARGO_PKG_VERSION"),
        escape(title)
    )
}

fn pct(value: Option<f64>) -> String {
    super::pct(value)
}

fn interval_text(interval: Option<&Interval>, value: Option<f64>) -> String {
    match interval {
        Some(i) if value.is_some() => format!("[{}, {}]", pct(Some(i.lo)), pct(Some(i.hi))),
        _ => "–".to_string(),
    }
}

/// The legend of every metric: key, full name, meaning.
fn legend_list(out: &mut String) {
    out.push_str("<dl class=\"legend\" id=\"legend\">");
    for doc in legend::METRICS {
        let _ = write!(
            out,
            "<dt>{}</dt><dd><b>{}</b>: {}</dd>",
            escape(doc.key),
            escape(doc.name),
            escape(doc.meaning)
        );
    }
    out.push_str("</dl>");
}

fn abbr(key: &str) -> String {
    match legend::metric_doc(key) {
        Some(doc) => format!(
            "<abbr title=\"{}\">{}</abbr>",
            escape(doc.name),
            escape(key)
        ),
        None => escape(key),
    }
}

/// The metric table of one system: one row per metric with its full name, value,
/// interval and meaning.
fn metric_table_one(out: &mut String, summary: &Summary) {
    out.push_str(
        "<table class=\"metrics\" id=\"metric-table\"><thead><tr><th>metric</th><th>name</th>\
         <th class=\"num\">value (%)</th><th class=\"num\">95% interval</th><th>what it measures</th></tr></thead><tbody>",
    );
    for doc in legend::METRICS {
        let value = summary.metrics.get(doc.key);
        let _ = write!(
            out,
            "<tr data-metric=\"{key}\"><th>{key}</th><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td></tr>",
            escape(doc.name),
            pct(value),
            interval_text(summary.intervals.get(doc.key), value),
            escape(doc.meaning),
            key = escape(doc.key),
        );
    }
    out.push_str("</tbody></table>");
}

/// The metric table of several systems: one row per system, each metric with its
/// interval, then the legend.
fn metric_table_many(out: &mut String, systems: &[System<'_>]) {
    out.push_str("<table class=\"metrics\" id=\"metric-table\"><thead><tr><th>system</th>");
    for key in crate::metrics::MetricSet::KEYS {
        let _ = write!(out, "<th class=\"num\">{}</th>", abbr(key));
    }
    out.push_str("<th class=\"num\">passed</th><th class=\"num\">errors</th></tr></thead><tbody>");
    for system in systems {
        let s = system.summary;
        let name = match &system.link {
            Some(link) => format!("<a href=\"{}\">{}</a>", escape(link), escape(&system.name)),
            None => escape(&system.name),
        };
        let _ = write!(
            out,
            "<tr class=\"system\" data-system=\"{}\"><th>{name}</th>",
            escape(&system.name)
        );
        for key in crate::metrics::MetricSet::KEYS {
            let value = s.metrics.get(key);
            let _ = write!(
                out,
                "<td class=\"num\">{}<span class=\"ci\">{}</span></td>",
                pct(value),
                interval_text(s.intervals.get(key), value)
            );
        }
        let (passed, total) = s.passed();
        let _ = write!(
            out,
            "<td class=\"num\">{passed}/{total}</td><td class=\"num\">{}</td></tr>",
            s.counts.errors
        );
    }
    out.push_str("</tbody></table>");
    legend_list(out);
}

/// One system on a page: its display name, its summary and, on the index, the link
/// to its own page.
struct System<'a> {
    name: String,
    summary: &'a Summary,
    link: Option<String>,
}

fn tier_table(out: &mut String, systems: &[System<'_>], tiers: &[String]) {
    let keys = ["RA", "FE", "PR", "RLA", "AR", "RPR", "Score"];
    out.push_str("<table class=\"tiers\"><thead><tr><th>system</th><th>tier</th>");
    for key in keys {
        let _ = write!(out, "<th class=\"num\">{}</th>", abbr(key));
    }
    out.push_str("</tr></thead><tbody>");
    for system in systems {
        for tier in tiers {
            let Some(m) = system.summary.breakdowns.by_tier.get(tier) else {
                continue;
            };
            let _ = write!(
                out,
                "<tr><td>{}</td><td>{}</td>",
                escape(&system.name),
                escape(tier)
            );
            for key in keys {
                let _ = write!(out, "<td class=\"num\">{}</td>", pct(m.get(key)));
            }
            out.push_str("</tr>");
        }
    }
    out.push_str("</tbody></table>");
}

fn config_section(out: &mut String, systems: &[System<'_>]) {
    out.push_str("<h2 id=\"config\">Run configuration</h2>");
    for system in systems {
        let c = &system.summary.config;
        if systems.len() > 1 {
            let _ = write!(out, "<h3>{}</h3>", escape(&system.name));
        }
        out.push_str("<table class=\"config\"><tbody>");
        let mut row = |key: &str, value: String| {
            let _ = write!(out, "<tr><th>{}</th><td>{value}</td></tr>", escape(key));
        };
        row(
            "system",
            format!(
                "<code>{}</code>{}",
                escape(&c.system.name),
                c.system
                    .version
                    .as_deref()
                    .map(|v| format!(" {}", escape(v)))
                    .unwrap_or_default()
            ),
        );
        for (key, value) in &c.system.settings {
            row(
                &format!("system setting: {key}"),
                format!("<code>{}</code>", escape(&json_text(value))),
            );
        }
        row("judge", format!("<code>{}</code>", escape(&c.judge)));
        row("answerer", format!("<code>{}</code>", escape(&c.answerer)));
        row("dataset", escape(&c.dataset));
        row(
            "dataset checksum (SHA-256)",
            format!("<code>{}</code>", escape(&c.dataset_checksum)),
        );
        row(
            "data seed",
            c.data_seed
                .map_or_else(|| "– (loaded data)".to_string(), |s| s.to_string()),
        );
        row(
            "bootstrap",
            format!(
                "{} resamples, seed {}",
                c.bootstrap_resamples, c.bootstrap_seed
            ),
        );
        row("bemula version", escape(&c.bemula_version));
        let k = &system.summary.counts;
        row(
            "records",
            format!(
                "{} records ({} scored): {} correct, {} wrong, {} errors, {} unscored",
                k.records, k.scored, k.correct, k.wrong, k.errors, k.unscored
            ),
        );
        row(
            "judged",
            escape(&super::judging_line(&system.summary.judging)),
        );
        row(
            "calibration",
            escape(&super::calibration_line(&system.summary.judging)),
        );
        for (key, value) in &c.extra {
            row(key, format!("<code>{}</code>", escape(&json_text(value))));
        }
        out.push_str("</tbody></table>");
    }
}

fn json_text(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn counts_note(out: &mut String, summary: &Summary) {
    let k = &summary.counts;
    if k.errors > 0 || k.unscored > 0 {
        let _ = write!(
            out,
            "<p class=\"note\">{} errors and {} unscored items count as not correct in every metric.</p>",
            k.errors, k.unscored
        );
    }
}

/// The label of a failing item: its suite, or `attack/<frame>`.
fn item_label(item: &FailedItem) -> String {
    match item.attack {
        Some(attack) => format!("attack/{}", attack.name()),
        None => item.suite.name().to_string(),
    }
}

type RecordIndex<'a> = HashMap<(&'a str, &'a str, Version), &'a Record>;

fn failing_requests(out: &mut String, summary: &Summary, records: &[Record]) {
    let index: RecordIndex<'_> = records
        .iter()
        .map(|r| ((r.instance.as_str(), r.question_id.as_str(), r.version), r))
        .collect();
    let (passed, total) = summary.passed();
    let failing: Vec<&RequestOutcome> = summary.requests.iter().filter(|r| !r.passed).collect();
    let _ = write!(
        out,
        "<h2 id=\"failing\">Failing requests ({} of {total})</h2>\
         <p>Each request opens to the sub-assertions that fail: the question, the expected answer, \
         the system's answer and the judge's reason. Find a request by its test name with the browser's find, \
         or link to it as <code>report.html#&lt;test name&gt;</code>.</p>",
        failing.len()
    );
    if failing.is_empty() {
        out.push_str("<p class=\"pass\">None: every request passes.</p>");
    }
    for request in &failing {
        let name = super::outcome_name(request);
        let _ = write!(
            out,
            "<details class=\"request\" id=\"{id}\"><summary><code>{id}</code> <span class=\"fail\">{} failing sub-assertions</span> \
             ({} tier)</summary><table><colgroup><col style=\"width:13%\"><col style=\"width:7%\"><col style=\"width:24%\">\
             <col style=\"width:14%\"><col style=\"width:20%\"><col style=\"width:22%\"></colgroup>\
             <thead><tr><th>sub-assertion</th><th>version</th><th>question</th><th>expected</th><th>answer</th><th>why it fails</th></tr></thead><tbody>",
            request.failed.len(),
            escape(request.tier.name()),
            id = escape(&name),
        );
        for item in &request.failed {
            let record = index
                .get(&(
                    request.instance.as_str(),
                    item.question_id.as_str(),
                    item.version,
                ))
                .copied();
            let (question, expected, answer) = match record {
                Some(r) => (
                    escape(&r.question),
                    escape(&r.expected),
                    match (&r.answer, &r.error) {
                        (_, Some(error)) => format!("<i>error:</i> {}", escape(error)),
                        (Some(answer), None) => escape(answer),
                        (None, None) => "<i>no answer</i>".to_string(),
                    },
                ),
                None => (
                    "<i>not in the records</i>".to_string(),
                    "–".to_string(),
                    "–".to_string(),
                ),
            };
            let _ = write!(
                out,
                "<tr><td><code>{}</code><br><code>{}</code></td><td>{}</td><td>{question}</td><td>{expected}</td><td>{answer}</td><td><b>{}</b>: {}</td></tr>",
                escape(&item_label(item)),
                escape(&item.question_id),
                escape(&item.version.to_string()),
                escape(&item.reason.to_string()),
                escape(&item.detail),
            );
        }
        out.push_str("</tbody></table></details>");
    }
    if passed > 0 {
        let _ = write!(
            out,
            "<h3 id=\"passing\">Passing requests ({passed} of {total})</h3><ul class=\"passing\">"
        );
        for request in summary.requests.iter().filter(|r| r.passed) {
            let name = super::outcome_name(request);
            let _ = write!(
                out,
                "<li id=\"{id}\"><code>{id}</code> <span class=\"pass\">passes</span></li>",
                id = escape(&name)
            );
        }
        out.push_str("</ul>");
    }
}

/// The page of one system's run: `report.html`. `records` give the text of failing
/// items; every figure comes from `summary`.
pub fn render_report(summary: &Summary, records: &[Record]) -> String {
    let name = summary.config.system.name.clone();
    let (passed, total) = summary.passed();
    let mut out = head(&format!("bemula results: {name}"));
    let _ = write!(
        out,
        "<header><h1>bemula results: {}</h1><p class=\"lead\">{passed} of {total} forget requests pass end to end \
         (request pass rate {}%); judge <code>{}</code>, answerer <code>{}</code>, {}.</p>\
         <nav><a href=\"#metrics\">metrics</a><a href=\"#tradeoff\">forgetting against utility</a>\
         <a href=\"#by-type\">by request type</a><a href=\"#attacks\">by attack</a><a href=\"#tiers\">by tier</a>\
         <a href=\"#failing\">failing requests</a><a href=\"#config\">configuration</a></nav></header>",
        escape(&name),
        pct(summary.metrics.rpr),
        escape(&summary.config.judge),
        escape(&summary.config.answerer),
        escape(&summary.config.dataset),
    );
    let _ = write!(
        out,
        "<h2 id=\"metrics\">Metrics</h2><p>Percent, with 95% cluster-bootstrap intervals over instances ({} resamples).</p>",
        summary.config.bootstrap_resamples
    );
    counts_note(&mut out, summary);
    metric_table_one(&mut out, summary);
    let systems = [System {
        name,
        summary,
        link: None,
    }];
    figures(&mut out, &systems);
    failing_requests(&mut out, summary, records);
    config_section(&mut out, &systems);
    out.push_str("</body>\n</html>\n");
    out
}

/// One system of the index: its name, the directory of its reports relative to the
/// index, and its summary.
#[derive(Debug, Clone, Copy)]
pub struct IndexEntry<'a> {
    /// The directory of the system's reports, relative to the index page.
    pub dir: &'a str,
    /// Its summary.
    pub summary: &'a Summary,
}

/// The page over several systems: `index.html`.
pub fn render_index(entries: &[IndexEntry<'_>]) -> String {
    let systems: Vec<System<'_>> = entries
        .iter()
        .map(|e| System {
            name: e.summary.config.system.name.clone(),
            summary: e.summary,
            link: Some(format!("{}/{REPORT_HTML}", e.dir)),
        })
        .collect();
    let first = entries.first().map(|e| &e.summary.config);
    let mut out = head("bemula results");
    let _ = write!(
        out,
        "<header><h1>bemula results</h1><p class=\"lead\">{} system(s) on {}; judge <code>{}</code>, answerer <code>{}</code>. \
         Each system's name links to its own page with its failing requests.</p>\
         <nav><a href=\"#metrics\">metrics</a><a href=\"#tradeoff\">forgetting against utility</a>\
         <a href=\"#by-type\">by request type</a><a href=\"#attacks\">by attack</a><a href=\"#tiers\">by tier</a>\
         <a href=\"#requests\">requests</a><a href=\"#config\">configuration</a></nav></header>",
        entries.len(),
        escape(first.map_or("–", |c| c.dataset.as_str())),
        escape(first.map_or("–", |c| c.judge.as_str())),
        escape(first.map_or("–", |c| c.answerer.as_str())),
    );
    let resamples = first.map_or(0, |c| c.bootstrap_resamples);
    let _ = write!(
        out,
        "<h2 id=\"metrics\">Metrics</h2><p>Percent; under each value its 95% cluster-bootstrap interval over instances ({resamples} resamples).</p>"
    );
    metric_table_many(&mut out, &systems);
    figures(&mut out, &systems);
    request_matrix(&mut out, &systems);
    config_section(&mut out, &systems);
    out.push_str("</body>\n</html>\n");
    out
}

/// Every request (rows) against every system (columns): pass or a link to the failure
/// on the system's page.
fn request_matrix(out: &mut String, systems: &[System<'_>]) {
    let mut rows: BTreeMap<String, Vec<Option<bool>>> = BTreeMap::new();
    for (s, system) in systems.iter().enumerate() {
        for request in &system.summary.requests {
            rows.entry(super::outcome_name(request))
                .or_insert_with(|| vec![None; systems.len()])[s] = Some(request.passed);
        }
    }
    let _ = write!(
        out,
        "<h2 id=\"requests\">Requests</h2><p>{} requests. ✓ passes; ✗ fails and links to its sub-assertions on the system's page.</p>\
         <table class=\"matrix\"><thead><tr><th>request</th>",
        rows.len()
    );
    for system in systems {
        let _ = write!(out, "<th>{}</th>", escape(&system.name));
    }
    out.push_str("</tr></thead><tbody>");
    for (name, cells) in &rows {
        let _ = write!(
            out,
            "<tr id=\"{n}\"><td><code>{n}</code></td>",
            n = escape(name)
        );
        for (system, cell) in systems.iter().zip(cells) {
            match (cell, &system.link) {
                (Some(true), _) => out.push_str("<td class=\"pass\">✓</td>"),
                (Some(false), Some(link)) => {
                    let _ = write!(
                        out,
                        "<td><a class=\"fail\" href=\"{}#{}\">✗</a></td>",
                        escape(link),
                        escape(name)
                    );
                }
                (Some(false), None) => out.push_str("<td class=\"fail\">✗</td>"),
                (None, _) => out.push_str("<td>–</td>"),
            }
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table>");
}

/// Writes `report.html` into `dir`.
pub fn write_report(dir: &Path, summary: &Summary, records: &[Record]) -> Result<(), ReportError> {
    write_file(
        &dir.join(REPORT_HTML),
        render_report(summary, records).as_bytes(),
    )
}

/// Writes `index.html` into `out` over the systems whose reports lie in the given
/// directories (each under `out`, or given relative to it), and returns its path.
pub fn write_index(out: &Path, systems: &[(&Path, &Summary)]) -> Result<PathBuf, ReportError> {
    let dirs: Vec<String> = systems
        .iter()
        .map(|(dir, _)| {
            let relative = dir.strip_prefix(out).unwrap_or(dir);
            relative
                .components()
                .map(|c| url_segment(&c.as_os_str().to_string_lossy()))
                .collect::<Vec<_>>()
                .join("/")
        })
        .collect();
    let entries: Vec<IndexEntry<'_>> = systems
        .iter()
        .zip(&dirs)
        .map(|((_, summary), dir)| IndexEntry { dir, summary })
        .collect();
    std::fs::create_dir_all(out).map_err(|e| ReportError::io(out, e))?;
    let path = out.join(INDEX_HTML);
    write_file(&path, render_index(&entries).as_bytes())?;
    Ok(path)
}

/// A path segment for a relative URL: bytes outside `A-Za-z0-9-._~` percent-encoded,
/// so that a directory named with `#`, `?` or `%` still links to itself.
fn url_segment(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for byte in segment.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(char::from(byte));
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
}

/// One metric of a paired comparison: both systems' values, the difference (B − A)
/// and its paired interval, fractions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Difference<'a> {
    /// The metric key.
    pub key: &'a str,
    /// System A's value.
    pub a: Option<f64>,
    /// System B's value.
    pub b: Option<f64>,
    /// B − A.
    pub difference: Option<f64>,
    /// The paired 95% interval of the difference.
    pub interval: Option<Interval>,
}

/// The verdict on a difference: which system is higher, or tied when the interval
/// holds zero.
pub fn verdict(difference: &Difference<'_>, name_a: &str, name_b: &str) -> String {
    match (difference.difference, difference.interval) {
        (Some(_), Some(i)) if i.lo > 0.0 => format!("{name_b} higher"),
        (Some(_), Some(i)) if i.hi < 0.0 => format!("{name_a} higher"),
        (Some(_), Some(_)) => "tied".to_string(),
        _ => "undefined".to_string(),
    }
}

/// The page of `bemula compare A B --html`: the paired differences B − A with their
/// intervals as a forest plot and a table.
pub fn render_compare(
    a: &Summary,
    b: &Summary,
    differences: &[Difference<'_>],
    resamples: usize,
) -> String {
    let (name_a, name_b) = (&a.config.system.name, &b.config.system.name);
    let mut out = head(&format!("bemula compare: {name_b} − {name_a}"));
    let _ = write!(
        out,
        "<header><h1>{} − {}</h1><p class=\"lead\">Paired differences in percentage points on the same data \
         (dataset checksum <code>{}</code>), with paired 95% cluster-bootstrap intervals ({resamples} resamples): \
         both systems are scored on the same instance draws.</p></header>",
        escape(name_b),
        escape(name_a),
        escape(&a.config.dataset_checksum),
    );
    let rows: Vec<ForestRow> = differences
        .iter()
        .map(|d| ForestRow {
            label: d.key.to_string(),
            value: d.difference,
            interval: d.interval.map(|i| (i.lo, i.hi)),
        })
        .collect();
    let _ = write!(
        out,
        "<figure id=\"fig-differences\">{}<figcaption>Each metric's difference {} − {} (squares) with its paired 95% interval (bars). \
         An interval that holds zero (dashed line) is a tie.</figcaption></figure>",
        svg::forest(
            &rows,
            &format!("{name_b} − {name_a} (percentage points)"),
            "Paired differences with intervals"
        ),
        escape(name_b),
        escape(name_a),
    );
    let _ = write!(
        out,
        "<table class=\"differences\" id=\"difference-table\"><thead><tr><th>metric</th><th>name</th><th class=\"num\">{}</th>\
         <th class=\"num\">{}</th><th class=\"num\">difference</th><th class=\"num\">95% interval</th><th>verdict</th></tr></thead><tbody>",
        escape(name_a),
        escape(name_b)
    );
    for d in differences {
        let _ = write!(
            out,
            "<tr data-metric=\"{key}\"><th>{key}</th><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td></tr>",
            escape(legend::metric_doc(d.key).map_or("", |m| m.name)),
            pct(d.a),
            pct(d.b),
            pct(d.difference),
            interval_text(d.interval.as_ref(), d.difference),
            escape(&verdict(d, name_a, name_b)),
            key = escape(d.key),
        );
    }
    out.push_str("</tbody></table>");
    legend_list(&mut out);
    let systems = [
        System {
            name: name_a.clone(),
            summary: a,
            link: None,
        },
        System {
            name: name_b.clone(),
            summary: b,
            link: None,
        },
    ];
    config_section(&mut out, &systems);
    out.push_str("</body>\n</html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directory_names_become_url_segments() {
        assert_eq!(url_segment("naive-rag"), "naive-rag");
        assert_eq!(
            url_segment("cmd_python3 a#b?c%"),
            "cmd_python3%20a%23b%3Fc%25"
        );
        assert_eq!(url_segment("é"), "%C3%A9");
    }

    #[test]
    fn a_verdict_needs_an_interval_clear_of_zero() {
        let d = |lo, hi| Difference {
            key: "FE",
            a: Some(0.1),
            b: Some(0.2),
            difference: Some(0.1),
            interval: Some(Interval { lo, hi }),
        };
        assert_eq!(verdict(&d(0.05, 0.15), "a", "b"), "b higher");
        assert_eq!(verdict(&d(-0.15, -0.05), "a", "b"), "a higher");
        assert_eq!(verdict(&d(-0.05, 0.15), "a", "b"), "tied");
        let undefined = Difference {
            difference: None,
            ..d(0.0, 0.0)
        };
        assert_eq!(verdict(&undefined, "a", "b"), "undefined");
    }
}
