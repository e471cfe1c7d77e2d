//! Who hears about a topic.

use crate::store::{Store, UserId};
use std::collections::HashSet;

/// The users subscribed to `topic`, themselves or through a team that follows
/// it, each once, leaving out muted users.
pub fn subscribers(store: &Store, topic: &str) -> Vec<UserId> {
    let direct = store.direct.get(topic).into_iter().flatten();
    let teams = store.team_topics.get(topic).into_iter().flatten();
    let through_teams = teams.filter_map(|team| store.team_members.get(team)).flatten();
    let muted: HashSet<UserId> = store.muted.iter().copied().collect();
    let mut seen = HashSet::new();
    direct.chain(through_teams).copied().filter(|id| !muted.contains(id) && seen.insert(*id)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn team_members_hear_about_their_team_topics_once() {
        let mut store = Store::default();
        store.follow("rust", 7);
        store.team_topics.insert("rust".into(), vec![1]);
        store.team_members.insert(1, vec![7, 9]);
        store.muted.push(9);
        assert_eq!(subscribers(&store, "rust"), vec![7]);
    }
}
