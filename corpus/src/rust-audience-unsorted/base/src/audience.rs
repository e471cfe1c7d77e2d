//! Who hears about a topic.

use crate::store::{Store, UserId};

/// The users subscribed to `topic`, sorted by id with no repeats, leaving out
/// muted users.
pub fn subscribers(store: &Store, topic: &str) -> Vec<UserId> {
    let mut ids: Vec<UserId> = store.direct.get(topic).cloned().unwrap_or_default();
    ids.sort_unstable();
    ids.dedup();
    ids.retain(|id| !store.muted.contains(id));
    ids
}
