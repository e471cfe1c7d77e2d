//! The overview's section on review rules the pull request changes: `ci`
//! reviewed with the base's, and a reader must not take the review for one
//! that ran with the rules the pull request proposes.

use gauntlet_report::markdown::code;
use std::fmt::Write as _;

/// Paths named in the section on rules not applied; the rest are counted.
const MAX_RULE_PATHS: usize = 20;

/// Says which files that decide the review the pull request changes, and that
/// they were not applied; nothing when there are none.
pub(super) fn section(out: &mut String, paths: &[String]) {
    if paths.is_empty() {
        return;
    }
    let mut named: Vec<String> = paths.iter().take(MAX_RULE_PATHS).map(|p| code(p)).collect();
    if paths.len() > MAX_RULE_PATHS {
        named.push(format!("and {} more", paths.len() - MAX_RULE_PATHS));
    }
    let _ = writeln!(
        out,
        "### Review rules changed, not applied\n\nThis pull request changes files that decide how gauntlet \
         reviews: {}. They were not applied: this review used them as the base branch has them. They take effect \
         once the pull request is merged.\n",
        named.join(", ")
    );
}

#[cfg(test)]
mod tests {
    use crate::body::overview_tests::marker;
    use crate::body::{OverviewFacts, overview};
    use gauntlet_review::Review;

    #[test]
    fn rule_changes_the_pull_request_makes_are_named_as_not_applied() {
        let clean = overview(&Review::default(), &marker(), &OverviewFacts::default());
        assert!(!clean.contains("not applied"), "{clean}");
        // Paths are the author's text: a name that tries to close the code span stays in it.
        let mut paths = vec![".gauntlet/reviewers/correctness.md".to_string(), "x` @team <b>".to_string()];
        paths.extend((0..30).map(|i| format!(".gauntlet/reviewers/r{i}.md")));
        let facts = OverviewFacts { unapplied_rules: paths, ..OverviewFacts::default() };
        let body = overview(&Review::default(), &marker(), &facts);
        assert!(body.contains("### Review rules changed, not applied"), "{body}");
        assert!(body.contains("`.gauntlet/reviewers/correctness.md`"), "{body}");
        assert!(body.contains("used them as the base branch has them"), "{body}");
        assert!(body.contains("take effect once the pull request is merged"), "{body}");
        assert!(body.contains("and 12 more"), "at most 20 paths are named: {body}");
        assert!(body.contains("``x` @team <b>``"), "held in a code span, where nothing renders: {body}");
        let (rules, summary) = (body.find("not applied").unwrap(), body.find("No findings.").unwrap());
        assert!(summary < rules && !body.contains("r25.md"), "{body}");
    }
}
