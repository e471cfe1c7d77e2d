//! Finding which files could use a set of names, in one pass over each text, so
//! that only those files need to be parsed.

use aho_corasick::{AhoCorasick, MatchKind};
use std::collections::BTreeSet;

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Which of `names` each of `texts` holds as a whole word (case-sensitive: `Rest`
/// does not match `rest`): for every text that holds at least one, its index and
/// the indexes of the names it holds, sorted. One automaton serves every text, and
/// each text is read once.
pub fn mentioning<'a>(names: &[String], texts: impl IntoIterator<Item = &'a str>) -> Vec<(usize, Vec<usize>)> {
    let patterns: Vec<(usize, &String)> = names.iter().enumerate().filter(|(_, n)| !n.is_empty()).collect();
    if patterns.is_empty() {
        return Vec::new();
    }
    let automaton = AhoCorasick::builder()
        .match_kind(MatchKind::LeftmostLongest)
        .build(patterns.iter().map(|(_, n)| n))
        .expect("plain names always build an automaton");
    let mut out = Vec::new();
    for (i, text) in texts.into_iter().enumerate() {
        let bytes = text.as_bytes();
        let mut found: BTreeSet<usize> = BTreeSet::new();
        for m in automaton.find_iter(bytes) {
            let before = m.start().checked_sub(1).map(|p| bytes[p]);
            let after = bytes.get(m.end()).copied();
            if !before.is_some_and(is_word_byte) && !after.is_some_and(is_word_byte) {
                found.insert(patterns[m.pattern().as_usize()].0);
            }
        }
        if !found.is_empty() {
            out.push((i, found.into_iter().collect()));
        }
    }
    out
}

/// The words of an identifier: `displayName`, `display_name` and `DisplayName` all
/// give `display`, `name`.
pub fn words(name: &str) -> Vec<String> {
    let chars: Vec<char> = name.chars().collect();
    let mut out = Vec::new();
    let mut cur = String::new();
    for (i, c) in chars.iter().enumerate() {
        if *c == '_' || *c == '-' {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            continue;
        }
        let upper_after_lower = c.is_ascii_uppercase()
            && i > 0
            && (chars[i - 1].is_ascii_lowercase()
                || chars[i - 1].is_ascii_digit()
                || (chars[i - 1].is_ascii_uppercase() && chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase())));
        if upper_after_lower && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        cur.push(c.to_ascii_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The spellings a field takes on the other side of a wire: as written, snake_case,
/// camelCase and PascalCase. A single-word name keeps only its own spelling, so a
/// type `Rest` never turns into a variable `rest`.
pub fn spellings(name: &str) -> Vec<String> {
    let w = words(name);
    let mut out = BTreeSet::from([name.to_string()]);
    if w.len() > 1 {
        let cap = |s: &String| {
            let mut chars = s.chars();
            chars.next().map_or_else(String::new, |first| first.to_uppercase().chain(chars).collect())
        };
        out.insert(w.join("_"));
        out.insert(w.iter().map(cap).collect());
        out.insert(w[0].clone() + &w[1..].iter().map(cap).collect::<String>());
    }
    out.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_whole_case_sensitive_words_mention_a_name() {
        let names = vec!["Rest".to_string(), "total".to_string()];
        let texts = ["let rest = 1;", "x: Rest", "subtotal + totals", "o.total"];
        assert_eq!(mentioning(&names, texts), vec![(1, vec![0]), (3, vec![1])]);
    }

    #[test]
    fn multi_word_fields_are_spelled_every_way_single_words_only_as_written() {
        assert_eq!(spellings("display_name"), vec!["DisplayName", "displayName", "display_name"]);
        assert_eq!(spellings("Rest"), vec!["Rest"]);
        assert_eq!(words("HTTPServer"), vec!["http", "server"]);
        // A word that starts with a character of several bytes is capitalised whole.
        assert_eq!(spellings("größe_ändern"), vec!["GrößeÄndern", "größe_ändern", "größeÄndern"]);
    }
}
