//! Real-world forms of secrets, for the masking tests: cloud keys and session
//! tokens in JSON, YAML, env, INI and SDK calls; chat, payment, mail and SMS
//! services; connection strings and URLs with passwords; JWTs; private-key blocks;
//! package-registry and container-registry credentials; code-host and model
//! provider tokens; and the evasive forms a hostile tester found (keys built by
//! string concatenation, escaped JSON, bearer tokens in header dicts, passwords
//! on command lines).
//!
//! Every value is drawn at run time from a seeded generator, so no secret-shaped
//! literal sits in the repository (secret scanners stay quiet) and each set of
//! forms holds values of its own.

/// One form: the text as it would sit in a file, and the secret values in it.
pub struct Form {
    pub name: &'static str,
    pub text: String,
    pub secrets: Vec<String>,
}

const UPPER32: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const B64: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const URLSAFE: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";
const HEX: &str = "0123456789abcdef";
const DIGITS: &str = "0123456789";

/// A small xorshift generator: the same seed gives the same values.
pub struct Draw(u64);

impl Draw {
    pub fn new(seed: u64) -> Draw {
        Draw(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// `n` characters of `alphabet`; the first and the last are letters or
    /// digits, as in real keys (a rule's word boundary needs them).
    fn of(&mut self, alphabet: &str, n: usize) -> String {
        let chars: Vec<char> = alphabet.chars().collect();
        let plain: Vec<char> = chars.iter().copied().filter(char::is_ascii_alphanumeric).collect();
        (0..n)
            .map(|i| {
                let pool = if i == 0 || i + 1 == n { &plain } else { &chars };
                pool[(self.next() % pool.len() as u64) as usize]
            })
            .collect()
    }

    /// Letters and digits with at least one digit.
    fn key(&mut self, n: usize) -> String {
        let mut s = self.of(ALNUM, n - 1);
        s.insert(n / 2, char::from(b'0' + (self.next() % 10) as u8));
        s
    }
}

fn form(name: &'static str, text: String, secrets: Vec<String>) -> Form {
    Form { name, text, secrets }
}

/// A private-key block: its armour and three lines of body.
fn block(d: &mut Draw, kind: &str, indent: &str) -> (String, Vec<String>) {
    let body: Vec<String> = (0..3).map(|_| d.of(B64, 64)).collect();
    let mut text = format!("{indent}-----BEGIN {kind}-----\n");
    for line in &body {
        text.push_str(&format!("{indent}{line}\n"));
    }
    text.push_str(&format!("{indent}-----END {kind}-----"));
    (text, body)
}

fn cloud(d: &mut Draw) -> Vec<Form> {
    let mut out = Vec::new();
    let (id, secret) = (format!("AKIA{}", d.of(UPPER32, 16)), d.of(B64, 40));
    out.push(form("AWS key id, env", format!("AWS_ACCESS_KEY_ID={id}"), vec![id]));
    out.push(form("AWS secret key, env", format!("AWS_SECRET_ACCESS_KEY={secret}"), vec![secret]));
    let (id, secret, session) = (format!("ASIA{}", d.of(UPPER32, 16)), d.of(B64, 40), d.of(B64, 356));
    let json =
        format!("{{\"AccessKeyId\": \"{id}\", \"SecretAccessKey\": \"{secret}\", \"SessionToken\": \"{session}\"}}");
    out.push(form("AWS STS credentials, JSON", json, vec![id, secret, session]));
    let (id, secret, session) = (format!("AKIA{}", d.of(UPPER32, 16)), d.of(B64, 40), d.of(B64, 300));
    let yaml = format!("aws:\n  access_key_id: {id}\n  secret_access_key: {secret}\n  session_token: {session}");
    out.push(form("AWS credentials, YAML", yaml, vec![id, secret, session]));
    let (id, secret, session) = (format!("AKIA{}", d.of(UPPER32, 16)), d.of(B64, 40), d.of(B64, 300));
    let js = format!(
        "const s3 = new S3Client({{ credentials: {{ accessKeyId: \"{id}\", secretAccessKey: '{secret}', \
         sessionToken: `{session}` }} }});"
    );
    out.push(form("AWS SDK for JavaScript call", js, vec![id, secret, session]));
    let (id, secret) = (format!("AKIA{}", d.of(UPPER32, 16)), d.of(B64, 40));
    let py = format!("s3 = boto3.client(\"s3\", aws_access_key_id=\"{id}\", aws_secret_access_key=\"{secret}\")");
    out.push(form("AWS boto3 call", py, vec![id, secret]));
    let (id, secret) = (format!("AKIA{}", d.of(UPPER32, 16)), d.of(B64, 40));
    let ini = format!("[default]\naws_access_key_id = {id}\naws_secret_access_key = {secret}");
    out.push(form("AWS credentials file", ini, vec![id, secret]));
    let account = d.of(B64, 86) + "==";
    let conn = format!(
        "AZURE_STORAGE_CONNECTION_STRING=\"DefaultEndpointsProtocol=https;AccountName=acct{};AccountKey={account};\
         EndpointSuffix=core.windows.net\"",
        d.of(DIGITS, 4)
    );
    out.push(form("Azure storage connection string", conn, vec![account]));
    let account = d.of(B64, 86) + "==";
    out.push(form("Azure storage key, JSON", format!("\"storageAccountKey\": \"{account}\","), vec![account]));
    let client = format!("{}{}Q~{}", d.of(ALNUM, 3), d.of(DIGITS, 1), d.of(ALNUM, 34));
    out.push(form("Azure AD client secret", format!("AZURE_CLIENT_SECRET={client}"), vec![client]));
    let google = format!("AIza{}", d.of(URLSAFE, 35));
    out.push(form("Google API key", format!("const mapsKey = \"{google}\";"), vec![google]));
    let (a, b) = (d.of(B64, 60), d.of(B64, 60));
    let sa =
        format!("  \"private_key\": \"-----BEGIN PRIVATE KEY-----\\nMIIE{a}\\n{b}\\n-----END PRIVATE KEY-----\\n\",");
    out.push(form("GCP service account key, JSON", sa, vec![a, b]));
    out
}

fn services(d: &mut Draw) -> Vec<Form> {
    let mut out = Vec::new();
    let stripe = format!("sk_live_{}", d.key(24));
    out.push(form("Stripe secret key", format!("stripe.api_key = \"{stripe}\""), vec![stripe]));
    let restricted = format!("rk_live_{}", d.key(24));
    out.push(form("Stripe restricted key", format!("STRIPE_KEY={restricted}"), vec![restricted]));
    let slack = format!("xoxb-{}-{}-{}", d.of(DIGITS, 12), d.of(DIGITS, 12), d.key(24));
    out.push(form("Slack bot token", format!("SLACK_BOT_TOKEN={slack}"), vec![slack]));
    let hook = format!("T{}/B{}/{}", d.of(UPPER32, 8), d.of(UPPER32, 8), d.key(24));
    out.push(form("Slack webhook", format!("url = \"https://hooks.slack.com/services/{hook}\""), vec![hook]));
    let twilio = format!("SK{}", d.of(HEX, 32));
    out.push(form("Twilio API key", format!("TWILIO_API_KEY={twilio}"), vec![twilio]));
    let token = d.of(HEX, 32);
    out.push(form("Twilio auth token", format!("TWILIO_AUTH_TOKEN=\"{token}\""), vec![token]));
    let sendgrid = format!("SG.{}.{}", d.of(URLSAFE, 22), d.of(URLSAFE, 43));
    out.push(form("SendGrid API key", format!("SENDGRID_API_KEY={sendgrid}"), vec![sendgrid]));
    let jwt = format!("eyJ{}.eyJ{}.{}", d.of(ALNUM, 33), d.of(ALNUM, 60), d.of(URLSAFE, 43));
    out.push(form("JWT bearer", format!("Authorization: Bearer {jwt}"), vec![jwt]));
    let npm = format!("npm_{}", d.key(36));
    out.push(form(".npmrc auth token", format!("//registry.npmjs.org/:_authToken={npm}"), vec![npm]));
    let legacy = d.of(B64, 44);
    out.push(form(".npmrc legacy auth", format!("_auth = {legacy}"), vec![legacy]));
    let docker = d.of(B64, 48);
    let config = format!("{{\"auths\": {{\"registry.example.com\": {{\"auth\": \"{docker}\"}}}}}}");
    out.push(form("docker config auths", config, vec![docker]));
    out
}

fn code_hosts_and_models(d: &mut Draw) -> Vec<Form> {
    let mut out = Vec::new();
    let ghp = format!("ghp_{}", d.key(36));
    out.push(form("GitHub classic token", format!("GITHUB_TOKEN={ghp}"), vec![ghp]));
    let fine = format!("github_pat_{}_{}", d.key(22), d.key(59));
    out.push(form("GitHub fine-grained token", format!("token = \"{fine}\""), vec![fine]));
    let glpat = format!("glpat-{}", d.key(20));
    out.push(form("GitLab token", format!("GITLAB_TOKEN: {glpat}"), vec![glpat]));
    let openai = format!("sk-proj-{}T3BlbkFJ{}", d.key(74), d.key(74));
    out.push(form("OpenAI project key", format!("OPENAI_API_KEY={openai}"), vec![openai]));
    let anthropic = format!("sk-ant-api03-{}AA", d.key(93));
    out.push(form("Anthropic key", format!("client = Anthropic(api_key=\"{anthropic}\")"), vec![anthropic]));
    out
}

fn passwords_and_keys(d: &mut Draw) -> Vec<Form> {
    let mut out = Vec::new();
    let pw = d.key(12);
    out.push(form("PostgreSQL DSN", format!("DATABASE_URL=postgres://admin:{pw}@db.internal:5432/app"), vec![pw]));
    let pw = format!("{}!{}", d.key(8), d.key(6));
    let mysql = format!("engine = create_engine(\"mysql+pymysql://app:{pw}@localhost/shop\")");
    out.push(form("MySQL URL in an SDK call", mysql, vec![pw]));
    let pw = d.key(16);
    out.push(form(
        "MongoDB SRV URI",
        format!("MONGO_URI=\"mongodb+srv://svc:{pw}@cluster0.mongodb.net/db\""),
        vec![pw],
    ));
    let pw = d.key(16);
    out.push(form("Redis URL without user", format!("REDIS_URL=redis://:{pw}@cache:6379/0"), vec![pw]));
    let pw = format!("{}#{}", d.key(7), d.key(7));
    out.push(form("password, YAML", format!("database:\n  password: \"{pw}\""), vec![pw]));
    let pw = d.key(18);
    out.push(form("password, env", format!("DB_PASSWORD={pw}"), vec![pw]));
    for (name, kind, indent) in [
        ("PEM RSA private key", "RSA PRIVATE KEY", ""),
        ("OpenSSH private key", "OPENSSH PRIVATE KEY", ""),
        ("PGP private key block", "PGP PRIVATE KEY BLOCK", ""),
        ("EC private key in a YAML block", "EC PRIVATE KEY", "  "),
    ] {
        let (text, body) = block(d, kind, indent);
        let text = if indent.is_empty() { text } else { format!("tls_key: |\n{text}") };
        out.push(form(name, text, body));
    }
    out
}

/// Forms written to slip past line-by-line masking: a key's armour with code
/// after it on its line, a key's body with no armour in view, JSON escaped inside
/// a string, a bearer token outside a `curl` line, passwords given as flags.
fn evasions(d: &mut Draw) -> Vec<Form> {
    let mut out = Vec::new();
    let pw = d.key(16);
    out.push(form("MySQL password flag", format!("mysql -uroot -p{pw} shop"), vec![pw]));
    let pw = d.key(16);
    out.push(form("password flag and a space", format!("pg_tool --password {pw} --host db"), vec![pw]));
    let bearer = d.key(32);
    let dict = format!("headers = {{'Authorization': 'Bearer {bearer}'}}");
    out.push(form("bearer token in a header dict", dict, vec![bearer]));
    let secret = d.of(B64, 40);
    let escaped = format!("payload = \"{{\\\"SecretAccessKey\\\": \\\"{secret}\\\"}}\"");
    out.push(form("AWS secret key, JSON escaped in a string", escaped, vec![secret]));
    let (begin, end) = ("-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----");
    let body: Vec<String> = (0..2).map(|_| d.of(B64, 64)).collect();
    let js = format!("const key = \"{begin}\\n\" +\n  \"{}\\n\" +\n  \"{}\\n\" +\n  \"{end}\";", body[0], body[1]);
    out.push(form("PEM key concatenated in JavaScript", js, body));
    let body: Vec<String> = (0..2).map(|_| d.of(B64, 64)).collect();
    let json = format!("\"key\": [\"{begin}\",\n  \"{}\",\n  \"{}\",\n  \"{end}\"]", body[0], body[1]);
    out.push(form("PEM key as a JSON array of lines", json, body));
    let body: Vec<String> = (0..2).map(|_| d.of(B64, 64)).collect();
    let quoted = format!("KEY = '''{begin}'''\n{}\n{}", body[0], body[1]);
    out.push(form("PEM armour in closed triple quotes", quoted, body));
    let body: Vec<String> = (0..2).map(|_| d.of(B64, 64)).collect();
    out.push(form("PEM body with no armour in view", format!("{}\n{}\n{end}", body[0], body[1]), body));
    out
}

/// Every form, with values drawn from `seed`.
pub fn forms(seed: u64) -> Vec<Form> {
    let mut d = Draw::new(seed);
    let mut out = cloud(&mut d);
    out.extend(services(&mut d));
    out.extend(code_hosts_and_models(&mut d));
    out.extend(passwords_and_keys(&mut d));
    out.extend(evasions(&mut d));
    out
}

/// The forms as one file, each after a line naming it (`# Stripe secret key`).
/// Returns the text and, per form, its naming line and its first and last line
/// (1-based).
pub fn file(forms: &[Form]) -> (String, Vec<(u32, u32, u32)>) {
    let mut text = String::new();
    let mut lines = Vec::new();
    let mut at = 0u32;
    for f in forms {
        text.push_str(&heading(f));
        text.push('\n');
        at += 1;
        let (heading, first) = (at, at + 1);
        text.push_str(&f.text);
        text.push('\n');
        at += f.text.lines().count() as u32;
        lines.push((heading, first, at));
    }
    (text, lines)
}

/// The line naming a form in [`file`].
pub fn heading(form: &Form) -> String {
    format!("# {}", form.name)
}

/// The pieces of a secret that must not appear anywhere: the whole value and,
/// for long values, a middle stretch (a partly masked value must not leak).
pub fn needles(forms: &[Form]) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    for f in forms {
        for s in &f.secrets {
            out.push((f.name, s.clone()));
            if s.len() >= 24 {
                let mid = s.len() / 2;
                out.push((f.name, s[mid - 6..mid + 6].to_string()));
            }
        }
    }
    out
}
