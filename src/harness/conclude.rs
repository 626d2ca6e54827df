//! What follows a harness run's trials: its reports (or its part of a nextest run),
//! blessing the expectations or the baseline when asked, and the gate's decision.

use super::run::TrialPlan;
use super::*;

/// What the trials left, for [`conclude`].
pub(super) struct Concluding<'a> {
    pub(super) settings: &'a Settings,
    pub(super) session: &'a Session,
    /// The system, as it describes itself.
    pub(super) system: crate::system::SystemInfo,
    /// Its adapter client, when it is one.
    pub(super) remote: Option<&'a RemoteFactory>,
    pub(super) plan: &'a TrialPlan,
    /// The libtest filter, if any.
    pub(super) filter: Option<&'a str>,
    /// The nextest run this process is part of, if any.
    pub(super) nextest_run: Option<&'a str>,
    /// A plain run's id: its journal's.
    pub(super) run_id: Option<String>,
    pub(super) shared: &'a Shared,
    pub(super) conclusion: libtest_mimic::Conclusion,
    pub(super) expectations: &'a Expectations,
    /// Whether the metric gates are left to `bemula report` (under nextest).
    pub(super) deferred_gate: bool,
}

/// Writes the reports, then blesses or gates; returns the exit code.
pub(super) fn conclude(c: Concluding<'_>) -> Result<ExitCode, HarnessError> {
    let Concluding {
        settings,
        session,
        system,
        remote,
        plan,
        filter,
        nextest_run,
        run_id,
        shared,
        conclusion,
        expectations,
        deferred_gate,
    } = c;
    let outcomes = shared
        .outcomes
        .lock()
        .map(|o| o.clone())
        .unwrap_or_default();
    let records = shared.records();
    let mut info = session.run_info(system, remote);
    if nextest_run.is_none() && plan.selected_names.len() < plan.all.len() {
        // A filtered run says so in its reports.
        info.extra.insert(
            "selection".into(),
            format!(
                "filtered run: {} of the {} requests{}",
                plan.selected_names.len(),
                plan.all.len(),
                filter
                    .map(|f| format!(" (filter {f:?})"))
                    .unwrap_or_default()
            )
            .into(),
        );
    }
    // What the run was expected to cover: under nextest, the whole dataset (each
    // process runs one request of it); otherwise the filter's selection.
    let expected = if nextest_run.is_some() {
        plan.all.clone()
    } else {
        plan.selected_names.clone()
    };
    let mut summary = None;
    if !outcomes.is_empty() {
        summary = write_reports(
            settings,
            (session, &info),
            &records,
            &outcomes,
            match nextest_run {
                Some(run) => ReportRun::NextestPart(run),
                None => ReportRun::Plain(run_id),
            },
            &expected,
            expectations,
        )?;
    }
    let passed_by_name: BTreeMap<String, bool> = outcomes
        .iter()
        .map(|(n, o)| (n.clone(), o.passed))
        .collect();
    if let Some(run) = nextest_run {
        // Where a reader of the process's output learns how to see the whole run.
        eprintln!(
            "bemula: cargo-nextest run {run}: this process's results are parts of the run in {}; merge them into reports with `{}`",
            settings
                .report_dir
                .join(PARTS)
                .join(sanitize(run))
                .display(),
            report_command(&settings.report_dir)
        );
    }
    if settings.bless
        && let Some(path) = &settings.expectations
    {
        if nextest_run.is_some() {
            // Each process knows one request: the file is rewritten once, from the
            // merged run, instead of by every process in turn.
            println!(
                "bemula: under cargo-nextest the expectations are rewritten from the whole run: `{} --expectations {} --bless`",
                report_command(&settings.report_dir),
                path.display()
            );
            return Ok(ExitCode::SUCCESS);
        }
        let updated = expectations.blessed(&passed_by_name);
        updated.write(path).map_err(HarnessError::Expectations)?;
        eprintln!(
            "bemula: rewrote {} from this run: {} known failures",
            path.display(),
            updated.len()
        );
        return Ok(ExitCode::SUCCESS);
    }
    if !outcomes.is_empty() && nextest_run.is_none() {
        if let Some(summary) = &summary {
            // The metrics on the console, as `bemula run` prints them.
            eprint!(
                "\n{}",
                report::render_table(&[(summary.config.system.name.clone(), summary)])
            );
        }
        eprintln!("bemula: reports in {}", settings.report_dir.display());
    }
    if settings.bless_baseline
        && let Some(gate) = &settings.regression
    {
        if nextest_run.is_some() {
            println!(
                "bemula: under cargo-nextest the baseline is blessed from the whole run: `{} --baseline {} --bless-baseline`",
                report_command(&settings.report_dir),
                gate.baseline.display()
            );
            return Ok(conclusion.exit_code());
        }
        eprintln!(
            "{}",
            crate::gate::bless_baseline(&settings.report_dir, &gate.baseline)
                .map_err(HarnessError::Gate)?
        );
        return Ok(ExitCode::SUCCESS);
    }
    let mut regression_lines: Vec<String> = Vec::new();
    let mut regression_pass = true;
    if let (Some(gate), Some(summary)) = (
        settings.regression.as_ref().filter(|_| !deferred_gate),
        summary.as_ref(),
    ) {
        let (ok, lines) = gate.check(summary, &records).map_err(HarnessError::Gate)?;
        regression_pass = ok;
        regression_lines = lines;
    }
    if settings.min_rpr.is_none()
        && settings.min.is_none()
        && settings.regression.is_none()
        && settings.expectations.is_none()
    {
        return Ok(conclusion.exit_code());
    }
    let gate = Gate {
        min_rpr: if deferred_gate {
            None
        } else {
            settings
                .min_rpr
                .map(|m| (m, settings.min_rpr_source.clone()))
        },
        expectations: settings
            .expectations
            .as_ref()
            .map(|p| (p.clone(), expectations.clone())),
        allow_partial: false,
        metrics: if deferred_gate {
            None
        } else {
            settings.min.clone()
        },
    };
    let coverage = report::Coverage::of(&expected, &passed_by_name.keys().cloned().collect());
    let mut decision = gate.decide_with(
        &passed_by_name,
        nextest_run.is_none().then_some(&coverage),
        summary.as_ref(),
    );
    decision.add_regression(regression_pass, &regression_lines);
    decision.lines.extend(regression_lines);
    for line in &decision.lines {
        eprintln!("{line}");
    }
    if let Some(why) = &shared.deferred_gate {
        println!(
            "bemula: this process ran {} request(s) under cargo-nextest; {why}",
            outcomes.len()
        );
        return Ok(if decision.pass {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        });
    }
    // The gate's decision last, where a reader looks, above libtest's own count.
    println!("\n{}", decision.closing_line(conclusion.num_failed));
    Ok(if decision.pass {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
