//! Masking model-written text before it is output or posted: a model can echo a
//! secret it was shown unmasked (`[secrets] mask = false`), one that slipped past
//! the input rules in another form, or invent a token-shaped string.

use super::Masker;
use crate::review::{Published, Review};

impl Masker {
    /// Mask one model-written text (a claim, an answer, a patch).
    pub fn written(&self, text: &str) -> String {
        self.text(text).0
    }

    /// Mask every text in `review` that a model wrote or that quotes the change:
    /// findings (published, minor and unverified), dropped findings, gaps and notes.
    /// A list of findings the review gains later must be added here, or its text
    /// reaches every report and the pull request unmasked.
    pub fn review(&self, review: &mut Review) {
        let findings = review.published.iter_mut().chain(review.minor.iter_mut()).chain(review.unverified.iter_mut());
        for p in findings {
            self.published(p);
        }
        for d in &mut review.dropped {
            d.claim = self.written(&d.claim);
            d.detail = self.written(&d.detail);
            // A finding dropped as ungrounded keeps the location as the model wrote it.
            d.location = self.written(&d.location);
        }
        for g in &mut review.gaps {
            g.message = self.written(&g.message);
            if let Some(f) = &mut g.finding {
                *f = self.written(f);
            }
        }
        for n in &mut review.notes {
            *n = self.written(n);
        }
        if let Some(skip) = &mut review.skipped {
            skip.reason = self.written(&skip.reason);
        }
    }

    fn published(&self, p: &mut Published) {
        p.claim = self.written(&p.claim);
        p.evidence = self.written(&p.evidence);
        p.validator_evidence = self.written(&p.validator_evidence);
        if let Some(gap) = &mut p.gap {
            *gap = self.written(gap);
        }
        for u in &mut p.unvalidated {
            *u = self.written(u);
        }
    }
}
