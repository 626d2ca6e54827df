//! `bemula generate`: writes the synthetic dataset of a seed into a directory, one
//! `<id>.json` per instance plus `manifest.json`.

use super::CliResult;
use crate::dataset::{Dataset, ID_RULE, MANIFEST, file_name, is_valid_instance_id};
use crate::generate::{DEFAULT_SEED, GenConfig, generate};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// The tag that marks a manifest as written by this command.
const GENERATOR: &str = "bemula generate";

/// Arguments of `bemula generate`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Seed of the generator; 42 gives the default dataset.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// Only Bemula-Lite: the 31 short and medium instances.
    #[arg(long)]
    pub lite: bool,
    /// Directory to write into (created if missing).
    #[arg(long)]
    pub out: PathBuf,
    /// Write into a non-empty directory even if it is not a previous bemula output.
    #[arg(long)]
    pub force: bool,
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
    /// Instance ids, sorted.
    pub instances: Vec<String>,
    /// [`Dataset::checksum`] of the instance files.
    pub checksum: String,
}

/// Runs `bemula generate`.
pub fn run(args: Args) -> CliResult {
    let started = Instant::now();
    let previous = prepare_dir(&args.out, args.force)?;
    let dataset = generate(&GenConfig {
        seed: args.seed,
        lite: args.lite,
    });
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
    write_manifest(&args.out, &dataset, &args)?;
    let sessions: usize = dataset.instances.iter().map(|i| i.sessions.len()).sum();
    let turns: usize = dataset.instances.iter().map(|i| i.turn_count()).sum();
    let questions: usize = dataset.instances.iter().map(|i| i.questions.len()).sum();
    println!(
        "generated {} instances (seed {}{}): {sessions} sessions, {turns} turns, {} requests, {questions} questions",
        dataset.instances.len(),
        args.seed,
        if args.lite { ", lite" } else { "" },
        dataset.request_count(),
    );
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

fn write_manifest(dir: &Path, dataset: &Dataset, args: &Args) -> Result<(), String> {
    let manifest = Manifest {
        generator: GENERATOR.to_string(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        seed: args.seed,
        lite: args.lite,
        instances: dataset.instances.iter().map(|i| i.id.clone()).collect(),
        checksum: dataset.checksum.clone(),
    };
    let mut bytes = serde_json::to_vec_pretty(&manifest).map_err(|e| e.to_string())?;
    bytes.push(b'\n');
    let path = dir.join(MANIFEST);
    crate::files::write_replacing(&path, &bytes)
        .map_err(|e| format!("{}: cannot write: {e}", path.display()))
}
