//! The sandbox every model tool call goes through: it reads the repository at the
//! reviewed head and nothing else.
//!
//! Paths are checked before anything is read. Absolute paths, `..`, `.git`
//! internals, symbolic links that lead outside the repository and files over the
//! size limit are refused with a message the model sees as a tool error. Nothing is
//! ever executed or written; reads go through [`RepoRead`], which serves the
//! snapshot under review (a commit's tree, the index, or the working tree), never
//! whatever happens to be on disk for a commit.

use crate::repo::RepoRead;

/// Bounds of one session's tool use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Model turns that may call tools; the next one must answer.
    pub max_steps: u32,
    /// Text one tool call may return.
    pub call_bytes: usize,
    /// Text all tool calls of one session may return together.
    pub session_bytes: usize,
    /// Files larger than this are refused (and skipped by searches).
    pub file_bytes: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { max_steps: 8, call_bytes: 16 * 1024, session_bytes: 96 * 1024, file_bytes: 512 * 1024 }
    }
}

/// How many symbolic links one path may pass through (a loop ends here too).
const MAX_LINK_HOPS: usize = 8;

pub struct Sandbox<'a> {
    repo: &'a dyn RepoRead,
    limits: Limits,
}

impl<'a> Sandbox<'a> {
    pub fn new(repo: &'a dyn RepoRead, limits: Limits) -> Sandbox<'a> {
        Sandbox { repo, limits }
    }

    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    pub fn repo(&self) -> &'a dyn RepoRead {
        self.repo
    }

    /// The repository path `path` names, with links inside the repository followed.
    /// `""` is the root. `Err` is the refusal the model is shown.
    pub fn resolve(&self, path: &str) -> Result<String, String> {
        let mut parts = components(path)?;
        let mut hops = 0;
        let mut i = 0;
        while i < parts.len() {
            let prefix = parts[..=i].join("/");
            let Some(target) = self.repo.link_target(&prefix) else {
                i += 1;
                continue;
            };
            hops += 1;
            if hops > MAX_LINK_HOPS {
                return Err(format!("refused: {path} passes through more than {MAX_LINK_HOPS} symbolic links"));
            }
            let outside = || format!("refused: {prefix} is a symbolic link to {target}, outside the repository");
            if is_absolute(&target) {
                return Err(outside());
            }
            let mut joined: Vec<String> = parts[..i].to_vec();
            for part in target.split('/').filter(|p| !p.is_empty() && *p != ".") {
                if part == ".." {
                    joined.pop().ok_or_else(outside)?;
                } else {
                    joined.push(part.to_string());
                }
            }
            joined.extend(parts[i + 1..].iter().cloned());
            if joined.iter().any(|p| is_git_dir(p)) {
                return Err(format!("refused: {path} leads into .git, whose internals are not readable"));
            }
            parts = joined;
            i = 0;
        }
        Ok(parts.join("/"))
    }

    /// The text of the file `path` names: `(resolved path, text)`.
    pub fn read(&self, path: &str) -> Result<(String, String), String> {
        let resolved = self.resolve(path)?;
        if resolved.is_empty() {
            return Err("refused: give a file path, not the repository root (list_dir shows what is there)".into());
        }
        let text = self.repo.text(&resolved).ok_or_else(|| {
            format!(
                "no text file {resolved} at the reviewed head (missing, a folder, binary or not UTF-8); \
                 list_dir shows what exists"
            )
        })?;
        if text.len() > self.limits.file_bytes {
            return Err(format!(
                "refused: {resolved} is {} bytes, more than the {}-byte limit for tool reads; search it instead",
                text.len(),
                self.limits.file_bytes
            ));
        }
        Ok((resolved, text))
    }
}

/// The plain components of a relative path; `Err` for anything that could leave the
/// repository or reach into `.git`.
fn components(path: &str) -> Result<Vec<String>, String> {
    let trimmed = path.trim();
    if trimmed.contains('\0') {
        return Err("refused: the path contains a NUL byte".into());
    }
    if is_absolute(trimmed) {
        return Err(format!("refused: {trimmed} is absolute; give a path relative to the repository root"));
    }
    if trimmed.contains('\\') {
        return Err(format!("refused: {trimmed} contains a backslash; separate folders with /"));
    }
    let mut parts = Vec::new();
    for part in trimmed.split('/').filter(|p| !p.is_empty() && *p != ".") {
        if part == ".." {
            return Err(format!("refused: {trimmed} contains `..`; paths stay inside the repository"));
        }
        if is_git_dir(part) {
            return Err(format!("refused: {trimmed} is inside .git, whose internals are not readable"));
        }
        parts.push(part.to_string());
    }
    Ok(parts)
}

fn is_absolute(path: &str) -> bool {
    let b = path.as_bytes();
    path.starts_with('/') || path.starts_with('\\') || (b.len() >= 2 && b[1] == b':' && b[0].is_ascii_alphabetic())
}

/// `.git` in any letter case (case-insensitive file systems open it either way).
fn is_git_dir(part: &str) -> bool {
    part.eq_ignore_ascii_case(".git")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repo::HeadFiles;
    use std::collections::BTreeMap;

    #[derive(Default)]
    struct Repo {
        files: BTreeMap<String, String>,
        links: BTreeMap<String, String>,
    }

    impl HeadFiles for Repo {
        fn line_count(&self, path: &str) -> Option<u32> {
            self.text(path).map(|t| t.lines().count() as u32)
        }
    }

    impl RepoRead for Repo {
        fn text(&self, path: &str) -> Option<String> {
            self.files.get(path).cloned()
        }
        fn files(&self) -> Vec<&str> {
            self.files.keys().map(String::as_str).collect()
        }
        fn link_target(&self, path: &str) -> Option<String> {
            self.links.get(path).cloned()
        }
    }

    fn repo() -> Repo {
        let mut r = Repo::default();
        r.files.insert("src/a.py".into(), "print(1)\n".into());
        r.files.insert("big.txt".into(), "x".repeat(600 * 1024));
        r.links.insert("escape".into(), "../../etc/passwd".into());
        r.links.insert("abs".into(), "/etc/passwd".into());
        r.links.insert("inside".into(), "src/a.py".into());
        r.links.insert("lib".into(), "src".into());
        r.links.insert("loop".into(), "loop".into());
        r.links.insert("gitlink".into(), ".git/config".into());
        r
    }

    fn refused(path: &str) -> String {
        let r = repo();
        Sandbox::new(&r, Limits::default()).read(path).expect_err(path)
    }

    #[test]
    fn absolute_paths_are_refused() {
        assert!(refused("/etc/passwd").contains("absolute"));
        assert!(refused("C:/Windows/win.ini").contains("absolute"));
        assert!(refused("\\\\server\\share").contains("absolute"));
    }

    #[test]
    fn parent_escapes_are_refused_even_when_they_would_land_inside() {
        assert!(refused("../outside.txt").contains("`..`"));
        assert!(refused("src/../src/a.py").contains("`..`"));
    }

    #[test]
    fn git_internals_are_refused_in_any_case() {
        assert!(refused(".git/config").contains(".git"));
        assert!(refused("sub/.GIT/HEAD").contains(".git"));
        assert!(refused("gitlink").contains(".git"));
    }

    #[test]
    fn symlinks_leaving_the_repository_are_refused() {
        assert!(refused("escape").contains("outside the repository"));
        assert!(refused("abs").contains("outside the repository"));
        assert!(refused("loop").contains("symbolic links"));
    }

    #[test]
    fn symlinks_inside_the_repository_are_followed() {
        let r = repo();
        let sb = Sandbox::new(&r, Limits::default());
        assert_eq!(sb.read("inside").unwrap().0, "src/a.py");
        assert_eq!(sb.read("lib/a.py").unwrap().0, "src/a.py");
        assert_eq!(sb.read("./src//a.py").unwrap().0, "src/a.py");
    }

    #[test]
    fn files_over_the_size_limit_are_refused() {
        assert!(refused("big.txt").contains("byte limit"));
    }

    #[test]
    fn missing_files_say_how_to_look() {
        assert!(refused("src/nope.py").contains("list_dir"));
        assert!(refused("").contains("repository root"));
    }
}
