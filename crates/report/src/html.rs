//! What every self-contained HTML page gauntlet writes shares (the backtest
//! report, `gauntlet stats --format html`): escaping for untrusted text, and a
//! Content-Security-Policy under which nothing loads and nothing runs; only the
//! page's own stylesheet applies (allowed by its sha256) and images may be inline
//! `data:` ones.

use sha2::{Digest, Sha256};

/// Escape text for HTML element content and quoted attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            match i <= chunk.len() {
                true => out.push(ABC[(n >> (18 - 6 * i) & 63) as usize] as char),
                false => out.push('='),
            }
        }
    }
    out
}

/// The policy for a page whose only stylesheet is `style`: no script, no remote
/// load, no form, no frame; `style` alone applies.
pub fn content_security_policy(style: &str) -> String {
    let hash = base64(&Sha256::digest(style.as_bytes()));
    format!(
        "default-src 'none'; style-src 'sha256-{hash}'; img-src data:; base-uri 'none'; form-action 'none'; \
         frame-ancestors 'none'"
    )
}

/// Everything up to and including `<body>`: the policy, the (escaped) title and
/// `style` as the page's one stylesheet. `style` is ours, never data.
pub fn head(title: &str, style: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{}\">\
         <meta name=\"viewport\" content=\"width=device-width\"><title>{}</title><style>{style}</style></head><body>\n",
        escape(&content_security_policy(style)),
        escape(title)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_markup_character_is_escaped() {
        assert_eq!(
            escape("<img src=x onerror=\"a('b')\">&"),
            "&lt;img src=x onerror=&quot;a(&#39;b&#39;)&quot;&gt;&amp;"
        );
    }

    #[test]
    fn base64_matches_the_standard_alphabet_and_padding() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    }

    #[test]
    fn the_policy_forbids_scripts_and_remote_loads() {
        let csp = content_security_policy("p{}");
        assert!(csp.starts_with("default-src 'none'; style-src 'sha256-"), "{csp}");
        assert!(!csp.contains("unsafe") && !csp.contains("script-src"), "{csp}");
    }

    #[test]
    fn the_head_carries_the_hash_of_its_own_stylesheet_and_an_escaped_title() {
        let head = head("a <b> & c", "p{color:red}");
        let hash = base64(&Sha256::digest(b"p{color:red}"));
        assert!(head.contains(&format!("style-src &#39;sha256-{hash}&#39;")), "{head}");
        assert!(head.contains("<title>a &lt;b&gt; &amp; c</title>"), "{head}");
        assert!(head.ends_with("<body>\n"));
    }
}
