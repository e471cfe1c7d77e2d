//! The loop's prompt templates (minijinja, in `prompts/`) and what they are fed.
//!
//! Each task has a shared block (identical for every primary and adversary call of
//! the loop, so providers can cache it) and a brief for the primary's first turn.
//! Every round then adds either the issues for the primary ([`feedback`]) or a fresh
//! adversary's whole turn ([`adversary`]).

use crate::converge::Stage;
use crate::round::{Judge, PriorRounds, Round};
use gauntlet_review::fence::Fence;
use minijinja::{Environment, context};
use std::sync::OnceLock;

fn env() -> &'static Environment<'static> {
    static ENV: OnceLock<Environment<'static>> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = Environment::new();
        env.set_keep_trailing_newline(true);
        for (name, src) in [
            ("untrusted", include_str!("../prompts/untrusted.md.j2")),
            ("fix_shared", include_str!("../prompts/fix_shared.md.j2")),
            ("fix_primary", include_str!("../prompts/fix_primary.md.j2")),
            ("refine_shared", include_str!("../prompts/refine_shared.md.j2")),
            ("refine_primary", include_str!("../prompts/refine_primary.md.j2")),
            ("feedback", include_str!("../prompts/feedback.md.j2")),
            ("adversary", include_str!("../prompts/adversary.md.j2")),
            ("limits", include_str!("../prompts/limits.md.j2")),
        ] {
            env.add_template(name, src).expect("prompt templates parse");
        }
        env
    })
}

/// Every bound of the answer `schema` in words, under a line saying an answer that
/// breaks one is rejected. Generated from the very schema the answer is checked
/// against (by [`gauntlet_review::limits`]), so prompt and contract cannot drift:
/// a provider's strict mode drops `maxLength` and `maxItems`, and a model is not
/// otherwise told them.
pub fn limits(schema: &serde_json::Value) -> String {
    let block = render("limits", context! { limits => gauntlet_review::limits::as_list(schema) });
    format!("{}\n", block.trim_end())
}

fn render(name: &str, ctx: minijinja::Value) -> String {
    env().get_template(name).and_then(|t| t.render(ctx)).expect("prompt templates render")
}

/// What a fix loop is about: one published finding.
pub struct FixContext<'a> {
    pub location: &'a str,
    pub severity: &'a str,
    pub claim: &'a str,
    pub evidence: &'a str,
    pub validator_evidence: &'a str,
    pub path: &'a str,
    /// The file at head, numbered for reference; `None` when it is not text.
    pub numbered_file: Option<&'a str>,
}

pub fn fix_shared(c: &FixContext<'_>, fence: &Fence) -> String {
    let finding = format!(
        "Claim: {}\nEvidence quoted by the reviewer: {}\nWhy the validator kept it: {}\n",
        c.claim, c.evidence, c.validator_evidence
    );
    let file = match c.numbered_file {
        Some(text) => fence.wrap(&format!("file {}", c.path), text),
        None => "(not shown: the file is missing at head or is not text)\n".to_string(),
    };
    render(
        "fix_shared",
        context! {
            boundary => fence.boundary(),
            location => c.location,
            severity => c.severity,
            finding => fence.wrap("finding", &finding),
            path => c.path,
            file,
        },
    )
}

pub fn fix_primary() -> String {
    render("fix_primary", context! {})
}

pub fn refine_shared(name: &str, goal: &str, document: &str, fence: &Fence) -> String {
    let document = fence.wrap(&format!("document {name}"), document);
    render("refine_shared", context! { boundary => fence.boundary(), name, goal, document })
}

pub fn refine_primary() -> String {
    render("refine_primary", context! {})
}

/// The primary's turn after round `round`: its issues, and the user's direction.
pub fn feedback(round: &Round, field: &str, steer: Option<&str>) -> String {
    let judge = match round.judge {
        Judge::Adversary => "adversary",
        Judge::Gauntlet => "gauntlet",
    };
    render("feedback", context! { number => round.number, judge, issues => round.issues, field, steer })
}

/// What a fresh adversary session is asked in one round.
pub struct AdversaryTurn<'a> {
    pub number: u32,
    pub stage: Stage,
    /// The work as it was before any revision (the inverted flow's first round).
    pub start: bool,
    pub field: &'a str,
    pub prior: &'a PriorRounds,
    pub work: &'a str,
    /// The check command's result, for patches.
    pub evidence: Option<&'a str>,
}

pub fn adversary(t: &AdversaryTurn<'_>, fence: &Fence) -> String {
    let work = if t.work.trim().is_empty() {
        format!("(empty: no {} was proposed)\n", t.field)
    } else {
        fence.wrap(t.field, t.work)
    };
    let stage = match t.stage {
        Stage::Open => "open",
        Stage::Substantive => "substantive",
        Stage::OnlyNew => "only_new",
    };
    render(
        "adversary",
        context! {
            number => t.number,
            stage,
            start => t.start,
            field => t.field,
            prior => t.prior,
            work,
            evidence => t.evidence.map(|e| fence.wrap("check", e)),
            limits => limits(&crate::contract::critique_schema()),
        },
    )
}
