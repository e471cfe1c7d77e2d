//! Who hears about a topic.

use crate::store::{Store, UserId};
use std::collections::HashSet;

/// The users subscribed to `topic`, themselves or through a team that follows
/// it, sorted by id with no repeats, leaving out muted users. Callers look users
/// up in the answer with a binary search, so it stays sorted.
pub fn subscribers(store: &Store, topic: &str) -> Vec<UserId> {
    let direct = store.direct.get(topic).into_iter().flatten();
    let teams = store.team_topics.get(topic).into_iter().flatten();
    let through_teams = teams.filter_map(|team| store.team_members.get(team)).flatten();
    let muted: HashSet<UserId> = store.muted.iter().copied().collect();
    let mut ids: Vec<UserId> = direct.chain(through_teams).copied().filter(|id| !muted.contains(id)).collect();
    ids.sort_unstable();
    ids.dedup();
    ids
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn team_members_join_the_audience_in_id_order() {
        let mut store = Store::default();
        store.follow("rust", 7);
        store.team_topics.insert("rust".into(), vec![1]);
        store.team_members.insert(1, vec![7, 3, 9]);
        store.muted.push(9);
        assert_eq!(subscribers(&store, "rust"), vec![3, 7]);
    }
}
