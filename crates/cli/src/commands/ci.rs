//! `gauntlet ci`: review the pull request of this CI run and post the result to
//! it, under the pipeline's own token. This is the only command that posts;
//! it refuses to run outside CI.
//!
//! Order matters for safety: read what the pipeline posted before, review,
//! print the review to the log, and post last, in one sync. A run that
//! reviewed but could not post says so loudly and still exits 0 (advisory)
//! unless `--fail-on` makes findings blocking. After the comments, the run's
//! verdict goes where the host shows one (see [`status`]); findings a person
//! dismissed never count toward it, nor toward the exit code.

use crate::args::CiArgs;
use crate::ci_env::{self, BaseRef, CiContext, HostConfig};
use crate::commands::review::{Plan, prepare};
use crate::settings::{Env, Settings};
use anyhow::{Context, Result, bail};
use gauntlet_change::git::Git;
use gauntlet_publish::{CodeHost, Existing, OverviewMarker, azure, github, gitlab};
use gauntlet_report::{Format, Options};
use gauntlet_review::Review;
use gauntlet_review::contract::Severity;
use gauntlet_review::review::Published;
use sha2::{Digest, Sha256};
use std::path::Path;
use std::process::ExitCode;

mod publish;
mod scope;
mod status;
mod suggest;

use scope::Scope;

/// What an interruption before posting leaves behind.
const STOPPED: &str = "nothing was posted to the pull request";

/// Exit code when a published finding is at or above `--fail-on`.
pub const BLOCKING: u8 = 3;

pub fn run(git: &Git, config: Option<&Path>, args: &CiArgs, env: &Env, is_tty: bool) -> Result<ExitCode> {
    let ctx = ci_env::detect(env)?;
    let fail_on = args.fail_on.as_deref().map(severity).transpose()?;
    let change = &args.review.change;
    if change.staged || change.worktree || change.patch.is_some() || change.base.is_some() || args.review.pr.is_some() {
        bail!(
            "`gauntlet ci` reviews the pull request its CI run is for; --base, --staged, --worktree, --patch and --pr belong to `gauntlet review`"
        );
    }
    let (base, merge_base) = scope::commits(git, &ctx)?;
    crate::progress::say!(
        "gauntlet: {} pull request: reviewing {}..{}",
        ctx.system,
        short(&merge_base),
        short(&ctx.head)
    );
    let runtime = tokio::runtime::Runtime::new()?;
    let mut poster = connect(&ctx, &runtime);
    let existing = poster.as_ref().ok().map(|(_, e)| e);
    let scope = scope::decide(git, existing, &ctx.head, args.full);
    let mut review_args = args.review.clone();
    // Rules change only through reviewed commits: where the repository pins its rules
    // in gauntlet.lock, CI reviews with exactly those or not at all.
    let lock = git.root().join(gauntlet_review::rules::lock::FILE_NAME);
    review_args.locked |= lock.exists();
    if !lock.exists() {
        crate::progress::say!(
            "gauntlet: note: the reviewer rules are not pinned; `gauntlet rules lock` writes gauntlet.lock"
        );
    }
    review_args.change.base = Some(match &scope {
        Scope::Since { last, .. } => last.clone(),
        _ => base,
    });
    review_args.change.head = Some(ctx.head.clone());
    let settings = Settings::resolve(git.root(), config, &review_args, env, is_tty)?;
    let suggest = args.suggest || settings.file.ci.suggest.unwrap_or(false);
    let policy = gauntlet_publish::Policy { author_may_dismiss: settings.file.ci.author_may_dismiss.unwrap_or(false) };
    let suggest = suggest.then(|| crate::commands::fix::loop_settings(&args.loop_args)).transpose()?;
    let format: Format = settings.format.parse()?;
    let opts = Options { verbose: settings.verbose, color: settings.color && format == Format::Terminal };
    let config_digest = digest(&settings);
    let model = standard_model(&settings);
    let prepared = match prepare(git, &review_args, env, settings)? {
        Plan::Skip(review) => return skipped(&review, format, &opts),
        Plan::Run(prepared) => prepared,
    };
    if let Scope::Same { last } = &scope {
        let marker = existing.and_then(|e| e.overview.as_ref()).and_then(|o| OverviewMarker::parse(&o.body));
        let same = marker.is_some_and(|m| m.rules == prepared.rules_version() && m.config == config_digest);
        if same && !args.review.force {
            // A re-run of the same head ("Re-run failed jobs") is skipped, but it must
            // not pass what the first run failed: with `--fail-on` the exit code comes
            // from what stands on the pull request (open threads nobody dismissed, at
            // the severity their comment names, and the findings the overview's marker
            // records as held). An overview too old to record those gets a review.
            let standing = match fail_on {
                None => Some(publish::Tally::default()),
                Some(_) => publish::unreviewed(&runtime, &poster, policy)?,
            };
            if let Some(tally) = standing {
                crate::progress::say!(
                    "gauntlet: skipped: {} was already reviewed with the same rules and config (--force reviews it again)",
                    short(last)
                );
                return Ok(exit_code(&[], blocking(fail_on), &tally));
            }
            crate::progress::say!(
                "gauntlet: {} was reviewed already, but its overview does not record the findings it holds: reviewing again for --fail-on",
                short(last)
            );
        }
    }
    let review = crate::interrupt::block_on(&runtime, STOPPED, prepared.run(git))??;
    print!("{}", gauntlet_report::render(&review, format, &opts));
    crate::commands::review::log_coverage(&review, format);
    if review.timed_out {
        // A partial review would read as "fixed" for every finding it never got to.
        eprintln!(
            "gauntlet: the run reached its --timeout before it was done; nothing was posted (see the gaps above)"
        );
        return Ok(ExitCode::from(1));
    }
    if review.nothing_reviewed() {
        eprintln!("gauntlet: {}; nothing was posted", crate::commands::review::nothing_reviewed(&review));
        return Ok(ExitCode::from(1));
    }
    let target = publish::Target {
        git,
        merge_base: &merge_base,
        scope: &scope,
        prepared: &prepared,
        digest: config_digest,
        model,
        cap: args.max_comments,
        suggest,
        policy,
    };
    let (posted, tally) = publish::post(&runtime, &mut poster, &review, &target)?;
    publish::summary(&ctx, &review, &posted)?;
    let block = blocking(fail_on);
    let run_status = status::build(&review, &tally.dismissed, block, &scope, ctx.details_url.clone());
    status::report(&runtime, &poster, &review.head, &run_status);
    if let Some(path) = &args.codequality {
        status::write_codequality(path, &run_status.findings)?;
    }
    let state = match &posted {
        Ok(_) => "posting had already begun and was completed, so the pull request shows the whole run",
        Err(failed) if failed.partly => "posting stopped part-way (see above); run gauntlet ci again to finish it",
        Err(failed) if failed.uncertain => {
            "the host's answer left it unknown whether the review was stored (see above)"
        }
        Err(_) => "nothing was posted to the pull request",
    };
    crate::interrupt::check(state)?;
    Ok(exit_code(&review.published, block, &tally))
}

/// The severity at which a published finding nobody dismissed fails the job, or
/// `None` when the run is advisory. Blocking applies exactly when `--fail-on` was
/// given. This is the one place that decides it: the exit code, the GitHub check
/// run's conclusion and the Azure DevOps status all follow it, so a later mode
/// that blocks only while precision measured on the repository's own pull
/// requests clears a bar (`[ci] blocking = "earned"`) replaces this function.
fn blocking(fail_on: Option<Severity>) -> Option<Severity> {
    fail_on
}

/// The host client and what the pipeline posted before, or why posting is
/// impossible this run.
type Poster = Result<(Box<dyn CodeHost>, Existing), String>;

fn connect(ctx: &CiContext, runtime: &tokio::runtime::Runtime) -> Poster {
    let config = ctx.host.clone()?;
    let host: Box<dyn CodeHost> = match config {
        HostConfig::GitHub(c) => Box::new(github::GitHub::new(c).map_err(|e| e.to_string())?),
        HostConfig::GitLab(c) => Box::new(gitlab::GitLab::new(c).map_err(|e| e.to_string())?),
        HostConfig::Azure(c) => Box::new(azure::Azure::new(c).map_err(|e| e.to_string())?),
    };
    let existing = runtime.block_on(host.existing(&ctx.head)).map_err(|e| e.to_string())?;
    Ok((host, existing))
}

fn skipped(review: &Review, format: Format, opts: &Options) -> Result<ExitCode> {
    print!("{}", gauntlet_report::render(review, format, opts));
    let reason = review.skipped.as_ref().map_or("", |s| s.reason.as_str());
    crate::progress::say!("gauntlet: skipped: {reason}; nothing was posted");
    Ok(ExitCode::SUCCESS)
}

fn severity(text: &str) -> Result<Severity> {
    match text {
        "high" => Ok(Severity::High),
        "medium" => Ok(Severity::Medium),
        "low" => Ok(Severity::Low),
        other => bail!("--fail-on `{other}` is not a severity: use high, medium or low"),
    }
}

/// Advisory (0) unless blocking applies at a severity (see [`blocking`]) some
/// published finding reaches, or some finding of an earlier run that still stands
/// (`tally`); findings a person dismissed never count.
fn exit_code(published: &[Published], block: Option<Severity>, tally: &publish::Tally) -> ExitCode {
    let Some(min) = block else { return ExitCode::SUCCESS };
    let at_least = |p: &&Published| p.severity.weight() >= min.weight();
    let (quiet, blocking): (Vec<_>, Vec<_>) =
        published.iter().filter(at_least).partition(|p| tally.dismissed.contains(&p.id));
    if !quiet.is_empty() {
        eprintln!(
            "gauntlet: {} finding(s) at or above `{}` were dismissed on the pull request and do not fail the job",
            quiet.len(),
            min.as_str()
        );
    }
    let earlier = tally.standing.iter().filter(|s| s.severity.weight() >= min.weight()).count();
    if earlier > 0 {
        eprintln!(
            "gauntlet: {earlier} finding(s) at or above `{}` from earlier runs still stand on the pull request (this run did not review them again)",
            min.as_str()
        );
    }
    let blocking = blocking.len() + earlier;
    if blocking == 0 {
        return ExitCode::SUCCESS;
    }
    eprintln!("gauntlet: {blocking} finding(s) at or above `{}` severity: failing the job (--fail-on)", min.as_str());
    ExitCode::from(BLOCKING)
}

/// Everything configured that changes a review's outcome, as the overview
/// marker records it: the same head with the same rules and digest is skipped.
fn digest(settings: &Settings) -> String {
    let mut h = Sha256::new();
    h.update(settings.fingerprint.as_bytes());
    h.update(format!("{:?}", settings.models).as_bytes());
    hex::encode(&h.finalize()[..8])
}

/// The standard-tier model as `provider:model`, or empty when none is configured.
fn standard_model(settings: &Settings) -> String {
    let spec = settings.models.as_ref().and_then(|m| m.get(&gauntlet_model::Tier::Standard));
    spec.map(|s| format!("{}:{}", s.provider, s.model)).unwrap_or_default()
}

fn short(rev: &str) -> &str {
    &rev[..rev.len().min(12)]
}

/// Resolve Azure's target branch to a commit, fetching it when the clone lacks it.
pub(crate) fn base_commit(git: &Git, base: &BaseRef) -> Result<String> {
    match base {
        BaseRef::Commit(sha) => Ok(sha.clone()),
        BaseRef::Branch(branch) => {
            if let Some(sha) = git.try_resolve(&format!("origin/{branch}"))? {
                return Ok(sha);
            }
            git.run(&["fetch", "--no-tags", "--quiet", "origin", branch])
                .with_context(|| format!("fetching the target branch `{branch}`"))?;
            git.try_resolve("FETCH_HEAD")?.with_context(|| format!("the target branch `{branch}` did not fetch"))
        }
    }
}
