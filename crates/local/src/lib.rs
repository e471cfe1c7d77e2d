//! gauntlet's embedded local model: llama.cpp in-process, answers held to the
//! request's JSON schema by a grammar.
//!
//! [`Local`] loads a GGUF once and serves every call of a run from one context on
//! one worker thread: the model is CPU-bound, so calls in parallel would only
//! compete for the same cores, and one context lets calls reuse the shared prefix
//! that is already in its KV cache. [`models`] fetches the known models.

pub mod engine;
pub mod grammar;
pub mod models;
pub mod pattern;
mod template;

use gauntlet_model::{ModelError, Provider, Request, Response, Usage};
use llama_cpp_2::llama_backend::LlamaBackend;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, mpsc};

pub use template::ChatFormat;

#[derive(Debug, thiserror::Error)]
pub enum LocalError {
    #[error("no model at {0}: run `gauntlet model pull` (or pass --model-path FILE.gguf)")]
    Missing(PathBuf),
    #[error(
        "cannot load {path}: {message}; fetch it again with `gauntlet model pull` (it verifies the sha256) or pass another --model-path"
    )]
    Corrupt { path: PathBuf, message: String },
    #[error(
        "the prompt is {prompt} tokens but the model's context window is {n_ctx}: review a smaller change or use a model with a larger context"
    )]
    ContextFull { prompt: usize, n_ctx: usize },
    #[error(
        "the answer was cut off at {limit} tokens before its JSON closed (the schema allows {wanted}, the context window is {n_ctx})"
    )]
    CutOff { limit: usize, n_ctx: usize, wanted: usize },
    #[error("{0}")]
    Grammar(#[from] grammar::GrammarError),
    #[error("llama.cpp: {0}")]
    Inference(String),
    #[error("the local model's worker thread stopped")]
    WorkerGone,
}

impl LocalError {
    fn inference(e: impl std::fmt::Display) -> LocalError {
        LocalError::Inference(e.to_string())
    }
}

/// Counters across calls, for the benchmark and for `-v` style reporting.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Stats {
    pub evaluated: u64,
    pub reused: u64,
    pub generated: u64,
    pub prompt_ms: f64,
    pub generate_ms: f64,
}

/// llama.cpp's backend may be initialised once per process; everything shares it.
pub fn backend() -> Result<&'static LlamaBackend, LocalError> {
    static BACKEND: OnceLock<LlamaBackend> = OnceLock::new();
    if let Some(b) = BACKEND.get() {
        return Ok(b);
    }
    // llama.cpp logs every tensor it loads to stderr; gauntlet reports errors itself.
    llama_cpp_2::send_logs_to_tracing(llama_cpp_2::LogOptions::default().with_logs_enabled(false));
    let b = LlamaBackend::init().map_err(LocalError::inference)?;
    Ok(BACKEND.get_or_init(|| b))
}

/// Re-run this process with `OMP_WAIT_POLICY=PASSIVE` unless it is set. OpenMP
/// reads it once, when the runtime loads (before `main`), and its default (spin)
/// makes idle worker threads burn the cores: on a busy 2-core machine generation
/// collapses. Returns only when no re-exec was needed or it failed.
#[cfg(unix)]
pub fn ensure_passive_openmp() {
    use std::os::unix::process::CommandExt;
    if std::env::var_os("OMP_WAIT_POLICY").is_some() {
        return;
    }
    let Ok(exe) = std::env::current_exe() else { return };
    let args: Vec<_> = std::env::args_os().skip(1).collect();
    // `exec` only returns on failure; then run on with the default policy.
    let _ = std::process::Command::new(exe).args(args).env("OMP_WAIT_POLICY", "PASSIVE").exec();
}

#[cfg(not(unix))]
pub fn ensure_passive_openmp() {}

#[derive(Clone, Debug)]
pub struct LocalConfig {
    pub path: PathBuf,
    /// Label in reports, e.g. `smollm2` or the file name.
    pub label: String,
    /// CPU threads; default all cores.
    pub threads: Option<usize>,
    /// Context window in tokens; default the model's training context, at most 16384.
    pub context: Option<u32>,
}

impl LocalConfig {
    pub fn new(path: impl Into<PathBuf>) -> LocalConfig {
        let path = path.into();
        let label = path.file_stem().and_then(|s| s.to_str()).unwrap_or("model").to_string();
        LocalConfig { path, label, threads: None, context: None }
    }
}

type Reply = tokio::sync::oneshot::Sender<Result<(Response, Stats), LocalError>>;

/// The `local` provider. Cheap to share: calls go to one worker thread in turn.
pub struct Local {
    label: String,
    jobs: Mutex<mpsc::Sender<(Request, Reply)>>,
    stats: Arc<Mutex<Stats>>,
    /// Where the chat template came from (`gguf` or the built-in fallback).
    pub template: String,
}

impl std::fmt::Debug for Local {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Local").field("label", &self.label).finish()
    }
}

impl Local {
    /// Load the model (on the worker thread) and wait until it is ready.
    pub fn load(config: LocalConfig) -> Result<Local, LocalError> {
        let (jobs, inbox) = mpsc::channel::<(Request, Reply)>();
        let (ready_tx, ready) = mpsc::channel::<Result<String, LocalError>>();
        let stats = Arc::new(Mutex::new(Stats::default()));
        let worker_stats = stats.clone();
        let label = config.label.clone();
        std::thread::Builder::new()
            .name("gauntlet-local".into())
            .spawn(move || worker(&config, ready_tx, inbox, worker_stats))
            .map_err(LocalError::inference)?;
        let template = ready.recv().map_err(|_| LocalError::WorkerGone)??;
        Ok(Local { label, jobs: Mutex::new(jobs), stats, template })
    }

    /// Counters over every call so far.
    pub fn stats(&self) -> Stats {
        *self.stats.lock().expect("stats lock")
    }

    /// Complete one request (what [`Provider::complete`] does, with typed errors).
    pub async fn run(&self, request: &Request) -> Result<Response, LocalError> {
        let (reply, answer) = tokio::sync::oneshot::channel();
        self.jobs.lock().expect("jobs lock").send((request.clone(), reply)).map_err(|_| LocalError::WorkerGone)?;
        let (response, _) = answer.await.map_err(|_| LocalError::WorkerGone)??;
        Ok(response)
    }
}

fn threads(config: &LocalConfig) -> usize {
    config.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get())).max(1)
}

fn worker(
    config: &LocalConfig,
    ready: mpsc::Sender<Result<String, LocalError>>,
    inbox: mpsc::Receiver<(Request, Reply)>,
    stats: Arc<Mutex<Stats>>,
) {
    let setup = || -> Result<_, LocalError> {
        let backend = backend()?;
        let model = engine::load_model(backend, &config.path)?;
        Ok((backend, model))
    };
    let (backend, model) = match setup() {
        Ok(v) => v,
        Err(e) => return drop(ready.send(Err(e))),
    };
    let n_ctx = config.context.unwrap_or_else(|| model.n_ctx_train().min(16_384));
    let session = ChatFormat::for_model(&model).and_then(|format| {
        let ctx = model
            .new_context(backend, engine::context_params(n_ctx, threads(config)))
            .map_err(LocalError::inference)?;
        Ok(engine::Session::new(&model, ctx, format))
    });
    let mut session = match session {
        Ok(s) => s,
        Err(e) => return drop(ready.send(Err(e))),
    };
    if ready.send(Ok(session.format().origin.clone())).is_err() {
        return;
    }
    for (request, reply) in inbox {
        let result = serve(&mut session, &model, &request);
        *stats.lock().expect("stats lock") = session.stats;
        let _ = reply.send(result.map(|r| (r, session.stats)));
    }
}

fn serve(
    session: &mut engine::Session<'_>,
    model: &llama_cpp_2::model::LlamaModel,
    request: &Request,
) -> Result<Response, LocalError> {
    let grammar = request.schema.as_ref().map(|s| grammar::from_schema(&s.json)).transpose()?;
    let prompt = session.format().render(model, request)?;
    let out = session.complete(&prompt, grammar.as_ref(), request.max_tokens as usize)?;
    Ok(Response {
        json: out.text,
        tool_calls: Vec::new(),
        usage: Usage {
            input: out.evaluated as u64,
            output: out.generated as u64,
            cache_read: out.reused as u64,
            cache_write: 0,
        },
    })
}

#[async_trait::async_trait]
impl Provider for Local {
    fn name(&self) -> &str {
        "local"
    }
    fn model(&self) -> &str {
        &self.label
    }
    async fn complete(&self, request: &Request) -> Result<Response, ModelError> {
        self.run(request).await.map_err(|e| {
            let message = e.to_string();
            match e {
                LocalError::Missing(_) | LocalError::Corrupt { .. } | LocalError::Grammar(_) => {
                    ModelError::Config { provider: "local".into(), message }
                }
                _ => ModelError::Protocol { provider: "local".into(), message },
            }
        })
    }
}

/// Whether `path` names one of the tiny known models, which prove the offline
/// path works but are far too small for a useful review.
pub fn is_tiny(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    models::KNOWN.iter().any(|k| k.file == name)
}
