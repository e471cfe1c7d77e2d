//! A CI run without the model key it needs. Two causes look alike from inside
//! the job and call for opposite answers:
//! - the CI system withholds secrets from this pull request by design (it comes
//!   from a fork; see [`CiContext::withheld`]): nobody can fix that in this run,
//!   so it ends neutral, says plainly that nothing was reviewed, and exits 0;
//! - the repository's own branch has no key: the pipeline is misconfigured, and
//!   the run stops with exit 2 and what to set where.
//!
//! A fork's exit code was never a gate: the fork's author edits the workflow
//! the job runs. What can gate is a status written with a token the fork cannot
//! hold, so the status written here never passes when blocking was asked for.

use super::Poster;
use crate::args::CiArgs;
use crate::ci_env::CiContext;
use crate::settings::{Env, Settings};
use gauntlet_publish::{Status, Verdict};
use gauntlet_review::contract::Severity;
use std::process::ExitCode;

/// The key variables the configured model needs and this run lacks, or `None`
/// when it can call its model. Nothing configured and no key set counts as
/// lacking one: the key is what a CI run is expected to bring.
pub fn missing(settings: &Settings, args: &CiArgs, env: &Env) -> Option<String> {
    if args.review.replay.is_some() {
        return None; // answers come from a recording; no model is called
    }
    let Some(models) = &settings.models else { return Some("ANTHROPIC_API_KEY or OPENAI_API_KEY".into()) };
    let openai_url = env("OPENAI_BASE_URL").is_some() || settings.file.providers.openai.base_url.is_some();
    let needs = |provider: &str| match provider {
        "anthropic" if env("ANTHROPIC_API_KEY").is_none() => Some("ANTHROPIC_API_KEY"),
        "openai" if env("OPENAI_API_KEY").is_none() && !openai_url => Some("OPENAI_API_KEY"),
        _ => None,
    };
    let mut lacking: Vec<&str> = models.values().filter_map(|spec| needs(&spec.provider)).collect();
    lacking.dedup();
    (!lacking.is_empty()).then(|| lacking.join(" and "))
}

/// The error of a run on the repository's own branch without a key: what is
/// missing, and where each CI system wants it set.
pub fn misconfigured(ctx: &CiContext, lacking: &str) -> String {
    let fix = match ctx.system {
        "GitHub Actions" => {
            "add it as a repository secret and pass it to the step: `env: ANTHROPIC_API_KEY: ${{ secrets.ANTHROPIC_API_KEY }}`"
        }
        "GitLab CI" => {
            "add it as a masked CI/CD variable (Settings > CI/CD > Variables); a variable marked protected reaches \
             only pipelines of protected branches, so either clear \"Protect variable\" or protect the source branch"
        }
        _ => {
            "define it as a secret pipeline variable and map it in the step: `env: ANTHROPIC_API_KEY: $(ANTHROPIC_API_KEY)`"
        }
    };
    format!("no model key in this {} run: {lacking} is not set; {fix}", ctx.system)
}

/// End a run whose secrets the CI system withholds (`who`): the notice in the
/// log (an annotation on GitHub), the job summary, a status saying nothing was
/// reviewed where the token may write one, and exit 0.
pub fn not_reviewed(
    runtime: &tokio::runtime::Runtime,
    poster: &Poster,
    ctx: &CiContext,
    who: &str,
    lacking: &str,
    fail_on: Option<Severity>,
) -> ExitCode {
    let why = format!(
        "not reviewed: {} withholds the repository's secrets from {who}, so no model key ({lacking}) reached this \
         run. Nothing was reviewed and nothing was posted",
        ctx.system
    );
    let gate = match fail_on {
        Some(_) => {
            ". This job ends successfully all the same: a fork can edit the workflow it runs, so gate on the \
             `gauntlet` status a trusted run writes (see the fork-review workflows in the manual, docs/src/ci/forks.md), not on this job"
        }
        None => "",
    };
    crate::progress::say!("gauntlet: {why}{gate}.");
    if ctx.system == "GitHub Actions" {
        // An annotation, so the run's page shows it without opening the log.
        println!("::notice title=gauntlet::{}", why.replace(['\n', '\r'], " "));
    }
    if let Some(path) = &ctx.summary_file {
        let text = format!("## gauntlet\n\n{why}{gate}.\n");
        if let Err(e) = append(path, &text) {
            eprintln!("gauntlet: note: cannot write the job summary {}: {e}", path.display());
        }
    }
    let status = Status {
        verdict: Verdict::NotReviewed { blocking: fail_on.is_some() },
        fail_on,
        findings: Vec::new(),
        dismissed: 0,
        held_back: 0,
        standing: 0,
        undecided: Vec::new(),
        incomplete: 0,
        unfinished: Vec::new(),
        notes: vec![format!("{why}.")],
        details_url: ctx.details_url.clone(),
    };
    // A fork's GitHub token is read-only: the write is refused, and the note
    // `report` prints says so; the exit code does not depend on it.
    super::status::report(runtime, poster, &ctx.head, &status);
    ExitCode::SUCCESS
}

fn append(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    std::fs::OpenOptions::new().create(true).append(true).open(path)?.write_all(text.as_bytes())
}
