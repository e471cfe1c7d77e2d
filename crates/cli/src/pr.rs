//! Pull-request metadata for the gate: flags win, then the CI event.

use gauntlet_review::gate::PrMeta;
use serde_json::Value;

/// What the flags said (`--pr-draft`, `--pr-author`, `--pr-title`, `--pr-body`).
#[derive(Debug, Default)]
pub struct PrFlags {
    pub draft: bool,
    pub author: Option<String>,
    pub title: Option<String>,
    pub body: Option<String>,
}

/// PR metadata from the CI environment: GitHub's event file, GitLab's and Azure
/// Pipelines' variables. `None` outside a pull-request pipeline.
pub fn from_ci(env: &crate::settings::Env) -> Option<PrMeta> {
    if let Some(path) = env("GITHUB_EVENT_PATH") {
        let event: Value = serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
        let pr = event.get("pull_request")?;
        return Some(PrMeta {
            draft: pr["draft"].as_bool().unwrap_or(false),
            closed: pr["state"].as_str() == Some("closed"),
            author: pr["user"]["login"].as_str().map(str::to_string),
            title: pr["title"].as_str().map(str::to_string),
            body: pr["body"].as_str().map(str::to_string),
        });
    }
    if env("CI_MERGE_REQUEST_IID").is_some() {
        let title = env("CI_MERGE_REQUEST_TITLE");
        let draft = env("CI_MERGE_REQUEST_DRAFT").as_deref() == Some("true")
            || title.as_deref().is_some_and(|t| t.starts_with("Draft:") || t.starts_with("[Draft]"));
        let body = env("CI_MERGE_REQUEST_DESCRIPTION");
        return Some(PrMeta { draft, closed: false, author: env("GITLAB_USER_LOGIN"), title, body });
    }
    if env("SYSTEM_PULLREQUEST_PULLREQUESTID").is_some() {
        return Some(PrMeta {
            draft: env("SYSTEM_PULLREQUEST_ISDRAFT").is_some_and(|d| d.eq_ignore_ascii_case("true")),
            closed: false,
            author: env("BUILD_REQUESTEDFOR"),
            title: None,
            body: None,
        });
    }
    None
}

/// Flags override what CI says, field by field.
pub fn resolve(flags: &PrFlags, env: &crate::settings::Env) -> PrMeta {
    let mut meta = from_ci(env).unwrap_or_default();
    meta.draft |= flags.draft;
    if flags.author.is_some() {
        meta.author = flags.author.clone();
    }
    if flags.title.is_some() {
        meta.title = flags.title.clone();
    }
    if flags.body.is_some() {
        meta.body = flags.body.clone();
    }
    meta
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn github_event_gives_draft_author_and_title() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("event.json");
        std::fs::write(
            &path,
            r#"{"pull_request":{"draft":true,"state":"open","title":"Add login","body":"Adds a form.","user":{"login":"dependabot[bot]"}}}"#,
        )
        .unwrap();
        let p = path.to_str().unwrap().to_string();
        let env = move |k: &str| (k == "GITHUB_EVENT_PATH").then(|| p.clone());
        let meta = from_ci(&env).unwrap();
        assert!(meta.draft && !meta.closed);
        assert_eq!(meta.author.as_deref(), Some("dependabot[bot]"));
        assert_eq!((meta.title.as_deref(), meta.body.as_deref()), (Some("Add login"), Some("Adds a form.")));
    }

    #[test]
    fn gitlab_gives_the_merge_requests_description_and_a_flag_overrides_it() {
        let env = |k: &str| match k {
            "CI_MERGE_REQUEST_IID" => Some("7".to_string()),
            "CI_MERGE_REQUEST_DESCRIPTION" => Some("Caches reads.".to_string()),
            _ => None,
        };
        assert_eq!(from_ci(&env).unwrap().body.as_deref(), Some("Caches reads."));
        let flags = PrFlags { body: Some("Ours.".into()), ..PrFlags::default() };
        assert_eq!(resolve(&flags, &env).body.as_deref(), Some("Ours."));
    }

    #[test]
    fn gitlab_draft_title_counts_as_draft() {
        let env = |k: &str| match k {
            "CI_MERGE_REQUEST_IID" => Some("7".to_string()),
            "CI_MERGE_REQUEST_TITLE" => Some("Draft: wip".to_string()),
            _ => None,
        };
        assert!(from_ci(&env).unwrap().draft);
    }

    #[test]
    fn flags_override_ci() {
        let env = |k: &str| match k {
            "SYSTEM_PULLREQUEST_PULLREQUESTID" => Some("3".to_string()),
            "BUILD_REQUESTEDFOR" => Some("Build Service".to_string()),
            _ => None,
        };
        let meta = resolve(&PrFlags { author: Some("alice".into()), ..PrFlags::default() }, &env);
        assert_eq!(meta.author.as_deref(), Some("alice"));
        assert!(!meta.draft);
    }
}
