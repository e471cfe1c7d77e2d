//! Related code in a run: every finder and validator request carries the same
//! related-code block, and a finding located in an untouched file that block shows
//! is grounded on it and published (inline = false, as a consumer the change broke).

use gauntlet_change::{Change, ChangedFile, Snapshot, parse_patch};
use gauntlet_model::{ModelError, Provider, Request, Response, Usage};
use gauntlet_review::fence::Fence;
use gauntlet_review::pipeline::{self, Input, Models, Options};
use gauntlet_review::rules::{Origin, Reviewer};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

const STATUS_HEAD: &str = "\
namespace Parcels;

public enum ShipmentStatus
{
    Created,
    AwaitingPickup,
    InTransit,
    Delivered
}
";

const CLIENT: &str = "\
// The API sends a shipment's status as a number.
export enum ShipmentStatus {
  Created = 0,
  InTransit = 1,
  Delivered = 2,
}

export function label(s: ShipmentStatus): string {
  return s === ShipmentStatus.InTransit ? 'moving' : 'waiting';
}
";

const PATCH: &str = "\
diff --git a/src/ShipmentStatus.cs b/src/ShipmentStatus.cs
--- a/src/ShipmentStatus.cs
+++ b/src/ShipmentStatus.cs
@@ -4,5 +4,6 @@ public enum ShipmentStatus
 {
     Created,
+    AwaitingPickup,
     InTransit,
     Delivered
 }
";

/// Answers finders with one finding in the client (which only related code shows)
/// and validators with a surviving verdict; records every request's shared blocks.
#[derive(Default)]
struct Fake {
    shared: Mutex<Vec<(String, Vec<String>)>>,
}

#[async_trait::async_trait]
impl Provider for Fake {
    fn name(&self) -> &str {
        "fake"
    }
    fn model(&self) -> &str {
        "fake"
    }
    async fn complete(&self, request: &Request) -> Result<Response, ModelError> {
        self.shared.lock().unwrap().push((request.step.clone(), request.shared.to_vec()));
        let json = if request.step == "find" {
            r#"{"findings": [{"lens": "blast_radius", "location": "clients/status.ts:4",
                "claim": "The client still numbers InTransit as 1, which is now AwaitingPickup.",
                "evidence": "InTransit = 1,", "severity": "high"}]}"#
        } else {
            r#"{"verdict": "survives", "evidence": "clients/status.ts:4 `InTransit = 1,` is the old number", "confidence": 100, "impact": "consequential"}"#
        };
        Ok(Response { json: json.into(), tool_calls: Vec::new(), usage: Usage::default() })
    }
}

use gauntlet_review::pipeline::Memory as Head;

#[tokio::test]
async fn every_session_gets_the_related_code_and_a_finding_may_rest_on_it() {
    let diff = parse_patch(PATCH).unwrap().remove(0);
    let file = ChangedFile { diff, head_text: Some(STATUS_HEAD.into()), unreadable: None };
    let change = Change { base: "b".into(), head: "h".into(), snapshot: Snapshot::Worktree, files: vec![file] };
    let head = Head(BTreeMap::from([
        ("src/ShipmentStatus.cs".to_string(), STATUS_HEAD.to_string()),
        ("clients/status.ts".to_string(), CLIENT.to_string()),
    ]));
    let text = "+++\nname = \"correctness\"\ndescription = \"bugs\"\n+++\nLook for defects.\n";
    let reviewer = Reviewer::parse("correctness.md", text, Origin::Builtin).unwrap();
    let input = Input {
        change: &change,
        reviewers: vec![reviewer],
        guidance: Vec::new(),
        head: &head,
        rules_version: "v".into(),
        fence: Fence::fixed("DATA-0000"),
        intent: None,
    };
    let fake = Arc::new(Fake::default());
    let review = pipeline::run(&input, &Models::single(fake.clone()), &Options::default()).await;

    let seen = fake.shared.lock().unwrap();
    assert!(seen.iter().any(|(step, _)| step == "find") && seen.iter().any(|(step, _)| step == "validate"));
    let related = &seen[0].1[1];
    assert!(related.contains("related clients/status.ts:"), "{related}");
    assert!(related.contains("uses `ShipmentStatus` changed at src/ShipmentStatus.cs:"), "{related}");
    for (step, shared) in seen.iter() {
        assert_eq!(shared.len(), 2, "{step}: the change, then related code");
        assert_eq!(&shared[1], related, "{step} got the same related code");
    }
    assert_eq!(review.funnel.grounded, 1, "dropped: {:?}", review.dropped);
    assert_eq!(review.published.len(), 1, "{review:?}");
    assert_eq!(review.published[0].location, "clients/status.ts:4");
}
