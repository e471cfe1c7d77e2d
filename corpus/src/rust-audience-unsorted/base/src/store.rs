use std::collections::HashMap;

pub type UserId = u64;
pub type TeamId = u32;

/// What the forum knows about subscriptions, kept in memory.
#[derive(Debug, Default)]
pub struct Store {
    /// Users who follow a topic themselves, in the order they subscribed.
    pub direct: HashMap<String, Vec<UserId>>,
    /// Teams that follow a topic.
    pub team_topics: HashMap<String, Vec<TeamId>>,
    pub team_members: HashMap<TeamId, Vec<UserId>>,
    /// Users who asked for no mail at all.
    pub muted: Vec<UserId>,
}

impl Store {
    pub fn follow(&mut self, topic: &str, user: UserId) {
        self.direct.entry(topic.to_string()).or_default().push(user);
    }
}
