//! The offline model is held to the validator's contract at generation time: the
//! grammar built from the verdict schema admits only the two impact literals.

use gauntlet_local::grammar::from_schema;
use gauntlet_review::contract::verdict_schema;

#[test]
fn the_verdict_grammar_requires_impact_as_one_of_its_two_literals() {
    let g = from_schema(&verdict_schema()).unwrap();
    let impact = r#""\"impact\":" ("\"consequential\"" | "\"minor\"") "}""#;
    assert!(g.gbnf.contains(impact), "impact, last and required: {}", g.gbnf);
}
