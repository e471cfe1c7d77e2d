//! One way to write each kind of number, for every page and table gauntlet
//! prints for people (the review's usage table, the backtest's Markdown and
//! HTML, `gauntlet stats`): a reader comparing two pages compares the same
//! digits. A figure that does not exist (nothing to divide, a price nobody
//! knows) is said so, never written as zero.

/// What stands for a share or ratio with nothing to divide.
pub const NONE: &str = "–";

/// What stands for a cost whose price is not known.
pub const UNKNOWN_COST: &str = "unknown";

/// A share (0.5) as a whole percentage: `50%`.
pub fn percent(share: Option<f64>) -> String {
    match share {
        Some(v) if v.is_finite() => format!("{:.0}%", v * 100.0),
        _ => NONE.to_string(),
    }
}

/// A difference of two shares in percentage points: `+12 pts`, `-5 pts`.
pub fn points(change: Option<f64>) -> String {
    match change {
        Some(v) if v.is_finite() => format!("{:+.0} pts", v * 100.0),
        _ => NONE.to_string(),
    }
}

/// A plain ratio that is not a share (comments per caught defect, false
/// positives per case): two decimals, `1.25`.
pub fn ratio(v: Option<f64>) -> String {
    match v {
        Some(v) if v.is_finite() => format!("{v:.2}"),
        _ => NONE.to_string(),
    }
}

/// A cost in US dollars as billed, to four decimals (`$0.0120`); a price nobody
/// knows is `unknown`, never `$0`.
pub fn cost(usd: Option<f64>) -> String {
    match usd {
        Some(c) if c.is_finite() => format!("${c:.4}"),
        _ => UNKNOWN_COST.to_string(),
    }
}

/// A token (or any large) count with thousands separators: `12,345`.
pub fn tokens(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    // Digits left before the next separator; the first group may be short.
    let mut left = (digits.len() + 2) % 3 + 1;
    for c in digits.chars() {
        if left == 0 {
            out.push(',');
            left = 3;
        }
        out.push(c);
        left -= 1;
    }
    out
}

/// Milliseconds as seconds to one decimal: `4.1 s`.
pub fn seconds(ms: u64) -> String {
    format!("{:.1} s", ms as f64 / 1000.0)
}

/// How many fewer false positives one side published than the other, from the
/// share of the other's it did not publish: `91% fewer`, `20% more`.
pub fn fewer(reduction: Option<f64>) -> String {
    match reduction {
        Some(r) if r.is_finite() && r >= 0.0 => format!("{:.0}% fewer", r * 100.0),
        Some(r) if r.is_finite() => format!("{:.0}% more", -r * 100.0),
        _ => NONE.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_are_whole_percentages_and_a_missing_share_is_a_dash() {
        assert_eq!(percent(Some(0.5)), "50%");
        assert_eq!(percent(Some(2.0 / 3.0)), "67%");
        assert_eq!(percent(Some(1.0)), "100%");
        assert_eq!(percent(None), "–");
        assert_eq!(percent(Some(f64::NAN)), "–");
    }

    #[test]
    fn changes_carry_their_sign_in_points() {
        assert_eq!(points(Some(0.12)), "+12 pts");
        assert_eq!(points(Some(-0.05)), "-5 pts");
        assert_eq!(points(None), "–");
    }

    #[test]
    fn costs_have_four_decimals_and_an_unknown_price_is_never_zero() {
        assert_eq!(cost(Some(0.012)), "$0.0120");
        assert_eq!(cost(Some(1.5)), "$1.5000");
        assert_eq!(cost(None), "unknown");
        assert_eq!(cost(Some(f64::INFINITY)), "unknown");
    }

    #[test]
    fn token_counts_group_thousands() {
        assert_eq!(tokens(0), "0");
        assert_eq!(tokens(999), "999");
        assert_eq!(tokens(1000), "1,000");
        assert_eq!(tokens(12_345), "12,345");
        assert_eq!(tokens(1_234_567), "1,234,567");
    }

    #[test]
    fn fewer_false_positives_says_which_way() {
        assert_eq!(fewer(Some(0.91)), "91% fewer");
        assert_eq!(fewer(Some(0.0)), "0% fewer");
        assert_eq!(fewer(Some(-0.2)), "20% more");
        assert_eq!(fewer(None), "–");
    }

    #[test]
    fn ratios_and_seconds() {
        assert_eq!(ratio(Some(1.25)), "1.25");
        assert_eq!(ratio(None), "–");
        assert_eq!(seconds(4_130), "4.1 s");
    }
}
