//! Where each case stands with the person who signs the corpus, and which cases
//! a backtest scores as a result: plain data the corpus and the reports share,
//! apart from the walk and the writing of decisions.

use serde::{Deserialize, Serialize};

/// Where a case stands with the person who signs the corpus.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Nobody has read it yet (what `mine` writes, and what a case without a
    /// `status` is).
    #[default]
    Unreviewed,
    /// A person read it and signs it: a real defect introduced by head (escape),
    /// or a change with none (clean).
    Accepted,
    /// A person read it and says the miner got it wrong.
    Rejected,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Unreviewed => "unreviewed",
            Status::Accepted => "accepted",
            Status::Rejected => "rejected",
        }
    }

    pub fn parse(text: &str) -> Option<Status> {
        match text.trim() {
            "unreviewed" => Some(Status::Unreviewed),
            "accepted" => Some(Status::Accepted),
            "rejected" => Some(Status::Rejected),
            _ => None,
        }
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A case's curation, as `case.toml` records it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Curation {
    #[serde(default)]
    pub status: Status,
    /// Why it was accepted or rejected (required for a rejection).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub curated_by: Option<String>,
    /// `YYYY-MM-DD`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub curated_at: Option<String>,
}

impl Curation {
    /// `accepted`, `rejected: why`, `unreviewed`: one short line for reports.
    pub fn label(&self) -> String {
        match &self.reason {
            Some(reason) if self.status != Status::Unreviewed => format!("{}: {reason}", self.status),
            _ => self.status.to_string(),
        }
    }
}

/// Which cases a backtest scores, and how many the curation left out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Selection {
    pub accepted: usize,
    pub rejected: usize,
    pub unreviewed: usize,
    /// Some case is accepted: only accepted cases are scored.
    pub only_accepted: bool,
}

impl Selection {
    /// Count the statuses of `statuses` (every case of the corpus).
    pub fn of<'a>(statuses: impl IntoIterator<Item = &'a Status>) -> Selection {
        let mut s = Selection::default();
        for status in statuses {
            match status {
                Status::Accepted => s.accepted += 1,
                Status::Rejected => s.rejected += 1,
                Status::Unreviewed => s.unreviewed += 1,
            }
        }
        s.only_accepted = s.accepted > 0;
        s
    }

    /// Whether a case in `status` is reviewed and scored.
    pub fn scores(&self, status: Status) -> bool {
        !self.only_accepted || status == Status::Accepted
    }

    /// Cases left out of the scores.
    pub fn left_out(&self) -> usize {
        if self.only_accepted { self.rejected + self.unreviewed } else { 0 }
    }

    /// One sentence for people: what is scored and what is left out, and why.
    pub fn sentence(&self) -> String {
        let total = self.accepted + self.rejected + self.unreviewed;
        if self.only_accepted {
            format!(
                "Scored only the {} accepted case(s) of {total}: left out {} rejected and {} unreviewed.",
                self.accepted, self.rejected, self.unreviewed
            )
        } else {
            format!(
                "The corpus is unreviewed: none of its {total} case(s) is accepted ({} rejected, {} unreviewed), so \
                 every case is scored; sign it with `gauntlet backtest curate` to score only the accepted ones.",
                self.rejected, self.unreviewed
            )
        }
    }
}
