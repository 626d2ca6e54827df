//! The run layer under both front ends: what `bemula run` and the test harness
//! (`bemula test`, `cargo test`) resolve once and build the same way. A front end
//! turns its flags or environment into a [`DataSource`] and a [`Session`]; the
//! session loads the data, opens each system's journal, describes the run and
//! summarises its records, under one run id.

use crate::answer::Answerer;
use crate::dataset::{Dataset, Instance};
use crate::generate::{self, GenConfig};
use crate::judge::Judge;
use crate::metrics::BootstrapConfig;
use crate::record::Record;
use crate::report::journal::{ExpectedPasses, Journal, JournalConfig};
use crate::report::{self, ReportError, RunInfo, Summary};
use crate::system::SystemInfo;
use crate::system::remote::RemoteFactory;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::CompletedPasses;

/// Where a run's data comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum DataSource {
    /// The synthetic data generated in-process from a seed (Bemula-Lite unless `full`).
    Generated {
        /// Generator seed.
        seed: u64,
        /// The full set (50 instances) instead of Lite (31).
        full: bool,
        /// Generator of the data.
        generator: generate::Generator,
        /// Phrasing half of the data.
        phrasing: generate::Phrasing,
    },
    /// A dataset directory (or one instance file) in the Bemula format.
    Dir(PathBuf),
    /// The hand-realised Bemula-Lite compiled into bemula
    /// ([`crate::dataset::realised`]): the default, unless a generator setting, the
    /// full set or a directory asks for other data.
    Realised,
}

impl DataSource {
    /// The seed of generated data.
    pub fn seed(&self) -> Option<u64> {
        match self {
            DataSource::Generated { seed, .. } => Some(*seed),
            DataSource::Dir(_) | DataSource::Realised => None,
        }
    }

    /// Loads the data: generated data holds the tiers asked for (read from the cache
    /// under `target`, cargo's target directory, when given: see
    /// `generate/cache.rs`); a directory gives Bemula-Lite unless `full`, and says so
    /// on stderr when it leaves instances out.
    pub fn load(&self, full: bool, target: Option<&Path>) -> Result<Dataset, String> {
        match self {
            DataSource::Generated {
                seed,
                full,
                generator,
                phrasing,
            } => {
                let config = GenConfig {
                    seed: *seed,
                    generator: *generator,
                    phrasing: *phrasing,
                    lite: !*full,
                };
                config.check()?;
                Ok(match target {
                    Some(dir) => generate::cache::load_or_generate(dir, &config),
                    None => generate::generate(&config),
                })
            }
            DataSource::Realised => crate::dataset::realised::load().map_err(|e| e.to_string()),
            DataSource::Dir(dir) => {
                let dataset = Dataset::open(dir).map_err(|e| e.to_string())?;
                if !full && dataset.instances.iter().any(|i| !i.tier.is_lite()) {
                    eprintln!(
                        "bemula: using the short and medium instances of {} (Bemula-Lite); \
                         all of them with --full (BEMULA_FULL=1)",
                        dataset.source
                    );
                }
                Ok(dataset.default_tiers(full))
            }
        }
    }
}

/// What every system of one run shares: the data, the reader and the judge, the
/// bootstrap and the run's id. Built once by a front end.
pub struct Session {
    /// The data, as loaded.
    pub dataset: Dataset,
    /// Where it came from.
    pub source: DataSource,
    /// Reads answers out of returned memories.
    pub answerer: Arc<dyn Answerer>,
    /// Grades answers.
    pub judge: Arc<dyn Judge>,
    /// The bootstrap of the summaries' intervals.
    pub bootstrap: BootstrapConfig,
    /// Re-sends of a call the system certainly did not act on.
    pub system_retries: u32,
    /// The shard this run evaluates (`I/N`), if any.
    pub shard: Option<String>,
    /// The run's id: its journals' (an interrupted run's, when one is resumed) and its
    /// summaries'.
    pub run_id: String,
}

/// A system's journal, opened for a run.
pub struct OpenJournal {
    /// The journal, to append each completed pass to ([`super::JournalSink`]).
    pub journal: Arc<Journal>,
    /// The passes a resumed journal already holds: not run again.
    pub completed: CompletedPasses,
}

impl Session {
    /// A session over `dataset` with a new run id.
    pub fn new(
        dataset: Dataset,
        source: DataSource,
        answerer: Arc<dyn Answerer>,
        judge: Arc<dyn Judge>,
        bootstrap: BootstrapConfig,
    ) -> Session {
        Session {
            dataset,
            source,
            answerer,
            judge,
            bootstrap,
            system_retries: crate::system::retry::DEFAULT_RETRIES,
            shard: None,
            run_id: report::new_run_id(),
        }
    }

    /// What a system's journal records of the run, to refuse resuming a run made
    /// otherwise: the system `spec` as given and as it describes itself, and the
    /// `selected` instances (or test names).
    pub fn journal_config(
        &self,
        spec: &str,
        system: SystemInfo,
        selected: Vec<String>,
    ) -> JournalConfig {
        JournalConfig {
            spec: spec.to_string(),
            system,
            judge: self.judge.name(),
            answerer: self.answerer.name(),
            dataset_checksum: self.dataset.checksum.clone(),
            data_seed: self.source.seed(),
            instances: selected,
            shard: self.shard.clone(),
            system_retries: self.system_retries,
            bootstrap: (self.bootstrap.resamples, self.bootstrap.seed),
        }
    }

    /// Opens the journal at `path`: when `resume` and it exists, the interrupted run's,
    /// holding the passes of `expected` that passed its checks (each rejected line
    /// and the resumed count said on stderr, under `label`); otherwise a new one
    /// under this run's id. A fresh start also removes the reports of an earlier run
    /// from `path`'s directory, so none stays beside the new journal.
    pub fn journal(
        &self,
        path: &Path,
        config: &JournalConfig,
        resume: bool,
        expected: &ExpectedPasses,
        label: &str,
    ) -> Result<OpenJournal, ReportError> {
        if resume && path.is_file() {
            let resumed = Journal::resume(path, config, expected)?;
            for why in &resumed.rejected {
                eprintln!("bemula: {label}{}: {why}", path.display());
            }
            eprintln!(
                "bemula: {label}resuming run {}: {} of {} passes already done",
                resumed.journal.run_id(),
                resumed.completed.len(),
                expected.len()
            );
            return Ok(OpenJournal {
                journal: Arc::new(resumed.journal),
                completed: resumed.completed,
            });
        }
        if let Some(dir) = path.parent() {
            report::remove_reports(dir)?;
        }
        Ok(OpenJournal {
            journal: Arc::new(Journal::create(path, &self.run_id, config)?),
            completed: Default::default(),
        })
    }

    /// How one system's run was made, for its reports: the system, reader, judge and
    /// data, the shard, and what an adapter left behind (the tail of its stderr, its
    /// processes' share of the work, printed too when there are several).
    pub fn run_info(&self, system: SystemInfo, remote: Option<&RemoteFactory>) -> RunInfo {
        let mut info = RunInfo {
            system,
            judge: self.judge.name(),
            answerer: self.answerer.name(),
            dataset: self.dataset.source.clone(),
            dataset_checksum: self.dataset.checksum.clone(),
            data_seed: self.source.seed(),
            ..RunInfo::default()
        };
        if let Some(shard) = &self.shard {
            info.extra.insert("shard".into(), shard.clone().into());
        }
        let Some(remote) = remote else {
            return info;
        };
        if let Some(stderr) = remote.stderr_tail().filter(|s| !s.is_empty()) {
            info.extra
                .insert("adapter_stderr_tail".into(), stderr.into());
        }
        if remote.processes() > 1 {
            info.extra.insert(
                "adapter_processes".into(),
                serde_json::json!(remote.process_stats()),
            );
            if let Some(line) = remote.pool_line() {
                eprintln!(
                    "bemula: {}: {line}",
                    crate::terminal::inline(&info.system.name)
                );
            }
        }
        info
    }

    /// The summary of one system's `records` under `run_id` (its journal's; this
    /// run's when `None`), with its coverage of the `expected` test names.
    pub fn summarise(
        &self,
        records: &[Record],
        info: RunInfo,
        run_id: Option<&str>,
        expected: &BTreeSet<String>,
    ) -> Summary {
        let mut summary = Summary::build(records, info, &self.bootstrap);
        summary.run_id = Some(run_id.unwrap_or(&self.run_id).to_string());
        let present = summary.requests.iter().map(report::outcome_name).collect();
        summary.coverage = Some(report::Coverage::of(expected, &present));
        summary
    }
}

/// The test names of every request of `instances`.
pub fn request_names(instances: &[Instance]) -> BTreeSet<String> {
    instances
        .iter()
        .flat_map(|i| {
            i.requests
                .iter()
                .map(|r| report::test_name(&i.id, &r.id, r.kind))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::rule::RuleJudge;
    use crate::oracle::Oracle;

    fn none() -> SystemInfo {
        SystemInfo {
            name: "none".into(),
            version: None,
            settings: Default::default(),
        }
    }

    fn session() -> Session {
        let dataset = DataSource::Realised.load(false, None).unwrap();
        Session::new(
            dataset,
            DataSource::Realised,
            Arc::new(Oracle),
            Arc::new(RuleJudge),
            BootstrapConfig {
                resamples: 0,
                ..BootstrapConfig::default()
            },
        )
    }

    #[test]
    fn a_summary_carries_the_run_id_and_its_coverage_of_the_expected_requests() {
        let session = session();
        let expected = request_names(&session.dataset.instances);
        let info = session.run_info(none(), None);
        assert_eq!(info.dataset, session.dataset.source);
        assert_eq!(info.data_seed, None);
        let summary = session.summarise(&[], info.clone(), None, &expected);
        assert_eq!(summary.run_id.as_deref(), Some(session.run_id.as_str()));
        let coverage = summary.coverage.unwrap();
        assert_eq!(coverage.expected, expected.len());
        assert_eq!(coverage.present, 0);
        assert!(!coverage.is_complete());
        // A resumed journal's id wins over the session's own.
        let summary = session.summarise(&[], info, Some("earlier"), &expected);
        assert_eq!(summary.run_id.as_deref(), Some("earlier"));
    }

    #[test]
    fn a_fresh_journal_takes_the_run_id_and_clears_old_reports_and_a_resumed_one_keeps_its_own() {
        let tmp = tempfile::tempdir().unwrap();
        let session = session();
        let stale = tmp.path().join(report::SUMMARY_JSON);
        std::fs::write(&stale, "{}").unwrap();
        let path = tmp.path().join(crate::report::journal::JOURNAL);
        let config = session.journal_config("none", none(), vec![]);
        let expected = ExpectedPasses::new();
        let open = session
            .journal(&path, &config, false, &expected, "")
            .unwrap();
        assert_eq!(open.journal.run_id(), session.run_id);
        assert!(!stale.exists(), "no report of an earlier run stays");
        drop(open);
        let later = Session {
            run_id: "another".into(),
            ..super::tests::session()
        };
        let open = later.journal(&path, &config, true, &expected, "").unwrap();
        assert_eq!(
            open.journal.run_id(),
            session.run_id,
            "the interrupted run's id"
        );
    }
}
