//! `gauntlet refine`: the loop on a document (a design spec, a plan) toward a goal
//! the user states. Nothing to inspect: the adversary judges each revision as is.

use crate::engine::{Inspection, Kind, Limit, Task};
use gauntlet_review::fence::Fence;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RefineError {
    #[error("{name} is empty: there is nothing to refine")]
    Empty { name: String },
    #[error("{name} has {chars} characters; refine handles documents of up to {max}: split it and refine the parts")]
    TooLarge { name: String, chars: usize, max: usize },
    #[error(
        "the goal is empty: say what the document should achieve, e.g. --goal \"a spec a new engineer can implement\""
    )]
    NoGoal,
}

/// One document and its goal.
pub struct Refine {
    document: String,
    limit: Limit,
    fence: Fence,
    shared: String,
}

impl Refine {
    /// `name` is how the document is labelled to the models (its file name).
    pub fn new(name: &str, goal: &str, document: &str, fence: Fence) -> Result<Refine, RefineError> {
        if goal.trim().is_empty() {
            return Err(RefineError::NoGoal);
        }
        if document.trim().is_empty() {
            return Err(RefineError::Empty { name: name.into() });
        }
        let (chars, max) = (document.chars().count(), Kind::Document.max_chars());
        if chars > max {
            return Err(RefineError::TooLarge { name: name.into(), chars, max });
        }
        let shared = crate::prompt::refine_shared(name, goal.trim(), document, &fence);
        // A revision may well grow, but not without bound: twice the original and
        // some room, so a model that will not stop is cut off early.
        let limit = Limit::for_chars((2 * chars + 4_000).min(max));
        Ok(Refine { document: document.to_string(), limit, fence, shared })
    }
}

#[async_trait::async_trait]
impl Task for Refine {
    fn kind(&self) -> Kind {
        Kind::Document
    }
    fn shared(&self) -> Vec<String> {
        vec![self.shared.clone()]
    }
    fn brief(&self) -> String {
        crate::prompt::refine_primary()
    }
    fn start(&self) -> String {
        self.document.clone()
    }
    fn fence(&self) -> &Fence {
        &self.fence
    }
    fn limit(&self) -> Limit {
        self.limit
    }
    async fn inspect(&self, work: &str) -> Inspection {
        if work.trim().is_empty() {
            return Inspection::Rejected {
                reason: "the document came back empty; return the whole revised document".into(),
            };
        }
        Inspection::Ready { work: work.to_string(), evidence: None, passed: None }
    }
}
