//! In-process reads of the object database (gitoxide), for the small lookups a review
//! makes: naming commits, the merge base, the tree listing, files at head. Through
//! the CLI each costs a git process, about 2 ms of CPU, which is more than the lookup
//! and, on a small change, more than the `git diff` the review starts from.
//!
//! The git CLI stays the reference. Every function here answers `None` when it cannot
//! be sure (a repository gitoxide does not open, a revision syntax it does not parse,
//! several merge bases, an object it fails to read) and [`crate::git::Git`] then asks
//! git itself, so errors and edge cases read exactly as they did.

use gix::bstr::ByteSlice;
use std::path::Path;

/// One repository opened in-process, shared by every thread of a review.
pub(crate) struct Store {
    repo: gix::ThreadSafeRepository,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("git_dir", &self.repo.git_dir()).finish()
    }
}

impl Store {
    /// Open the repository whose working tree is `root`; `None` if gitoxide cannot
    /// (an object format or extension it does not know, say).
    pub fn open(root: &Path) -> Option<Store> {
        // These point git at other objects, refs or history than the folder holds
        // (hooks and unusual setups set them); the CLI honours them, so it answers.
        const REDIRECTS: [&str; 10] = [
            "GIT_DIR",
            "GIT_WORK_TREE",
            "GIT_COMMON_DIR",
            "GIT_OBJECT_DIRECTORY",
            "GIT_ALTERNATE_OBJECT_DIRECTORIES",
            "GIT_NAMESPACE",
            "GIT_REPLACE_REF_BASE",
            "GIT_NO_REPLACE_OBJECTS",
            "GIT_SHALLOW_FILE",
            "GIT_GRAFT_FILE",
        ];
        if REDIRECTS.iter().any(|v| std::env::var_os(v).is_some()) {
            return None;
        }
        let repo = gix::ThreadSafeRepository::open(root).ok()?;
        let local = repo.to_thread_local();
        // Ref storage other than files (reftable) is not read by this gitoxide, and
        // a grafts file rewrites parents for git alone: git answers in both cases.
        let refs = local.config_snapshot().string("extensions.refStorage");
        if refs.is_some_and(|r| !r.eq_ignore_ascii_case(b"files")) || local.common_dir().join("info/grafts").exists() {
            return None;
        }
        Some(Store { repo })
    }

    fn local(&self) -> gix::Repository {
        let mut repo = self.repo.to_thread_local();
        // Trees are read once per path looked up; keep the few a review walks.
        repo.object_cache_size_if_unset(4 << 20);
        repo
    }

    /// The commit `name` names (peeled), or `None` when gitoxide cannot resolve it;
    /// that may mean the name is wrong or only that gitoxide does not know its syntax.
    pub fn resolve_commit(&self, name: &str) -> Option<String> {
        let repo = self.local();
        if let Some(object) = by_id(&repo, name) {
            return Some(object.peel_to_commit().ok()?.id.to_hex().to_string());
        }
        // A shallow clone's cut leaves commits without parents for git; gitoxide may
        // still walk past it (`main~3`, `:/text`), so only plain names are looked up.
        let plain = name.bytes().all(|b| b.is_ascii_alphanumeric() || b"/._-".contains(&b)) && !name.contains("..");
        if !plain && repo.is_shallow().unwrap_or(true) {
            return None;
        }
        let id = repo.rev_parse_single(format!("{name}^{{commit}}").as_bytes().as_bstr()).ok()?;
        Some(id.detach().to_hex().to_string())
    }

    /// The one merge base of two commits: `Some(None)` when they share no history,
    /// `None` when git should be asked (several bases, a shallow clone, a failed walk).
    pub fn merge_base(&self, a: &str, b: &str) -> Option<Option<String>> {
        let repo = self.local();
        // git walks a shallow clone's history only down to its cut; gitoxide walks
        // past it wherever the objects happen to be, and would answer differently.
        if repo.is_shallow().unwrap_or(true) {
            return None;
        }
        let a = gix::ObjectId::from_hex(a.as_bytes()).ok()?;
        let b = gix::ObjectId::from_hex(b.as_bytes()).ok()?;
        let bases = repo.merge_bases_many(a, &[b]).ok()?;
        match bases.as_slice() {
            [] => Some(None),
            [one] => Some(Some(one.detach().to_hex().to_string())),
            // git's choice among several bases is its own; let it make it.
            _ => None,
        }
    }

    /// Every file path of `rev`'s tree (blobs, links and submodules, as `git ls-tree
    /// -r` lists them), and each symbolic link with the target it stores.
    pub fn listing(&self, rev: &str) -> Option<(Vec<String>, crate::git::Links)> {
        let repo = self.local();
        let tree = object(&repo, rev)?.peel_to_tree().ok()?;
        let mut recorder = gix::traverse::tree::Recorder::default();
        tree.traverse().breadthfirst(&mut recorder).ok()?;
        let mut files = Vec::with_capacity(recorder.records.len());
        let mut links = Vec::new();
        for entry in recorder.records {
            if entry.mode.is_tree() {
                continue;
            }
            let path = entry.filepath.to_str_lossy().into_owned();
            if entry.mode.is_link() {
                let target = repo.find_object(entry.oid).ok()?;
                links.push((path.clone(), target.data.to_str_lossy().into_owned()));
            }
            files.push(path);
        }
        Some((files, links))
    }

    /// The blob at each of `paths` in `rev`'s tree (`None` for a path that is missing
    /// there or not a file), in order; `None` overall when a path is not plain
    /// (`./x`, `a//b`), whose meaning git decides.
    pub fn blobs_at(&self, rev: &str, paths: &[&str]) -> Option<Vec<Option<Vec<u8>>>> {
        let repo = self.local();
        let tree = object(&repo, rev)?.peel_to_tree().ok()?;
        let mut out = Vec::with_capacity(paths.len());
        for path in paths {
            let components = plain_components(path)?;
            let entry = tree.lookup_entry(components.iter().copied()).ok()?;
            let blob = match entry {
                Some(entry) if entry.mode().is_blob_or_symlink() => {
                    Some(repo.find_object(entry.object_id()).ok()?.detach().data)
                }
                _ => None,
            };
            out.push(blob);
        }
        Some(out)
    }

    /// Subjects of the commits reachable from `head` but not from `base`, merges left
    /// out, newest first. `None` (ask git) in a shallow clone, where git counts a
    /// commit at the cut as parentless, and for a message in another encoding, which
    /// git converts.
    pub fn subjects(&self, base: &str, head: &str) -> Option<Vec<String>> {
        use gix::revision::walk::Sorting;
        use gix::traverse::commit::simple::CommitTimeOrder;
        let repo = self.local();
        if repo.is_shallow().unwrap_or(true) {
            return None;
        }
        let head = object(&repo, head)?.peel_to_commit().ok()?.id;
        let base = object(&repo, base)?.peel_to_commit().ok()?.id;
        let sorting = Sorting::ByCommitTime(CommitTimeOrder::NewestFirst);
        let walk = repo.rev_walk([head]).with_hidden([base]).sorting(sorting).all().ok()?;
        let mut out = Vec::new();
        for info in walk {
            let info = info.ok()?;
            if info.parent_ids.len() > 1 {
                continue;
            }
            let commit = info.object().ok()?;
            out.push(subject(message_text(&commit)?));
        }
        Some(out)
    }

    /// The repository's common git folder (shared by its worktrees).
    pub fn common_dir(&self) -> std::path::PathBuf {
        self.local().common_dir().to_path_buf()
    }

    /// Committer time of the commit `rev` names, seconds since the epoch.
    pub fn commit_time(&self, rev: &str) -> Option<i64> {
        let repo = self.local();
        let commit = object(&repo, rev)?.peel_to_commit().ok()?;
        Some(commit.time().ok()?.seconds)
    }

    /// Whether a commit reachable from `rev`, committed at or after `since`, with a
    /// message `wanted` accepts, changed any of `paths` against one of its parents.
    /// Conservative: a commit that lacks a path (the file may have had another name
    /// then) counts as changing it. `None` past `max` commits, or on a failed read.
    pub fn wanted_commit_touches(
        &self,
        rev: &str,
        paths: &[&str],
        since: i64,
        wanted: &dyn Fn(&str) -> bool,
        max: usize,
    ) -> Option<bool> {
        use gix::revision::walk::Sorting;
        use gix::traverse::commit::simple::CommitTimeOrder;
        let repo = self.local();
        if repo.is_shallow().unwrap_or(true) {
            return None;
        }
        let tip = object(&repo, rev)?.peel_to_commit().ok()?.id;
        let sorting = Sorting::ByCommitTimeCutoff { order: CommitTimeOrder::NewestFirst, seconds: since };
        let walk = repo.rev_walk([tip]).sorting(sorting).all().ok()?;
        let paths: Vec<Vec<&[u8]>> = paths.iter().map(|p| plain_components(p)).collect::<Option<_>>()?;
        for (seen, info) in walk.enumerate() {
            if seen >= max {
                return None;
            }
            let info = info.ok()?;
            let commit = info.object().ok()?;
            // A message git would convert from another encoding is not read here: it
            // counts as wanted, which only costs the long look.
            if message_text(&commit).is_some_and(|m| !wanted(m)) {
                continue;
            }
            let tree = commit.tree().ok()?;
            let parents: Vec<gix::Tree<'_>> =
                info.parent_ids().map(|p| p.object().ok()?.peel_to_tree().ok()).collect::<Option<_>>()?;
            for components in &paths {
                let entry_id = |tree: &gix::Tree<'_>| -> Option<Option<gix::ObjectId>> {
                    Some(tree.lookup_entry(components.iter().copied()).ok()?.map(|e| e.object_id()))
                };
                let here = entry_id(&tree)?;
                if here.is_none() || parents.is_empty() {
                    return Some(true);
                }
                for parent in &parents {
                    if entry_id(parent)? != here {
                        return Some(true);
                    }
                }
            }
        }
        Some(false)
    }
}

/// A path's components, when it is a plain path from the tree's root. git reads
/// `./x`, `../x` and the like relative to the current folder, and `a//b` is its
/// call too: `None` sends those to git.
fn plain_components(path: &str) -> Option<Vec<&[u8]>> {
    let components: Vec<&[u8]> = path.as_bytes().split(|b| *b == b'/').collect();
    (!components.iter().any(|c| matches!(*c, b"" | b"." | b".."))).then_some(components)
}

/// The object a full object id names, looked up directly: rev-parse would first list
/// every object the id is a prefix of, a directory scan per lookup.
fn by_id<'r>(repo: &'r gix::Repository, rev: &str) -> Option<gix::Object<'r>> {
    if rev.len() != repo.object_hash().len_in_hex() {
        return None;
    }
    repo.find_object(gix::ObjectId::from_hex(rev.as_bytes()).ok()?).ok()
}

/// The object `rev` names.
fn object<'r>(repo: &'r gix::Repository, rev: &str) -> Option<gix::Object<'r>> {
    by_id(repo, rev).or_else(|| repo.rev_parse_single(rev.as_bytes().as_bstr()).ok()?.object().ok())
}

/// A commit's message as text, when git would show it unchanged: UTF-8, with no
/// other encoding declared.
fn message_text<'c>(commit: &'c gix::Commit<'_>) -> Option<&'c str> {
    let declared = commit.decode().ok()?.encoding.map(|e| e.to_ascii_lowercase());
    if declared.is_some_and(|e| e != b"utf-8" && e != b"utf8") {
        return None;
    }
    std::str::from_utf8(commit.message_raw().ok()?).ok()
}

/// A commit's subject as `git log --format=%s` prints it: blank lines skipped, then
/// the first paragraph, each line's trailing blanks dropped, lines joined by a
/// space. Blank means git's whitespace: space, tab, CR and LF, nothing else.
fn subject(message: &str) -> String {
    let git_space = |c: char| matches!(c, ' ' | '\t' | '\r' | '\n');
    let lines = message.split('\n').map(|l| l.trim_end_matches(git_space));
    let lines = lines.skip_while(|l| l.is_empty());
    lines.take_while(|l| !l.is_empty()).collect::<Vec<_>>().join(" ")
}
