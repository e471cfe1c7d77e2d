//! gauntlet's own rules, for gaps the vendored gitleaks rules leave; each has a
//! test below naming the form it exists for.
//!
//! - `credential-assignment`: a quoted value assigned to a credential-named key,
//!   whatever the key's prefix or case (`"SecretAccessKey": "…"`,
//!   `secretAccessKey: '…'`, `"SessionToken": "…"`, `db_password = "…"`).
//!   gitleaks' generic rule drops values holding a common word or no digit, and
//!   values under ten characters; a password is often both.
//!   An escaped quote counts as a quote (`"{\"SecretAccessKey\": \"…\"}"`, JSON
//!   inside a string).
//! - `url-password`: the password of a URL's user information
//!   (`postgres://admin:pw@db`), which no gitleaks rule covers in general.
//! - `bearer-token`: the token after `Bearer` wherever it stands (a header dict,
//!   `{'Authorization': 'Bearer …'}`); gitleaks finds it in `curl` lines only.
//! - `cli-password`: a password given on a command line, `--password=…`,
//!   `--password …`, and MySQL's and sshpass' `-p…` written against the flag.
//!
//! Private-key blocks span lines; [`super::Masker`] follows them line by line.

use super::rule::{Allow, Rule, Target, compile};

/// Shannon entropy (bits per character) above which a quoted value assigned to a
/// credential name looks like a real secret rather than `changeme`.
pub const ASSIGNMENT_ENTROPY: f64 = 2.9;

fn assignment() -> Rule {
    let pattern = r#"(?i)[\w.-]*?(?:passw(?:or)?d|pwd|secret|api_?key|access_?key|private_?key|token|credentials?|client_?secret)[\w.-]{0,30}\\?["']?\s*(?:=|:=|:|=>)\s*\\?["'`]([^"'`\s]{7,}[^"'`\s\\])\\?["'`]"#;
    Rule {
        entropy: Some(ASSIGNMENT_ENTROPY),
        group: Some(1),
        allow: vec![placeholders(), words()],
        keywords: ["pass", "pwd", "secret", "key", "token", "credential"].map(String::from).to_vec(),
        ..Rule::compiled("credential-assignment", compile(pattern).expect("compiles"))
    }
}

/// Words for "password" in other languages, lower-case (the rule is
/// case-insensitive); the English names are [`assignment`]'s.
const PASSWORD_WORDS: [&str; 19] = [
    "passwort",
    "kennwort",
    "contraseña",
    "contrasena",
    "mot_de_passe",
    "motdepasse",
    "senha",
    "wachtwoord",
    "lösenord",
    "losenord",
    "hasło",
    "haslo",
    "şifre",
    "пароль",
    "密码",
    "密碼",
    "パスワード",
    "비밀번호",
    "salasana",
];

/// A quoted value assigned to a key named for a password in another language
/// (`contraseña = "…"`, `пароль: "…"`, `Passwort_für_db = '…'`); the key may hold
/// any letters, not only ASCII ones.
fn assignment_other_languages() -> Rule {
    let names = PASSWORD_WORDS.join("|");
    let pattern = format!(
        r#"(?i)(?:{names})[^\s"'`=:]{{0,30}}\\?["']?\s*(?:=|:=|:|=>)\s*\\?["'`]([^"'`\s]{{7,}}[^"'`\s\\])\\?["'`]"#
    );
    Rule {
        entropy: Some(ASSIGNMENT_ENTROPY),
        group: Some(1),
        allow: vec![placeholders(), words()],
        keywords: PASSWORD_WORDS.iter().flat_map(|w| [w.to_string(), capitalised(w)]).collect(),
        ..Rule::compiled("credential-assignment", compile(&pattern).expect("compiles"))
    }
}

/// `w` with its first letter upper-case: the keyword screen folds ASCII case only.
fn capitalised(w: &str) -> String {
    let mut chars = w.chars();
    chars.next().map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}

fn bearer_token() -> Rule {
    let pattern = r"(?i)\bbearer\s+([A-Za-z0-9._~+/-]{16,}=*)";
    Rule {
        entropy: Some(ASSIGNMENT_ENTROPY),
        group: Some(1),
        allow: vec![placeholders(), words()],
        keywords: vec!["bearer".into()],
        ..Rule::compiled("bearer-token", compile(pattern).expect("compiles"))
    }
}

fn cli_password() -> Rule {
    // A value that starts with `$`, `<`, `{`, `%` or `-` is a variable, a
    // placeholder or the next flag. `-p` is a password only for the commands
    // named (elsewhere it is a package, a port, a parent directory).
    let value = r#"([^\s"'$<{%-][^\s"']{3,})"#;
    let pattern = format!(
        r#"(?i)(?:(?:^|[\s"'])--(?:password|passwd)(?:=|\s+)["']?{value}|\b(?:mysql\w*|mariadb\w*|sshpass)\b[^\n]*?\s-p{value})"#
    );
    Rule {
        allow: vec![placeholders(), words()],
        keywords: ["--passw", "mysql", "mariadb", "sshpass"].map(String::from).to_vec(),
        ..Rule::compiled("cli-password", compile(&pattern).expect("compiles"))
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

/// As gitleaks' generic rule does, words and names (`same-origin`,
/// `ghs_faketoken`) and URNs or URLs are no secret.
fn words() -> Allow {
    let pattern = r"(?i)^(?:[a-z_.-]+|(?:urn|https?|file|mailto):.*)$";
    Allow {
        target: Target::Secret,
        all: false,
        regexes: vec![compile(pattern).expect("compiles")],
        stopwords: Vec::new(),
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
    vec![assignment(), assignment_other_languages(), url_password(), bearer_token(), cli_password()]
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

    #[test]
    fn a_credential_in_json_escaped_inside_a_string_is_masked() {
        let secret = aws_secret();
        let line = format!("body = \"{{\\\"SecretAccessKey\\\": \\\"{secret}\\\"}}\"");
        let (out, kinds) = masked(&line);
        assert_eq!(out, "body = \"{\\\"SecretAccessKey\\\": \\\"[masked credential-assignment]\\\"}\"");
        assert_eq!(kinds, vec!["credential-assignment"]);
    }

    #[test]
    fn a_bearer_token_in_a_header_dict_is_masked() {
        let token = ["a8F3kLm9", "Qz2Xv7Rt", "5Wp1Ny6B", "c4Hd0Js8"].concat();
        let (out, kinds) = masked(&format!("headers = {{'Authorization': 'Bearer {token}'}}"));
        assert_eq!(out, "headers = {'Authorization': 'Bearer [masked bearer-token]'}");
        assert_eq!(kinds, vec!["bearer-token"]);
        for line in [
            "Authorization: Bearer YOUR_ACCESS_TOKEN_HERE",
            "headers['Authorization'] = f'Bearer {token}'",
            "format!(\"Bearer {}\", token)",
            "the server checks the Bearer token's signature",
        ] {
            assert_eq!(masked(line).1, Vec::<String>::new(), "{line}");
        }
    }

    #[test]
    fn a_password_on_a_command_line_is_masked() {
        let pw = ["Xk9mQ2", "vLp7wR", "zT4b"].concat();
        for line in [
            format!("mysql -uroot -p{pw} db"),
            format!("mysqldump -h db -u admin -p{pw} app > dump.sql"),
            format!("sshpass -p{pw} ssh host"),
            format!("psql-wrapper --password {pw} --host db"),
            format!("run --password='{pw}'"),
            "mariadb -uroot -phunter22".to_string(),
        ] {
            let (out, kinds) = masked(&line);
            assert!(!kinds.is_empty(), "{line}");
            assert!(!out.contains(&pw) && !out.contains("hunter22"), "{out}");
        }
        for line in [
            "cargo test -p gauntlet-review --lib",
            "mkdir -p target/debug",
            "mysqldump -u root -p app > dump.sql",
            "mysql -uroot -p\"$DB_PASSWORD\" app",
            "tool --password \"$PASS\" --password=${DB_PASSWORD} --password <password>",
            "tool --password --host db",
            "tool --password PASSWORD",
        ] {
            assert_eq!(masked(line).1, Vec::<String>::new(), "{line}");
        }
    }
}
