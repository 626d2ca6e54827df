//! `bemula generate`: writes the synthetic dataset of a seed into a directory, one
//! `<id>.json` per instance plus `manifest.json`.

use super::CliResult;
use crate::dataset::{Dataset, ID_RULE, MANIFEST, file_name, is_valid_instance_id};
use crate::generate::{DEFAULT_SEED, GenConfig, Generator, Phrasing, generate};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// The tag that marks a manifest as written by this command.
const GENERATOR: &str = "bemula generate";

/// Which generator and phrasing make generated data: shared by every command that
/// generates its data when none is given.
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct GenArgs {
    /// Generator of the synthetic data: `v1` (the first one, kept byte for byte) or
    /// `v2` (the default: compositional dialogue, requests in the paper's manner,
    /// dev/test phrasing).
    #[arg(long, value_enum, value_name = "VERSION")]
    pub generator: Option<Generator>,
    /// Which half of v2's phrasing inventories to draw from: `dev` (to tune on),
    /// `test` (held out) or `all` (the default). Only `all` applies to v1.
    #[arg(long, value_enum, value_name = "HALF")]
    pub phrasing: Option<Phrasing>,
}

impl GenArgs {
    /// The configuration of these settings, checked.
    pub fn config(&self, seed: u64, lite: bool) -> Result<GenConfig, String> {
        let config = GenConfig {
            seed,
            lite,
            generator: self.generator.unwrap_or_default(),
            phrasing: self.phrasing.unwrap_or_default(),
        };
        config.check()?;
        Ok(config)
    }

    /// Whether either setting was given (so the data asked for is generated).
    pub fn given(&self) -> bool {
        self.generator.is_some() || self.phrasing.is_some()
    }
}

/// Arguments of `bemula generate`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Seed of the generator; 42 gives the default dataset.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// Only Bemula-Lite: the 31 short and medium instances.
    #[arg(long)]
    pub lite: bool,
    /// Generator and phrasing.
    #[command(flatten)]
    pub gen_args: GenArgs,
    /// Directory to write into (created if missing).
    #[arg(long)]
    pub out: PathBuf,
    /// Write into a non-empty directory even if it is not a previous bemula output.
    #[arg(long)]
    pub force: bool,
    /// Write only the instance of this id (repeatable), e.g. to try `--realise` on a
    /// small sample.
    #[arg(long = "instance", value_name = "ID")]
    pub instances: Vec<String>,
    /// Rewrite the generated text with a model (`llm:MODEL`): every ordinary turn,
    /// request text and question, each rewrite checked (kept values, no leaked target)
    /// and the template text kept when it fails twice; the result must validate.
    #[cfg(feature = "llm")]
    #[arg(long, value_name = "llm:MODEL")]
    pub realise: Option<String>,
    /// With `--realise`: rewrite at most N units of each kind (user turns, assistant
    /// replies, requests, questions) per instance, the first ones; the rest keep the
    /// template text. A quick trial of a model; the manifest records the limit.
    #[cfg(feature = "llm")]
    #[arg(long, value_name = "N", requires = "realise")]
    pub realise_units: Option<usize>,
    /// LLM endpoint settings (used by `--realise`).
    #[cfg(feature = "llm")]
    #[command(flatten)]
    pub llm: crate::llm::LlmArgs,
}

/// What `manifest.json` holds.
#[derive(Debug, Serialize, Deserialize)]
pub struct Manifest {
    /// Always `bemula generate`.
    pub generator: String,
    /// Version of the crate that wrote it.
    pub version: String,
    /// The seed.
    pub seed: u64,
    /// Whether only the Lite instances were written.
    pub lite: bool,
    /// The generator: `v1` or `v2` (absent in manifests written before v2: `v1`).
    #[serde(default = "v1_name")]
    pub generator_version: String,
    /// The phrasing: `dev`, `test` or `all` (absent before v2: `all`).
    #[serde(default = "all_name")]
    pub phrasing: String,
    /// Instance ids, sorted.
    pub instances: Vec<String>,
    /// [`Dataset::checksum`] of the instance files.
    pub checksum: String,
    /// The model that rewrote the text (`--realise`), absent for template text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub realised_by: Option<String>,
    /// What became of the rewritten units, by kind (`--realise` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub realisation: Option<serde_json::Value>,
}

/// What a realisation did, for the manifest and the summary.
struct Realised {
    model: String,
    counts: serde_json::Value,
    lines: Vec<String>,
}

fn v1_name() -> String {
    Generator::V1.name().to_string()
}

fn all_name() -> String {
    Phrasing::All.name().to_string()
}

/// Runs `bemula generate`.
pub fn run(args: Args) -> CliResult {
    let started = Instant::now();
    let config = args.gen_args.config(args.seed, args.lite)?;
    let previous = prepare_dir(&args.out, args.force)?;
    let dataset = only_instances(generate(&config), &args.instances)?;
    #[cfg(feature = "llm")]
    let (dataset, realised) = match &args.realise {
        Some(spec) => {
            let (dataset, realised) = realise(spec, &args.llm, args.realise_units, dataset)?;
            (dataset, Some(realised))
        }
        None => (dataset, None),
    };
    #[cfg(not(feature = "llm"))]
    let realised: Option<Realised> = None;
    // A previous output's instance files that this run does not rewrite would mix
    // into the new dataset: remove them, but only plain files directly inside the
    // directory whose names follow the instance-id rule.
    if let Some(old) = previous {
        for id in old.instances {
            if dataset.instance(&id).is_none() {
                remove_stale(&args.out, &id)?;
            }
        }
    }
    dataset.write(&args.out)?;
    write_manifest(&args.out, &dataset, &config, realised.as_ref())?;
    let sessions: usize = dataset.instances.iter().map(|i| i.sessions.len()).sum();
    let turns: usize = dataset.instances.iter().map(|i| i.turn_count()).sum();
    let questions: usize = dataset.instances.iter().map(|i| i.questions.len()).sum();
    println!(
        "generated {} instances (seed {}, generator {}, phrasing {}{}): {sessions} sessions, {turns} turns, {} requests, {questions} questions",
        dataset.instances.len(),
        args.seed,
        config.generator,
        config.phrasing,
        if args.lite { ", lite" } else { "" },
        dataset.request_count(),
    );
    if let Some(realised) = &realised {
        println!("realised by {}:", realised.model);
        for line in &realised.lines {
            println!("  {line}");
        }
    }
    println!("checksum {}", dataset.checksum);
    println!(
        "written to {} in {:.2} s",
        args.out.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(ExitCode::SUCCESS)
}

/// Checks that `dir` may be written: missing, empty, a previous bemula output (whose
/// manifest is returned), or `force`.
fn prepare_dir(dir: &Path, force: bool) -> Result<Option<Manifest>, String> {
    if !dir.exists() {
        return Ok(None);
    }
    if !dir.is_dir() {
        return Err(format!("{}: exists and is not a directory", dir.display()));
    }
    let mut entries =
        std::fs::read_dir(dir).map_err(|e| format!("{}: cannot read: {e}", dir.display()))?;
    if entries.next().is_none() {
        return Ok(None);
    }
    let manifest_path = dir.join(MANIFEST);
    let manifest = std::fs::read(&manifest_path)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Manifest>(&bytes).ok())
        .filter(|m| m.generator == GENERATOR);
    match manifest {
        Some(m) => Ok(Some(m)),
        None if force => Ok(None),
        None => Err(format!(
            "{}: directory is not empty and holds no bemula {MANIFEST}; \
             choose an empty directory or pass --force",
            dir.display()
        )),
    }
}

/// Removes the instance file of `id`, an id listed by the old manifest, when it is a
/// plain file directly inside `dir`. An id that is not a valid instance id (a path, an
/// absolute path, `..`) or names something other than a plain file is reported on
/// stderr and skipped, never followed.
fn remove_stale(dir: &Path, id: &str) -> Result<(), String> {
    let manifest = dir.join(MANIFEST);
    if !is_valid_instance_id(id) {
        eprintln!(
            "warning: {}: skipping instance id {id:?}: not a valid instance id ({ID_RULE}); \
             nothing was removed for it",
            manifest.display()
        );
        return Ok(());
    }
    let path = dir.join(file_name(id));
    match std::fs::symlink_metadata(&path) {
        Ok(meta) if meta.file_type().is_file() => std::fs::remove_file(&path)
            .map_err(|e| format!("{}: cannot remove: {e}", path.display())),
        Ok(_) => {
            eprintln!(
                "warning: {}: instance {id:?} of the previous output is not a plain file \
                 (a link or a directory); left in place",
                path.display()
            );
            Ok(())
        }
        Err(_) => Ok(()),
    }
}

/// Keeps only the instances of `ids` (all of them when `ids` is empty); an id the
/// generator did not make is an error.
fn only_instances(dataset: Dataset, ids: &[String]) -> Result<Dataset, String> {
    if ids.is_empty() {
        return Ok(dataset);
    }
    if let Some(unknown) = ids.iter().find(|id| dataset.instance(id).is_none()) {
        return Err(format!(
            "--instance {unknown}: no such instance in this dataset (ids look like {})",
            dataset
                .instances
                .first()
                .map_or("short_001", |i| i.id.as_str())
        ));
    }
    let Dataset {
        instances, source, ..
    } = dataset;
    let kept = instances
        .into_iter()
        .filter(|i| ids.contains(&i.id))
        .collect();
    Ok(Dataset::from_instances(kept, source))
}

/// Rewrites `dataset` with the model of `spec` (`llm:MODEL`) and validates the result;
/// nothing is written here, so a failure leaves the output directory untouched.
#[cfg(feature = "llm")]
fn realise(
    spec: &str,
    llm: &crate::llm::LlmArgs,
    per_kind: Option<usize>,
    dataset: Dataset,
) -> Result<(Dataset, Realised), String> {
    if per_kind == Some(0) {
        return Err("--realise-units 0: expected at least 1 unit of each kind".into());
    }
    use crate::generate::llm_realise;
    use crate::llm::{LlmClient, UsageMeter};
    let model = match spec.trim().strip_prefix("llm:") {
        Some(model) if !model.trim().is_empty() && !model.contains(['+', ',']) => model.trim(),
        _ => {
            return Err(format!(
                "--realise {spec:?}: expected `llm:MODEL` (exactly one model)"
            ));
        }
    };
    let config = llm.config(model)?;
    let endpoint = config.endpoint();
    let client = LlmClient::new(config, std::sync::Arc::new(UsageMeter::new()))
        .map_err(|e| format!("--realise {spec}: {e}"))?;
    eprintln!(
        "realising {} instances with {endpoint}",
        dataset.instances.len()
    );
    let runtime = crate::run::runtime()?;
    let (dataset, counts) = runtime
        .block_on(llm_realise::realise_limited(
            dataset, &client, true, per_kind,
        ))
        .map_err(|e| format!("--realise {spec}: nothing was written: {e}"))?;
    let problems = crate::dataset::validate::validate(&dataset);
    if !problems.is_empty() {
        let shown: Vec<String> = problems.iter().take(10).map(|p| p.to_string()).collect();
        return Err(format!(
            "--realise {spec}: the realised dataset fails validation ({} problems), \
             nothing was written:\n{}",
            problems.len(),
            shown.join("\n")
        ));
    }
    let mut counts_json = serde_json::to_value(counts).map_err(|e| e.to_string())?;
    let mut lines = counts.lines();
    if let (Some(limit), Some(map)) = (per_kind, counts_json.as_object_mut()) {
        map.insert("units_per_kind".into(), limit.into());
        lines.push(format!(
            "at most {limit} units of each kind per instance were sent (--realise-units); the rest keep the template text"
        ));
    }
    Ok((
        dataset,
        Realised {
            model: model.to_string(),
            counts: counts_json,
            lines,
        },
    ))
}

fn write_manifest(
    dir: &Path,
    dataset: &Dataset,
    config: &GenConfig,
    realised: Option<&Realised>,
) -> Result<(), String> {
    let manifest = Manifest {
        generator: GENERATOR.to_string(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        seed: config.seed,
        lite: config.lite,
        generator_version: config.generator.name().to_string(),
        phrasing: config.phrasing.name().to_string(),
        instances: dataset.instances.iter().map(|i| i.id.clone()).collect(),
        checksum: dataset.checksum.clone(),
        realised_by: realised.map(|r| r.model.clone()),
        realisation: realised.map(|r| r.counts.clone()),
    };
    let mut bytes = serde_json::to_vec_pretty(&manifest).map_err(|e| e.to_string())?;
    bytes.push(b'\n');
    let path = dir.join(MANIFEST);
    crate::files::write_replacing(&path, &bytes)
        .map_err(|e| format!("{}: cannot write: {e}", path.display()))
}
