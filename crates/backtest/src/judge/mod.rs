//! `backtest --judge`: a blind judge for the findings the truth list cannot score.
//!
//! A case's known defects name only the lines a later fix touched, so a true
//! finding elsewhere scores as a false positive. With the judge on, every finding
//! of either side (the pipeline and the single-pass baseline) that matches nothing
//! known is put to a separate judge session ([`session`]), which answers under an
//! exact contract ([`contract`]) whether the claim is true, false or unclear, and
//! whether it is consequential or minor.
//!
//! The judge is blind to who made a claim: it sees the location and the claim
//! text, never a reviewer, a validator's verdict or a system's name. Claims of both
//! sides are judged in one order, shuffled by a hash seeded from the case (the same
//! order on every run, so a recording replays), and a claim both sides made (the
//! same location and text) is judged once, its answer counting for each.
//!
//! The known-defect figures are left as they are; the judge adds its own: judged
//! precision (true over answered, with the unclear answers counted apart) and the
//! true, consequential findings per case.

pub mod contract;
pub mod report;
pub mod session;

use crate::score::{Reported, ratio};
use contract::{Judgement, Truth};
use futures::StreamExt;
use gauntlet_review::contract::Impact;
use serde::{Deserialize, Serialize};
use session::Judge;

/// One finding the truth list did not match, and what the judge said of it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JudgedFinding {
    pub location: String,
    pub claim: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judgement: Option<Judgement>,
    /// Why there is no answer (the contract broken twice, a failed call): a gap in
    /// the judging, never counted as true or false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gap: Option<String>,
}

/// What the judge said of one side's unmatched findings (on one case, or added up).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Judged {
    /// Findings that got an answer: true, false or unclear.
    pub judged: usize,
    #[serde(rename = "true")]
    pub true_claims: usize,
    #[serde(rename = "false")]
    pub false_claims: usize,
    pub unclear: usize,
    /// True findings the judge called consequential.
    pub consequential: usize,
    /// Findings left without an answer (see each finding's `gap`).
    pub gaps: usize,
    /// True / judged; `null` when nothing was judged.
    pub precision: Option<f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<JudgedFinding>,
}

impl Judged {
    /// Count `findings` into a tally.
    pub fn of(findings: Vec<JudgedFinding>) -> Judged {
        let mut j = Judged::default();
        for f in &findings {
            let Some(answer) = &f.judgement else {
                j.gaps += 1;
                continue;
            };
            j.judged += 1;
            match answer.verdict {
                Truth::True => {
                    j.true_claims += 1;
                    j.consequential += usize::from(answer.impact == Impact::Consequential);
                }
                Truth::False => j.false_claims += 1,
                Truth::Unclear => j.unclear += 1,
            }
        }
        j.precision = ratio(j.true_claims, j.judged);
        j.findings = findings;
        j
    }

    /// Add another tally's counts (not its findings).
    pub fn add(&mut self, other: &Judged) {
        self.judged += other.judged;
        self.true_claims += other.true_claims;
        self.false_claims += other.false_claims;
        self.unclear += other.unclear;
        self.consequential += other.consequential;
        self.gaps += other.gaps;
        self.precision = ratio(self.true_claims, self.judged);
    }
}

/// A claim as the judge is asked it: location and text, nothing else.
type Claim = (String, String);

fn claim_of(r: &Reported) -> Claim {
    (r.location.trim().to_string(), r.claim.trim().to_string())
}

/// The distinct claims of both sides, in the order the judge is asked them: by a
/// hash of the case and the claim, so neither side's claims come first, and the
/// order is the same on every run of the case.
pub fn order(case: &str, sides: &[&[Reported]]) -> Vec<Claim> {
    let mut claims: Vec<Claim> = sides.iter().flat_map(|s| s.iter().map(claim_of)).collect();
    claims.sort();
    claims.dedup();
    let rank = |c: &Claim| crate::mine::clean::rank(0, &format!("{case}\n{}\n{}", c.0, c.1));
    claims.sort_by_cached_key(|c| (rank(c), c.clone()));
    claims
}

/// Judge every unmatched finding of each side; returns one tally per side, in the
/// order of `sides`. Each distinct claim costs one session, `concurrency` at a time.
pub async fn judge_sides(judge: &Judge<'_>, case: &str, sides: &[&[Reported]], concurrency: usize) -> Vec<Judged> {
    let claims = order(case, sides);
    let answers: Vec<Result<Judgement, String>> = futures::stream::iter(&claims)
        .map(|(location, claim)| judge.one(location, claim))
        .buffered(concurrency.max(1))
        .collect()
        .await;
    let answered: Vec<(&Claim, &Result<Judgement, String>)> = claims.iter().zip(&answers).collect();
    sides
        .iter()
        .map(|side| {
            let findings = side.iter().map(|r| {
                let key = claim_of(r);
                let answer = answered.iter().find(|(c, _)| **c == key).map(|(_, a)| *a);
                let (judgement, gap) = match answer {
                    Some(Ok(j)) => (Some(j.clone()), None),
                    Some(Err(e)) => (None, Some(e.clone())),
                    None => (None, Some("not put to the judge".to_string())),
                };
                JudgedFinding { location: r.location.clone(), claim: r.claim.clone(), judgement, gap }
            });
            Judged::of(findings.collect())
        })
        .collect()
}
