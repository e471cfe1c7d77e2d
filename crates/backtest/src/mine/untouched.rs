//! Blame at token level: when a fix changes only some tokens of a line, the
//! defect is those tokens, and the commit that last touched the line may have
//! changed only others. Blame then goes on from that commit's parent while the
//! line there still held the tokens the fix took out (with the tokens on either
//! side of them, so `x = a` is not found in `x = a.b`).

use super::Miner;
use super::blame::Blamed;
use super::refactor::tokens;
use gauntlet_change::ChangeError;
use std::collections::BTreeMap;

/// How many commits one line is followed through.
const MAX_HOPS: usize = 8;
/// How alike two lines must be (shared tokens over all tokens, 0 to 1) to be one
/// line edited rather than one line replaced by another.
const SAME_LINE: f64 = 0.5;

const START: &str = "\u{2}";
const END: &str = "\u{3}";

/// A line's tokens, less a trailing line-continuation backslash (layout).
fn code_tokens(line: &str) -> Vec<&str> {
    let mut t = tokens(line);
    if t.last() == Some(&"\\") {
        t.pop();
    }
    t
}

/// A line's tokens between a start and an end marker.
fn framed(line: &str) -> Vec<&str> {
    let mut out = vec![START];
    out.extend(code_tokens(line));
    out.push(END);
    out
}

/// The most cells [`common`]'s table may have for a hunk (4 MiB of `u32`): a fix
/// that rewrote more than that is not one edit of a few tokens, and gets no
/// token-level walk, like lines the fix replaced.
const MAX_TABLE: usize = 1 << 20;

/// The pairs (i, j) of a longest common subsequence of `a` and `b`, in order.
fn common(a: &[&str], b: &[&str]) -> Vec<(usize, usize)> {
    let (n, m) = (a.len(), b.len());
    let mut len = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            len[i][j] = if a[i] == b[j] { len[i + 1][j + 1] + 1 } else { len[i + 1][j].max(len[i][j + 1]) };
        }
    }
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < n && j < m {
        if a[i] == b[j] {
            out.push((i, j));
            i += 1;
            j += 1;
        } else if len[i + 1][j] >= len[i][j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

/// How alike two lines are: twice the common tokens over all tokens.
fn likeness(a: &str, b: &str) -> f64 {
    let (a, b) = (tokens(a), tokens(b));
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    2.0 * common(&a, &b).len() as f64 / (a.len() + b.len()) as f64
}

/// The line of `others` that line `i` of `lines` became (or came from): the one
/// at the same place when both sides have as many lines and it is alike enough,
/// else the most alike one.
pub fn paired(lines: &[String], others: &[String], i: usize) -> Option<usize> {
    let line = lines.get(i)?;
    if lines.len() == others.len() && likeness(line, &others[i]) >= SAME_LINE {
        return Some(i);
    }
    let best = others.iter().enumerate().map(|(j, o)| (likeness(line, o), j)).max_by(|a, b| a.0.total_cmp(&b.0))?;
    (best.0 >= SAME_LINE).then_some(best.1)
}

/// What `new` took out of `old`, as runs of `old`'s tokens the defect sits in:
/// each stretch of tokens it removed or replaced, with the token before and after
/// it (the start and end of the line count as tokens). Empty when `new` only
/// added tokens: then nothing says which commit the defect came with, and blame
/// stays on the commit that last wrote the line.
pub fn taken_out(old: &str, new: &str) -> Vec<Vec<String>> {
    taken_from_hunk(&[old.to_string()], &[new.to_string()]).remove(&0).unwrap_or_default()
}

/// A hunk's two sides as tokens between start and end markers: the old side's
/// with the (0-based) line each came from, the new side's as one run.
fn sides<'a>(removed: &'a [String], added: &'a [String]) -> (Vec<(usize, &'a str)>, Vec<&'a str>) {
    let mut a: Vec<(usize, &str)> = vec![(0, START)];
    for (i, l) in removed.iter().enumerate() {
        a.extend(code_tokens(l).into_iter().map(|t| (i, t)));
    }
    a.push((removed.len().saturating_sub(1), END));
    let mut b: Vec<&str> = vec![START];
    b.extend(added.iter().flat_map(|l| code_tokens(l)));
    b.push(END);
    (a, b)
}

/// A hunk's sides as tokens ([`sides`]; `old` is `a` without its line numbers)
/// and their common tokens ([`common`]).
struct Aligned<'a> {
    a: Vec<(usize, &'a str)>,
    old: Vec<&'a str>,
    b: Vec<&'a str>,
    pairs: Vec<(usize, usize)>,
}

/// The hunk aligned token by token; `None` when its table would pass
/// [`MAX_TABLE`].
fn aligned<'a>(removed: &'a [String], added: &'a [String]) -> Option<Aligned<'a>> {
    let (a, b) = sides(removed, added);
    let old: Vec<&str> = a.iter().map(|(_, t)| *t).collect();
    if old.len() * b.len() > MAX_TABLE {
        return None;
    }
    let pairs = common(&old, &b);
    Some(Aligned { a, old, b, pairs })
}

/// [`taken_out`] for a hunk: its removed lines against its added lines as one
/// text (so a line the fix re-wrapped over several is still one edit), the runs
/// given per removed line (0-based), each run within its line. Empty when the two
/// sides are too unlike to be one edit (the fix replaced the lines).
pub fn taken_from_hunk(removed: &[String], added: &[String]) -> BTreeMap<usize, Vec<Vec<String>>> {
    let mut out: BTreeMap<usize, Vec<Vec<String>>> = BTreeMap::new();
    let Some(Aligned { a, old, b, pairs }) = aligned(removed, added) else { return out };
    // Too unlike, unless the fix only added tokens: the lines were replaced.
    if 2.0 * (pairs.len() as f64) < SAME_LINE * (old.len() + b.len()) as f64 && pairs.len() < old.len() {
        return out;
    }
    // A token as its line sees it: a neighbour on another line is that line's edge.
    let seen = |k: usize, line: usize, before: bool| -> String {
        match a[k] {
            (l, t) if l == line && t != START && t != END => t.to_string(),
            _ if before => START.to_string(),
            _ => END.to_string(),
        }
    };
    for w in pairs.windows(2) {
        let ((i1, _), (i2, _)) = (w[0], w[1]);
        if i2 > i1 + 1 {
            // Tokens i1+1..i2 were taken out or replaced: one run per line they sit on.
            let mut k = i1 + 1;
            while k < i2 {
                let line = a[k].0;
                let start = k;
                while k < i2 && a[k].0 == line {
                    k += 1;
                }
                let mut run = vec![seen(start - 1, line, true)];
                run.extend(a[start..k].iter().map(|(_, t)| t.to_string()));
                run.push(seen(k, line, false));
                out.entry(line).or_default().push(run);
            }
        }
    }
    out
}

/// Where `new` only inserted tokens into a line of `removed` (the hunk's old
/// side) that it took nothing out of: per line (0-based), the pairs of tokens the
/// insertions went between (the start and end of the line count as tokens).
pub fn gaps_in_hunk(removed: &[String], added: &[String]) -> BTreeMap<usize, Vec<Vec<String>>> {
    let taken = taken_from_hunk(removed, added);
    let mut out: BTreeMap<usize, Vec<Vec<String>>> = BTreeMap::new();
    let Some(Aligned { a, pairs, .. }) = aligned(removed, added) else { return out };
    for w in pairs.windows(2) {
        let ((i1, j1), (i2, j2)) = (w[0], w[1]);
        if i2 != i1 + 1 || j2 == j1 + 1 {
            continue;
        }
        let line = if a[i1].1 == START { a[i2].0 } else { a[i1].0 };
        let edge = |k: usize, before: bool| match a[k] {
            (l, t) if l == line && t != START && t != END => t.to_string(),
            _ if before => START.to_string(),
            _ => END.to_string(),
        };
        out.entry(line).or_default().push(vec![edge(i1, true), edge(i2, false)]);
    }
    out.retain(|line, _| !taken.contains_key(line));
    out
}

/// Whether every run is in `line`, each as consecutive tokens.
pub fn holds(line: &str, runs: &[Vec<String>]) -> bool {
    let t = framed(line);
    runs.iter().all(|run| t.windows(run.len()).any(|w| w.iter().zip(run).all(|(a, b)| a == b)))
}

impl Miner<'_> {
    /// Whether the commit blame named for a line did not make the places where a
    /// fix inserted tokens (`gaps`, from [`gaps_in_hunk`]): it changed the line,
    /// and the line it changed already had each pair of neighbours side by side.
    pub(super) fn gaps_predate(&self, b: &Blamed, gaps: &[Vec<String>]) -> Result<bool, ChangeError> {
        if b.boundary || gaps.is_empty() {
            return Ok(false);
        }
        let commit = self.commit(&b.commit)?;
        let Some(parent) = commit.parents.first() else { return Ok(false) };
        let files = self.own_diff(&b.commit, parent)?;
        let Some(file) = files.iter().find(|f| f.new.as_deref() == Some(b.path.as_str())) else { return Ok(false) };
        let Some(h) = file.hunks.iter().find(|h| h.new_start <= b.line && b.line < h.new_start + h.new_count) else {
            return Ok(false);
        };
        let Some(i) = paired(&h.added, &h.removed, (b.line - h.new_start) as usize) else { return Ok(false) };
        Ok(holds(&h.removed[i], gaps))
    }

    /// Follow a blamed line back through commits that changed it but left the
    /// tokens the fix took out (`runs`, from [`taken_out`]) as they were; refactors
    /// are looked through at each step.
    pub(super) fn past_untouched(&self, mut b: Blamed, runs: &[Vec<String>]) -> Result<Blamed, ChangeError> {
        b = self.past_refactors(b)?;
        if runs.is_empty() {
            return Ok(b);
        }
        for _ in 0..MAX_HOPS {
            if b.boundary {
                break;
            }
            let commit = self.commit(&b.commit)?;
            let Some(parent) = commit.parents.first() else { break };
            let files = self.own_diff(&b.commit, parent)?;
            let Some(file) = files.iter().find(|f| f.new.as_deref() == Some(b.path.as_str())) else { break };
            let Some(old_path) = &file.old else { break };
            let Some(h) = file.hunks.iter().find(|h| h.new_start <= b.line && b.line < h.new_start + h.new_count)
            else {
                break;
            };
            let Some(i) = paired(&h.added, &h.removed, (b.line - h.new_start) as usize) else { break };
            if !holds(&h.removed[i], runs) {
                break;
            }
            let Some(earlier) = self.blame(parent, old_path, &[h.old_start + i as u32])?.into_iter().next() else {
                break;
            };
            b = self.past_refactors(Blamed { at: b.at, ..earlier })?;
        }
        Ok(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hunk_too_large_for_one_edit_gets_no_token_walk() {
        let removed: Vec<String> = (0..1500).map(|i| format!("let value_{i} = compute({i}, other, more);")).collect();
        let added: Vec<String> = (0..1500).map(|i| format!("let value_{i} = compute({i}, other, less);")).collect();
        assert!(taken_from_hunk(&removed, &added).is_empty());
        assert!(gaps_in_hunk(&removed, &added).is_empty());
        // The same edit on a few lines is still followed.
        assert!(!taken_from_hunk(&removed[..3], &added[..3]).is_empty());
    }

    fn runs(old: &str, new: &str) -> Vec<Vec<String>> {
        taken_out(old, new)
    }

    #[test]
    fn the_tokens_a_fix_took_out_come_with_their_neighbours() {
        assert_eq!(runs("n = a + 1", "n = a"), vec![vec!["a", "+", "1", END]]);
        assert!(runs("if x:", "if x is not None:").is_empty(), "only added");
        assert_eq!(runs("f(a, b)", "f(a, c)"), vec![vec![",", "b", ")"]]);
        assert!(runs("f(a, b)", "f(a,  b)").is_empty());
        assert!(runs("return a", "raise Error(x, y, z)").is_empty(), "a replaced line is no edit");
        let one = |old: &str, new: &str| gaps_in_hunk(&[old.to_string()], &[new.to_string()]);
        assert_eq!(one("if f(x):", "if not f(x):")[&0], vec![vec!["if", "f"]]);
        assert_eq!(one("x = [a]", "x = [a] as y")[&0], vec![vec!["]", END]]);
        assert!(one("f(a)", "g(a, b)").is_empty(), "a token taken out: not only an insertion");
    }

    #[test]
    fn a_line_the_fix_rewrapped_keeps_its_runs() {
        let removed = ["    return value + sep + sig(value)".to_string()];
        let added = ["    return want(value) + \\".to_string(), "        sep + sig(value)".to_string()];
        assert!(taken_from_hunk(&removed, &added).is_empty(), "only added, across the re-wrap");
        let added = ["    return value + \\".to_string(), "        sig(value)".to_string()];
        let runs = taken_from_hunk(&removed, &added);
        assert_eq!(runs[&0], vec![vec!["+", "sep", "+", "sig"]]);
        assert!(holds("out = value + sep + sig(value, key)", &runs[&0]));
        assert!(!holds("return value + want(sep) + sig(value)", &runs[&0]));
    }

    #[test]
    fn a_line_holds_the_runs_only_where_their_neighbours_match() {
        let r = runs("x = a", "x = b");
        assert!(holds("x   =  a", &r));
        assert!(!holds("x = a.b", &r), "a is no longer the end of the line");
        assert!(holds("y = f(1); x = a", &r));
    }

    #[test]
    fn lines_pair_by_place_when_alike_else_by_likeness() {
        let old: Vec<String> = ["total = price * qty + 1", "log(total)"].map(String::from).to_vec();
        let new: Vec<String> = ["log(total)", "total = price * qty"].map(String::from).to_vec();
        assert_eq!(paired(&old, &new, 0), Some(1));
        assert_eq!(paired(&old, &new, 1), Some(0));
        let other: Vec<String> = ["return None".to_string()].to_vec();
        assert_eq!(paired(&old, &other, 0), None, "a replaced line pairs with nothing");
    }
}
