//! `gauntlet refine FILE --goal TEXT`: revise a document in an adversarial loop and
//! write the revision beside it (`FILE.refined.md`), or over it with `--in-place`.

use crate::args::{RefineArgs, ReviewArgs};
use crate::files::write_atomically;
use crate::providers;
use crate::settings::{Env, Settings};
use anyhow::{Context, Result, bail};
use gauntlet_loop::engine::{Outcome, Settings as LoopSettings, Steer, Steering, run as run_loop};
use gauntlet_loop::meter::Meter;
use gauntlet_loop::refine::Refine;
use gauntlet_loop::round::Round;
use gauntlet_review::fence::Fence;
use gauntlet_review::progress::{Event, Observer};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

/// Where the revision goes: `design.md` → `design.refined.md`; other names get
/// `.refined.md` appended.
pub fn output_path(file: &Path, in_place: bool) -> PathBuf {
    if in_place {
        return file.to_path_buf();
    }
    let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let stem = name.strip_suffix(".md").unwrap_or(&name);
    file.with_file_name(format!("{stem}.refined.md"))
}

pub fn run(root: &Path, config: Option<&Path>, args: &RefineArgs, env: &Env, is_tty: bool) -> Result<bool> {
    let settings_loop = super::fix::loop_settings(&args.loop_args)?;
    let document = std::fs::read_to_string(&args.file)
        .with_context(|| format!("cannot read {} (refine takes a UTF-8 text file)", args.file.display()))?;
    let out = output_path(&args.file, args.in_place);
    if !args.in_place && !args.force && out.exists() {
        bail!("{} already exists: remove it, pass --force to replace it, or use --in-place", out.display());
    }
    let review_args = ReviewArgs {
        provider: args.provider.clone(),
        model: args.model.clone(),
        model_path: args.model_path.clone(),
        max_calls: args.max_calls,
        max_tokens: args.max_tokens,
        max_cost: args.max_cost,
        color: "never".into(),
        ..ReviewArgs::default()
    };
    let settings = Settings::resolve(root, config, &review_args, env, is_tty)?;
    let specs = providers::specs(&settings)?;
    let masker = super::review::fix_masker(&settings)?;
    let models = providers::build(&settings, &specs, env, None, masker.as_ref())?;
    let name = args.file.file_name().map_or_else(|| "document".into(), |n| n.to_string_lossy().into_owned());
    let fence = Fence::new(&mut rand::rng(), [document.as_str(), args.goal.as_str()]);
    let task = Refine::new(&name, &args.goal, &document, fence)?;
    let label = models.label(gauntlet_model::Tier::Standard);
    // The interactive prompt shares stderr with the display: no live redrawing then.
    let display = (!args.interactive).then(crate::progress::Display::start);
    let observer = display.as_ref().map(|d| d.observer()).unwrap_or_default();
    let meter = Meter::new(models, settings.prices.clone(), settings.budget).with_progress(observer.clone());
    crate::progress::say!("gauntlet: refining {name}, up to {} rounds, on {label}", settings_loop.rounds);
    if let Some(note) = crate::offline::tiny_model_note(&label) {
        crate::progress::say!("gauntlet: note: {note}");
    }
    let user = Keyboard;
    let rounds = Rounds {
        user: if args.interactive { Some(&user) } else { None },
        progress: observer,
        cap: settings_loop.rounds.max(1) as usize,
    };
    let runtime = tokio::runtime::Runtime::new()?;
    let outcome = rounds.run(&runtime, &task, &settings_loop, &meter);
    drop(display);
    let written = match outcome.work().filter(|w| *w != document) {
        Some(revision) => {
            write_atomically(&out, revision)?;
            Some(out)
        }
        None => None,
    };
    print!("{}", summary(&args.file, &outcome, written.as_deref(), &meter));
    Ok(outcome.kept.is_some())
}

fn summary(file: &Path, outcome: &Outcome, written: Option<&Path>, meter: &Meter) -> String {
    let clean = |s: &str| s.chars().map(|c| if c.is_control() { ' ' } else { c }).collect::<String>();
    let state = if outcome.exit.converged() { "converged" } else { "not converged" };
    let mut out = format!(
        "gauntlet refine: {}: {} after {} round(s) ({state})\n",
        file.display(),
        outcome.exit,
        outcome.rounds.len()
    );
    if let Some(m) = &outcome.message {
        out.push_str(&format!("why it stopped: {}\n", clean(m)));
    }
    match (written, outcome.kept) {
        (Some(path), Some(round)) if outcome.exit.converged() => {
            out.push_str(&format!("wrote {} (the revision of round {round})\n", path.display()))
        }
        (Some(path), Some(round)) => {
            out.push_str(&format!("wrote {}: the best revision, from round {round}, NOT converged\n", path.display()))
        }
        (None, Some(_)) => out.push_str("the document was accepted as it is: nothing written\n"),
        _ => out.push_str("no revision survived to be judged: nothing written\n"),
    }
    for issue in outcome.open_issues() {
        out.push_str(&format!(
            "open [{}] {}: {}\n",
            issue.severity.as_str(),
            clean(&issue.category),
            clean(&issue.description)
        ));
    }
    let usage = meter.usage();
    let calls: u32 = usage.iter().map(|u| u.calls).sum();
    let tokens: u64 = usage.iter().map(|u| u.input + u.output).sum();
    let cost = usage.iter().try_fold(0.0, |acc, u| u.cost.map(|c| acc + c));
    let cost = cost.map_or("cost n/a (unknown price)".to_string(), |c| format!("${c:.4}"));
    out.push_str(&format!("{calls} model calls · {tokens} tokens · {cost}\n"));
    out
}

/// The user at the terminal, asked between rounds (`--interactive`).
struct Keyboard;

/// Counts a refine loop's rounds for the progress display, and hands each pause
/// between rounds to the user when `--interactive` asks for one.
struct Rounds<'a> {
    user: Option<&'a dyn Steer>,
    progress: Observer,
    cap: usize,
}

impl Rounds<'_> {
    fn run(&self, runtime: &tokio::runtime::Runtime, task: &Refine, settings: &LoopSettings, meter: &Meter) -> Outcome {
        self.progress.event(&Event::StepStarted { step: REFINE_STEP, total: self.cap });
        let outcome = runtime.block_on(run_loop(task, settings, meter, Some(self)));
        // The round that ends a loop has no pause after it: count it here.
        let ok = outcome.exit != gauntlet_loop::converge::ExitReason::Failed;
        let done = outcome.rounds.len();
        self.progress.event(&Event::UnitDone { step: REFINE_STEP, done, total: self.cap, ok });
        self.progress.event(&Event::StepFinished { step: REFINE_STEP });
        outcome
    }
}

impl Steer for Rounds<'_> {
    fn between(&self, round: &Round) -> Steering {
        let done = round.number as usize;
        self.progress.event(&Event::UnitDone { step: REFINE_STEP, done, total: self.cap, ok: true });
        self.user.map_or(Steering::Continue, |user| user.between(round))
    }
}

/// The step name refine's progress lines carry.
const REFINE_STEP: &str = "refine";

impl Steer for Keyboard {
    fn between(&self, round: &Round) -> Steering {
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "\nround {}: {} issue(s):", round.number, round.issues.len());
        for (i, issue) in round.issues.iter().enumerate() {
            let text: String = issue.description.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
            let _ = writeln!(err, "  {}. [{}] {text}", i + 1, issue.severity.as_str());
        }
        let _ = write!(err, "accept (a), steer (s) or continue (c)? [c] ");
        let _ = err.flush();
        match read_line().as_deref().map(str::trim) {
            Some("a" | "accept") => Steering::Accept,
            Some("s" | "steer") => {
                let _ = write!(err, "direction for the next revision: ");
                let _ = err.flush();
                match read_line().map(|l| l.trim().to_string()).filter(|l| !l.is_empty()) {
                    Some(text) => Steering::Steer(text),
                    None => Steering::Continue,
                }
            }
            // Enter, "c", end of input or anything else: let the loop go on.
            _ => Steering::Continue,
        }
    }
}

fn read_line() -> Option<String> {
    let mut line = String::new();
    match std::io::stdin().lock().read_line(&mut line) {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(line),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_revision_goes_beside_the_file_unless_in_place() {
        assert_eq!(output_path(Path::new("docs/design.md"), false), Path::new("docs/design.refined.md"));
        assert_eq!(output_path(Path::new("plan.txt"), false), Path::new("plan.txt.refined.md"));
        assert_eq!(output_path(Path::new("docs/design.md"), true), Path::new("docs/design.md"));
    }
}
