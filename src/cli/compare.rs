//! `bemula compare A B`: two systems' results on the same data, metric by metric, with
//! paired cluster-bootstrap intervals of the difference (the paper's Appendix K: the
//! same instance draws for both systems); `--html FILE` draws them as a page.

use super::CliResult;
use crate::metrics::{self, BootstrapConfig};
use crate::report::html::{self, Difference};
use crate::report::{self, SUMMARY_JSON, Summary};
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `bemula compare`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Report directory of the first system (holding `results.jsonl` and `summary.json`).
    pub a: PathBuf,
    /// Report directory of the second system.
    pub b: PathBuf,
    /// Bootstrap resamples.
    #[arg(long, default_value_t = 10_000, value_name = "N")]
    pub bootstrap: usize,
    /// Seed of the bootstrap.
    #[arg(long, default_value_t = 42, value_name = "SEED")]
    pub bootstrap_seed: u64,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Also write the differences as a self-contained HTML page (a forest plot of the
    /// differences with their intervals, and the table) to FILE.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

/// Runs `bemula compare`.
pub fn run(args: Args) -> CliResult {
    let (summary_a, records_a) = read(&args.a)?;
    let (summary_b, records_b) = read(&args.b)?;
    let (sum_a, sum_b) = (
        &summary_a.config.dataset_checksum,
        &summary_b.config.dataset_checksum,
    );
    if sum_a != sum_b {
        return Err(format!(
            "{} and {} were run on different data (dataset checksums {sum_a} and {sum_b}): a paired comparison needs the same instances",
            args.a.display(),
            args.b.display()
        )
        .into());
    }
    let config = BootstrapConfig {
        resamples: args.bootstrap,
        seed: args.bootstrap_seed,
        ..BootstrapConfig::default()
    };
    let intervals = metrics::bootstrap_difference(&records_b, &records_a, &config)?;
    let (name_a, name_b) = (&summary_a.config.system.name, &summary_b.config.system.name);
    // For the text output: the names come from adapters' handshakes.
    let (shown_a, shown_b) = (
        crate::terminal::inline(name_a).into_owned(),
        crate::terminal::inline(name_b).into_owned(),
    );
    let mut rows = Vec::new();
    for key in metrics::MetricSet::KEYS {
        let (a, b) = (summary_a.metrics.get(key), summary_b.metrics.get(key));
        let diff = a.zip(b).map(|(a, b)| b - a);
        rows.push((key, a, b, diff, intervals.get(key).copied()));
    }
    if let Some(path) = &args.html {
        let differences: Vec<Difference<'_>> = rows
            .iter()
            .map(|&(key, a, b, difference, interval)| Difference {
                key,
                a,
                b,
                difference,
                interval,
            })
            .collect();
        let page = html::render_compare(&summary_a, &summary_b, &differences, config.resamples);
        report::write_file(path, page.as_bytes())?;
        eprintln!("bemula compare: wrote {}", path.display());
    }
    if args.json {
        let json: serde_json::Map<String, serde_json::Value> = rows
            .iter()
            .map(|(key, a, b, diff, interval)| {
                (
                    key.to_string(),
                    serde_json::json!({ "a": a, "b": b, "difference": diff, "interval": interval }),
                )
            })
            .collect();
        let out = serde_json::json!({ "a": name_a, "b": name_b, "resamples": config.resamples, "seed": config.seed, "metrics": json });
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(ExitCode::SUCCESS);
    }
    let pct = report::pct;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{shown_b} − {shown_a} (percentage points; paired 95% cluster-bootstrap intervals, {} resamples):\n",
        config.resamples
    );
    // Each system's column is as wide as its name: headers are never cut.
    let (wa, wb) = (
        shown_a.chars().count().max(8),
        shown_b.chars().count().max(8),
    );
    let _ = writeln!(
        out,
        "{:<6} {:>wa$} {:>wb$} {:>8} {:>18}  verdict",
        "metric", shown_a, shown_b, "diff", "95% interval"
    );
    for (key, a, b, diff, interval) in rows {
        let verdict = html::verdict(
            &Difference {
                key,
                a,
                b,
                difference: diff,
                interval,
            },
            name_a,
            name_b,
        );
        let range = match (diff, interval) {
            (Some(_), Some(i)) => format!("[{}, {}]", pct(Some(i.lo)), pct(Some(i.hi))),
            _ => "–".to_string(),
        };
        let _ = writeln!(
            out,
            "{key:<6} {:>wa$} {:>wb$} {:>8} {range:>18}  {verdict}",
            pct(a),
            pct(b),
            pct(diff)
        );
    }
    print!("{out}");
    Ok(ExitCode::SUCCESS)
}

fn read(dir: &Path) -> Result<(Summary, Vec<crate::record::Record>), Box<dyn std::error::Error>> {
    let path = dir.join(SUMMARY_JSON);
    if !path.is_file() {
        return Err(format!(
            "{}: cannot read: no such file (expected a report directory of `bemula run` or the harness)",
            path.display()
        )
        .into());
    }
    // The summary and its records must come from one run.
    Ok(report::read_verified(dir)?)
}
