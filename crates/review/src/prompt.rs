//! Prompt templates (minijinja, in `prompts/`) and the text they are fed.
//!
//! The shared block is identical for every reviewer and validator call of a run:
//! instructions, the fenced change and the fenced guidance. Each call then adds one
//! turn: a reviewer's role, or a validator's claim.

use crate::fence::Fence;
use crate::guidance::Guidance;
pub use crate::listing::numbered;
use crate::part::PartFile;
use gauntlet_change::{Change, ChangedFile, FileStatus, LineKind};
use minijinja::{Environment, context};
use serde::Serialize;
use std::sync::OnceLock;

fn env() -> &'static Environment<'static> {
    static ENV: OnceLock<Environment<'static>> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = Environment::new();
        env.set_keep_trailing_newline(true);
        for (name, src) in [
            ("shared", include_str!("../prompts/shared.md.j2")),
            ("change", include_str!("../prompts/change.md.j2")),
            ("finder", include_str!("../prompts/finder.md.j2")),
            ("validator", include_str!("../prompts/validator.md.j2")),
            ("reask", include_str!("../prompts/reask.md.j2")),
            ("tools", include_str!("../prompts/tools.md.j2")),
            ("step_limit", include_str!("../prompts/step_limit.md.j2")),
            ("context", include_str!("../prompts/context.md.j2")),
            ("intent", include_str!("../prompts/intent.md.j2")),
            ("related", include_str!("../prompts/related.md.j2")),
        ] {
            env.add_template(name, src).expect("prompt templates parse");
        }
        env
    })
}

fn render(name: &str, ctx: minijinja::Value) -> String {
    env().get_template(name).and_then(|t| t.render(ctx)).expect("prompt templates render")
}

#[derive(Serialize)]
struct FileView {
    path: String,
    status: &'static str,
    old_path: Option<String>,
    note: Option<String>,
    diff: String,
    content: Option<String>,
}

fn status_name(s: FileStatus) -> &'static str {
    match s {
        FileStatus::Added => "added",
        FileStatus::Modified => "modified",
        FileStatus::Deleted => "deleted",
        FileStatus::Renamed => "renamed",
        FileStatus::Copied => "copied",
    }
}

fn diff_text(file: &ChangedFile) -> String {
    let mut out = String::new();
    for h in &file.diff.hunks {
        out.push_str(&format!(
            "@@ -{},{} +{},{} @@ {}\n",
            h.old_start, h.old_lines, h.new_start, h.new_lines, h.header
        ));
        for l in &h.lines {
            let marker = match l.kind {
                LineKind::Context => ' ',
                LineKind::Added => '+',
                LineKind::Removed => '-',
            };
            out.push(marker);
            out.push_str(&l.text);
            out.push('\n');
        }
    }
    out
}

fn file_view(part: PartFile<'_>) -> FileView {
    let file = part.file;
    let d = &file.diff;
    let renamed = matches!(d.status, FileStatus::Renamed | FileStatus::Copied);
    FileView {
        path: d.path().to_string(),
        status: status_name(d.status),
        old_path: if renamed { d.old_path.clone() } else { None },
        note: part.unshown_reason().map(|why| format!("Content not shown: {why}.")),
        diff: diff_text(file),
        content: part.head_text().map(|t| numbered(1, t.lines())),
    }
}

/// Every piece of untrusted text that will be fenced, so the fence can avoid them all.
pub fn untrusted_texts<'a>(change: &'a Change, guidance: &'a [Guidance]) -> Vec<&'a str> {
    let mut texts: Vec<&str> = Vec::new();
    for f in &change.files {
        texts.extend(f.head_text.as_deref());
        texts.extend(f.diff.hunks.iter().flat_map(|h| h.lines.iter().map(|l| l.text.as_str())));
        texts.push(f.diff.path());
    }
    texts.extend(guidance.iter().flat_map(|g| [g.text.as_str(), g.path.as_str()]));
    texts
}

/// The change as every session reads it (each file's diff and numbered head text),
/// fenced. The backtest's single-pass baseline is shown exactly this too.
pub fn change_listing(change: &Change, fence: &Fence) -> String {
    let whole: Vec<PartFile<'_>> = change.files.iter().map(|file| PartFile { file, whole: true }).collect();
    part_listing(&whole, fence)
}

/// [`change_listing`] of one part of a split change.
pub(crate) fn part_listing(files: &[PartFile<'_>], fence: &Fence) -> String {
    let files: Vec<FileView> = files.iter().copied().map(file_view).collect();
    fence.wrap("change", &render("change", context! { files }))
}

/// The shared block: instructions, the fenced change, the fenced guidance.
pub fn shared(change: &Change, guidance: &[Guidance], fence: &Fence) -> String {
    shared_with(change_listing(change, fence), guidance, fence)
}

/// [`shared`] for one part of a split change.
pub(crate) fn shared_part(files: &[PartFile<'_>], guidance: &[Guidance], fence: &Fence) -> String {
    shared_with(part_listing(files, fence), guidance, fence)
}

fn shared_with(change_text: String, guidance: &[Guidance], fence: &Fence) -> String {
    let guidance_text: String = guidance.iter().map(|g| fence.wrap(&format!("guidance {}", g.path), &g.text)).collect();
    render("shared", context! { boundary => fence.boundary(), change => change_text, guidance => guidance_text })
}

/// The related-code block of the shared context; `None` when there is none.
pub fn related(related: &crate::related::Related, fence: &Fence) -> Option<String> {
    if related.is_empty() {
        return None;
    }
    let omitted = related.omitted_line();
    Some(render("related", context! { blocks => related.listing(fence), omitted, budget => related.budget }))
}

pub fn finder(name: &str, description: &str, body: &str, max_findings: usize) -> String {
    let limits = crate::limits::as_list(&crate::contract::findings_schema(max_findings));
    render("finder", context! { name, description, body, max_findings, limits })
}

/// The author's stated intent, fenced, to append to a finder's turn (validators
/// never get it).
pub fn intent(intent: &crate::intent::Intent, fence: &Fence) -> String {
    render(
        "intent",
        context! {
            commits => intent.source == crate::intent::Source::Commits,
            cut => intent.cut,
            max_bytes => crate::intent::INTENT_MAX_BYTES,
            intent => fence.wrap("stated intent", &intent.text),
        },
    )
}

/// A reviewer's gathered context, fenced block by block, to append to its turn.
/// Empty when there is none, so reviewers without context get the bare turn.
pub fn reviewer_context(blocks: &[&crate::context::block::Block], fence: &Fence) -> String {
    if blocks.is_empty() {
        return String::new();
    }
    let mut kinds: Vec<&str> = blocks.iter().map(|b| describe_kind(b.kind)).collect();
    kinds.dedup();
    let text: String = blocks.iter().map(|b| fence.wrap(&b.label, &b.text)).collect();
    render("context", context! { kinds => kinds.join("; "), blocks => text })
}

fn describe_kind(kind: crate::context::block::ContextKind) -> &'static str {
    use crate::context::block::ContextKind::*;
    match kind {
        History => "the commits that touched the changed lines",
        Feedback => "review comments left on earlier pull requests for these files",
        Consumers => "the files that use the names the change touches, found through the symbol index of the head",
        Tokens => "the design-token files and the added literals that equal a token",
    }
}

/// The validator's turn: the bare claim, the code around its location and, in a
/// block of its own, other files' code the claim's reviewer was given (`region`
/// is `(around, elsewhere)`; an empty `elsewhere` leaves that block out).
pub fn validator(location: &str, claim: &str, region: (&str, &str), strict: bool, fence: &Fence) -> String {
    let claim = fence.wrap("claim", claim);
    let elsewhere = (!region.1.is_empty()).then(|| fence.wrap("code elsewhere", region.1));
    let region = fence.wrap("code", region.0);
    let limits = crate::limits::as_list(&crate::contract::verdict_schema());
    render(
        "validator",
        context! {
            location, claim, region, elsewhere, strict, limits,
            evidence_max => crate::contract::VERDICT_EVIDENCE_MAX,
            cited_max => crate::ground::CITED_MAX_LINES,
            quote_min => crate::ground::QUOTE_MIN_CHARS,
        },
    )
}

/// Re-ask after a rejected answer. `contract` is true for a format violation, false
/// for an ungrounded disproof.
pub fn reask(error: &str, contract: bool) -> String {
    render("reask", context! { error, contract })
}

/// Appended to a session's turn when it can call tools (`validator`: the session
/// tries to disprove a claim, else it looks for findings).
pub fn tools(max_steps: u32, validator: bool) -> String {
    render("tools", context! { max_steps, validator })
}

/// The last turn of a session that asked for tools after its step limit.
pub fn step_limit(max_steps: u32) -> String {
    render("step_limit", context! { max_steps })
}
