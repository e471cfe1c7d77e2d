//! Forms a hostile tester wrote to slip secrets past `Masker::text`: keys built
//! by string concatenation or held in arrays, key bodies with no armour in view,
//! escaped JSON, bearer tokens in header dicts, passwords on command lines.
//! Every value is built at run time from pieces, so nothing secret-shaped is
//! committed.

use gauntlet_review::secrets::Masker;

struct Values {
    aws: String,
    body: String,
    body2: String,
    pw: String,
    bearer: String,
    github: String,
}

fn values() -> Values {
    Values {
        aws: ["wJalrXUt", "nFEMI/K7", "MDENG/bP", "xRfiCYzQ", "8vLq2Ns9"].concat(),
        body: ["MIIEowIBAAKCAQEAu1SU1Lf", "VLPHCozMxH2Mo4lgOEePzNm0t", "RgeLezV6ffAt0gunVTLw"].concat(),
        body2: ["7onLRnrq0/IzW7yWR7QkrmBL", "7jTKEn5u+qKhbwKfBstIs+bMY2", "Zkp18gnTxKLxoS2tFc"].concat(),
        pw: ["Xk9mQ2", "vLp7wR", "zT4b"].concat(),
        bearer: ["a8F3kLm9", "Qz2Xv7Rt", "5Wp1Ny6B", "c4Hd0Js8"].concat(),
        github: ["ghp_", "R7xK2mQ9", "vLp4Nt8W", "zB3cY6dF", "hJ1sG5aE", "0uIo"].concat(),
    }
}

/// Each form: its name, its text, and the values that must not survive masking.
fn forms() -> Vec<(&'static str, String, Vec<String>)> {
    let Values { aws, body, body2, pw, bearer, github } = values();
    let basic = base64(&format!("deploy:{github}"));
    let (head, tail) = github.split_at(16);
    let (begin, end) = ("-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----");
    let keys = vec![body.clone(), body2.clone()];
    vec![
        (
            "PEM key concatenated in JavaScript",
            format!("const key = \"{begin}\\n\" +\n  \"{body}\\n\" +\n  \"{body2}\\n\" +\n  \"{end}\";\n"),
            keys.clone(),
        ),
        (
            "PEM key as a JSON array of lines",
            format!("[\"{begin}\",\n \"{body}\",\n \"{body2}\",\n \"{end}\"]\n"),
            keys.clone(),
        ),
        ("PEM armour in closed triple quotes", format!("KEY = '''{begin}'''\n{body}\n{body2}\n"), keys.clone()),
        ("PEM body with no armour in view", format!("{body}\n{body2}\n{end}\n"), keys.clone()),
        ("PEM with CRLF line ends", format!("{begin}\r\n{body}\r\n{body2}\r\n{end}\r\n"), keys.clone()),
        ("PEM in a YAML block scalar", format!("key: |\n  {begin}\n  {body}\n  {body2}\n  {end}\n"), keys.clone()),
        ("PEM in a numbered listing", format!("12 | {begin}\n13 | {body}\n14 | {end}\n"), vec![body.clone()]),
        ("escaped JSON in a string", format!("\"{{\\\"SecretAccessKey\\\": \\\"{aws}\\\"}}\"\n"), vec![aws.clone()]),
        ("JSON", format!("{{\"SecretAccessKey\": \"{aws}\"}}\n"), vec![aws.clone()]),
        ("env, unquoted", format!("AWS_SECRET_ACCESS_KEY={aws}\n"), vec![aws.clone()]),
        ("bearer token in a header dict", format!("headers = {{'Authorization': 'Bearer {bearer}'}}\n"), vec![bearer]),
        ("mysql -p", format!("mysql -uroot -p{pw} db\n"), vec![pw.clone()]),
        ("--password=", format!("mysql -u root --password={pw} db\n"), vec![pw.clone()]),
        ("--password and a space", format!("tool --password {pw} --host db\n"), vec![pw.clone()]),
        ("ODBC connection string", format!("Server=db;User Id=sa;Password={pw};\n"), vec![pw.clone()]),
        ("token inside Basic auth", format!("req.headers['Authorization'] = 'Basic {basic}'\n"), vec![basic.clone()]),
        ("Basic auth in curl", format!("curl -H \"Authorization: Basic {basic}\" https://x\n"), vec![basic]),
        (
            "token split by concatenation",
            format!("TOKEN = \"{head}\" + \"{tail}\"\n"),
            vec![head.to_string(), tail.to_string()],
        ),
        (
            "token split across lines",
            format!("const token =\n  '{head}' +\n  '{tail}';\n"),
            vec![head.to_string(), tail.to_string()],
        ),
        ("non-ASCII key name", format!("contraseña = \"{pw}\"\n"), vec![pw.clone()]),
        ("Cyrillic key name", format!("пароль: \"{pw}\"\n"), vec![pw.clone()]),
        ("German key name", format!("Passwort_für_db = '{pw}'\n"), vec![pw]),
    ]
}

#[test]
fn no_evasive_form_survives_masking() {
    let masker = Masker::new(&[]).unwrap();
    let mut leaks = Vec::new();
    for (name, text, secrets) in forms() {
        let (out, hits) = masker.text(&text);
        if hits.is_empty() || secrets.iter().any(|s| out.contains(s.as_str())) {
            leaks.push(format!("{name}: {out}"));
        }
        assert_eq!(out.lines().count(), text.lines().count(), "{name}: lines are kept");
    }
    assert!(leaks.is_empty(), "left unmasked:\n{}", leaks.join("\n"));
}

/// Standard base64 with padding (the tests build their encoded values at run time).
fn base64(text: &str) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let bytes = text.as_bytes();
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            match i <= chunk.len() {
                true => out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char),
                false => out.push('='),
            }
        }
    }
    out
}
