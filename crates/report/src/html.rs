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

/// Escape `text` and show its code spans (`like this`, as host comments and
/// gauntlet's own lines quote commands, paths and names) as `<code>`, never as
/// literal backticks. A backtick without a partner stays as it is.
pub fn with_code(text: &str) -> String {
    let paired = text.matches('`').count() / 2 * 2;
    let mut out = String::with_capacity(text.len() + 16);
    let mut seen = 0;
    let mut inside = false;
    let mut part = String::new();
    for c in text.chars() {
        if c == '`' && seen < paired {
            seen += 1;
            match inside {
                false => out.push_str(&escape(&part)),
                true => out.push_str(&format!("<code>{}</code>", escape(&part))),
            }
            part.clear();
            inside = !inside;
        } else {
            part.push(c);
        }
    }
    out.push_str(&escape(&part));
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

/// A line chart of shares (0-100%) over named positions, drawn as inline SVG:
/// the backtest's precision and recall by threshold, `stats`' precision in the
/// wild and action rate by month. Every text in it is escaped here.
pub struct Chart<'a> {
    /// The `<svg>` element's id.
    pub id: &'a str,
    /// What a screen reader says of it.
    pub label: &'a str,
    pub width: f64,
    pub height: f64,
    /// Room under the plot for the positions' labels.
    pub below: f64,
    /// Room each legend entry takes.
    pub legend_width: f64,
    /// Each position: where on the x axis (0 to 1) and its label lines, top first.
    pub positions: Vec<(f64, Vec<String>)>,
    /// The name of the `data-` attribute that carries a point's position.
    pub key: &'a str,
    pub series: Vec<Series<'a>>,
}

/// One line of a [`Chart`].
pub struct Series<'a> {
    /// Its class (on the line and its points) and the legend's text.
    pub class: &'a str,
    pub legend: &'a str,
    pub colour: &'a str,
    /// Each point: its position's index in [`Chart::positions`], the value
    /// carried in the `data-` attribute, the share, and the point's tooltip.
    pub points: Vec<(usize, String, f64, String)>,
}

impl Chart<'_> {
    /// The `<svg>` element.
    pub fn render(&self) -> String {
        use std::fmt::Write as _;
        let (w, ht, left, top) = (self.width, self.height, 40.0, 26.0);
        let (pw, ph) = (w - left - 20.0, ht - top - self.below);
        let x = |i: usize| left + pw * self.positions.get(i).map_or(0.0, |p| p.0);
        let y = |v: f64| top + ph * (1.0 - v);
        let mut h = String::new();
        let _ = write!(
            h,
            "<svg id=\"{}\" width=\"{w}\" height=\"{ht}\" viewBox=\"0 0 {w} {ht}\" role=\"img\" aria-label=\"{}\">\
             <rect x=\"{left}\" y=\"{top}\" width=\"{pw}\" height=\"{ph}\" fill=\"none\" stroke=\"#d0d7de\"/>",
            escape(self.id),
            escape(self.label)
        );
        for (i, (_, lines)) in self.positions.iter().enumerate() {
            for (row, text) in lines.iter().enumerate() {
                let below = 14.0 * (lines.len() - row) as f64 - 2.0;
                let _ = write!(
                    h,
                    "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
                    x(i),
                    ht - below,
                    escape(text)
                );
            }
        }
        for (label, v) in [("100%", 1.0), ("50%", 0.5), ("0%", 0.0)] {
            let _ =
                write!(h, "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{label}</text>", left - 4.0, y(v) + 4.0);
        }
        for (i, s) in self.series.iter().enumerate() {
            // The legend sits above the plot, clear of a line at 100%.
            let (lx, ly) = (left + 8.0 + self.legend_width * i as f64, 14.0);
            let _ = write!(
                h,
                "<rect x=\"{lx:.1}\" y=\"{:.1}\" width=\"10\" height=\"10\" fill=\"{}\"/>\
                 <text class=\"legend\" x=\"{:.1}\" y=\"{ly:.1}\">{}</text>",
                ly - 9.0,
                escape(s.colour),
                lx + 14.0,
                escape(s.legend)
            );
        }
        for s in &self.series {
            let line: Vec<String> = s.points.iter().map(|(i, _, v, _)| format!("{:.1},{:.1}", x(*i), y(*v))).collect();
            let (class, colour) = (escape(s.class), escape(s.colour));
            let _ = write!(
                h,
                "<polyline class=\"{class}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\" points=\"{}\"/>",
                line.join(" ")
            );
            for (i, data, v, title) in &s.points {
                let _ = write!(
                    h,
                    "<circle class=\"{class}\" data-{}=\"{}\" data-value=\"{v:.4}\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" \
                     fill=\"{colour}\"><title>{}</title></circle>",
                    escape(self.key),
                    escape(data),
                    x(*i),
                    y(*v),
                    escape(title)
                );
            }
        }
        h.push_str("</svg>\n");
        h
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_spans_become_code_elements_and_their_text_stays_escaped() {
        assert_eq!(
            with_code("mallory commented `/gauntlet dismiss f1`, not counted"),
            "mallory commented <code>/gauntlet dismiss f1</code>, not counted"
        );
        assert_eq!(with_code("`<b>` and `x`"), "<code>&lt;b&gt;</code> and <code>x</code>");
        assert_eq!(with_code("one ` alone"), "one ` alone", "an unpaired backtick is text");
        assert_eq!(with_code("`a` then `"), "<code>a</code> then `");
    }

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

    #[test]
    fn a_chart_escapes_every_text_and_places_each_point() {
        let chart = Chart {
            id: "c",
            label: "a <b>",
            width: 420.0,
            height: 256.0,
            below: 30.0,
            legend_width: 90.0,
            positions: vec![(0.0, vec!["<x>".into()]), (1.0, vec!["y".into()])],
            key: "at",
            series: vec![Series {
                class: "p",
                legend: "p & q",
                colour: "#000",
                points: vec![(0, "<x>".into(), 1.0, "one <b>".into()), (1, "y".into(), 0.0, "none".into())],
            }],
        };
        let svg = chart.render();
        assert!(!svg.contains("<x>") && !svg.contains("<b>"), "{svg}");
        assert!(svg.contains("aria-label=\"a &lt;b&gt;\"") && svg.contains(">p &amp; q</text>"), "{svg}");
        // 1.0 sits on the plot's top edge, 0.0 on its bottom one; x spans the plot.
        assert!(svg.contains("data-at=\"&lt;x&gt;\" data-value=\"1.0000\" cx=\"40.0\" cy=\"26.0\""), "{svg}");
        assert!(svg.contains("data-at=\"y\" data-value=\"0.0000\" cx=\"400.0\" cy=\"226.0\""), "{svg}");
        assert!(svg.contains("points=\"40.0,26.0 400.0,226.0\""), "{svg}");
    }
}
