//! Judge: cluster the grounded candidates ([`crate::cluster`]), validate one member
//! per cluster, re-check when adjudication would drop nothing, and fold test gaps
//! into the defects they are about.
//!
//! A cluster's members are validated one at a time in their validation order: the
//! representative first, the next member only when it was disproved, until one
//! survives or all are disproved. Each validator sees the bare claim of the member
//! it judges, never the other members or how many reviewers agreed. The published
//! finding carries the cluster's fingerprint, its highest severity and every
//! reviewer that raised it.
//!
//! The rubber-stamp re-check validates each decided member again with the stricter
//! instruction. When that disproves it, the cluster hands over exactly as on the
//! first pass: the next member is validated, with the same stricter instruction
//! (the first pass's lenient one is what the re-check distrusts), until one
//! survives or all are disproved. A defect that several reviewers found is then
//! not lost because the stricter validator rejected one wording of it.

use super::ask::Failure;
use super::validate::one;
use super::{Ctx, not_validated};
use crate::adjudicate::adjudicate;
use crate::cluster::{self, Cluster, Regions, SymbolRegions};
use crate::contract::VerdictKind;
use crate::finding::{DropReason, Dropped, Finding, Judged};
use crate::ground::bounded;
use crate::progress::{Counter, Event, REVALIDATE, VALIDATE};
use crate::review::{Gap, Review};
use futures::StreamExt;
use std::collections::{BTreeMap, BTreeSet};

/// The rubber-stamp re-check needs at least this many validated clusters.
pub(crate) const RUBBER_STAMP_MIN: usize = 3;

/// A grounded candidate and the part of the change it came from.
type Item<'g> = &'g (usize, Finding);

/// A cluster, and the part of the change each member came from.
struct Group {
    cluster: Cluster,
    parts: Vec<usize>,
}

/// What validating one cluster came to.
struct Outcome {
    /// The member whose verdict decides the cluster (its position), and the verdict;
    /// or the member whose validation failed, and why.
    result: Result<(usize, Judged), (usize, Failure)>,
    /// Members disproved before it.
    disproved: Vec<Judged>,
    /// Members before it whose disproof code could not check (so neither stood
    /// nor fell): the next member was asked instead of letting one unchecked
    /// answer decide the cluster.
    unchecked: Vec<Judged>,
    sessions: usize,
}

pub(crate) async fn run_all(ctxs: &[Ctx<'_>], grounded: &[(usize, Finding)], review: &mut Review) -> Vec<Judged> {
    let Some(first) = ctxs.first() else { return Vec::new() };
    if grounded.is_empty() {
        return Vec::new();
    }
    let threshold = first.opts.threshold;
    let regions = regions_of(first, grounded);
    let (held, rest) = hold_test_gaps(grounded, &regions);
    let groups = make_groups(&rest, &regions);
    review.funnel.clustered = groups.len();
    let mut outcomes = validate(ctxs, &groups).await;
    let mut sessions: usize = outcomes.iter().map(|o| o.sessions).sum();
    let rechecked = would_drop_nothing(&outcomes, threshold);
    if rechecked {
        sessions += recheck(ctxs, &groups, &mut outcomes, review).await;
    }
    let mut judged = settle(&groups, outcomes, review);
    sessions += fold(ctxs, &groups, held, &regions, &mut judged, review).await;
    let one_each = grounded.len() * if rechecked { 2 } else { 1 };
    review.validator_sessions.run = sessions;
    review.validator_sessions.saved = one_each.saturating_sub(sessions);
    review.validator_sessions.rechecked = rechecked;
    judged
}

/// Regions from the symbol index of the files the candidates are located in.
fn regions_of(ctx: &Ctx<'_>, grounded: &[(usize, Finding)]) -> SymbolRegions {
    let paths: Vec<&str> =
        grounded.iter().map(|(_, f)| f.location.path.as_str()).collect::<BTreeSet<_>>().into_iter().collect();
    let texts = ctx.input.head.texts(&paths);
    let texts = paths.iter().zip(texts).filter_map(|(p, t)| Some((p.to_string(), t?))).collect();
    SymbolRegions::new(texts, ctx.input.change)
}

/// Test gaps that name the code of another candidate wait until it is known whether
/// that defect is published; the rest are candidates like any other.
fn hold_test_gaps<'g>(grounded: &'g [(usize, Finding)], regions: &dyn Regions) -> (Vec<Item<'g>>, Vec<Item<'g>>) {
    let (gaps, mut rest): (Vec<_>, Vec<_>) = grounded.iter().partition(|(_, f)| cluster::is_test_gap(f));
    if gaps.is_empty() {
        return (gaps, rest);
    }
    let others: Vec<Finding> = rest.iter().map(|(_, f)| f.clone()).collect();
    let clusters = cluster::cluster(&others, regions);
    let (held, free): (Vec<_>, Vec<_>) =
        gaps.into_iter().partition(|(_, f)| cluster::fold_target(f, &clusters).is_some());
    rest.extend(free);
    (held, rest)
}

fn make_groups(items: &[Item<'_>], regions: &dyn Regions) -> Vec<Group> {
    let findings: Vec<Finding> = items.iter().map(|(_, f)| f.clone()).collect();
    let mut groups: Vec<Group> = cluster::groups(&findings, regions)
        .into_iter()
        .map(|g| {
            let members: Vec<Finding> = g.iter().map(|&i| findings[i].clone()).collect();
            let cluster = Cluster { id: cluster::fingerprint(&members, regions), members };
            Group { cluster, parts: g.iter().map(|&i| items[i].0).collect() }
        })
        .collect();
    // Two defects in one file quoting the same names would share a fingerprint (and a
    // comment marker): those take the members' quotes into the hash as well.
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for g in &groups {
        *seen.entry(g.cluster.id.clone()).or_default() += 1;
    }
    for g in &mut groups {
        if seen[&g.cluster.id] > 1 {
            let quotes: Vec<String> = g.cluster.members.iter().map(|m| crate::shown::normalize(&m.evidence)).collect();
            g.cluster.id = crate::finding::Finding::fingerprint(
                "cluster",
                &g.cluster.id,
                g.cluster.members[0].lens,
                &quotes.join("\n"),
            );
        }
    }
    groups
}

/// Validate every cluster; progress counts clusters, the units this step works on.
async fn validate(ctxs: &[Ctx<'_>], groups: &[Group]) -> Vec<Outcome> {
    let concurrency = ctxs.first().map_or(1, |c| c.opts.concurrency.max(1));
    let progress = ctxs.first().map(|c| c.opts.progress.clone()).unwrap_or_default();
    progress.event(&Event::StepStarted { step: VALIDATE, total: groups.len() });
    let counter = Counter::new(groups.len());
    let mut out: Vec<(usize, Outcome)> = futures::stream::iter(groups.iter().enumerate())
        .map(|(i, g)| {
            let (counter, progress) = (&counter, &progress);
            async move {
                let outcome = validate_group(ctxs, g).await;
                let (done, total, judged) = (counter.tick(), counter.total, outcome.result.is_ok());
                progress.event(&Event::ValidationDone { done, total, judged });
                (i, outcome)
            }
        })
        .buffer_unordered(concurrency)
        .collect()
        .await;
    progress.event(&Event::StepFinished { step: VALIDATE });
    out.sort_by_key(|(i, _)| *i);
    out.into_iter().map(|(_, o)| o).collect()
}

/// Members in order until one survives or all are disproved.
async fn validate_group(ctxs: &[Ctx<'_>], g: &Group) -> Outcome {
    validate_from(ctxs, g, 0, false).await
}

/// Members from position `from` on, in order, until one survives or all are
/// disproved; `strict` asks each with the re-check's stricter instruction.
async fn validate_from(ctxs: &[Ctx<'_>], g: &Group, from: usize, strict: bool) -> Outcome {
    let members = &g.cluster.members;
    let (mut disproved, mut unchecked) = (Vec::new(), Vec::new());
    let mut sessions = 0;
    for i in from..members.len() {
        sessions += 1;
        let more = i + 1 < members.len();
        match one(&ctxs[g.parts[i]], &members[i], strict).await {
            Ok(j) if j.verdict == VerdictKind::Disproved && more => disproved.push(j),
            Ok(j) if j.gap.is_some() && more => unchecked.push(j),
            Ok(j) => return Outcome { result: Ok((i, j)), disproved, unchecked, sessions },
            Err(e) => return Outcome { result: Err((i, e)), disproved, unchecked, sessions },
        }
    }
    Outcome { result: Err((from, "a cluster without members".into())), disproved, unchecked, sessions }
}

/// Adjudication at `threshold` would drop nothing: among three or more validated
/// clusters, none was disproved (not even a member before the one that survived)
/// and every one survived at or above the threshold with no evidence gap.
fn would_drop_nothing(outcomes: &[Outcome], threshold: u8) -> bool {
    let answered: Vec<&Judged> = outcomes.iter().filter_map(|o| o.result.as_ref().ok().map(|(_, j)| j)).collect();
    answered.len() >= RUBBER_STAMP_MIN
        && outcomes.iter().all(|o| o.disproved.is_empty())
        && answered.iter().all(|j| j.verdict == VerdictKind::Survives && j.gap.is_none() && j.confidence >= threshold)
}

/// Validate each decided member again with the stricter instruction; the second
/// answer stands, and one that disproves the member hands over to the next member
/// (validated as strictly). Returns the sessions started.
async fn recheck(ctxs: &[Ctx<'_>], groups: &[Group], outcomes: &mut [Outcome], review: &mut Review) -> usize {
    let answered = outcomes.iter().filter(|o| o.result.is_ok()).count();
    review.notes.push(format!(
        "rubber-stamp check: adjudication at the threshold would have dropped none of {answered} validated \
         findings, so each was validated again with a stricter instruction; the second answers stand (where one \
         disproved a cluster's member, the next member was validated as strictly)"
    ));
    let concurrency = ctxs.first().map_or(1, |c| c.opts.concurrency.max(1));
    let todo: Vec<(usize, usize)> =
        outcomes.iter().enumerate().filter_map(|(k, o)| o.result.as_ref().ok().map(|(i, _)| (k, *i))).collect();
    let progress = ctxs.first().map(|c| c.opts.progress.clone()).unwrap_or_default();
    progress.event(&Event::StepStarted { step: REVALIDATE, total: todo.len() });
    let counter = Counter::new(todo.len());
    let second: Vec<(usize, usize, Outcome)> = futures::stream::iter(todo.iter().copied())
        .map(|(k, i)| {
            let g = &groups[k];
            let (counter, progress) = (&counter, &progress);
            async move {
                let outcome = validate_from(ctxs, g, i, true).await;
                let (done, total, judged) = (counter.tick(), counter.total, outcome.result.is_ok());
                progress.event(&Event::ValidationDone { done, total, judged });
                (k, i, outcome)
            }
        })
        .buffer_unordered(concurrency)
        .collect()
        .await;
    progress.event(&Event::StepFinished { step: REVALIDATE });
    let mut sessions = 0;
    for (k, i, again) in second {
        sessions += again.sessions;
        match again.result {
            // The decided member's own re-check did not run: its first answer stands.
            Err((at, message)) if at == i => {
                let Ok((_, first)) = &outcomes[k].result else { continue };
                review.gaps.push(Gap {
                    step: "revalidate".into(),
                    reviewer: Some(first.finding.reviewer.clone()),
                    finding: Some(groups[k].cluster.members[i].id.clone()),
                    message: format!("the stricter re-check did not run ({message}); the first answer stands"),
                    failed: false,
                });
            }
            result => {
                let o = &mut outcomes[k];
                o.disproved.extend(again.disproved);
                o.unchecked.extend(again.unchecked);
                o.result = result;
            }
        }
    }
    sessions
}

/// One judged finding per answered cluster; every other member ends in `dropped`
/// with its reason, so each candidate is accounted for exactly once.
fn settle(groups: &[Group], outcomes: Vec<Outcome>, review: &mut Review) -> Vec<Judged> {
    let mut judged = Vec::new();
    for (g, o) in groups.iter().zip(outcomes) {
        let c = &g.cluster;
        for d in &o.disproved {
            let detail =
                format!("{} (the next member of cluster {} was validated)", bounded(&d.validator_evidence), c.id);
            review.dropped.push(Dropped::of(d, DropReason::Disproved, detail));
        }
        for u in &o.unchecked {
            let why = u.gap.as_deref().unwrap_or("its disproof could not be checked");
            let detail = format!("{} (the next member of cluster {} was validated)", bounded(why), c.id);
            review.dropped.push(Dropped::of(u, DropReason::NotValidated, detail));
        }
        let decided = match &o.result {
            Ok((i, _)) | Err((i, _)) => *i,
        };
        for m in c.members.iter().skip(decided + 1) {
            review.dropped.push(clustered(m, c, &c.members[decided], o.result.is_ok()));
        }
        match o.result {
            Ok((i, mut j)) => {
                j.finding.id = c.id.clone();
                j.finding.severity = c.severity();
                j.raised_by = c.raised_by();
                j.also_at = c.also_at(&c.members[i]).iter().map(ToString::to_string).collect();
                judged.push(j);
            }
            Err((i, message)) => {
                let f = &c.members[i];
                review.dropped.push(not_validated(f, &message));
                // The member's own id: the gap then names the claim that was sent.
                review.gaps.push(Gap {
                    step: "validate".into(),
                    reviewer: Some(f.reviewer.clone()),
                    finding: Some(f.id.clone()),
                    message,
                    // Its candidate is undecided, and counted as such.
                    failed: false,
                });
            }
        }
    }
    judged
}

fn clustered(m: &Finding, c: &Cluster, decided: &Finding, answered: bool) -> Dropped {
    let how = if answered { "validated once for the cluster" } else { "whose validation failed" };
    Dropped {
        reason: if answered { DropReason::Clustered } else { DropReason::NotValidated },
        detail: format!("same defect as cluster {} ({} at {}), {how}", c.id, decided.reviewer, decided.location),
        reviewer: m.reviewer.clone(),
        location: m.location.to_string(),
        claim: m.claim.clone(),
        severity: m.severity,
        confidence: None,
    }
}

/// Held test gaps become unvalidated lines of the published finding whose code
/// they name; a gap whose defect was not published is validated like any other
/// candidate. Returns the sessions started.
async fn fold(
    ctxs: &[Ctx<'_>],
    groups: &[Group],
    held: Vec<Item<'_>>,
    regions: &dyn Regions,
    judged: &mut Vec<Judged>,
    review: &mut Review,
) -> usize {
    if held.is_empty() {
        return 0;
    }
    let threshold = ctxs[0].opts.threshold;
    let published: BTreeSet<String> =
        adjudicate(judged, threshold).published.into_iter().map(|j| j.finding.id).collect();
    let targets: Vec<Cluster> =
        groups.iter().map(|g| g.cluster.clone()).filter(|c| published.contains(&c.id)).collect();
    let mut free = Vec::new();
    for item in held {
        let gap = &item.1;
        let Some(t) = cluster::fold_target(gap, &targets) else {
            free.push(item);
            continue;
        };
        let id = &targets[t].id;
        if let Some(j) = judged.iter_mut().find(|j| &j.finding.id == id) {
            j.unvalidated.push(format!("`{}` at {}: {}", gap.reviewer, gap.location, gap.claim));
            if !j.raised_by.contains(&gap.reviewer) {
                j.raised_by.push(gap.reviewer.clone());
                j.raised_by.sort();
            }
        }
        review.dropped.push(Dropped {
            reason: DropReason::Clustered,
            detail: format!("a test gap of cluster {id}, shown there as not validated"),
            reviewer: gap.reviewer.clone(),
            location: gap.location.to_string(),
            claim: gap.claim.clone(),
            severity: gap.severity,
            confidence: None,
        });
    }
    if free.is_empty() {
        return 0;
    }
    let groups = make_groups(&free, regions);
    review.funnel.clustered += groups.len();
    let outcomes = validate(ctxs, &groups).await;
    let sessions = outcomes.iter().map(|o| o.sessions).sum();
    judged.extend(settle(&groups, outcomes, review));
    sessions
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::{Lens, Location, Severity};

    fn judged(verdict: VerdictKind, confidence: u8, gap: Option<&str>) -> Judged {
        let f = Finding {
            id: "x".into(),
            reviewer: "r".into(),
            lens: Lens::FailureScenario,
            location: Location { path: "a.py".into(), start: 1, end: 1 },
            inline: true,
            claim: "c".into(),
            evidence: "e".into(),
            severity: Severity::High,
        };
        Judged {
            finding: f,
            verdict,
            confidence,
            impact: crate::contract::Impact::Consequential,
            validator_evidence: "a.py:1 `e`".into(),
            capped: None,
            gap: gap.map(str::to_string),
            read: Vec::new(),
            raised_by: vec!["r".into()],
            also_at: Vec::new(),
            unvalidated: Vec::new(),
        }
    }

    fn answered(j: Judged) -> Outcome {
        Outcome { result: Ok((0, j)), disproved: Vec::new(), unchecked: Vec::new(), sessions: 1 }
    }

    #[test]
    fn the_recheck_needs_three_clusters_that_adjudication_would_all_keep() {
        let keep = || answered(judged(VerdictKind::Survives, 100, None));
        assert!(would_drop_nothing(&[keep(), keep(), keep()], 75));
        assert!(!would_drop_nothing(&[keep(), keep()], 75), "two clusters are too few to judge");
        let under = answered(judged(VerdictKind::Survives, 50, None));
        assert!(!would_drop_nothing(&[keep(), keep(), under], 75), "the threshold drops one");
        let gap = answered(judged(VerdictKind::Survives, 100, Some("unchecked disproof")));
        assert!(!would_drop_nothing(&[keep(), keep(), gap], 75), "an unverified disproof is dropped");
        let mut handed_over = keep();
        handed_over.disproved.push(judged(VerdictKind::Disproved, 75, None));
        assert!(!would_drop_nothing(&[keep(), keep(), handed_over], 75), "a member was disproved on the way");
        let failed = Outcome {
            result: Err((0, "provider down".into())),
            disproved: Vec::new(),
            unchecked: Vec::new(),
            sessions: 1,
        };
        assert!(!would_drop_nothing(&[keep(), keep(), failed], 75), "a failed cluster is not an answer");
    }
}
