//! `gauntlet review`: review a change and print the report. This command has no
//! path to any code host: it only prints.

use crate::args::{ChangeArgs, ReviewArgs, ReviewCommandArgs};
use crate::progress::{log_safe, say};
use crate::roster::Roster;
use crate::settings::{Env, Settings};
use crate::{gate, providers, state};
use anyhow::{Context, Result};
use gauntlet_change::acquire::PatchSource;
use gauntlet_change::{Change, Target, git::Git};
use gauntlet_report::{Format, Options};
use gauntlet_review::contract::Severity;
use gauntlet_review::fence::Fence;
use gauntlet_review::gate::Decision;
use gauntlet_review::intent::Intent;
use gauntlet_review::pipeline::{self, Input, RepoHead};
use gauntlet_review::review::{Gap, NotReviewed, Review, SCHEMA_VERSION, Skip};
use gauntlet_review::{guidance, rules};
use std::io::Read;
use std::path::Path;

/// The change the flags name.
pub fn target(args: &ChangeArgs) -> Result<Target> {
    Ok(if let Some(patch) = &args.patch {
        if patch == Path::new("-") {
            let mut text = String::new();
            std::io::stdin().read_to_string(&mut text).context("reading the patch from stdin")?;
            Target::Patch(PatchSource::Text(text))
        } else {
            Target::Patch(PatchSource::File(patch.clone()))
        }
    } else if let Some(base) = &args.base {
        Target::Range { base: base.clone(), head: args.head.clone() }
    } else if args.staged {
        Target::Staged
    } else if args.worktree {
        Target::Worktree
    } else {
        Target::Default
    })
}

/// What an interrupted review leaves behind.
const STOPPED: &str = "the review stopped before finishing; no report was printed";

/// How the run ended, for the exit code.
pub enum Outcome {
    Done,
    /// The review ran to the end; with `--fail-on`, what it found decides the
    /// exit code (`main` applies the rule `ci` applies, with nothing dismissed).
    Reviewed(Box<Review>),
    /// Nothing was reviewed; `why` says so (see [`nothing_reviewed`]).
    NothingReviewed {
        why: String,
    },
    /// `--timeout` ended the run before it was done.
    TimedOut,
}

/// Review and print. `fail_on` (already parsed, like the outputs checked here,
/// before anything is fetched or any model called) only makes a head reviewed
/// before be reviewed again: the exit code it decides needs this run's findings.
pub fn run(
    git: &Git,
    config: Option<&Path>,
    cmd: &ReviewCommandArgs,
    fail_on: Option<Severity>,
    env: &Env,
    is_tty: bool,
) -> Result<Outcome> {
    let outputs = &cmd.outputs.outputs;
    crate::outputs::check(outputs, &[])?;
    // `--pr URL` only reads the pull request's commits from its host; this command still only prints.
    let mut args = crate::pr_url::apply(git, &cmd.review, env)?;
    // An exit code from findings needs them: a head reviewed before is reviewed again.
    args.again |= fail_on.is_some();
    let args = &args;
    let settings = Settings::resolve(git.root(), config, args, env, is_tty)?;
    let format: Format = settings.format.parse()?;
    let opts = Options { verbose: settings.verbose, color: settings.color && format == Format::Terminal };
    let prepared = match prepare(git, args, env, settings)? {
        Plan::Skip(review) => {
            print!("{}", gauntlet_report::render(&review, format, &opts));
            crate::outputs::write(outputs, &review, opts.verbose, |_| false)?;
            let reason = review.skipped.as_ref().map_or("", |s| s.reason.as_str());
            say!("gauntlet: skipped: {}", log_safe(reason));
            return Ok(Outcome::Done);
        }
        Plan::Run(prepared) => prepared,
    };
    let runtime = tokio::runtime::Runtime::new()?;
    let review = crate::interrupt::block_on(&runtime, STOPPED, prepared.run(git))??;
    print!("{}", gauntlet_report::render(&review, format, &opts));
    crate::outputs::write(outputs, &review, opts.verbose, |_| false)?;
    log_coverage(&review, format);
    if review.timed_out {
        return Ok(Outcome::TimedOut);
    }
    if review.nothing_reviewed() {
        return Ok(Outcome::NothingReviewed { why: nothing_reviewed(&review) });
    }
    // A replay repeats a recorded run; only real reviews mark a head as reviewed.
    let replayed = prepared.recording.as_ref().is_some_and(|r| r.replay);
    if review.gaps.is_empty() && is_commit(&prepared.change.head) && !replayed {
        state::mark_reviewed(git, &prepared.state_key, &prepared.change.head);
    }
    Ok(Outcome::Reviewed(Box::new(review)))
}

/// After a report a program reads, what it did not cover, on stderr: a job that
/// only parses the findings still shows a person that the review was partial.
/// The terminal report already says it in full on stdout.
pub fn log_coverage(review: &Review, format: Format) {
    if format == Format::Terminal {
        return;
    }
    if let Some(summary) = gauntlet_report::coverage::summary(review) {
        // File names and model text, each already on one line of the summary.
        for line in summary.lines() {
            eprintln!("{}", log_safe(line));
        }
    }
}

/// Why a review that ran reviewed nothing: no file was left that a model could
/// be shown (too large, binary, a submodule pointer, a name not in UTF-8), or
/// every reviewer failed.
pub fn nothing_reviewed(review: &Review) -> String {
    if !review.nothing_reviewable() {
        return "every reviewer failed, so nothing was reviewed (the coverage gaps say why)".into();
    }
    let files: Vec<String> = review
        .not_reviewed
        .iter()
        .filter(|n| !n.ignored)
        .map(|n| format!("{} ({})", log_safe(&n.path), n.reason))
        .collect();
    format!(
        "nothing reviewable was left, so no reviewer ran: {}",
        if files.is_empty() { "no changed file could be shown to a model".to_string() } else { files.join("; ") }
    )
}

/// What the gate and the plan decided, before any model call.
pub enum Plan {
    /// Nothing to review; the review says why.
    Skip(Box<Review>),
    Run(Box<Prepared>),
}

/// A review ready to run (`gauntlet fix` runs one too, inside its own runtime).
pub struct Prepared {
    pub settings: Settings,
    pub change: Change,
    pub models: pipeline::Models,
    pub state_key: String,
    reviewers: Vec<rules::Reviewer>,
    guidance: Vec<guidance::Guidance>,
    rules_version: String,
    /// The version of every reviewer the repository has, whether or not it applies
    /// to this change (what earned blocking's record is kept per).
    all_rules_version: String,
    fence: Fence,
    pub opts: pipeline::Options,
    /// Ignored files, listed as not reviewed (unless `--force` reviewed them).
    ignored: Vec<NotReviewed>,
    /// `--record` / `--replay`.
    recording: Option<providers::Recording>,
    /// Rules drifted from the lock; reviewers left out for want of context, and why.
    context_notes: Vec<String>,
    /// Reviewers whose context could not be gathered: (name, why).
    context_failures: Vec<(String, String)>,
    /// Secrets the change adds, found by the deterministic check.
    secrets: Vec<gauntlet_review::secrets::Secret>,
    /// The masking pass, unless `[secrets] mask = false`.
    masker: Option<std::sync::Arc<gauntlet_review::secrets::Masker>>,
    /// The masking pass over what the review outputs, whatever `mask` says: a
    /// model can echo or invent a secret.
    pub output_masker: std::sync::Arc<gauntlet_review::secrets::Masker>,
    /// What the author says the change does (finders only).
    intent: Option<Intent>,
}

/// The masking pass `[secrets]` configures (built-in patterns plus the repository's).
pub fn secrets_masker(settings: &Settings) -> Result<std::sync::Arc<gauntlet_review::secrets::Masker>> {
    let masker =
        gauntlet_review::secrets::Masker::new(&settings.file.secrets.patterns).context("[secrets] patterns")?;
    Ok(std::sync::Arc::new(masker))
}

/// The masker for text a fix loop sends to models, unless `[secrets] mask = false`.
pub fn fix_masker(settings: &Settings) -> Result<Option<std::sync::Arc<gauntlet_review::secrets::Masker>>> {
    settings.file.secrets.mask.unwrap_or(true).then(|| secrets_masker(settings)).transpose()
}

/// Acquire the change, run the gate, choose the reviewers and build the providers.
pub fn prepare(git: &Git, args: &ReviewArgs, env: &Env, settings: Settings) -> Result<Plan> {
    let deadline = args.timeout.map(|secs| pipeline::Deadline::after(std::time::Duration::from_secs(secs)));
    let mut change = gauntlet_change::acquire(git, &target(&args.change)?)?;
    let skip = |change: &Change, rules_version: &str, reason: &str| -> Result<Plan> {
        Ok(Plan::Skip(Box::new(Review {
            schema_version: SCHEMA_VERSION,
            base: change.base.clone(),
            head: change.head.clone(),
            rules_version: rules_version.to_string(),
            skipped: Some(Skip { reason: reason.to_string() }),
            // Binary files and submodule pointers are named even when nothing runs.
            not_reviewed: pipeline::not_reviewed(change),
            ..Review::default()
        })))
    };
    if change.is_empty() {
        return skip(&change, "", "the change is empty: nothing to review between base and head");
    }

    // Ignored files leave the change before reviewers are chosen; the report lists them.
    // With --force a change made only of them is reviewed as it is.
    let roster = Roster::choose(git, &change, args, env, &settings)?;
    if args.locked {
        crate::ruleset::ensure_locked(&roster.ruleset, &settings.trusted.describe(git))?;
    }
    let selected = roster.selected();
    let ran = rules::version(&selected.iter().collect::<Vec<_>>());
    let (rules_version, lock_note) = roster.ruleset.version(&ran)?;
    let all_rules_version = roster.ruleset.all_version()?;
    if let Some(note) = &lock_note {
        eprintln!("gauntlet: warning: {note}");
    }
    let specs = providers::specs(&settings)?;
    let state_key = state::review_key(&change, &rules_version, &settings, &specs);
    // A replay repeats a recorded run, which marked its head as reviewed.
    let already = args.replay.is_none() && !args.again && state::was_reviewed(git, &state_key)?;
    // The gate judges the whole change; the ignored files leave it afterwards.
    let changed_lines = match gate::decide(&roster.facts, &change, &settings, already, args.force)? {
        Decision::Skip { reason } => return skip(&change, &rules_version, &reason),
        Decision::Review { changed_lines, .. } => changed_lines,
    };
    change.files.retain(|f| roster.kept(f.diff.path()));
    if selected.is_empty() {
        return skip(&change, &rules_version, "no reviewer applies to the changed files (see `gauntlet reviewers`)");
    }

    // Secrets are masked before anything is read for a model; the ones the change
    // adds are reported by the deterministic check either way.
    let masker = secrets_masker(&settings)?;
    let mask = settings.file.secrets.mask.unwrap_or(true);
    let secrets = if mask { masker.change(&mut change) } else { masker.change(&mut change.clone()) };
    let mut guidance = guidance::load_at(git, &settings.trusted.snapshot(&change), &change)?;
    let output_masker = masker.clone();
    let masker = if mask {
        for g in &mut guidance {
            g.text = masker.text(&g.text).0;
        }
        Some(masker)
    } else {
        None
    };
    // Context the reviewers ask for (history, prior feedback, consumers, tokens) is
    // gathered now, so the fence can avoid its text too.
    let mut context = {
        let head = head_of(git, &change, masker.as_ref())?;
        crate::context::prepare(git, &change, &head, &settings, env, selected)?
    };
    if let Some(m) = &masker {
        gauntlet_review::context::mask(&mut context.reviewers, m);
    }
    if context.reviewers.is_empty() && context.failures.is_empty() {
        let why = context.notes.join("; ");
        return skip(&change, &rules_version, &format!("no selected reviewer has anything to work with: {why}"));
    }
    let selected = context.reviewers;
    let intent = stated_intent(git, &change, roster.facts.pr(), masker.as_deref());
    let mut untrusted = gauntlet_review::prompt::untrusted_texts(&change, &guidance);
    untrusted.extend(gauntlet_review::context::untrusted_texts(&selected));
    untrusted.extend(intent.iter().map(|i| i.text.as_str()));
    let fence = Fence::new(&mut rand::rng(), untrusted);
    let recording = recording(args, &fence);
    let models = providers::build(&settings, &specs, env, recording.as_ref(), masker.as_ref())?;
    let opts = pipeline::Options {
        concurrency: settings.concurrency,
        threshold: settings.threshold,
        region_lines: settings.region_lines,
        validator_tier: settings.validator_tier,
        budget: settings.budget,
        prices: settings.prices.clone(),
        deep: settings.deep_reason(&change, changed_lines)?,
        context_tokens: settings.context_tokens(&specs),
        tools: settings.tool_limits(),
        reviewer_tools: settings.file.review.reviewer_tools.unwrap_or(true),
        reviewer_max_steps: settings.file.review.reviewer_max_steps.unwrap_or(pipeline::REVIEWER_MAX_STEPS),
        related_tokens: settings.file.context.related_tokens,
        deadline,
        progress: Default::default(),
    };
    say!(
        "gauntlet: reviewing {} file(s), {changed_lines} changed line(s), with {} reviewer(s) on {}",
        change.files.len(),
        selected.len(),
        models.label(opts.route(gauntlet_model::Tier::Standard))
    );
    let ignored = roster.ignored();
    Ok(Plan::Run(Box::new(Prepared {
        settings,
        change,
        models,
        state_key,
        reviewers: selected,
        guidance,
        rules_version,
        all_rules_version,
        fence,
        opts,
        ignored,
        recording,
        context_notes: lock_note.into_iter().chain(context.notes).collect(),
        context_failures: context.failures,
        secrets,
        masker,
        output_masker,
        intent,
    })))
}

/// What the author says the change does: the pull request's title and description
/// when there is a pull request (flags, the CI event or `--pr`), else the messages
/// of the reviewed commits. Nothing for the index, the worktree or a patch.
fn stated_intent(
    git: &Git,
    change: &Change,
    pr: &gauntlet_review::gate::PrMeta,
    masker: Option<&gauntlet_review::secrets::Masker>,
) -> Option<Intent> {
    if pr.title.is_some() || pr.body.is_some() {
        return Intent::pull_request(pr.title.as_deref(), pr.body.as_deref(), masker);
    }
    if !is_commit(&change.base) || !is_commit(&change.head) {
        return None;
    }
    Intent::commits(&git.commit_messages(&change.base, &change.head), masker)
}

/// The repository at head, masking secrets in what is read through git when asked.
fn head_of<'a>(
    git: &'a Git,
    change: &'a Change,
    masker: Option<&std::sync::Arc<gauntlet_review::secrets::Masker>>,
) -> Result<RepoHead<'a>> {
    let head = RepoHead::new(git, change)?;
    Ok(match masker {
        Some(m) => head.masking(m.clone()),
        None => head,
    })
}

impl Prepared {
    /// The version of the rules this review runs (what `rules_version` will say).
    pub fn rules_version(&self) -> &str {
        &self.rules_version
    }

    /// The version of the repository's whole rule set, the same whichever files a
    /// change touches (a record kept per reviewers that happened to run would let a
    /// change choose its record by the files it touches).
    pub fn all_rules_version(&self) -> &str {
        &self.all_rules_version
    }

    /// Run the pipeline on the change.
    pub async fn run(&self, git: &Git) -> Result<Review> {
        let head = head_of(git, &self.change, self.masker.as_ref())?;
        let input = Input {
            change: &self.change,
            reviewers: self.reviewers.clone(),
            guidance: self.guidance.clone(),
            head: &head,
            rules_version: self.rules_version.clone(),
            fence: self.fence.clone(),
            intent: self.intent.clone(),
        };
        let display = crate::progress::Display::start();
        let opts = pipeline::Options { progress: display.observer(), ..self.opts.clone() };
        let mut review = pipeline::run(&input, &self.models, &opts).await;
        display.finish();
        if let Some(r) = &self.recording {
            replay_misses(r)?;
        }
        // Published without a model: the check is deterministic and exact.
        let secrets = gauntlet_review::secrets::findings(&self.secrets);
        review.funnel.published += secrets.len();
        review.published.splice(0..0, secrets);
        review.not_reviewed.extend(self.ignored.iter().cloned());
        if review.nothing_reviewable() {
            review
                .notes
                .push("nothing reviewable was left, so no reviewer ran; `not reviewed` names each file and why".into());
        }
        review.notes.extend(self.context_notes.iter().cloned());
        review.gaps.extend(self.context_failures.iter().map(|(name, message)| Gap {
            step: "context".into(),
            reviewer: Some(name.clone()),
            finding: None,
            message: message.clone(),
            // The reviewer was left out: none of the change was shown to it.
            failed: true,
        }));
        if let Some(note) = crate::offline::tiny_model_note(&review.provider) {
            say!("gauntlet: note: {note}");
            review.notes.insert(0, note);
        }
        self.output_masker.review(&mut review);
        Ok(review)
    }
}

/// What `--record` / `--replay` ask for.
fn recording(args: &ReviewArgs, fence: &Fence) -> Option<providers::Recording> {
    let (dir, replay) = match (&args.record, &args.replay) {
        (_, Some(dir)) => (dir.clone(), true),
        (Some(dir), None) => (dir.clone(), false),
        (None, None) => return None,
    };
    Some(providers::Recording { replay, dir, boundary: fence.boundary().to_string(), misses: Default::default() })
}

/// A replay that could not serve every request is not the recorded run: fail, naming
/// each request that was missing.
fn replay_misses(recording: &providers::Recording) -> Result<()> {
    let misses = recording.misses.lock().expect("misses lock");
    if misses.is_empty() {
        return Ok(());
    }
    anyhow::bail!(
        "replay: {} model request(s) are not in the recording {}: {}. The change, the settings or \
         the prompts differ from the recorded run; record it again with --record DIR",
        misses.len(),
        recording.dir.display(),
        misses.join(", ")
    )
}

/// Only commits can be "already reviewed": the index and worktree keep changing.
fn is_commit(head: &str) -> bool {
    head.len() >= 40 && head.chars().all(|c| c.is_ascii_hexdigit())
}
