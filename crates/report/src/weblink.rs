//! Links from a report into the repository's web pages: a commit, lines of a
//! file at a revision, a pull request and one comment thread on it, for the
//! three hosts gauntlet publishes to (GitHub, GitLab, Azure DevOps).
//!
//! The web address comes from the user (`--repo-url`) or from a git remote
//! ([`WebRepo::from_remote`]: the ssh and https forms of github.com,
//! gitlab.com and dev.azure.com). Nothing here reaches the network.

/// Which host's URL shapes to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Host {
    GitHub,
    GitLab,
    Azure,
}

/// A repository's web address and the host whose URL shapes it follows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WebRepo {
    pub host: Host,
    /// `https://github.com/owner/name`, `https://gitlab.com/group/sub/name`,
    /// `https://dev.azure.com/org/project/_git/name`; no trailing slash.
    pub base: String,
}

impl WebRepo {
    /// A web address a user gave (`--repo-url`). GitHub Enterprise and
    /// self-hosted GitLab are told by a host name containing `github` or
    /// `gitlab`; an Azure DevOps repository by its `/_git/` path.
    pub fn parse(url: &str) -> Result<WebRepo, String> {
        let url = url.trim().trim_end_matches('/');
        let url = url.strip_suffix(".git").unwrap_or(url);
        let Some(rest) = url.strip_prefix("https://").or_else(|| url.strip_prefix("http://")) else {
            return Err(format!(
                "`{url}` is not a web address: give the repository's page, e.g. https://github.com/owner/name"
            ));
        };
        let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
        let domain = authority.rsplit('@').next().unwrap_or(authority).to_ascii_lowercase();
        if path.split('/').filter(|s| !s.is_empty()).count() < 2 {
            return Err(format!("`{url}` names no repository: give its page, e.g. https://{domain}/owner/name"));
        }
        if let Some(azure) = WebRepo::azure_https(&domain, path) {
            return Ok(azure);
        }
        let scheme = if url.starts_with("http://") { "http" } else { "https" };
        let base = format!("{scheme}://{domain}/{}", path.trim_matches('/'));
        if domain.contains("github") {
            Ok(WebRepo { host: Host::GitHub, base })
        } else if domain.contains("gitlab") {
            Ok(WebRepo { host: Host::GitLab, base })
        } else {
            Err(format!(
                "cannot tell which host `{url}` is on: a GitHub or GitLab address names the host (github.com, \
                 gitlab.example.org), an Azure DevOps one has `/_git/` in its path"
            ))
        }
    }

    /// The web address of a git remote URL on github.com, gitlab.com or
    /// dev.azure.com (ssh or https); `None` for any other remote.
    pub fn from_remote(remote: &str) -> Option<WebRepo> {
        let remote = remote.trim().trim_end_matches('/');
        let remote = remote.strip_suffix(".git").unwrap_or(remote);
        // ssh forms: `git@host:path` and `ssh://git@host[:port]/path`.
        let (domain, path) = if let Some(rest) = remote.strip_prefix("ssh://") {
            let (authority, path) = rest.split_once('/')?;
            let host = authority.rsplit('@').next()?;
            (host.split(':').next()?.to_ascii_lowercase(), path.to_string())
        } else if let Some(rest) = remote.strip_prefix("https://").or_else(|| remote.strip_prefix("http://")) {
            let (authority, path) = rest.split_once('/')?;
            (authority.rsplit('@').next()?.to_ascii_lowercase(), path.to_string())
        } else {
            let (authority, path) = remote.split_once(':')?;
            (authority.rsplit('@').next()?.to_ascii_lowercase(), path.to_string())
        };
        let path = path.trim_matches('/');
        match domain.as_str() {
            "github.com" | "gitlab.com" if path.split('/').filter(|s| !s.is_empty()).count() >= 2 => {
                let host = if domain == "github.com" { Host::GitHub } else { Host::GitLab };
                Some(WebRepo { host, base: format!("https://{domain}/{path}") })
            }
            // `git@ssh.dev.azure.com:v3/org/project/repo`
            "ssh.dev.azure.com" => {
                let parts: Vec<&str> = path.split('/').collect();
                match parts.as_slice() {
                    ["v3", org, project, repo] => Some(WebRepo {
                        host: Host::Azure,
                        base: format!("https://dev.azure.com/{org}/{project}/_git/{repo}"),
                    }),
                    _ => None,
                }
            }
            _ => WebRepo::azure_https(&domain, path),
        }
    }

    /// `https://dev.azure.com/org/project/_git/repo` and the older
    /// `https://org.visualstudio.com/project/_git/repo`.
    fn azure_https(domain: &str, path: &str) -> Option<WebRepo> {
        let parts: Vec<&str> = path.trim_matches('/').split('/').collect();
        let base = match (domain, parts.as_slice()) {
            ("dev.azure.com", [org, project, "_git", repo]) => {
                format!("https://dev.azure.com/{org}/{project}/_git/{repo}")
            }
            (d, [project, "_git", repo]) if d.ends_with(".visualstudio.com") => {
                let org = d.trim_end_matches(".visualstudio.com");
                format!("https://dev.azure.com/{org}/{project}/_git/{repo}")
            }
            _ => return None,
        };
        Some(WebRepo { host: Host::Azure, base })
    }

    /// The page of commit `sha`.
    pub fn commit(&self, sha: &str) -> String {
        let sha = encode(sha);
        match self.host {
            Host::GitHub | Host::Azure => format!("{}/commit/{sha}", self.base),
            Host::GitLab => format!("{}/-/commit/{sha}", self.base),
        }
    }

    /// Lines `start..=end` of `path` as of revision `rev`.
    pub fn lines(&self, rev: &str, path: &str, start: u32, end: u32) -> String {
        let (rev, file) = (encode(rev), encode_path(path));
        let end = end.max(start);
        match self.host {
            Host::GitHub if start == end => format!("{}/blob/{rev}/{file}#L{start}", self.base),
            Host::GitHub => format!("{}/blob/{rev}/{file}#L{start}-L{end}", self.base),
            Host::GitLab if start == end => format!("{}/-/blob/{rev}/{file}#L{start}", self.base),
            Host::GitLab => format!("{}/-/blob/{rev}/{file}#L{start}-{end}", self.base),
            Host::Azure => format!(
                "{}?path=/{file}&version=GC{rev}&line={start}&lineEnd={}&lineStartColumn=1&lineEndColumn=1\
                 &lineStyle=plain&_a=contents",
                self.base,
                end + 1
            ),
        }
    }

    /// Pull request (GitLab: merge request) `number`.
    pub fn pull(&self, number: u64) -> String {
        match self.host {
            Host::GitHub => format!("{}/pull/{number}", self.base),
            Host::GitLab => format!("{}/-/merge_requests/{number}", self.base),
            Host::Azure => format!("{}/pullrequest/{number}", self.base),
        }
    }

    /// One comment thread on pull request `number`, from the host's ids: the
    /// thread's (Azure DevOps) and its first comment's (GitHub's database id,
    /// GitLab's note id).
    pub fn thread(&self, number: u64, thread: &str, comment: &str) -> String {
        let pull = self.pull(number);
        match self.host {
            Host::GitHub => format!("{pull}#discussion_r{}", encode(comment)),
            Host::GitLab => format!("{pull}#note_{}", encode(comment)),
            Host::Azure => format!("{pull}?discussionId={}", encode(thread)),
        }
    }
}

/// Percent-encode everything but the characters a URL path segment keeps.
fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// [`encode`] each segment of a path, keeping the slashes.
fn encode_path(path: &str) -> String {
    path.trim_start_matches("./").split('/').map(encode).collect::<Vec<_>>().join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn github() -> WebRepo {
        WebRepo { host: Host::GitHub, base: "https://github.com/o/r".into() }
    }

    #[test]
    fn github_remotes_in_every_form_give_one_address() {
        for remote in [
            "git@github.com:o/r.git",
            "git@github.com:o/r",
            "ssh://git@github.com/o/r.git",
            "ssh://git@github.com:22/o/r.git",
            "https://github.com/o/r.git",
            "https://github.com/o/r/",
            "https://token@github.com/o/r.git",
        ] {
            assert_eq!(WebRepo::from_remote(remote), Some(github()), "{remote}");
        }
    }

    #[test]
    fn github_links_name_the_commit_the_lines_and_the_thread() {
        let g = github();
        assert_eq!(g.commit("abc123"), "https://github.com/o/r/commit/abc123");
        assert_eq!(g.lines("abc123", "src/a b.rs", 4, 9), "https://github.com/o/r/blob/abc123/src/a%20b.rs#L4-L9");
        assert_eq!(g.lines("abc123", "src/a.rs", 4, 4), "https://github.com/o/r/blob/abc123/src/a.rs#L4");
        assert_eq!(g.pull(7), "https://github.com/o/r/pull/7");
        assert_eq!(g.thread(7, "PRRT_x", "991"), "https://github.com/o/r/pull/7#discussion_r991");
    }

    #[test]
    fn gitlab_remotes_keep_subgroups_and_links_use_the_dash_paths() {
        let want = WebRepo { host: Host::GitLab, base: "https://gitlab.com/g/sub/r".into() };
        for remote in ["git@gitlab.com:g/sub/r.git", "https://gitlab.com/g/sub/r.git", "ssh://git@gitlab.com/g/sub/r"] {
            assert_eq!(WebRepo::from_remote(remote).as_ref(), Some(&want), "{remote}");
        }
        assert_eq!(want.commit("abc"), "https://gitlab.com/g/sub/r/-/commit/abc");
        assert_eq!(want.lines("abc", "a.py", 3, 5), "https://gitlab.com/g/sub/r/-/blob/abc/a.py#L3-5");
        assert_eq!(want.pull(12), "https://gitlab.com/g/sub/r/-/merge_requests/12");
        assert_eq!(want.thread(12, "d0c", "55"), "https://gitlab.com/g/sub/r/-/merge_requests/12#note_55");
    }

    #[test]
    fn azure_remotes_in_ssh_https_and_old_forms_give_the_git_page() {
        let want = WebRepo { host: Host::Azure, base: "https://dev.azure.com/org/proj/_git/repo".into() };
        for remote in [
            "git@ssh.dev.azure.com:v3/org/proj/repo",
            "https://org@dev.azure.com/org/proj/_git/repo",
            "https://dev.azure.com/org/proj/_git/repo",
            "https://org.visualstudio.com/proj/_git/repo",
        ] {
            assert_eq!(WebRepo::from_remote(remote).as_ref(), Some(&want), "{remote}");
        }
        assert_eq!(want.commit("abc"), "https://dev.azure.com/org/proj/_git/repo/commit/abc");
        assert_eq!(
            want.lines("abc", "src/a.cs", 3, 5),
            "https://dev.azure.com/org/proj/_git/repo?path=/src/a.cs&version=GCabc&line=3&lineEnd=6\
             &lineStartColumn=1&lineEndColumn=1&lineStyle=plain&_a=contents"
        );
        assert_eq!(want.pull(4), "https://dev.azure.com/org/proj/_git/repo/pullrequest/4");
        assert_eq!(want.thread(4, "31", "1"), "https://dev.azure.com/org/proj/_git/repo/pullrequest/4?discussionId=31");
    }

    #[test]
    fn other_remotes_give_no_address() {
        for remote in ["/srv/git/r.git", "git@example.org:o/r.git", "https://example.org/o/r", "github.com", ""] {
            assert_eq!(WebRepo::from_remote(remote), None, "{remote}");
        }
    }

    #[test]
    fn a_given_url_is_checked_and_says_what_to_give() {
        assert_eq!(WebRepo::parse("https://github.com/o/r/").unwrap(), github());
        let enterprise = WebRepo::parse("https://github.example.com/o/r").unwrap();
        assert_eq!(enterprise.host, Host::GitHub);
        assert_eq!(WebRepo::parse("https://gitlab.example.org/g/r").unwrap().host, Host::GitLab);
        assert_eq!(WebRepo::parse("https://dev.azure.com/org/proj/_git/repo").unwrap().host, Host::Azure);
        let e = WebRepo::parse("git@github.com:o/r.git").unwrap_err();
        assert!(e.contains("not a web address"), "{e}");
        let e = WebRepo::parse("https://github.com/o").unwrap_err();
        assert!(e.contains("names no repository"), "{e}");
        let e = WebRepo::parse("https://example.org/o/r").unwrap_err();
        assert!(e.contains("cannot tell which host"), "{e}");
    }

    #[test]
    fn text_that_would_break_out_of_a_url_is_encoded() {
        let g = github();
        assert_eq!(g.commit("a\"b<c"), "https://github.com/o/r/commit/a%22b%3Cc");
        assert_eq!(g.thread(1, "", "1#x"), "https://github.com/o/r/pull/1#discussion_r1%23x");
    }
}
