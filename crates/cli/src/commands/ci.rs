//! `gauntlet ci`: review the pull request of this CI run and post the result to
//! it, under the pipeline's own token. This is the only command that posts;
//! it refuses to run outside CI.
//!
//! Order matters for safety: read what the pipeline posted before, review,
//! print the review to the log, and post last, in one sync. A run that
//! reviewed but could not post says so loudly and still exits 0 (advisory)
//! unless `--fail-on` makes findings blocking. After the comments, the run's
//! verdict goes where the host shows one (see [`status`]); findings a person
//! dismissed never count toward it, nor toward the exit code. A candidate at or
//! above `--fail-on` that could not be validated either way, or a reviewer
//! session that did not finish, makes the run incomplete (exit [`INCOMPLETE`], a
//! status that is not a pass), never passed (see [`incomplete`]).

use crate::args::CiArgs;
use crate::ci_env::{self, BaseRef, CiContext, HostConfig};
use crate::commands::review::{Plan, prepare};
use crate::settings::{BlockingMode, Env, Settings};
use crate::trusted::Trusted;
use anyhow::{Context, Result, bail};
use gauntlet_change::git::Git;
use gauntlet_publish::{CodeHost, Existing, azure, github, gitlab};
use gauntlet_report::{Format, Options};
use gauntlet_review::Review;
use gauntlet_review::contract::Severity;
use gauntlet_review::review::{Published, Undecided};
use incomplete::{Incomplete, incomplete};
use sha2::{Digest, Sha256};
use std::path::Path;
use std::process::ExitCode;

pub(crate) mod earned;
mod incomplete;
mod keyless;
mod publish;
mod scope;
mod seal;
mod skip;
mod status;
mod suggest;

use scope::Scope;
use skip::Unreviewed;

/// What an interruption before posting leaves behind.
const STOPPED: &str = "nothing was posted to the pull request";

/// Exit code when a published finding is at or above `--fail-on`.
pub const BLOCKING: u8 = 3;

/// Exit code when nothing published fails the job, but a candidate at or above
/// `--fail-on` could not be validated either way (the validator failed on it, or
/// its disproof could not be checked), or a reviewer session did not run to the
/// end: the review is incomplete, not passed.
pub const INCOMPLETE: u8 = 4;

pub fn run(git: &Git, config: Option<&Path>, args: &CiArgs, env: &Env, is_tty: bool) -> Result<ExitCode> {
    let ctx = ci_env::detect(env)?;
    let fail_on = args.fail_on.as_deref().map(severity).transpose()?;
    let outputs = &args.outputs.outputs;
    crate::outputs::check(outputs, &args.codequality.as_deref().into_iter().collect::<Vec<_>>())?;
    let change = &args.review.change;
    if change.staged || change.worktree || change.patch.is_some() || change.base.is_some() || args.review.pr.is_some() {
        bail!(
            "`gauntlet ci` reviews the pull request its CI run is for; --base, --staged, --worktree, --patch and --pr belong to `gauntlet review`"
        );
    }
    let (base, merge_base) = scope::commits(git, &ctx)?;
    let base_commit = base.clone();
    // What git treats as binary (`-diff`, `binary`) comes from the base's
    // `.gitattributes` too, never the checkout's (see crate::trusted).
    let git = &git.clone().attributes_from(&base_commit)?;
    crate::progress::say!(
        "gauntlet: {} pull request: reviewing {}..{}",
        ctx.system,
        short(&merge_base),
        short(&ctx.head)
    );
    let runtime = tokio::runtime::Runtime::new()?;
    let mut poster = connect(&ctx, &runtime);
    // Only an overview the pipeline can check it wrote decides what was reviewed.
    let seal = seal::Seal::at(git, &ctx, env);
    if let Ok((_, existing)) = poster.as_mut() {
        seal.check(existing);
    }
    let existing = poster.as_ref().ok().map(|(_, e)| e);
    let scope = scope::decide(git, existing, &ctx.head, args.full);
    let mut review_args = args.review.clone();
    if let Some(why) = scope::no_gate(existing) {
        // The gate's skips rest on what stands; with no trusted record of it, or one
        // that left candidates undecided, skipping could pass what nobody checked.
        crate::progress::say!("gauntlet: note: the gate does not skip this run: {why}");
        review_args.force = true;
    }
    // What decides how the change is reviewed comes from the base, never from the
    // head the pull request's author wrote (see crate::trusted).
    let trusted = Trusted::Base(base_commit.clone());
    let unapplied_rules = rules_not_applied(git, &merge_base, &ctx.head)?;
    // Rules change only through reviewed commits: where the repository pins its rules
    // in gauntlet.lock, CI reviews with exactly those or not at all.
    let locked = trusted.read(git, gauntlet_review::rules::lock::FILE_NAME)?.is_some();
    review_args.locked |= locked;
    if !locked {
        crate::progress::say!(
            "gauntlet: note: the reviewer rules are not pinned; `gauntlet rules lock` writes gauntlet.lock"
        );
    }
    review_args.change.base = Some(match &scope {
        Scope::Since { last, .. } => last.clone(),
        _ => base,
    });
    review_args.change.head = Some(ctx.head.clone());
    let mut settings = match config {
        Some(_) => Settings::resolve(git.root(), config, &review_args, env, is_tty)?,
        None => Settings::from_file(base_config(git, &base_commit)?, &review_args, env, is_tty)?,
    };
    settings.trusted = trusted;
    // Commit subjects and a file's first lines are the author's words: in CI they
    // never set code aside (bots are known by the author the host reports).
    settings.gate.automated_subjects.clear();
    settings.gate.head_banners = false;
    if let Some(lacking) = keyless::missing(&settings, args, env) {
        match ctx.withheld {
            Some(who) => return Ok(keyless::not_reviewed(&runtime, &poster, &ctx, who, &lacking, fail_on)),
            // Nothing configured at all: a local Ollama or the embedded model still
            // runs, as outside CI.
            None if settings.models.is_none() && crate::offline::fallback().is_ok() => {}
            None => bail!(keyless::misconfigured(&ctx, &lacking)),
        }
    }
    let suggest = args.suggest || settings.file.ci.suggest.unwrap_or(false);
    let policy = gauntlet_publish::Policy { author_may_dismiss: settings.file.ci.author_may_dismiss.unwrap_or(false) };
    let suggest = suggest.then(|| crate::commands::fix::loop_settings(&args.loop_args)).transpose()?;
    let format: Format = settings.format.parse()?;
    let opts = Options { verbose: settings.verbose, color: settings.color && format == Format::Terminal };
    let config_digest = digest(&settings);
    let model = standard_model(&settings);
    let mode = settings.file.ci.blocking_mode()?;
    let cache_dir = env("GAUNTLET_CACHE_DIR").map(std::path::PathBuf::from);
    // Under earned blocking the record is kept per rules and model (the era); it is
    // known before the gate, so a push the gate skips is weighed like any other.
    let era = match (&mode, fail_on) {
        (BlockingMode::Earned(_), Some(_)) => {
            let rules = crate::ruleset::RuleSet::load(git, &settings.trusted, &settings.file, env)?.all_version()?;
            gauntlet_publish::marker::era_tag(&rules, &model)
        }
        _ => String::new(),
    };
    let blocking = || match (&mode, fail_on) {
        (BlockingMode::FailOn, _) => (Blocking { min: fail_on, earned: None }, None),
        (BlockingMode::Earned(_), None) => (
            Blocking { min: None, earned: None },
            Some("advisory: blocking is earned, and this run has no --fail-on to apply".to_string()),
        ),
        (BlockingMode::Earned(earned_settings), Some(min)) => {
            let figure = (era.as_str(), base_commit.as_str());
            match earned::decide(&runtime, git, &ctx, earned_settings, figure, policy, cache_dir.clone()) {
                Ok(decision) => {
                    let reason = decision.reason();
                    crate::progress::say!("gauntlet: {reason} ({})", decision.source);
                    let min = decision.earned.met().then_some(min);
                    (Blocking { min, earned: Some(decision.earned) }, Some(reason))
                }
                Err(why) => {
                    let reason = format!("advisory: the record of precision could not be read ({why})");
                    crate::progress::say!("gauntlet: {reason}");
                    (Blocking { min: None, earned: None }, Some(reason))
                }
            }
        }
    };
    // A run that reviews nothing (a push the gate skips, a change with no file a
    // model can be shown) must not pass what still stands on the pull request, in
    // either blocking mode: what stands goes to the check run, status and Code
    // Quality report, and decides the exit code.
    let standing_only = |code: ExitCode, why: Unreviewed| -> Result<ExitCode> {
        let Some(tally) = publish::unreviewed(&runtime, &poster, policy)? else { return Ok(code) };
        let stands = |min: Severity| tally.standing.iter().any(|s| s.severity.weight() >= min.weight());
        // Earned blocking's record is read only when something could block.
        let block = match fail_on {
            Some(min) if stands(min) => blocking().0,
            _ => Blocking { min: fail_on, earned: None },
        };
        skip::show(&runtime, &poster, &ctx, (block.min, &why), &tally, args.codequality.as_deref())?;
        Ok(exit_code(&[], &block, &tally, &[]))
    };
    let prepared = match prepare(git, &review_args, env, settings)? {
        Plan::Skip(review) => {
            let code = skipped(&review, format, &opts)?;
            crate::outputs::write(outputs, &review, opts.verbose, |_| false)?;
            let why = review.skipped.as_ref().map_or_else(|| "the gate set it aside".to_string(), |s| s.reason.clone());
            return standing_only(code, Unreviewed::Skipped(why));
        }
        Plan::Run(prepared) => prepared,
    };
    let (block, mode_note) = blocking();
    if let Scope::Same { last } = &scope {
        let marker = existing.and_then(Existing::marker);
        let same = marker.is_some_and(|m| m.rules == prepared.rules_version() && m.config == config_digest);
        // Under earned blocking, findings of earlier runs carry no reviewer this
        // run can weigh, so a run that blocks reviews again rather than skip.
        let earned_blocks = block.earned.is_some() && block.min.is_some();
        if same && earned_blocks && !args.review.force {
            crate::progress::say!(
                "gauntlet: {} was reviewed already, but earned blocking applies: reviewing again to weigh each finding's reviewer",
                short(last)
            );
        }
        if same && !earned_blocks && !args.review.force {
            // A re-run of the same head ("Re-run failed jobs") is skipped, but it must
            // not pass what the first run failed: with `--fail-on` the exit code comes
            // from what stands on the pull request (open threads nobody dismissed, at
            // the severity their comment names, and the findings the overview's marker
            // records as held). An overview too old to record those gets a review.
            // The check run, status and Code Quality report follow what stands now,
            // so a dismissal since the last run shows without a push.
            let standing = publish::unreviewed(&runtime, &poster, policy)?;
            let standing = if block.min.is_none() { Some(standing.unwrap_or_default()) } else { standing };
            if let Some(tally) = standing {
                crate::outputs::not_written(outputs, "this head was reviewed already")?;
                crate::progress::say!(
                    "gauntlet: skipped: {} was already reviewed with the same rules and config (--force reviews it again)",
                    short(last)
                );
                skip::show(
                    &runtime,
                    &poster,
                    &ctx,
                    (block.min, &Unreviewed::SameHead),
                    &tally,
                    args.codequality.as_deref(),
                )?;
                return Ok(exit_code(&[], &block, &tally, &[]));
            }
            crate::progress::say!(
                "gauntlet: {} was reviewed already, but its overview does not record the findings it holds: reviewing again for --fail-on",
                short(last)
            );
        }
    }
    let review = crate::interrupt::block_on(&runtime, STOPPED, prepared.run(git))??;
    print!("{}", gauntlet_report::render(&review, format, &opts));
    // Code Quality waits for the pull request's dismissals, as --codequality does.
    crate::outputs::write(outputs, &review, opts.verbose, |f| f == Format::Codequality)?;
    crate::commands::review::log_coverage(&review, format);
    if review.timed_out {
        // A partial review would read as "fixed" for every finding it never got to.
        eprintln!(
            "gauntlet: the run reached its --timeout before it was done; nothing was posted (see the gaps above)"
        );
        return Ok(ExitCode::from(1));
    }
    if review.nothing_reviewable() {
        // Like a push the gate skips (an image or a submodule bump): no model was
        // called, the files and why are named, and what stands decides the run.
        let why = crate::commands::review::nothing_reviewed(&review);
        eprintln!("gauntlet: {why}; nothing was posted");
        return standing_only(ExitCode::SUCCESS, Unreviewed::Skipped(why));
    }
    if review.nothing_reviewed() {
        eprintln!("gauntlet: {}; nothing was posted", crate::commands::review::nothing_reviewed(&review));
        return Ok(ExitCode::from(1));
    }
    let incomplete = incomplete(&review, &block);
    let target = publish::Target {
        git,
        merge_base: &merge_base,
        scope: &scope,
        prepared: &prepared,
        digest: config_digest,
        model,
        mode_note,
        incomplete_note: incomplete::note(&incomplete, block.min),
        cap: args.max_comments,
        suggest,
        policy,
        unapplied_rules,
        seal: &seal,
    };
    let (posted, tally) = publish::post(&runtime, &mut poster, &review, &target)?;
    publish::summary(&ctx, &review, &posted)?;
    let may_block = |p: &Published| block.counts(p);
    let standing: &[gauntlet_publish::Standing] = if block.counts_standing() { &tally.standing } else { &[] };
    let blocks = status::Blocks { min: block.min, may_block: &may_block, incomplete: &incomplete };
    let run_status = status::build(&review, &tally.dismissed, &blocks, standing, &scope, ctx.details_url.clone());
    status::report(&runtime, &poster, &review.head, &run_status);
    let codequality = outputs.iter().filter(|o| o.format == Format::Codequality).map(|o| o.path.as_path());
    for path in args.codequality.as_deref().into_iter().chain(codequality) {
        status::write_codequality(path, &run_status)?;
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
    Ok(exit_code_of(&review.published, &block, &tally, &incomplete))
}

/// What fails the job. The exit code, the GitHub check run's conclusion and the
/// Azure DevOps status all follow this one decision, made in [`run`]:
/// - `[ci] blocking = "fail-on"` (the default): `min` is `--fail-on`, and every
///   finding nobody dismissed counts;
/// - `"earned"`: `min` is `--fail-on` only while precision over the record
///   ([`earned::decide`]) cleared the bar, and then only findings raised by a
///   reviewer that cleared it on its own findings count; findings of earlier
///   runs that still stand count too (see [`Blocking::counts_standing`]).
struct Blocking {
    /// The severity at which a counted finding fails the job; `None`: advisory.
    min: Option<Severity>,
    /// The figure earned blocking follows, when it applies.
    earned: Option<gauntlet_publish::earned::Earned>,
}

impl Blocking {
    /// Whether `p` may fail the job (its severity aside).
    fn counts(&self, p: &Published) -> bool {
        let Some(e) = &self.earned else { return true };
        let one = [p.reviewer.clone()];
        let raised: &[String] = if p.raised_by.is_empty() { &one } else { &p.raised_by };
        e.may_block(raised)
    }

    /// Whether `u`, had it been validated and published, could fail the job (its
    /// severity aside): the rule [`Blocking::counts`] applies to findings.
    fn counts_undecided(&self, u: &Undecided<'_>) -> bool {
        self.earned.as_ref().is_none_or(|e| e.may_block(&u.reviewers()))
    }

    /// Whether a finding `reviewer` raised could fail the job (its severity
    /// aside): whether its session not finishing keeps the run from passing.
    fn counts_reviewer(&self, reviewer: Option<&str>) -> bool {
        let raised: Vec<String> = reviewer.map(str::to_string).into_iter().collect();
        self.earned.as_ref().is_none_or(|e| e.may_block(&raised))
    }

    /// Findings of earlier runs that still stand count whenever blocking applies:
    /// under earned blocking too (their reviewers are not weighed; counting them
    /// is the stricter side), or one push that leaves their files alone would
    /// turn a failing pull request green.
    fn counts_standing(&self) -> bool {
        self.min.is_some()
    }
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
    crate::progress::say!("gauntlet: skipped: {}; nothing was posted", crate::progress::log_safe(reason));
    Ok(ExitCode::SUCCESS)
}

/// `gauntlet review --fail-on`: the exit code `ci` would give `review` with
/// nothing dismissed and nothing standing from earlier runs (a local review
/// has neither).
pub(crate) fn fail_on(review: &Review, min: Severity) -> ExitCode {
    let block = Blocking { min: Some(min), earned: None };
    let incomplete = incomplete(review, &block);
    exit_code_of(&review.published, &block, &publish::Tally::default(), &incomplete)
}

pub(crate) fn severity(text: &str) -> Result<Severity> {
    match text {
        "high" => Ok(Severity::High),
        "medium" => Ok(Severity::Medium),
        "low" => Ok(Severity::Low),
        other => bail!("--fail-on `{other}` is not a severity: use high, medium or low"),
    }
}

/// Advisory (0) unless blocking applies at a severity (see [`Blocking`]) some
/// published finding reaches, or some finding of an earlier run that still stands
/// (`tally`); findings a person dismissed never count. When nothing else fails
/// the job, a candidate at or above the severity that could not be validated
/// (`undecided`) makes the run incomplete: [`INCOMPLETE`], never a pass. A run
/// that reviewed nothing has no session that could fail; see [`exit_code_of`].
fn exit_code(
    published: &[Published],
    block: &Blocking,
    tally: &publish::Tally,
    undecided: &[Undecided<'_>],
) -> ExitCode {
    let incomplete = Incomplete { undecided: undecided.to_vec(), failed: Vec::new() };
    exit_code_of(published, block, tally, &incomplete)
}

/// [`exit_code`] of a run that reviewed: a reviewer session that did not finish
/// (`incomplete.failed`) makes it incomplete too.
fn exit_code_of(
    published: &[Published],
    block: &Blocking,
    tally: &publish::Tally,
    incomplete: &Incomplete<'_>,
) -> ExitCode {
    let Some(min) = block.min else { return ExitCode::SUCCESS };
    let (earned, below): (Vec<&Published>, Vec<&Published>) =
        published.iter().filter(|p| p.severity.weight() >= min.weight()).partition(|p| block.counts(p));
    if !below.is_empty() {
        eprintln!(
            "gauntlet: {} finding(s) at or above `{}` were raised only by reviewers below the bar on their own findings and do not fail the job",
            below.len(),
            min.as_str()
        );
    }
    let published: Vec<Published> = earned.into_iter().cloned().collect();
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
    let earlier = if block.counts_standing() {
        tally.standing.iter().filter(|s| s.severity.weight() >= min.weight()).count()
    } else {
        0
    };
    if earlier > 0 {
        eprintln!(
            "gauntlet: {earlier} finding(s) at or above `{}` from earlier runs still stand on the pull request (this run did not review them again)",
            min.as_str()
        );
    }
    let blocking = blocking.len() + earlier;
    if !incomplete.undecided.is_empty() {
        eprintln!(
            "gauntlet: the review is incomplete: {} candidate finding(s) at or above `{}` could not be validated either way: {}",
            incomplete.undecided.len(),
            min.as_str(),
            gauntlet_report::plain::line(&incomplete::name_undecided(&incomplete.undecided), 4_000)
        );
    }
    if !incomplete.failed.is_empty() {
        eprintln!(
            "gauntlet: the review is incomplete: {} reviewer session(s) could not finish, so their share of the change was not reviewed: {}",
            incomplete.failed.len(),
            gauntlet_report::plain::line(&incomplete::name_failed(&incomplete.failed), 4_000)
        );
    }
    if blocking == 0 && incomplete.is_empty() {
        return ExitCode::SUCCESS;
    }
    if blocking == 0 {
        eprintln!(
            "gauntlet: failing the job as incomplete (exit {INCOMPLETE}): run it again to finish the review, or check what it names by hand"
        );
        return ExitCode::from(INCOMPLETE);
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

/// The configuration as the base branch has it: a pull request's own changes to
/// `gauntlet.toml` (a lower bar for earned blocking, fewer reviewers, no masking)
/// take effect once they are reviewed and merged, never in the run that reviews
/// them. Without a `gauntlet.toml` at the base, the defaults apply.
fn base_config(git: &Git, base: &str) -> Result<crate::settings::FileConfig> {
    use crate::settings::{FILE_NAME, FileConfig, parse_file};
    let at_base = git.read(&gauntlet_change::Snapshot::Commit(base.to_string()), FILE_NAME)?;
    let text = at_base.map(|b| String::from_utf8_lossy(&b).into_owned());
    let here = std::fs::read_to_string(git.root().join(FILE_NAME)).ok();
    if here.is_some() && here != text {
        crate::progress::say!(
            "gauntlet: note: {FILE_NAME} as the base branch has it applies; this pull request's changes to it take effect once merged"
        );
    }
    match text {
        Some(text) => parse_file(&text, &format!("{FILE_NAME} at {}", short(base))),
        None => Ok(FileConfig::default()),
    }
}

/// The files that decide how gauntlet reviews which the pull request changes
/// (`merge_base..head`), said in the log; the overview says it too.
fn rules_not_applied(git: &Git, merge_base: &str, head: &str) -> Result<Vec<String>> {
    let changed = crate::trusted::changed_by(git, merge_base, head)?;
    if !changed.is_empty() {
        crate::progress::say!(
            "gauntlet: note: this pull request changes how gauntlet reviews ({}); the base branch's versions apply, and the changes take effect once merged",
            changed.iter().map(|p| crate::progress::log_safe(p)).collect::<Vec<_>>().join(", ")
        );
    }
    Ok(changed)
}

/// The first 12 characters of a commit id, for messages. The head an overview
/// records is text anyone who can edit the overview may set, so the cut is by
/// characters, never inside one.
pub(crate) fn short(rev: &str) -> &str {
    gauntlet_report::plain::prefix(rev, 12)
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
