//! The harness's settings: the builder's values with the environment's overrides.

use super::*;

/// Reads one environment variable.
pub(super) type EnvSource = Box<dyn Fn(&str) -> Option<String>>;

pub use crate::run::DataSource;

/// The resolved settings of a harness run.
///
/// | variable | meaning |
/// |---|---|
/// | `BEMULA_DATA` | dataset directory; `realised`: the hand-realised Lite (the default); `generated`: the generated data |
/// | `BEMULA_FULL` | `1`/`true`: the full generated set (or every tier of `BEMULA_DATA`) |
/// | `BEMULA_SEED` | seed of the generated data (default 42); set, the data is generated |
/// | `BEMULA_GENERATOR` | generator of the generated data: `v1` or `v2`; set, the data is generated |
/// | `BEMULA_PHRASING` | phrasing of generated v2 data: `dev`, `test` or `all` (default); set, the data is generated |
/// | `BEMULA_MIN_RPR` | gate: pass when the request pass rate is at least this, in [0, 1] |
/// | `BEMULA_MIN` | gate: metric minimums, fractions: `FE=0.3,Score=0.1` (any of RA, FE, PR, RLA, AR, RPR, FA, UG, Score) |
/// | `BEMULA_BASELINE` | regression gate: a blessed baseline's report directory |
/// | `BEMULA_MAX_DROP` | tolerated drops against the baseline, `Score=0.02` (default) |
/// | `BEMULA_BLESS_BASELINE` | `1`: write this run's reports as the baseline instead of gating (under cargo-nextest: by `bemula report DIR --baseline BASE --bless-baseline`) |
/// | `BEMULA_GATE_ON` | what `BEMULA_MIN` compares: `point` (estimate, default) or `lower` (end of the 95% interval) |
/// | `BEMULA_EXPECTATIONS` | expectations file of known failures (must exist, unless blessing) |
/// | `BEMULA_BLESS` | `1`: rewrite (or create) the expectations file from this run's results (under cargo-nextest: by `bemula report DIR --expectations FILE --bless`) |
/// | `BEMULA_REPORT_DIR` | report directory (default `target/bemula/<test binary>`) |
/// | `BEMULA_RESUME` | `1`: continue the interrupted run journaled in the report directory |
/// | `BEMULA_NO_PREFLIGHT` | `1`: skip the adapter preflight ([`crate::system::remote::preflight`]) |
/// | `BEMULA_ADAPTER_PROCESSES` | copies of a stdio adapter ([`Harness::adapter`] with `cmd:…`) run side by side, each namespace served by one (default 1) |
/// | `BEMULA_LLM_BASE_URL` | the model endpoint of a `full-context:MODEL` adapter spec (default: `--base-url`'s) |
/// | `BEMULA_EMBED_BASE_URL` | the embeddings endpoint of an `embed-rag:MODEL` adapter spec (default: the model endpoint) |
/// | `BEMULA_CACHE` | the model response cache (default: `--cache`'s) |
/// | `NEXTEST_RUN_ID` | set by cargo-nextest: the run this process is one part of (its results go to the report directory's `parts/`) |
/// | `CARGO_TARGET_DIR` | cargo's target directory (default: the one holding the test binary): the default report directory and the cache of generated data are under it |
///
/// Every variable is read here, through [`Harness::env_source`], once per run.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Data source.
    pub data: DataSource,
    /// Every tier of the data rather than Bemula-Lite.
    pub full: bool,
    /// Gate on the request pass rate.
    pub min_rpr: Option<f64>,
    /// Where the pass-rate gate came from: `BEMULA_MIN_RPR`, or the builder's
    /// `min_rpr` (`--min-rpr` of `bemula test`).
    pub min_rpr_source: String,
    /// Gate on metric minimums (`BEMULA_MIN`, `BEMULA_GATE_ON`, or the builder's
    /// [`Harness::min`] and [`Harness::gate_on`]).
    pub min: Option<MetricGate>,
    /// Regression gate against a blessed baseline (`BEMULA_BASELINE`,
    /// `BEMULA_MAX_DROP`, or [`Harness::baseline`] and [`Harness::max_drop`]).
    pub regression: Option<crate::gate::RegressionGate>,
    /// Write this run's reports as the baseline instead of gating on it
    /// (`BEMULA_BLESS_BASELINE=1`).
    pub bless_baseline: bool,
    /// Expectations file.
    pub expectations: Option<PathBuf>,
    /// Rewrite the expectations file.
    pub bless: bool,
    /// Report directory.
    pub report_dir: PathBuf,
    /// Bootstrap of the summary's intervals.
    pub bootstrap: BootstrapConfig,
    /// Continue the interrupted run journaled in the report directory.
    pub resume: bool,
    /// Check an adapter with the preflight before any request runs.
    pub preflight: bool,
    /// Copies of a stdio adapter run side by side ([`Harness::adapter_processes`],
    /// `BEMULA_ADAPTER_PROCESSES`).
    pub adapter_processes: usize,
    /// The cargo-nextest run this process is part of (`NEXTEST_RUN_ID`), if any.
    pub nextest_run: Option<String>,
    /// Cargo's target directory (`CARGO_TARGET_DIR`, or the one holding the running
    /// test binary), where generated data is cached.
    pub target_dir: Option<PathBuf>,
    /// The model endpoint of a `full-context:MODEL` adapter spec
    /// (`BEMULA_LLM_BASE_URL`; the `--base-url` default otherwise).
    pub llm_base_url: Option<String>,
    /// The embeddings endpoint of an `embed-rag:MODEL` adapter spec
    /// (`BEMULA_EMBED_BASE_URL`; the chat endpoint otherwise).
    pub embed_base_url: Option<String>,
    /// The model response cache (`BEMULA_CACHE`; the default cache otherwise).
    pub llm_cache: Option<PathBuf>,
}

/// A malformed setting.
#[derive(Debug, thiserror::Error)]
#[error("{name}={value:?}: {reason}")]
pub struct SettingsError {
    /// The variable or builder setting.
    pub name: String,
    /// The value given.
    pub value: String,
    /// What is expected instead.
    pub reason: String,
}

impl Harness {
    /// Resolves the builder's settings and the environment into [`Settings`].
    pub fn settings(&self) -> Result<Settings, SettingsError> {
        let env = |name: &str| (self.env)(name).filter(|v| !v.is_empty());
        let flag = |name: &str, default: bool| -> Result<bool, SettingsError> {
            match env(name) {
                None => Ok(default),
                Some(v) => match v.to_ascii_lowercase().as_str() {
                    "1" | "true" | "yes" | "on" => Ok(true),
                    "0" | "false" | "no" | "off" => Ok(false),
                    _ => Err(SettingsError {
                        name: name.into(),
                        value: v,
                        reason: "expected 1/true/yes/on or 0/false/no/off".into(),
                    }),
                },
            }
        };
        let full = flag("BEMULA_FULL", self.full)?;
        let (processes_name, processes_value) = match env("BEMULA_ADAPTER_PROCESSES") {
            Some(v) => ("BEMULA_ADAPTER_PROCESSES", v),
            None => ("adapter_processes", self.adapter_processes.to_string()),
        };
        let adapter_processes = processes_value
            .parse::<usize>()
            .ok()
            .filter(|&n| n >= 1)
            .ok_or_else(|| SettingsError {
                name: processes_name.into(),
                value: processes_value.clone(),
                reason: "expected a whole number of processes, at least 1".into(),
            })?;
        if adapter_processes > 1 {
            let reason = match &self.factory {
                FactorySource::Adapter(spec)
                    if !matches!(spec.parse(), Ok(SystemSpec::Stdio(_))) =>
                {
                    Some(
                        "a pool of adapter processes is for stdio adapters (`cmd:…`); a \
                         built-in system runs in this process, and an HTTP adapter's server \
                         decides how many calls it serves at once",
                    )
                }
                FactorySource::Ready(_) | FactorySource::Instrument(_) => {
                    Some("the system runs in this process: there is no adapter to start copies of")
                }
                _ => None,
            };
            if let Some(reason) = reason {
                return Err(SettingsError {
                    name: processes_name.into(),
                    value: processes_value,
                    reason: reason.into(),
                });
            }
        }
        // Any setting of the generator asks for generated data, as `--full` does (the
        // realised edition covers Lite only).
        let generated = full
            || self.seed.is_some()
            || self.generator.is_some()
            || self.phrasing.is_some()
            || ["BEMULA_SEED", "BEMULA_GENERATOR", "BEMULA_PHRASING"]
                .iter()
                .any(|name| env(name).is_some());
        let seed = match env("BEMULA_SEED") {
            None => self.seed.unwrap_or(generate::DEFAULT_SEED),
            Some(v) => v.parse().map_err(|_| SettingsError {
                name: "BEMULA_SEED".into(),
                value: v.clone(),
                reason: "expected a non-negative integer".into(),
            })?,
        };
        let generator = match env("BEMULA_GENERATOR") {
            None => self.generator.unwrap_or_default(),
            Some(v) => v.parse().map_err(|reason| SettingsError {
                name: "BEMULA_GENERATOR".into(),
                value: v.clone(),
                reason,
            })?,
        };
        let phrasing = match env("BEMULA_PHRASING") {
            None => self.phrasing.unwrap_or_default(),
            Some(v) => v.parse().map_err(|reason| SettingsError {
                name: "BEMULA_PHRASING".into(),
                value: v.clone(),
                reason,
            })?,
        };
        let check = GenConfig {
            seed,
            lite: !full,
            generator,
            phrasing,
        };
        check.check().map_err(|reason| SettingsError {
            name: "BEMULA_PHRASING".into(),
            value: phrasing.name().into(),
            reason,
        })?;
        let data = match env("BEMULA_DATA")
            .map(PathBuf::from)
            .or_else(|| self.data.clone())
        {
            Some(dir) if dir.as_os_str() == crate::dataset::GENERATED && !dir.exists() => {
                DataSource::Generated {
                    seed,
                    full,
                    generator,
                    phrasing,
                }
            }
            Some(dir) => DataSource::Dir(dir),
            None if generated => DataSource::Generated {
                seed,
                full,
                generator,
                phrasing,
            },
            None => DataSource::Realised,
        };
        let min_rpr_source = if env("BEMULA_MIN_RPR").is_some() {
            "BEMULA_MIN_RPR"
        } else {
            "min_rpr (--min-rpr)"
        };
        let min_rpr = match env("BEMULA_MIN_RPR") {
            None => self.min_rpr,
            Some(v) => Some(
                v.parse::<f64>()
                    .ok()
                    .filter(|x| (0.0..=1.0).contains(x))
                    .ok_or_else(|| SettingsError {
                        name: "BEMULA_MIN_RPR".into(),
                        value: v.clone(),
                        reason: "expected a fraction in [0, 1], e.g. 0.25".into(),
                    })?,
            ),
        };
        if let Some(rate) = min_rpr
            && !(0.0..=1.0).contains(&rate)
        {
            return Err(SettingsError {
                name: "min_rpr".into(),
                value: rate.to_string(),
                reason: "expected a fraction in [0, 1]".into(),
            });
        }
        let gate_on = match env("BEMULA_GATE_ON") {
            None => self.gate_on,
            Some(v) => v.parse().map_err(|reason| SettingsError {
                name: "BEMULA_GATE_ON".into(),
                value: v.clone(),
                reason,
            })?,
        };
        let (min_name, min_spec) = match env("BEMULA_MIN") {
            Some(v) => ("BEMULA_MIN", Some(v)),
            None => ("min (--min)", self.min.clone()),
        };
        let min =
            match min_spec {
                None => None,
                Some(v) => Some(MetricGate::parse(&v, gate_on, min_name).map_err(|reason| {
                    SettingsError {
                        name: min_name.into(),
                        value: v.clone(),
                        reason,
                    }
                })?),
            };
        let baseline = env("BEMULA_BASELINE")
            .map(PathBuf::from)
            .or_else(|| self.baseline.clone());
        let (drop_name, drop_spec) = match env("BEMULA_MAX_DROP") {
            Some(v) => ("BEMULA_MAX_DROP", v),
            None => (
                "max_drop (--max-drop)",
                self.max_drop.clone().unwrap_or_else(|| "Score=0.02".into()),
            ),
        };
        let regression = match &baseline {
            None => None,
            Some(dir) => Some(
                crate::gate::RegressionGate::parse(dir, &drop_spec, self.bootstrap).map_err(
                    |reason| SettingsError {
                        name: drop_name.into(),
                        value: drop_spec.clone(),
                        reason,
                    },
                )?,
            ),
        };
        let bless_baseline = flag("BEMULA_BLESS_BASELINE", false)?;
        if bless_baseline && baseline.is_none() {
            return Err(SettingsError {
                name: "BEMULA_BLESS_BASELINE".into(),
                value: env("BEMULA_BLESS_BASELINE").unwrap_or_default(),
                reason: "there is no baseline directory to write: set BEMULA_BASELINE or Harness::baseline".into(),
            });
        }
        let expectations = env("BEMULA_EXPECTATIONS")
            .map(PathBuf::from)
            .or_else(|| self.expectations.clone());
        let bless = flag("BEMULA_BLESS", false)?;
        if bless && expectations.is_none() {
            return Err(SettingsError {
                name: "BEMULA_BLESS".into(),
                value: env("BEMULA_BLESS").unwrap_or_default(),
                reason: "there is no expectations file to rewrite: set BEMULA_EXPECTATIONS or Harness::expectations".into(),
            });
        }
        let target_dir = target_dir(env("CARGO_TARGET_DIR"));
        let report_dir = env("BEMULA_REPORT_DIR")
            .map(PathBuf::from)
            .or_else(|| self.report_dir.clone())
            .unwrap_or_else(|| default_report_dir(target_dir.as_deref()));
        Ok(Settings {
            data,
            full,
            min_rpr,
            min_rpr_source: min_rpr_source.into(),
            min,
            regression,
            bless_baseline,
            expectations,
            bless,
            report_dir,
            bootstrap: self.bootstrap,
            resume: flag("BEMULA_RESUME", false)?,
            preflight: !flag("BEMULA_NO_PREFLIGHT", !self.preflight)?,
            adapter_processes,
            nextest_run: env("NEXTEST_RUN_ID"),
            target_dir,
            llm_base_url: env("BEMULA_LLM_BASE_URL"),
            embed_base_url: env("BEMULA_EMBED_BASE_URL"),
            llm_cache: env("BEMULA_CACHE").map(PathBuf::from),
        })
    }
}

impl Settings {
    /// The model endpoint of these settings, for the systems that call a model.
    pub(super) fn llm_context(&self) -> crate::run::select::LlmContext {
        #[cfg(feature = "llm")]
        {
            let defaults = crate::llm::LlmArgs::default();
            crate::run::select::LlmContext::new(crate::llm::LlmArgs {
                base_url: self
                    .llm_base_url
                    .clone()
                    .unwrap_or_else(|| crate::llm::DEFAULT_BASE_URL.to_string()),
                embed_base_url: self.embed_base_url.clone(),
                cache: self.llm_cache.clone(),
                ..defaults
            })
        }
        #[cfg(not(feature = "llm"))]
        crate::run::select::LlmContext::new()
    }
}

/// `target/bemula/<test binary>`: the target directory is found from the running test
/// binary (the ancestor holding cargo's `CACHEDIR.TAG`), or `CARGO_TARGET_DIR`.
pub(super) fn default_report_dir(target_dir: Option<&Path>) -> PathBuf {
    let exe = std::env::current_exe().ok();
    let binary = exe
        .as_ref()
        .and_then(|p| p.file_stem())
        .map(|s| s.to_string_lossy().into_owned())
        .map(|s| match s.rsplit_once('-') {
            Some((stem, hash))
                if hash.len() == 16 && hash.chars().all(|c| c.is_ascii_hexdigit()) =>
            {
                stem.to_string()
            }
            _ => s,
        })
        .unwrap_or_else(|| "bemula".into());
    let target = target_dir.unwrap_or(Path::new("target"));
    target.join("bemula").join(binary)
}

/// Cargo's target directory: `CARGO_TARGET_DIR` (`given`), or the ancestor of the
/// running binary that holds cargo's `CACHEDIR.TAG`; `None` for a binary outside a
/// target directory.
fn target_dir(given: Option<String>) -> Option<PathBuf> {
    given.map(PathBuf::from).or_else(|| {
        let exe = std::env::current_exe().ok()?;
        exe.ancestors()
            .find(|a| a.join("CACHEDIR.TAG").is_file())
            .map(Path::to_path_buf)
    })
}
