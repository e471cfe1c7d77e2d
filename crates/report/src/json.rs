//! The JSON report: exactly one object, the serialised [`Review`].

use gauntlet_review::Review;

pub(crate) fn render(review: &Review) -> String {
    // Serialising plain structs with string keys cannot fail; non-finite costs
    // serialise as `null`.
    let mut out = serde_json::to_string_pretty(review).expect("a Review always serialises");
    out.push('\n');
    out
}
