//! Thin wrapper over the `git` CLI.
//!
//! Every command runs with `-C root`, `LC_ALL=C` (stable messages), no pager, no
//! optional locks (a review must not fight the user's editor for `index.lock`), and
//! literal pathspecs (a file named `*.rs` is a file, not a glob).

use crate::store::Store;
use crate::{ChangeError, Snapshot};
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, OnceLock};

/// Symbolic links and the target each stores, sorted by path.
pub type Links = Vec<(String, String)>;

/// Where [`Git::default_branch`] looks, in order.
pub const DEFAULT_BRANCHES: [&str; 3] = ["origin/HEAD", "main", "master"];

#[derive(Clone, Debug)]
pub struct Git {
    root: PathBuf,
    /// The repository opened in-process on first use, for lookups that would each
    /// cost a git process; `None` inside when gitoxide cannot open it, and the CLI
    /// does everything.
    store: Arc<OnceLock<Option<Store>>>,
    /// The tree every command reads attributes (`.gitattributes`) from, instead of
    /// the working tree and index; see [`Git::attributes_from`].
    attr_source: Option<Arc<str>>,
}

/// The first git release with `--attr-source`, which [`Git::attributes_from`] needs.
pub const ATTR_SOURCE_GIT: &str = "2.40";

impl Git {
    /// Find the repository containing `dir` (`git rev-parse --show-toplevel`).
    pub fn discover(dir: &Path) -> Result<Git, ChangeError> {
        let output = base_command(dir, None)
            .args(["rev-parse", "--show-toplevel"])
            .output()
            .map_err(|e| ChangeError::Spawn(e.to_string()))?;
        let stderr = String::from_utf8_lossy(&output.stderr);
        // "Not a repo" would send the user hunting for the wrong fix here.
        if stderr.contains("dubious ownership") {
            return Err(git_error(&["rev-parse", "--show-toplevel"], &output));
        }
        let top = String::from_utf8_lossy(&output.stdout).trim_end_matches('\n').to_string();
        if !output.status.success() || top.is_empty() {
            return Err(ChangeError::NotARepo { path: dir.display().to_string() });
        }
        Ok(Git::at(top))
    }

    /// A handle on `root` without checking it is a repository: enough for `--patch`,
    /// which only reads files from disk.
    pub fn at(root: impl Into<PathBuf>) -> Git {
        Git { root: root.into(), store: Arc::default(), attr_source: None }
    }

    /// This handle with every read going through the git CLI, never in-process: the
    /// reference the in-process route is checked against.
    pub fn cli_only(self) -> Git {
        Git { store: Arc::new(OnceLock::from(None)), ..self }
    }

    /// This handle with every git command reading attributes from `tree` (a commit
    /// or tree id) alone: `.gitattributes` files at any depth of that tree, plus the
    /// repository's own `$GIT_DIR/info/attributes` and the user's global file, never
    /// the working tree's or the index's. Attributes decide what `git diff` and
    /// `git grep` treat as binary (`-diff`, `binary`), so whoever writes the checked
    /// out `.gitattributes` could otherwise hide a file from review.
    ///
    /// Fails with [`ChangeError::GitTooOld`] when the installed git lacks
    /// `--attr-source` (before [`ATTR_SOURCE_GIT`]).
    pub fn attributes_from(self, tree: &str) -> Result<Git, ChangeError> {
        let plain = self.clone();
        let git = Git { attr_source: Some(Arc::from(tree)), ..self };
        let output = git.output(&["check-attr", "diff", "--", "gauntlet-probe"])?;
        if output.status.success() {
            return Ok(git);
        }
        let stderr = String::from_utf8_lossy(&output.stderr);
        // An unknown global option is a usage error (129) naming the option.
        if output.status.code() == Some(129) || stderr.contains("unknown option") {
            let version = plain.run(&["version"]).map(|v| String::from_utf8_lossy(&v).trim().to_string());
            return Err(ChangeError::GitTooOld {
                needed: ATTR_SOURCE_GIT,
                found: version.unwrap_or_else(|_| "an unknown version".into()),
                why: "to read .gitattributes from the base commit",
            });
        }
        Err(git_error(&["--attr-source", tree, "check-attr"], &output))
    }

    /// The git folder shared by all worktrees of the repository (`.git` of the main
    /// checkout), absolute: where gauntlet keeps its local state.
    pub fn common_dir(&self) -> Result<PathBuf, ChangeError> {
        let common = match self.store() {
            Some(store) => store.common_dir(),
            None => PathBuf::from(String::from_utf8_lossy(&self.run(&["rev-parse", "--git-common-dir"])?).trim()),
        };
        Ok(if common.is_absolute() { common } else { self.root.join(common) })
    }

    /// Whether lookups run in-process here (gitoxide opened the repository), rather
    /// than each through a git process.
    pub fn reads_in_process(&self) -> bool {
        self.store().is_some()
    }

    pub(crate) fn store(&self) -> Option<&Store> {
        self.store.get_or_init(|| Store::open(&self.root)).as_ref()
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Read a file's text at a snapshot. `Ok(None)` when the path does not exist there
    /// (including worktree paths that would escape the repository root, and paths that
    /// name a directory or submodule rather than a file).
    pub fn read(&self, snapshot: &Snapshot, path: &str) -> Result<Option<Vec<u8>>, ChangeError> {
        match snapshot {
            Snapshot::Commit(rev) => {
                if let Some(mut found) = self.store().and_then(|s| s.blobs_at(rev, &[path])) {
                    return Ok(found.pop().flatten());
                }
                let listing = self.run(&["ls-tree", "-z", rev, "--", path])?;
                self.read_blob(tree_entry(&listing, path))
            }
            Snapshot::Index => {
                let listing = self.run(&["ls-files", "--stage", "-z", "--", path])?;
                self.read_blob(index_entry(&listing, path))
            }
            Snapshot::Worktree => Ok(self.read_worktree(path)),
        }
    }

    /// Read many files at once: one `git cat-file --batch` process for a commit
    /// snapshot (spawning git per file dominates the cost of large changes), one
    /// [`Git::read`] each otherwise. Results are in the order of `paths`.
    pub fn read_many(&self, snapshot: &Snapshot, paths: &[&str]) -> Result<Vec<Option<Vec<u8>>>, ChangeError> {
        let Snapshot::Commit(rev) = snapshot else {
            return paths.iter().map(|p| self.read(snapshot, p)).collect();
        };
        if let Some(found) = self.store().and_then(|s| s.blobs_at(rev, paths)) {
            return Ok(found);
        }
        // A newline would end the batch request early; such rare paths go one by one.
        let (batched, single): (Vec<usize>, Vec<usize>) = (0..paths.len()).partition(|i| !paths[*i].contains('\n'));
        let mut out: Vec<Option<Vec<u8>>> = vec![None; paths.len()];
        let names: Vec<String> = batched.iter().map(|i| format!("{rev}:{}", paths[*i])).collect();
        for (i, object) in batched.into_iter().zip(self.cat_batch(&names)?) {
            out[i] = object;
        }
        for i in single {
            out[i] = self.read(snapshot, paths[i])?;
        }
        Ok(out)
    }

    /// One `git cat-file --batch` over `names` (none of which holds a newline).
    fn cat_batch(&self, names: &[String]) -> Result<Vec<Option<Vec<u8>>>, ChangeError> {
        if names.is_empty() {
            return Ok(Vec::new());
        }
        let input: String = names.iter().flat_map(|n| [n.as_str(), "\n"]).collect();
        let stdout = self.run_with_stdin(&["cat-file", "--batch"], input.into_bytes())?;
        let mut rest = stdout.as_slice();
        let mut out = Vec::with_capacity(names.len());
        for _ in names {
            let (object, after) = parse_batch_entry(rest).ok_or_else(|| ChangeError::Git {
                args: "cat-file --batch".into(),
                stderr: "truncated output".into(),
            })?;
            out.push(object);
            rest = after;
        }
        Ok(out)
    }

    fn run_with_stdin(&self, args: &[&str], input: Vec<u8>) -> Result<Vec<u8>, ChangeError> {
        use std::io::Write;
        let mut child = base_command(&self.root, self.attr_source.as_deref())
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .map_err(|e| ChangeError::Spawn(e.to_string()))?;
        let mut stdin = child.stdin.take().expect("stdin is piped");
        // Write from another thread: git answers while we are still asking, and a full
        // stdout pipe would otherwise deadlock both sides.
        let writer = std::thread::spawn(move || stdin.write_all(&input));
        let output = child.wait_with_output().map_err(|e| ChangeError::Spawn(e.to_string()))?;
        let written = writer.join().expect("stdin writer does not panic");
        if !output.status.success() || written.is_err() {
            return Err(git_error(args, &output));
        }
        Ok(output.stdout)
    }

    /// Every file path at a snapshot (`git ls-tree -r --name-only`, `git ls-files`),
    /// sorted.
    pub fn list_files(&self, snapshot: &Snapshot) -> Result<Vec<String>, ChangeError> {
        Ok(self.list_files_and_links(snapshot)?.0)
    }

    /// [`Git::list_files`], and the symbolic links at the snapshot, each with the
    /// target it stores (mode 120000 entries of the tree or index; `read_link` on
    /// disk), sorted by path. Tool reads need the links: one may point outside the
    /// repository.
    pub fn list_files_and_links(&self, snapshot: &Snapshot) -> Result<(Vec<String>, Links), ChangeError> {
        if let Snapshot::Commit(rev) = snapshot
            && let Some((mut files, mut links)) = self.store().and_then(|s| s.listing(rev))
        {
            files.sort();
            links.sort();
            return Ok((files, links));
        }
        let (mut files, link_paths) = match snapshot {
            Snapshot::Commit(rev) => entries(&self.run(&["ls-tree", "-r", "-z", "--full-tree", rev])?),
            Snapshot::Index => entries(&self.run(&["ls-files", "--stage", "-z"])?),
            Snapshot::Worktree => {
                let listed = self.run(&["ls-files", "-z", "--cached", "--others", "--exclude-standard"])?;
                // Tracked files deleted on disk are still in the index; they are not
                // part of the working tree.
                let mut files = split_z(&listed);
                files.retain(|f| self.root.join(f).symlink_metadata().is_ok());
                files.sort();
                files.dedup();
                let links = files
                    .iter()
                    .filter_map(|path| {
                        let target = std::fs::read_link(self.root.join(path)).ok()?;
                        Some((path.clone(), target.to_string_lossy().into_owned()))
                    })
                    .collect();
                return Ok((files, links));
            }
        };
        // Unmerged paths are listed once per stage.
        files.sort();
        files.dedup();
        let refs: Vec<&str> = link_paths.iter().map(String::as_str).collect();
        let targets = self.read_many(snapshot, &refs)?;
        let mut links: Vec<(String, String)> = link_paths
            .into_iter()
            .zip(targets)
            .filter_map(|(p, t)| Some((p, String::from_utf8_lossy(&t?).into_owned())))
            .collect();
        links.sort();
        links.dedup_by(|a, b| a.0 == b.0);
        Ok((files, links))
    }

    /// The full commit sha `rev` names, or `BadRevision`.
    pub fn resolve(&self, rev: &str) -> Result<String, ChangeError> {
        self.try_resolve(rev)?.ok_or_else(|| ChangeError::BadRevision { rev: rev.to_string() })
    }

    /// [`Git::resolve`] for several revisions with one git process (a review starts
    /// with two or more).
    pub fn resolve_all<const N: usize>(&self, revs: [&str; N]) -> Result<[String; N], ChangeError> {
        let shas = self.try_resolve_many(&revs)?;
        let mut out = Vec::with_capacity(N);
        for (rev, sha) in revs.iter().zip(shas) {
            out.push(sha.ok_or_else(|| ChangeError::BadRevision { rev: rev.to_string() })?);
        }
        Ok(out.try_into().expect("one sha per revision"))
    }

    /// [`Git::try_resolve`] for several revisions, through one `git cat-file
    /// --batch-check` (which answers `missing` or `ambiguous` for names that are not
    /// one commit).
    pub fn try_resolve_many(&self, revs: &[&str]) -> Result<Vec<Option<String>>, ChangeError> {
        // A leading dash would read as an option elsewhere and a newline would end the
        // request early: neither names a commit here.
        let usable = |r: &&str| !r.is_empty() && !r.starts_with('-') && !r.contains(['\n', '\r']);
        if let Some(store) = self.store() {
            let answers: Vec<Option<String>> =
                revs.iter().map(|r| if usable(r) { store.resolve_commit(r) } else { None }).collect();
            // Only gitoxide's answers are taken, never its "no": a name it cannot
            // resolve may still resolve for git (a ref written by hand, a syntax
            // gitoxide lacks), so git is asked about the whole batch then.
            if revs.iter().zip(&answers).all(|(r, a)| a.is_some() || !usable(r)) {
                return Ok(answers);
            }
        }
        let asked: Vec<&str> = revs.iter().copied().filter(usable).collect();
        if asked.is_empty() {
            return Ok(vec![None; revs.len()]);
        }
        let input: String = asked.iter().map(|r| format!("{r}^{{commit}}\n")).collect();
        let Ok(stdout) =
            self.run_with_stdin(&["cat-file", "--batch-check=%(objectname) %(objecttype)"], input.into_bytes())
        else {
            // Some names stop the whole batch (`@{u}` without an upstream): ask one at a time.
            return revs.iter().map(|r| self.try_resolve(r)).collect();
        };
        let text = String::from_utf8_lossy(&stdout);
        // `<sha> commit`, nothing else: a missing name is echoed back (`<name> missing`),
        // and a name may itself hold spaces.
        let is_sha = |s: &str| matches!(s.len(), 40 | 64) && s.bytes().all(|b| b.is_ascii_hexdigit());
        let mut answers = text.lines().map(|line| match line.split_once(' ') {
            Some((sha, "commit")) if is_sha(sha) => Some(sha.to_string()),
            _ => None,
        });
        Ok(revs.iter().map(|r| if usable(r) { answers.next().flatten() } else { None }).collect())
    }

    /// Like [`Git::resolve`], but `Ok(None)` when `rev` does not name a commit.
    pub fn try_resolve(&self, rev: &str) -> Result<Option<String>, ChangeError> {
        // A leading dash would be taken as an option, not a revision.
        if rev.is_empty() || rev.starts_with('-') {
            return Ok(None);
        }
        if let Some(sha) = self.store().and_then(|s| s.resolve_commit(rev)) {
            return Ok(Some(sha));
        }
        let spec = format!("{rev}^{{commit}}");
        let output = self.output(&["rev-parse", "--verify", "--quiet", &spec])?;
        let sha = String::from_utf8_lossy(&output.stdout).trim().to_string();
        Ok((output.status.success() && !sha.is_empty()).then_some(sha))
    }

    /// The best common ancestor of two commits, `None` for unrelated histories.
    pub fn merge_base(&self, a: &str, b: &str) -> Result<Option<String>, ChangeError> {
        if let Some(answer) = self.store().and_then(|s| s.merge_base(a, b)) {
            return Ok(answer);
        }
        let args = ["merge-base", a, b];
        let output = self.output(&args)?;
        let sha = String::from_utf8_lossy(&output.stdout).trim().to_string();
        match output.status.code() {
            Some(0) if !sha.is_empty() => Ok(Some(sha)),
            // Exit 1 with no output: no common ancestor.
            Some(1) if output.stderr.is_empty() => Ok(None),
            _ => Err(git_error(&args, &output)),
        }
    }

    /// The branch changes are reviewed against: `origin/HEAD` when set, else `main`,
    /// else `master`.
    pub fn default_branch(&self) -> Result<String, ChangeError> {
        let shas = self.try_resolve_many(&DEFAULT_BRANCHES)?;
        DEFAULT_BRANCHES
            .into_iter()
            .zip(shas)
            .find_map(|(name, sha)| sha.map(|_| name.to_string()))
            .ok_or(ChangeError::NoDefaultBranch)
    }

    /// The id of the empty tree, the base of a repository with no commits yet.
    pub fn empty_tree(&self) -> Result<String, ChangeError> {
        let sha = self.run(&["hash-object", "-t", "tree", "/dev/null"])?;
        Ok(String::from_utf8_lossy(&sha).trim().to_string())
    }

    /// `git diff` with the output format pinned so user configuration (prefixes,
    /// colour, external diff drivers, textconv, relative paths) cannot change what
    /// [`crate::parse_patch`] sees. `args` select what to compare.
    pub fn diff(&self, args: &[&str]) -> Result<String, ChangeError> {
        let mut full = vec![
            "-c",
            "diff.noprefix=false",
            "-c",
            "diff.mnemonicPrefix=false",
            "-c",
            "diff.suppressBlankEmpty=false",
            "diff",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            "--no-relative",
            "-M",
            "-C",
            "--src-prefix=a/",
            "--dst-prefix=b/",
            "--unified=3",
            // Hunks as git draws them by default, whatever `diff.algorithm` or
            // `diff.interHunkContext` say: comments and suggestions are placed on them.
            "--diff-algorithm=myers",
            "--inter-hunk-context=0",
            "--indent-heuristic",
        ];
        full.extend_from_slice(args);
        // Content lines of non-UTF-8 files become lossy; their head text is read
        // separately and reported as "not valid UTF-8".
        let bytes = self.run(&full)?;
        // Valid UTF-8 (the usual case) is taken as is, without a copy.
        Ok(String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
    }

    /// Run git, failing with its stderr on a non-zero exit.
    pub fn run(&self, args: &[&str]) -> Result<Vec<u8>, ChangeError> {
        let output = self.output(args)?;
        if !output.status.success() {
            return Err(git_error(args, &output));
        }
        Ok(output.stdout)
    }

    /// Run git and return its output whatever the exit status.
    pub(crate) fn output(&self, args: &[&str]) -> Result<Output, ChangeError> {
        base_command(&self.root, self.attr_source.as_deref())
            .args(args)
            .output()
            .map_err(|e| ChangeError::Spawn(e.to_string()))
    }

    fn read_blob(&self, oid: Option<String>) -> Result<Option<Vec<u8>>, ChangeError> {
        match oid {
            Some(oid) => Ok(Some(self.run(&["cat-file", "blob", &oid])?)),
            None => Ok(None),
        }
    }

    fn read_worktree(&self, path: &str) -> Option<Vec<u8>> {
        // Only plain relative components: `..`, absolute paths and drive prefixes
        // could reach outside the checkout.
        let relative = Path::new(path);
        if path.is_empty() || !relative.components().all(|c| matches!(c, Component::Normal(_))) {
            return None;
        }
        let full = self.root.join(relative);
        // A symlink inside the tree may still point outside it.
        let real = full.canonicalize().ok()?;
        let root = self.root.canonicalize().ok()?;
        if !real.starts_with(&root) || !real.is_file() {
            return None;
        }
        std::fs::read(real).ok()
    }
}

fn base_command(dir: &Path, attr_source: Option<&str>) -> Command {
    let mut cmd = Command::new("git");
    cmd.arg("-C").arg(dir);
    // Before the subcommand, as a global option; it also overrides a
    // `GIT_ATTR_SOURCE` or `attr.tree` set in the environment or configuration.
    if let Some(tree) = attr_source {
        cmd.arg(format!("--attr-source={tree}"));
    }
    cmd.args(["--no-pager", "--no-optional-locks", "--literal-pathspecs"])
        .args(["-c", "core.quotePath=true", "-c", "color.ui=never"])
        .env("LC_ALL", "C")
        .env("GIT_PAGER", "cat")
        .env("GIT_TERMINAL_PROMPT", "0")
        .stdin(std::process::Stdio::null());
    cmd
}

fn git_error(args: &[&str], output: &Output) -> ChangeError {
    let stderr = String::from_utf8_lossy(&output.stderr).trim().to_string();
    let stderr = if stderr.is_empty() { format!("exit status {}", output.status) } else { stderr };
    ChangeError::Git { args: args.join(" "), stderr }
}

fn split_z(bytes: &[u8]) -> Vec<String> {
    bytes.split(|b| *b == 0).filter(|s| !s.is_empty()).map(|s| String::from_utf8_lossy(s).into_owned()).collect()
}

/// One answer of `git cat-file --batch`: the blob's bytes (`None` when missing or not
/// a blob), and the rest of the output.
fn parse_batch_entry(out: &[u8]) -> Option<(Option<Vec<u8>>, &[u8])> {
    let nl = out.iter().position(|b| *b == b'\n')?;
    let header = std::str::from_utf8(&out[..nl]).ok()?;
    let rest = &out[nl + 1..];
    let fields: Vec<&str> = header.rsplitn(3, ' ').collect();
    // `<oid> <type> <size>`; anything else (`<name> missing`, `ambiguous`) has no body.
    let (Some(size), Some(kind)) = (fields.first().and_then(|s| s.parse::<usize>().ok()), fields.get(1)) else {
        return Some((None, rest));
    };
    if fields.len() != 3 || rest.len() < size + 1 {
        return None;
    }
    let body = (*kind == "blob").then(|| rest[..size].to_vec());
    Some((body, &rest[size + 1..]))
}

/// Every path, and the paths of symlink entries (mode 120000, the first field), in
/// `ls-tree -r -z` or `ls-files --stage -z` output.
fn entries(listing: &[u8]) -> (Vec<String>, Vec<String>) {
    let mut files = Vec::new();
    let mut links = Vec::new();
    for entry in split_z(listing) {
        let Some((meta, name)) = entry.split_once('\t') else {
            continue;
        };
        if meta.split(' ').next() == Some("120000") {
            links.push(name.to_string());
        }
        files.push(name.to_string());
    }
    (files, links)
}

/// The blob id of exactly `path` in `git ls-tree -z` output (`MODE TYPE OID\tPATH`).
fn tree_entry(listing: &[u8], path: &str) -> Option<String> {
    split_z(listing).into_iter().find_map(|entry| {
        let (meta, name) = entry.split_once('\t')?;
        let mut fields = meta.split(' ');
        let (_mode, kind, oid) = (fields.next()?, fields.next()?, fields.next()?);
        (name == path && kind == "blob").then(|| oid.to_string())
    })
}

/// The blob id of exactly `path` in `git ls-files --stage -z` output
/// (`MODE OID STAGE\tPATH`). During a conflict, stage 2 ("ours") stands in for stage 0.
fn index_entry(listing: &[u8], path: &str) -> Option<String> {
    let mut best: Option<(String, String)> = None;
    for entry in split_z(listing) {
        let Some((meta, name)) = entry.split_once('\t') else {
            continue;
        };
        let fields: Vec<&str> = meta.split(' ').collect();
        let [mode, oid, stage] = fields[..] else {
            continue;
        };
        // Submodules (160000) have no blob to read.
        if name != path || mode == "160000" || !matches!(stage, "0" | "2") {
            continue;
        }
        if best.as_ref().is_none_or(|(s, _)| stage < s.as_str()) {
            best = Some((stage.to_string(), oid.to_string()));
        }
    }
    best.map(|(_, oid)| oid)
}
