//! Private keys span lines, and masking sees them one line at a time: a state
//! carried from line to line follows a key from its armour to its end.
//!
//! Three shapes are followed:
//! - the armour alone on its line (`-----BEGIN RSA PRIVATE KEY-----`): every
//!   line up to the END line is the key's, whatever it looks like;
//! - the armour inside a string that closes on its line (JS or Python
//!   concatenation, a JSON array of lines, `'''-----BEGIN …-----'''`): the lines
//!   after it are the key's while they hold nothing but base64 and the quotes,
//!   commas and `+` around it, so code that merely names the armour stays readable;
//! - body lines with no armour in view (a diff hunk or a search result that
//!   starts inside a key): a line of 60 or more base64 characters and nothing
//!   else, of high entropy with upper case, lower case and digits, is a key's
//!   body; hex digests, identifiers and rulers are none of these.

use super::{Hit, PRIVATE_KEY, placeholder};
use regex::Regex;
use std::sync::OnceLock;

const PRIVATE_KEY_BEGIN: &str = r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----";
const PRIVATE_KEY_END: &str = r"-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----";

/// The shortest body line found without an armour in view: PEM and PGP lines
/// are 64 characters, OpenSSH's 70, MIME's 76.
pub(super) const BODY_WIDTH: usize = 60;

/// Bits per character above which a body line is random, not a word or a hex
/// digest (at most 4).
const BODY_ENTROPY: f64 = 4.5;

/// The first line after a quoted armour is the key's from this length on (an
/// encrypted key's headers end the block; its body lines are then found alone).
const QUOTED_FIRST: usize = 16;

/// Where a sequence of lines stands with respect to a private key.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum Block {
    /// In no key.
    #[default]
    Out,
    /// Between an armour alone on its line and its END line.
    Armoured,
    /// After a quoted armour or a body line: base64 lines go on masked; `seen`
    /// once one was (the first one is reported).
    Body { seen: bool },
}

fn begin_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(PRIVATE_KEY_BEGIN).expect("compiles"))
}

/// A run of base64 long enough to be part of a key's body.
fn body_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"[A-Za-z0-9+/=]{40,}").expect("compiles"))
}

fn end_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(PRIVATE_KEY_END).expect("compiles"))
}

fn is_base64(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=')
}

/// Whether `text` holds a run of base64 as long as a body line: the cheap screen
/// that lets a text with neither a keyword nor such a run skip masking.
pub(super) fn has_body_run(text: &str) -> bool {
    let mut run = 0;
    for &b in text.as_bytes() {
        run = if is_base64(b) { run + 1 } else { 0 };
        if run >= BODY_WIDTH {
            return true;
        }
    }
    false
}

/// A line without what code puts around a string's piece: indentation, quotes,
/// `+`, commas, brackets, escaped line ends.
fn core(line: &str) -> &str {
    let mut s = line;
    loop {
        let t = s.trim_matches(|c: char| c.is_whitespace() || "\"'`,+;:.()[]\\".contains(c));
        let t = t.strip_suffix("\\n").or_else(|| t.strip_suffix("\\r")).unwrap_or(t);
        if t.len() == s.len() {
            return t;
        }
        s = t;
    }
}

fn all_base64(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(is_base64)
}

/// Base64 of a key's randomness: upper case, lower case and digits, at high
/// entropy, and not in order (the base64 alphabet itself is 64 characters of
/// high entropy; random text has about one character followed by its successor).
fn random_base64(c: &str) -> bool {
    let ordered = c.as_bytes().windows(2).filter(|w| w[1] == w[0].wrapping_add(1)).count();
    ordered < 8
        && all_base64(c)
        && [u8::is_ascii_uppercase, u8::is_ascii_lowercase, u8::is_ascii_digit]
            .iter()
            .all(|class| c.bytes().any(|b| class(&b)))
        && super::entropy(c) > BODY_ENTROPY
}

/// A line that is a key's body line with no armour in view.
fn lone_body(line: &str) -> bool {
    let c = core(line);
    c.len() >= BODY_WIDTH && random_base64(c)
}

/// The widths of a body line (PEM and PGP, OpenSSH): a word of exactly this
/// many such characters among other words (prose quoting one line of a key) is
/// one too. Other widths are left alone there: an ed25519 public key is 68.
const BODY_LINE_WIDTHS: [usize; 2] = [64, 70];

/// `line` with each word that is a key's body line masked, and the hit; `None`
/// where it holds no such word.
pub(super) fn body_words(line: &str) -> Option<(String, Vec<Hit>)> {
    let mut out = String::new();
    let mut last = 0;
    for word in line.split_ascii_whitespace() {
        let c = core(word);
        if BODY_LINE_WIDTHS.contains(&c.len()) && random_base64(c) {
            let at = c.as_ptr() as usize - line.as_ptr() as usize;
            out.push_str(&line[last..at]);
            out.push_str(&placeholder(PRIVATE_KEY));
            last = at + c.len();
        }
    }
    (last > 0).then(|| {
        out.push_str(&line[last..]);
        (out, hit("a key's body line"))
    })
}

fn hit(redacted: &str) -> Vec<Hit> {
    vec![Hit { kind: PRIVATE_KEY.into(), redacted: redacted.into() }]
}

/// The masked line and its hits where `line` is part of a private key (or its
/// armour), updating `block`; `None` where the line is to be masked as any other.
pub(super) fn step(line: &str, block: &mut Block) -> Option<(String, Vec<Hit>)> {
    match *block {
        Block::Armoured => {
            if end_re().is_match(line) {
                *block = Block::Out;
                return Some((line.to_string(), Vec::new()));
            }
            return Some((placeholder(PRIVATE_KEY), Vec::new()));
        }
        Block::Body { seen } => {
            let c = core(line);
            let body = all_base64(c) && (seen || c.len() >= QUOTED_FIRST);
            if body && !end_re().is_match(line) {
                *block = Block::Body { seen: true };
                return Some((placeholder(PRIVATE_KEY), if seen { Vec::new() } else { hit("a PEM block") }));
            }
            *block = Block::Out;
        }
        Block::Out => {}
    }
    if let Some(m) = begin_re().find(line) {
        return armour(line, m.end(), block);
    }
    if lone_body(line) {
        *block = Block::Body { seen: true };
        return Some((placeholder(PRIVATE_KEY), hit("a key's body line")));
    }
    None
}

/// A line holding a BEGIN armour that ends at byte `end`.
fn armour(line: &str, end: usize, block: &mut Block) -> Option<(String, Vec<Hit>)> {
    let rest = &line[end..];
    // The armour alone on its line (a string may go on after a `\`): the key's
    // body is on the lines that follow, up to the END line.
    if rest.trim_end_matches([' ', '\t', '\\']).is_empty() {
        *block = Block::Armoured;
        return Some((line.to_string(), hit("a PEM block")));
    }
    // The whole key on one line (escaped newlines in a string): its body is
    // masked, the armour around it kept.
    if body_re().is_match(rest) {
        let close = end_re().find(rest).map_or(rest.len(), |e| e.start());
        return Some((format!("{} {}{}", &line[..end], placeholder(PRIVATE_KEY), &rest[close..]), hit("a PEM block")));
    }
    // The armour in a string that closes here: the body, if any, follows as
    // strings of its own. Code that quotes the armour to parse keys
    // (`starts_with("-----BEGIN …")`) is followed by code, which ends this.
    if core(rest).is_empty() {
        *block = Block::Body { seen: false };
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::Masker;

    // Lines of a key's body, built at run time so no key-shaped text is committed.
    fn body() -> [String; 3] {
        [
            ["MIIEowIBAAKCAQEAu1SU1Lf", "VLPHCozMxH2Mo4lgOEePzNm0t", "RgeLezV6ffAt0gun"].concat(),
            ["7onLRnrq0/IzW7yWR7QkrmBL", "7jTKEn5u+qKhbwKfBstIs+bMY2", "Zkp18gnTxKLxoS"].concat(),
            ["Zq9/0wH", "t5Kc=="].concat(),
        ]
    }

    fn armour(edge: &str) -> String {
        format!("-----{edge} RSA PRIVATE KEY-----")
    }

    /// The masked text, after checking that no body line survived and that
    /// exactly one key was reported.
    fn masked(text: &str) -> String {
        let (out, hits) = Masker::new(&[]).unwrap().text(text);
        for line in body() {
            assert!(!out.contains(&line), "{line} left in:\n{out}");
        }
        assert_eq!(hits.len(), 1, "{hits:?}\n{out}");
        assert_eq!(out.lines().count(), text.lines().count());
        out
    }

    #[test]
    fn a_key_concatenated_from_strings_is_masked() {
        let [a, b, c] = body();
        let (begin, end) = (armour("BEGIN"), armour("END"));
        let js = format!(
            "const key = \"{begin}\\n\" +\n  \"{a}\\n\" +\n  \"{b}\\n\" +\n  \"{c}\\n\" +\n  \"{end}\";\nuse(key);\n"
        );
        let out = masked(&js);
        // The chain is read as the one string it builds (`super::joined`), so every
        // piece of it is masked, armour too; the code after it is kept.
        assert!(out.ends_with("\";\nuse(key);\n") && !out.contains("BEGIN"), "{out}");
        let python = format!("KEY = (\n    '{begin}\\n'\n    '{a}\\n'\n    '{c}\\n'\n    '{end}'\n)\n");
        masked(&python);
    }

    #[test]
    fn a_key_as_a_json_array_of_lines_is_masked() {
        let [a, b, c] = body();
        let (begin, end) = (armour("BEGIN"), armour("END"));
        masked(&format!("{{\"key\": [\"{begin}\",\n  \"{a}\",\n  \"{b}\",\n  \"{c}\",\n  \"{end}\"]}}\n"));
        // Wrapped narrower than any body line found alone: only the armour
        // before it tells these lines are a key's.
        let narrow: Vec<String> = [a.as_str(), b.as_str()]
            .concat()
            .as_bytes()
            .chunks(32)
            .map(|c| format!("  \"{}\",", String::from_utf8_lossy(c)))
            .collect();
        let (out, hits) =
            Masker::new(&[]).unwrap().text(&format!("[\"{begin}\",\n{}\n  \"{end}\"]\n", narrow.join("\n")));
        assert!(!out.contains(&a[..32]) && !out.contains(&b[32..]), "{out}");
        assert_eq!(hits.len(), 1);
    }

    #[test]
    fn a_key_after_an_armour_in_closed_quotes_is_masked() {
        let [a, b, c] = body();
        let begin = armour("BEGIN");
        let out = masked(&format!("KEY = '''{begin}'''\n{a}\n{b}\n{c}\nprint(KEY)\n"));
        assert!(out.ends_with("\nprint(KEY)\n"), "the code after the key stays: {out}");
    }

    #[test]
    fn body_lines_with_no_armour_in_view_are_masked() {
        // A diff hunk or a search result that starts inside a key.
        let [a, b, c] = body();
        let end = armour("END");
        let out = masked(&format!("{a}\n{b}\n{c}\n{end}\n"));
        assert_eq!(out, format!("[masked private-key]\n[masked private-key]\n[masked private-key]\n{end}\n"));
        let out = masked(&format!("    \"{b}\\n\" +\n    \"{a}\\n\" +\n    \"{c}\\n\" +\n    \"{end}\";\n"));
        assert!(out.ends_with(&format!("    \"{end}\";\n")), "{out}");
    }

    #[test]
    fn a_body_line_quoted_in_prose_is_masked() {
        let [a, b, _] = body();
        let text = format!("The file holds {a} and `{b}`.\n");
        let (out, hits) = Masker::new(&[]).unwrap().text(&text);
        assert_eq!(out, "The file holds [masked private-key] and `[masked private-key]`.\n");
        assert_eq!(hits.len(), 1);
        let ed25519 = ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI", "Hq3mT9kR2vL8xW4pN7cJ5bF0gY6dS1aE3uZ9oK2iM4w"].concat();
        assert_eq!(Masker::new(&[]).unwrap().text(&ed25519).1, Vec::new(), "a public key is no secret");
    }

    #[test]
    fn code_that_quotes_an_armour_or_holds_long_runs_is_not_masked() {
        let begin = armour("BEGIN");
        let sha256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
        let texts = [
            format!("BEGIN = \"{begin}\"\nreturn\nparse(text)\n"),
            format!("if line.starts_with(\"{begin}\");\n    parse(line)\n"),
            format!("checksum = \"{sha256}\"\n{sha256}\n"),
            format!("{}\n{}\n", "/".repeat(80), "=".repeat(80)),
            "thisIsAnIdentifierThatIsLongerThanSixtyCharactersButHasNoDigitsAtAll\n".to_string(),
            "const B64: &str = \"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/\";\n".to_string(),
            "https://example.com/a/very/long/path/that/is/made/of/base64/letters/only/1234\n".to_string(),
        ];
        for text in texts {
            assert_eq!(Masker::new(&[]).unwrap().text(&text), (text.clone(), Vec::new()), "{text}");
        }
    }
}
