//! gauntlet's own rules, for gaps the vendored gitleaks rules leave; each has a
//! test below naming the form it exists for.
//!
//! - `credential-assignment`: a quoted value assigned to a credential-named key,
//!   whatever the key's prefix or case (`"SecretAccessKey": "…"`,
//!   `secretAccessKey: '…'`, `"SessionToken": "…"`, `db_password = "…"`).
//!   gitleaks' generic rule drops values holding a common word or no digit, and
//!   values under ten characters; a password is often both.
//! - `url-password`: the password of a URL's user information
//!   (`postgres://admin:pw@db`), which no gitleaks rule covers in general.
//!
//! Private-key blocks span lines; [`super::Masker`] follows them line by line.

use super::rules::{Allow, Rule, Target, compile};

/// Shannon entropy (bits per character) above which a quoted value assigned to a
/// credential name looks like a real secret rather than `changeme`.
pub const ASSIGNMENT_ENTROPY: f64 = 2.9;

fn assignment() -> Rule {
    let pattern = r#"(?i)[\w.-]*?(?:passw(?:or)?d|pwd|secret|api_?key|access_?key|private_?key|token|credentials?|client_?secret)[\w.-]{0,30}["']?\s*(?:=|:=|:|=>)\s*["'`]([^"'`\s]{8,})["'`]"#;
    // As gitleaks' generic rule does, words and names (`same-origin`,
    // `ghs_faketoken`) and URNs or URLs are no secret.
    let words = r"(?i)^(?:[a-z_.-]+|(?:urn|https?|file|mailto):.*)$";
    let words = Allow {
        target: Target::Secret,
        all: false,
        regexes: vec![compile(words).expect("compiles")],
        stopwords: Vec::new(),
    };
    Rule {
        entropy: Some(ASSIGNMENT_ENTROPY),
        group: Some(1),
        allow: vec![placeholders(), words],
        keywords: ["pass", "pwd", "secret", "key", "token", "credential"].map(String::from).to_vec(),
        ..Rule::compiled("credential-assignment", compile(pattern).expect("compiles"))
    }
}

fn url_password() -> Rule {
    let pattern = r#"(?i)\b[a-z][a-z0-9+.-]{1,20}://[^\s:/?#@'"`<>]*:([^\s/?#@'"`<>]+)@"#;
    Rule {
        group: Some(1),
        allow: vec![placeholders()],
        keywords: vec!["://".into()],
        ..Rule::compiled("url-password", compile(pattern).expect("compiles"))
    }
}

/// Values that stand for a secret rather than being one: variables, templates,
/// angle-bracket placeholders, runs of one character.
fn placeholders() -> Allow {
    let pattern = r"(?i)^(?:\$\{?[\w.-]+\}?|\$\(.*\)|\{\{.*\}\}|\{[\w.:]*\}|<[^>]*>|%[\w]+%|\*+|x+|\.+|password|passwd|pass|secret|changeme)$";
    Allow {
        target: Target::Secret,
        all: false,
        regexes: vec![compile(pattern).expect("compiles")],
        stopwords: Vec::new(),
    }
}

pub(crate) fn rules() -> Vec<Rule> {
    vec![assignment(), url_password()]
}

#[cfg(test)]
mod tests {
    use super::super::Masker;

    fn masked(line: &str) -> (String, Vec<String>) {
        let (out, hits) = Masker::new(&[]).unwrap().line(line);
        (out, hits.into_iter().map(|h| h.kind).collect())
    }

    // A 40-character value shaped like an AWS secret access key, built at run time.
    fn aws_secret() -> String {
        ["wJalrXUt", "nFEMI/K7", "MDENG/bP", "xRfiCYzQ", "8vLq2Ns9"].concat()
    }

    #[test]
    fn credential_names_of_any_prefix_and_case_mask_their_quoted_value() {
        let secret = aws_secret();
        for line in [
            format!("\"SecretAccessKey\": \"{secret}\","),
            format!("  secretAccessKey: '{secret}',"),
            format!("\"SessionToken\": \"{secret}\""),
            "db_password = \"q8#Zr2!vLp0wXk\"".to_string(),
        ] {
            let (out, kinds) = masked(&line);
            assert!(!kinds.is_empty(), "{line}");
            assert!(!out.contains(&secret) && !out.contains("q8#Zr2"), "{out}");
        }
    }

    #[test]
    fn placeholder_and_low_entropy_values_are_left_alone() {
        for line in [
            r#"password = "changeme""#,
            r#"password = "aaaaaaaaaaaa""#,
            r#"api_key: "${API_KEY}""#,
            r#"secret = "<your secret>""#,
            r#"fetch(url, { credentials: "same-origin" })"#,
            r#"token: "ghs_faketoken".into(),"#,
            r#""tokenUrl": "urn:ietf:params:oauth:grant-type:jwt-bearer""#,
            "postgres://admin:${DB_PASSWORD}@db:5432/app",
            r#"format!("postgres://admin:{pw}@db:5432/app")"#,
        ] {
            assert_eq!(masked(line).1, Vec::<String>::new(), "{line}");
        }
    }

    #[test]
    fn a_password_in_a_connection_url_is_masked_however_short() {
        let (out, kinds) = masked("DATABASE_URL=postgres://admin:pw@db:5432/app");
        assert_eq!(out, "DATABASE_URL=postgres://admin:[masked url-password]@db:5432/app");
        assert_eq!(kinds, vec!["url-password"]);
        let (out, _) = masked("redis://:s3cr3tPass@cache:6379");
        assert!(!out.contains("s3cr3tPass"), "{out}");
        assert!(masked("see https://example.com/a:b@c").1.is_empty(), "a colon in the path is no password");
    }
}
