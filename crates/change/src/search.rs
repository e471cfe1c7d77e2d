//! Searching the repository at a snapshot: `git grep` for whole words, so code that
//! names a type, a field or a route can be found in any language.

use crate::{ChangeError, Snapshot, git::Git};

/// One matching line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GrepHit {
    pub path: String,
    pub line: u32,
    pub text: String,
}

impl Git {
    /// Lines of text files at `snapshot` that contain any of `terms` as a whole word
    /// (fixed strings, case-sensitive), in path then line order, at most `max`.
    pub fn grep_words(&self, snapshot: &Snapshot, terms: &[String], max: usize) -> Result<Vec<GrepHit>, ChangeError> {
        if terms.is_empty() {
            return Ok(Vec::new());
        }
        let mut args: Vec<&str> = vec!["grep", "-n", "--null", "-I", "-w", "-F", "--no-color"];
        let prefix = match snapshot {
            Snapshot::Commit(rev) => {
                args.extend(terms.iter().flat_map(|t| ["-e", t.as_str()]));
                args.push(rev);
                format!("{rev}:")
            }
            Snapshot::Index => {
                args.push("--cached");
                args.extend(terms.iter().flat_map(|t| ["-e", t.as_str()]));
                String::new()
            }
            Snapshot::Worktree => {
                args.push("--untracked");
                args.extend(terms.iter().flat_map(|t| ["-e", t.as_str()]));
                String::new()
            }
        };
        args.push("--");
        let output = self.output(&args)?;
        // Exit 1 with nothing on stderr is "no match", not a failure.
        match output.status.code() {
            Some(0) => {}
            Some(1) if output.stderr.is_empty() => return Ok(Vec::new()),
            _ => {
                return Err(ChangeError::Git {
                    args: "grep".into(),
                    stderr: String::from_utf8_lossy(&output.stderr).trim().to_string(),
                });
            }
        }
        let text = String::from_utf8_lossy(&output.stdout);
        Ok(text.lines().filter_map(|l| parse_hit(l, &prefix)).take(max).collect())
    }
}

/// `[rev:]path\0line\0text`.
fn parse_hit(line: &str, prefix: &str) -> Option<GrepHit> {
    let mut parts = line.splitn(3, '\0');
    let path = parts.next()?;
    let path = path.strip_prefix(prefix).unwrap_or(path).to_string();
    let line_no = parts.next()?.parse().ok()?;
    Some(GrepHit { path, line: line_no, text: parts.next().unwrap_or("").to_string() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hit_at_a_commit_loses_the_revision_prefix() {
        let hit = parse_hit("abc:web/a.ts\u{0}12\u{0}  user.displayName", "abc:").unwrap();
        assert_eq!(hit, GrepHit { path: "web/a.ts".into(), line: 12, text: "  user.displayName".into() });
    }
}
