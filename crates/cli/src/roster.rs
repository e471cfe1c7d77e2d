//! Which reviewers a review runs on a change, and why each other one does not:
//! the one decision `gauntlet review` acts on and `gauntlet reviewers` prints, so
//! the two cannot tell different stories.

use crate::args::ReviewArgs;
use crate::gate::{self, Facts};
use crate::ruleset::RuleSet;
use crate::settings::{Env, Settings};
use anyhow::Result;
use gauntlet_change::{Change, FileDiff, git::Git};
use gauntlet_review::review::NotReviewed;
use gauntlet_review::rules::{self, Reviewer, Selection};

/// The reviewers chosen for a change, before context is gathered.
pub struct Roster {
    /// What the gate needs besides the change.
    pub facts: Facts,
    /// Changed files the ignore lists set aside: (path, why).
    ignored: Vec<(String, String)>,
    /// Every changed file is ignored and `--force` reviews them as they are.
    forced: bool,
    pub ruleset: RuleSet,
    /// Every known reviewer and whether it runs on the kept files, and why.
    pub selection: Vec<(Reviewer, Selection)>,
}

impl Roster {
    /// Set ignored files aside, load the rules and select among them, with the
    /// settings `review` would run with.
    pub fn choose(git: &Git, change: &Change, args: &ReviewArgs, env: &Env, settings: &Settings) -> Result<Roster> {
        let facts = gate::gather(git, change, &settings.trusted.snapshot(change), args, env)?;
        let ignored = gate::ignored(&facts, change, settings)?;
        let forced = args.force && ignored.len() == change.files.len();
        let ruleset = RuleSet::load(git, &settings.trusted, &settings.file, env)?;
        let mut roster = Roster { facts, ignored, forced, ruleset, selection: Vec::new() };
        let files: Vec<&FileDiff> = change.files.iter().map(|f| &f.diff).filter(|d| roster.kept(d.path())).collect();
        let selection =
            rules::select_with(&roster.ruleset.all, &files, &settings.disable, &settings.only, &settings.only_by);
        roster.selection = selection.into_iter().map(|(r, s)| (r.clone(), s)).collect();
        Ok(roster)
    }

    /// Whether a changed file stays in the review.
    pub fn kept(&self, path: &str) -> bool {
        self.forced || !self.ignored.iter().any(|(p, _)| p == path)
    }

    /// The reviewers that run, in order.
    pub fn selected(&self) -> Vec<Reviewer> {
        let runs = self.selection.iter().filter(|(_, s)| matches!(s, Selection::Runs { .. }));
        runs.map(|(r, _)| r.clone()).collect()
    }

    /// The files the ignore lists set aside, for the report (none when forced).
    pub fn ignored(&self) -> Vec<NotReviewed> {
        let ignored = if self.forced { &[][..] } else { &self.ignored[..] };
        ignored.iter().map(|(path, why)| NotReviewed::ignored(path, why)).collect()
    }
}
