//! Secrets split into string literals joined with `+`, on one line or across
//! lines (`"ghp_R7xK" + "2mQ9…"`): no piece is a secret on its own, so the line
//! rules miss them. Each chain of two or more literals is read as the one string
//! it builds, with the text before it on its first line (the name it is assigned
//! to); when the line rules find a secret in that string, every piece of the
//! chain is masked.

use super::{Hit, Masker, placeholder, redact};

/// The content of one quoted literal: the line it is on and its byte range,
/// inside the quotes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Piece {
    line: usize,
    start: usize,
    end: usize,
}

#[derive(Debug, PartialEq, Eq)]
enum Token {
    Piece(Piece),
    Plus,
    Other,
}

/// The tokens of `lines` that matter for a chain: literals, `+`, and anything
/// else as one `Other` (which ends a chain). A line break is white space.
fn tokens(lines: &[&str]) -> Vec<Token> {
    let mut out = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        let bytes = line.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            match b {
                b'"' | b'\'' | b'`' => match closing(bytes, i + 1, b) {
                    Some(end) => {
                        out.push(Token::Piece(Piece { line: n, start: i + 1, end }));
                        i = end + 1;
                        continue;
                    }
                    None => {
                        out.push(Token::Other);
                        break;
                    }
                },
                b'+' => out.push(Token::Plus),
                b if b.is_ascii_whitespace() => {}
                _ if out.last() != Some(&Token::Other) => out.push(Token::Other),
                _ => {}
            }
            i += 1;
        }
    }
    out
}

/// Where the literal opened by `quote` before `from` closes (a backslash escapes).
fn closing(bytes: &[u8], from: usize, quote: u8) -> Option<usize> {
    let mut i = from;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b if b == quote => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// The chains of two or more literals joined by `+`.
fn chains(tokens: &[Token]) -> Vec<Vec<Piece>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let Token::Piece(first) = tokens[i] else {
            i += 1;
            continue;
        };
        let mut chain = vec![first];
        let mut j = i + 1;
        while let (Some(Token::Plus), Some(Token::Piece(next))) = (tokens.get(j), tokens.get(j + 1)) {
            chain.push(*next);
            j += 2;
        }
        if chain.len() > 1 {
            out.push(chain);
        }
        i = j.max(i + 1);
    }
    out
}

/// The lines, masked, and what was masked on which line (0-based).
pub(super) type Masked = (Vec<String>, Vec<(usize, Hit)>);

/// `lines` with every piece of a chain that builds a secret masked, and one hit
/// per such chain, on the line where it starts. `None` when no chain builds one.
pub(super) fn mask(masker: &Masker, lines: &[&str]) -> Option<Masked> {
    if !lines.iter().any(|l| l.contains('+')) {
        return None;
    }
    let mut masked: Vec<(Piece, String)> = Vec::new();
    let mut hits = Vec::new();
    for chain in chains(&tokens(lines)) {
        let joined: String = chain.iter().map(|p| &lines[p.line][p.start..p.end]).collect();
        let first = chain[0];
        let line = lines[first.line];
        // The quote that closes the first piece closes the joined string too.
        let synthetic = format!("{}{joined}{}", &line[..first.start], &line[first.end..=first.end]);
        let (out, found) = masker.line(&synthetic);
        let Some(hit) = found.into_iter().next().filter(|_| !out.contains(&joined)) else { continue };
        let kind = hit.kind;
        masked.extend(chain.iter().map(|p| (*p, placeholder(&kind))));
        hits.push((first.line, Hit { kind, redacted: redact(&joined) }));
    }
    if hits.is_empty() {
        return None;
    }
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    // From the end of each line, so earlier byte ranges stay valid.
    masked.sort_by_key(|(p, _)| std::cmp::Reverse((p.line, p.start)));
    for (p, with) in masked {
        out[p.line].replace_range(p.start..p.end, &with);
    }
    Some((out, hits))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token() -> String {
        ["ghp_", "R7xK2mQ9", "vLp4Nt8W", "zB3cY6dF", "hJ1sG5aE", "0uIo"].concat()
    }

    #[test]
    fn a_token_split_on_one_line_or_across_lines_is_masked_in_every_piece() {
        let t = token();
        let (a, b) = t.split_at(16);
        let masker = Masker::new(&[]).unwrap();
        let one = format!("TOKEN = \"{a}\" + \"{b}\"");
        let (out, hits) = mask(&masker, &[one.as_str()]).expect("found");
        assert!(!out[0].contains(a) && !out[0].contains(b), "{out:?}");
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].1.redacted, "40 characters");
        let lines = ["const token =".to_string(), format!("  '{a}' +"), format!("  '{b}';")];
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let (out, hits) = mask(&masker, &lines).expect("found");
        assert_eq!(out.len(), 3, "lines are kept");
        assert!(!out.concat().contains(a) && !out.concat().contains(b), "{out:?}");
        assert_eq!(hits[0].0, 1, "reported where the chain starts");
    }

    #[test]
    fn joined_strings_that_build_no_secret_are_left_alone() {
        let masker = Masker::new(&[]).unwrap();
        for text in [
            r#"let url = "https://" + host + "/api";"#,
            r#"msg = "Hello, " + "world" + "!""#,
            r#"path = 'src/' + 'main.rs'"#,
            r#"x = a + b"#,
        ] {
            assert_eq!(mask(&masker, &[text]), None, "{text}");
        }
    }

    #[test]
    fn chains_need_a_plus_between_literals_and_stop_at_anything_else() {
        let t = tokens(&[r#"f("a" + "b", "c") + 'd'"#]);
        let found = chains(&t);
        assert_eq!(found.len(), 1, "{t:?}");
        assert_eq!(found[0].len(), 2, "`\"c\"` follows a comma, `'d'` a parenthesis");
        assert_eq!(chains(&tokens(&[r#""unclosed + "x""#])).len(), 0);
    }
}
