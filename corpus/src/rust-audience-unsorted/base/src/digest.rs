//! The daily digest: one mail per user, listing the day's posts in the topics
//! they follow.

use crate::audience;
use crate::store::{Store, UserId};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Post {
    pub topic: String,
    pub title: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Digest {
    pub user: UserId,
    pub posts: Vec<Post>,
}

/// The digest of each user in `users` who follows a topic with a post today.
pub fn build(store: &Store, users: &[UserId], posts: &[Post]) -> Vec<Digest> {
    let mut topics: Vec<&str> = posts.iter().map(|p| p.topic.as_str()).collect();
    topics.sort_unstable();
    topics.dedup();
    let audiences: Vec<(&str, Vec<UserId>)> =
        topics.into_iter().map(|t| (t, audience::subscribers(store, t))).collect();
    users
        .iter()
        .filter_map(|&user| {
            let followed: Vec<&str> = audiences
                .iter()
                .filter(|(_, subs)| subs.binary_search(&user).is_ok())
                .map(|(topic, _)| *topic)
                .collect();
            let mine: Vec<Post> = posts.iter().filter(|p| followed.contains(&p.topic.as_str())).cloned().collect();
            (!mine.is_empty()).then_some(Digest { user, posts: mine })
        })
        .collect()
}
