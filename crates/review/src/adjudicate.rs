//! The adjudicator: a pure function from judged findings to what is published.
//!
//! Drop `disproved`; keep `survives` at or above the threshold; dedupe twins
//! (same file, overlapping lines, claim overlap >= 0.8) keeping the higher
//! confidence; rank by severity weight x confidence. The walk order is a total
//! order over the findings' content, so arrival order never matters.
//!
//! What is kept is then split by the validator's second answer, `impact`: the
//! consequential are published; the minor are listed once, compactly, with their
//! severity capped at [`MINOR_SEVERITY_CAP`], and never posted inline or counted
//! by a gate. Confidence says whether a claim is true, impact whether it
//! matters, so a true minor finding is neither published nor lost.

use crate::contract::{Impact, Severity, VerdictKind};
use crate::finding::{DropReason, Dropped, Judged};
use crate::ground::bounded;
use std::cmp::{Ordering, Reverse};
use std::collections::BTreeSet;

/// Claim overlap at or above which two overlapping findings are twins.
pub const TWIN_OVERLAP: f64 = 0.8;

/// The highest severity a finding the validator called minor is shown with. The
/// finder's severity says how bad the flaw would be; a validator that read the
/// code and found it cosmetic or hypothetical has answered that it is not, and a
/// minor finding never gates anyway, so it reads as low wherever it is listed.
pub const MINOR_SEVERITY_CAP: Severity = Severity::Low;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Adjudication {
    pub published: Vec<Judged>,
    /// Survivors at or above the threshold whose impact is minor, ranked like
    /// `published`, severity capped at [`MINOR_SEVERITY_CAP`]. Listed once, never
    /// inline, never counted by `--fail-on`.
    pub minor: Vec<Judged>,
    /// High-severity survivors with a recorded evidence gap, under the threshold:
    /// "could not be verified either way". Never published inline.
    pub unverified: Vec<Judged>,
    pub dropped: Vec<Dropped>,
}

pub fn adjudicate(judged: &[Judged], threshold: u8) -> Adjudication {
    let mut order: Vec<&Judged> = judged.iter().collect();
    order.sort_by(|a, b| walk_order(a, b));
    let mut unverified = Vec::new();
    // (position in the walk order, drop), so `dropped` follows the walk order too.
    let mut dropped: Vec<(usize, Dropped)> = Vec::new();
    let mut kept: Vec<&Judged> = Vec::new();
    for (i, j) in order.iter().copied().enumerate() {
        match screen(j, threshold) {
            Screen::Candidate => {}
            Screen::Unverified => {
                unverified.push(j.clone());
                continue;
            }
            Screen::Drop(reason, detail) => {
                dropped.push((i, Dropped::of(j, reason, detail)));
                continue;
            }
        }
        match kept.iter().find(|k| is_twin(k, j)) {
            Some(k) => {
                let detail = format!("twin of {}", k.finding.id);
                dropped.push((i, Dropped::of(j, DropReason::Duplicate, detail)));
            }
            None => kept.push(j),
        }
    }
    kept.sort_by(|a, b| rank_order(a, b));
    dropped.sort_by_key(|(i, _)| *i);
    let (published, minor): (Vec<&Judged>, Vec<&Judged>) =
        kept.into_iter().partition(|j| j.impact == Impact::Consequential);
    Adjudication {
        published: published.into_iter().cloned().collect(),
        minor: minor.into_iter().map(capped).collect(),
        unverified,
        dropped: dropped.into_iter().map(|(_, d)| d).collect(),
    }
}

/// A minor finding as it is listed: the finder's severity, at most the cap.
fn capped(j: &Judged) -> Judged {
    let mut j = j.clone();
    j.finding.severity = j.finding.severity.min(MINOR_SEVERITY_CAP);
    j
}

/// What the verdict, gap and threshold alone decide about a finding.
enum Screen {
    Candidate,
    Unverified,
    Drop(DropReason, String),
}

fn screen(j: &Judged, threshold: u8) -> Screen {
    if j.verdict == VerdictKind::Disproved {
        return Screen::Drop(DropReason::Disproved, bounded(&j.validator_evidence));
    }
    if let Some(gap) = &j.gap {
        if j.finding.severity == crate::contract::Severity::High {
            return Screen::Unverified;
        }
        return Screen::Drop(DropReason::UnverifiedDisproof, bounded(gap));
    }
    if j.confidence < threshold {
        let mut detail = format!("confidence {} is under the threshold {threshold}", j.confidence);
        if let Some(why) = &j.capped {
            detail = format!("{detail} ({why})");
        }
        return Screen::Drop(DropReason::BelowThreshold, detail);
    }
    Screen::Candidate
}

/// `kept` and `j` are twins: same file, overlapping lines, overlapping claims.
fn is_twin(kept: &Judged, j: &Judged) -> bool {
    kept.finding.location.overlaps(&j.finding.location)
        && claim_overlap(&kept.finding.claim, &j.finding.claim) >= TWIN_OVERLAP
}

/// The walk order: confidence desc, severity desc, path, start line, reviewer,
/// claim; then every other field, so the order is total over the content.
fn walk_order(a: &Judged, b: &Judged) -> Ordering {
    let key = |j: &Judged| (Reverse(j.confidence), Reverse(j.finding.severity));
    key(a).cmp(&key(b)).then_with(|| tie_break(a, b))
}

/// Rank order: severity weight x confidence desc, then the walk order's key.
fn rank_order(a: &Judged, b: &Judged) -> Ordering {
    let score = |j: &Judged| j.finding.severity.weight() * u32::from(j.confidence);
    score(b).cmp(&score(a)).then_with(|| walk_order(a, b))
}

fn tie_break(a: &Judged, b: &Judged) -> Ordering {
    let (fa, fb) = (&a.finding, &b.finding);
    (&fa.location.path, fa.location.start, &fa.reviewer, &fa.claim)
        .cmp(&(&fb.location.path, fb.location.start, &fb.reviewer, &fb.claim))
        .then_with(|| (fa.location.end, fa.lens).cmp(&(fb.location.end, fb.lens)))
        .then_with(|| (&fa.evidence, &fa.id).cmp(&(&fb.evidence, &fb.id)))
        .then_with(|| rest_key(a).cmp(&rest_key(b)))
}

/// The fields no ordering rule names, last, so that the order is total.
fn rest_key(j: &Judged) -> (&String, &Option<String>, bool, bool, Impact, &Option<String>) {
    let disproved = j.verdict == VerdictKind::Disproved;
    (&j.validator_evidence, &j.gap, disproved, j.finding.inline, j.impact, &j.capped)
}

/// |A∩B| / min(|A|,|B|) over lowercased alphanumeric word sets; sets under 4 words
/// count as twins only when identical (returns 1.0 then, else 0.0).
pub fn claim_overlap(a: &str, b: &str) -> f64 {
    let (wa, wb) = (words(a), words(b));
    if wa.len() < 4 || wb.len() < 4 {
        return if !wa.is_empty() && wa == wb { 1.0 } else { 0.0 };
    }
    let common = wa.intersection(&wb).count();
    common as f64 / wa.len().min(wb.len()) as f64
}

/// Maximal runs of alphanumeric characters, lowercased, as a set.
fn words(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
}
