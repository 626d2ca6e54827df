//! Turning specs into the parts of a run, for every front end (`bemula run`, `bemula
//! test`, the harness): the system (`naive-rag`, `cmd:python3 adapter.py`, `http://…`,
//! `full-context:MODEL`, `embed-rag:MODEL`, an instrument), the judge (`rule`,
//! `llm:MODEL[+MODEL…]`, `rule+llm:…`) and the answerer (`extractive`, `oracle`,
//! `llm:MODEL`). LLM parts are checked once by a preflight call.

use crate::answer::{Answerer, Extractive};
use crate::judge::Judge;
use crate::judge::spec::JudgeSpec;
use crate::system::remote::{self, RemoteFactory, RemoteOptions};
use crate::system::spec::SystemSpec;
use crate::system::{SharedFactory, builtin};
use std::sync::Arc;

type Error = Box<dyn std::error::Error>;

/// Endpoint settings for LLM parts, with the usage meter they all count into.
#[derive(Clone)]
#[cfg_attr(not(feature = "llm"), derive(Default))]
pub struct LlmContext {
    #[cfg(feature = "llm")]
    args: crate::llm::LlmArgs,
    #[cfg(feature = "llm")]
    meter: Arc<crate::llm::UsageMeter>,
    #[cfg(feature = "llm")]
    judge: Arc<std::sync::Mutex<Option<Arc<crate::llm::LlmJudge>>>>,
}

impl LlmContext {
    /// The context of the given endpoint flags.
    #[cfg(feature = "llm")]
    pub fn new(args: crate::llm::LlmArgs) -> LlmContext {
        LlmContext {
            args,
            meter: Arc::new(crate::llm::UsageMeter::new()),
            judge: Arc::default(),
        }
    }

    /// A context without LLM support (the `llm` feature is off).
    #[cfg(not(feature = "llm"))]
    pub fn new() -> LlmContext {
        LlmContext {}
    }

    /// A mark of the model usage so far, to measure one part of a run from.
    pub fn usage_mark(&self) -> UsageMark {
        UsageMark {
            #[cfg(feature = "llm")]
            at: self.meter.snapshot(),
            #[cfg(feature = "llm")]
            endpoint: crate::llm::limiter::existing_limiter(&self.args.base_url).map(|l| l.mark()),
        }
    }

    /// What the endpoint saw since `mark` (since its first client when `None`), when
    /// a client of it made a request.
    #[cfg(feature = "llm")]
    fn endpoint_usage(
        &self,
        mark: Option<&crate::llm::limiter::EndpointMark>,
    ) -> Option<crate::llm::EndpointUsage> {
        let limiter = crate::llm::limiter::existing_limiter(&self.args.base_url)?;
        Some(limiter.usage_since(mark)).filter(|u| u.requests > 0)
    }

    /// Usage of the model calls since `mark`, as JSON for the run's configuration, or
    /// `None` when no model was called: per role, and under `endpoints` what the
    /// endpoint saw (peak and mean in flight, 429s, time waiting for a permit).
    pub fn usage_since(&self, #[allow(unused)] mark: &UsageMark) -> Option<serde_json::Value> {
        #[cfg(feature = "llm")]
        {
            let used = self.meter.snapshot().since(&mark.at);
            if used == crate::llm::UsageByRole::default() {
                return None;
            }
            let mut value = serde_json::to_value(used).ok()?;
            if let (Some(map), Some(endpoint)) = (
                value.as_object_mut(),
                self.endpoint_usage(mark.endpoint.as_ref()),
            ) {
                map.insert("endpoints".into(), serde_json::to_value([endpoint]).ok()?);
            }
            Some(value)
        }
        #[cfg(not(feature = "llm"))]
        None
    }

    /// The LLM judge's counters so far (guard decisions and disagreements, agreement of
    /// several models, unscored items), when the judge is an LLM judge.
    #[cfg(feature = "llm")]
    pub fn judge_stats(&self) -> Option<crate::llm::JudgeStats> {
        let judge = self.judge.lock().ok()?.clone()?;
        Some(judge.stats())
    }

    /// Usage of the whole run as text for the terminal, or `None` when no model was
    /// called.
    pub fn usage_text(&self) -> Option<String> {
        #[cfg(feature = "llm")]
        {
            let used = self.meter.snapshot();
            if used == crate::llm::UsageByRole::default() {
                return None;
            }
            let mut text = used.to_string();
            if let Some(endpoint) = self.endpoint_usage(None) {
                text.push_str(&format!("endpoint {endpoint}\n"));
            }
            Some(text)
        }
        #[cfg(not(feature = "llm"))]
        None
    }
}

/// A point in a run's model usage (see [`LlmContext::usage_mark`]).
pub struct UsageMark {
    #[cfg(feature = "llm")]
    at: crate::llm::UsageByRole,
    #[cfg(feature = "llm")]
    endpoint: Option<crate::llm::limiter::EndpointMark>,
}

/// A system under test, with its adapter client when it is one.
pub struct SelectedSystem {
    /// The factory the runner uses.
    pub factory: SharedFactory,
    /// The adapter client, for its stderr tail.
    pub remote: Option<Arc<RemoteFactory>>,
    /// Whether the system does its work in this process, bounded by the CPU (a
    /// built-in system or an instrument), rather than waiting on an adapter or a model.
    pub in_process: bool,
}

/// The system a spec names. An adapter gets at most `2 × jobs` calls in flight: the
/// two passes of each of `jobs` instances.
pub async fn system(spec: &str, jobs: usize, llm: &LlmContext) -> Result<SelectedSystem, Error> {
    system_with(spec, jobs, &RemoteOptions::default(), llm, &[]).await
}

/// [`system`], with the adapter client's options (`max_in_flight` is set from `jobs`)
/// and the instances an instrument (`oracle-forget`, `oracle-wipe`) reads.
pub async fn system_with(
    spec: &str,
    jobs: usize,
    options: &RemoteOptions,
    llm: &LlmContext,
    instances: &[crate::dataset::Instance],
) -> Result<SelectedSystem, Error> {
    let parsed: SystemSpec = spec.parse()?;
    if options.processes > 1 && !matches!(parsed, SystemSpec::Stdio(_)) {
        return Err(format!(
            "--adapter-processes {} is for stdio adapters (`cmd:COMMAND LINE`), not {spec:?}: \
             a built-in system runs in this process, and an HTTP adapter's server decides how \
             many calls it serves at once",
            options.processes
        )
        .into());
    }
    let in_process = |factory| SelectedSystem {
        factory,
        remote: None,
        in_process: true,
    };
    match &parsed {
        SystemSpec::Instrument(name) => builtin::instrument::factory(name, instances)
            .map(in_process)
            .ok_or_else(|| format!("unknown instrument {name:?}").into()),
        SystemSpec::Builtin(name) => builtin::factory(name)
            .map(in_process)
            .ok_or_else(|| format!("unknown built-in system {name:?}").into()),
        SystemSpec::Stdio(spec) | SystemSpec::Http(spec) => {
            let options = RemoteOptions {
                max_in_flight: jobs.max(1) * 2,
                ..options.clone()
            };
            let client = Arc::new(remote::connect(spec, &options).await?);
            Ok(SelectedSystem {
                factory: client.clone(),
                remote: Some(client),
                in_process: false,
            })
        }
        SystemSpec::FullContext(model) => full_context(&parsed, model, llm, instances).await,
        SystemSpec::EmbedRag(model) => embed_rag(model, llm),
    }
}

/// The full-context system, checked before the run: one preflight call to its
/// endpoint, then every instance's longest prompt against `--context-tokens`.
#[cfg(feature = "llm")]
async fn full_context(
    spec: &SystemSpec,
    model: &str,
    llm: &LlmContext,
    instances: &[crate::dataset::Instance],
) -> Result<SelectedSystem, Error> {
    let config = llm.args.config(model)?;
    let client = crate::llm::LlmClient::new(config, llm.meter.clone())?;
    client.preflight().await?;
    let factory = crate::llm::FullContextFactory::with_truncate(client, llm.args.truncate);
    let check = factory.check_window(instances).await?;
    if !check.overflows.is_empty() {
        eprintln!(
            "bemula: {spec}: {} of {} instances are longer than the context window of {} tokens; their oldest turns are left out (--truncate oldest) and each record says how many: {}",
            check.overflows.len(),
            check.instances,
            llm.args.context_tokens,
            crate::llm::full_context::describe_overflows(&check.overflows)
        );
    }
    Ok(SelectedSystem {
        factory: Arc::new(factory),
        remote: None,
        in_process: false,
    })
}

#[cfg(not(feature = "llm"))]
async fn full_context(
    _spec: &SystemSpec,
    _model: &str,
    _llm: &LlmContext,
    _instances: &[crate::dataset::Instance],
) -> Result<SelectedSystem, Error> {
    Err("the full-context system needs the `llm` feature of bemula".into())
}

#[cfg(feature = "llm")]
fn embed_rag(model: &str, llm: &LlmContext) -> Result<SelectedSystem, Error> {
    let config = llm.args.embed_config(model)?;
    let factory = crate::llm::embed_rag_factory(config, llm.meter.clone())?;
    Ok(SelectedSystem {
        factory,
        remote: None,
        // Every observe and query waits on the embeddings endpoint.
        in_process: false,
    })
}

#[cfg(not(feature = "llm"))]
fn embed_rag(_model: &str, _llm: &LlmContext) -> Result<SelectedSystem, Error> {
    Err("the embed-rag system needs the `llm` feature of bemula".into())
}

/// The judge a spec names ([`JudgeSpec`]); an LLM judge is checked by one preflight call
/// per model. `rule+llm:MODEL[+MODEL…]` is the hybrid judge: the rule judge, and the LLM
/// judge for the items the rules leave unscored.
pub async fn judge(spec: &str, llm: &LlmContext) -> Result<Arc<dyn Judge>, Error> {
    let parsed = spec.parse::<JudgeSpec>()?;
    if let Some(judge) = parsed.offline() {
        return Ok(judge);
    }
    match parsed {
        JudgeSpec::Offline(name) => Err(format!("unknown offline judge {name:?}").into()),
        JudgeSpec::Llm(models) => Ok(llm_judge(spec, &models, llm).await?),
        JudgeSpec::Hybrid(models) => {
            let fallback = llm_judge(spec, &models, llm).await?;
            Ok(Arc::new(crate::judge::hybrid::HybridJudge::new(fallback)))
        }
    }
}

/// The LLM judge of `models`, checked by a preflight call to each.
#[cfg(feature = "llm")]
async fn llm_judge(
    _spec: &str,
    models: &[String],
    llm: &LlmContext,
) -> Result<Arc<dyn Judge>, Error> {
    let base = llm.args.config("")?;
    let configs: Vec<_> = models.iter().map(|m| base.for_model(m.clone())).collect();
    let judge = Arc::new(crate::llm::LlmJudge::from_configs(
        &configs,
        llm.meter.clone(),
    )?);
    judge.preflight().await?;
    if let Ok(mut slot) = llm.judge.lock() {
        *slot = Some(judge.clone());
    }
    Ok(judge)
}

#[cfg(not(feature = "llm"))]
async fn llm_judge(
    spec: &str,
    _models: &[String],
    _llm: &LlmContext,
) -> Result<Arc<dyn Judge>, Error> {
    Err(format!(
        "judge {:?}: this build has only `rule` (LLM judges need the `llm` feature)",
        spec.trim()
    )
    .into())
}

/// The answerer a spec names; an LLM answerer is checked by a preflight call.
pub async fn answerer(spec: &str, llm: &LlmContext) -> Result<Arc<dyn Answerer>, Error> {
    use crate::answer::spec::AnswererSpec;
    match spec.parse::<AnswererSpec>()? {
        AnswererSpec::Extractive => Ok(Arc::new(Extractive)),
        AnswererSpec::Oracle => Ok(Arc::new(crate::oracle::Oracle::new())),
        AnswererSpec::Llm(model) => llm_answerer(spec, &model, llm).await,
    }
}

/// The LLM answerer of `model`, checked by a preflight call.
#[cfg(feature = "llm")]
async fn llm_answerer(
    _spec: &str,
    model: &str,
    llm: &LlmContext,
) -> Result<Arc<dyn Answerer>, Error> {
    let config = llm.args.config(model)?;
    let answerer = crate::llm::LlmAnswerer::from_config(config, llm.meter.clone())?;
    answerer.client().preflight().await?;
    Ok(Arc::new(answerer))
}

#[cfg(not(feature = "llm"))]
async fn llm_answerer(
    spec: &str,
    _model: &str,
    _llm: &LlmContext,
) -> Result<Arc<dyn Answerer>, Error> {
    Err(format!("unknown answerer {spec:?}: this build has only `extractive` and `oracle` (LLM answerers need the `llm` feature)").into())
}

/// Runs the preflight against an adapter, unless `skip`; prints one line on success
/// and returns it. A failure stops the adapter and is the caller's error. `bemula run`,
/// `bemula test` and the harness all check an adapter here.
pub async fn preflight(client: &RemoteFactory, skip: bool) -> Result<Option<String>, Error> {
    if skip {
        return Ok(None);
    }
    let outcome = remote::preflight::preflight(client).await;
    let line = outcome.summary_line();
    if let Err(err) = outcome.into_result() {
        client.shutdown_gracefully().await;
        return Err(err.into());
    }
    eprintln!("bemula: {}", crate::terminal::inline(&line));
    Ok(Some(line))
}
