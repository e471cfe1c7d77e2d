//! A JSON-schema `pattern` as a GBNF expression, for the small regex subset a
//! contract uses (e.g. `^[^:\s]+:[1-9][0-9]*(-[1-9][0-9]*)?$` for `path:LINE`).
//!
//! Supported: anchors `^…$` (required: the grammar matches the whole string),
//! literals, `\d`, `\s`, `\.`-style escapes, `.`, classes `[…]` / `[^…]`, groups
//! with `|`, and `?`, `*`, `+`, `{m}`, `{m,n}`. `*` and `+` are bounded by the
//! string's `maxLength`, so the grammar's worst case stays finite. Matched text is
//! printable ASCII, like every other string the local grammar allows.

/// GBNF for `pattern` and its worst case in bytes.
pub fn to_gbnf(pattern: &str, max_len: usize) -> Result<(String, usize), String> {
    let inner = pattern
        .strip_prefix('^')
        .and_then(|p| p.strip_suffix('$'))
        .ok_or_else(|| format!("pattern `{pattern}` must be anchored with ^ and $"))?;
    let mut p = Parser { chars: inner.chars().collect(), at: 0, max_len };
    let out = p.alternatives()?;
    if p.at != p.chars.len() {
        return Err(format!("pattern `{pattern}`: unexpected `{}`", p.chars[p.at]));
    }
    Ok(out)
}

struct Parser {
    chars: Vec<char>,
    at: usize,
    max_len: usize,
}

/// Characters a negated class must still exclude: JSON's `"` and `\`, control
/// and non-ASCII characters.
const NOT_PLAIN: &str = r#""\\\x00-\x1F\x7F-\U0010FFFF"#;

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn alternatives(&mut self) -> Result<(String, usize), String> {
        let (mut text, mut max) = self.sequence()?;
        while self.peek() == Some('|') {
            self.at += 1;
            let (t, m) = self.sequence()?;
            text = format!("{text} | {t}");
            max = max.max(m);
        }
        Ok((text, max))
    }

    fn sequence(&mut self) -> Result<(String, usize), String> {
        let mut parts = Vec::new();
        let mut max = 0;
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            let (atom, atom_max) = self.atom()?;
            let (quant, reps) = self.quantifier()?;
            parts.push(format!("{atom}{quant}"));
            max += atom_max * reps;
        }
        Ok((if parts.is_empty() { "\"\"".into() } else { parts.join(" ") }, max))
    }

    fn atom(&mut self) -> Result<(String, usize), String> {
        let c = self.peek().ok_or("pattern ends early")?;
        self.at += 1;
        Ok(match c {
            '(' => {
                let (inner, max) = self.alternatives()?;
                if self.peek() != Some(')') {
                    return Err("unclosed group".into());
                }
                self.at += 1;
                (format!("({inner})"), max)
            }
            '[' => (self.class()?, 1),
            '.' => ("char".into(), 2),
            '\\' => {
                let e = self.peek().ok_or("pattern ends after \\")?;
                self.at += 1;
                match e {
                    'd' => ("[0-9]".into(), 1),
                    's' => ("\" \"".into(), 1),
                    e if e.is_ascii_punctuation() => (literal(e)?, 1),
                    e => return Err(format!("escape \\{e} is not supported")),
                }
            }
            c => (literal(c)?, 1),
        })
    }

    /// A class, `[` already consumed.
    fn class(&mut self) -> Result<String, String> {
        let negated = self.peek() == Some('^');
        if negated {
            self.at += 1;
        }
        let mut body = String::new();
        loop {
            let c = self.peek().ok_or("unclosed class")?;
            self.at += 1;
            match c {
                ']' => break,
                '\\' => {
                    let e = self.peek().ok_or("unclosed class")?;
                    self.at += 1;
                    match e {
                        'd' => body.push_str("0-9"),
                        's' => body.push_str(if negated { r" \t\n\r" } else { " " }),
                        e if e.is_ascii_punctuation() => {
                            body.push('\\');
                            body.push(e);
                        }
                        e => return Err(format!("escape \\{e} in a class is not supported")),
                    }
                }
                '"' => return Err("`\"` in a class is not supported".into()),
                c if c.is_ascii_graphic() || c == ' ' => body.push(c),
                c => return Err(format!("character {c:?} in a class is not supported")),
            }
        }
        Ok(if negated { format!("[^{body}{NOT_PLAIN}]") } else { format!("[{body}]") })
    }

    /// A quantifier after an atom, as GBNF and its most repetitions.
    fn quantifier(&mut self) -> Result<(String, usize), String> {
        let q = match self.peek() {
            Some(q @ ('?' | '*' | '+' | '{')) => q,
            _ => return Ok((String::new(), 1)),
        };
        self.at += 1;
        let l = self.max_len;
        Ok(match q {
            '?' => ("?".into(), 1),
            '*' => (format!("{{0,{l}}}"), l),
            '+' => (format!("{{1,{l}}}"), l),
            _ => {
                let end = self.chars[self.at..].iter().position(|&c| c == '}').ok_or("unclosed {")?;
                let text: String = self.chars[self.at..self.at + end].iter().collect();
                self.at += end + 1;
                let (min, max) = match text.split_once(',') {
                    Some((a, b)) => (a.trim().parse::<usize>(), b.trim().parse::<usize>()),
                    None => (text.trim().parse::<usize>(), text.trim().parse::<usize>()),
                };
                let (min, max) =
                    (min.map_err(|_| format!("bad {{{text}}}"))?, max.map_err(|_| format!("bad {{{text}}}"))?);
                (format!("{{{min},{max}}}"), max)
            }
        })
    }
}

fn literal(c: char) -> Result<String, String> {
    match c {
        '"' | '\\' => Err(format!("literal {c:?} is not supported")),
        c if c.is_ascii_graphic() || c == ' ' => Ok(format!("\"{c}\"")),
        c => Err(format!("character {c:?} is not supported")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn location_pattern_becomes_a_bounded_grammar() {
        let (g, max) = to_gbnf(r"^[^:\s]+:[1-9][0-9]*(-[1-9][0-9]*)?$", 200).unwrap();
        assert_eq!(
            g,
            r#"[^: \t\n\r"\\\x00-\x1F\x7F-\U0010FFFF]{1,200} ":" [1-9] [0-9]{0,200} ("-" [1-9] [0-9]{0,200})?"#
        );
        assert_eq!(max, 200 + 1 + 1 + 200 + (1 + 1 + 200));
    }

    #[test]
    fn unanchored_or_unknown_syntax_is_refused() {
        assert!(to_gbnf("[a-z]+", 10).is_err());
        assert!(to_gbnf(r"^\w+$", 10).is_err());
        assert!(to_gbnf(r"^(a$", 10).is_err());
    }
}
