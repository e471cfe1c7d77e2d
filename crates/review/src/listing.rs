//! Code as prompts show it: each line behind its number.

/// Text lines numbered for reference: `   12 | code`.
pub fn numbered(start: u32, lines: impl IntoIterator<Item = impl AsRef<str>>) -> String {
    let mut out = String::new();
    for (i, line) in lines.into_iter().enumerate() {
        // `{:>5} | ` by hand: this runs for every line of every shown file.
        let mut digits = [b' '; 20];
        let mut n = start as usize + i;
        let mut at = digits.len();
        loop {
            at -= 1;
            digits[at] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        let from = at.min(digits.len() - 5);
        out.push_str(std::str::from_utf8(&digits[from..]).expect("ASCII digits"));
        out.push_str(" | ");
        out.push_str(line.as_ref());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod numbering_tests {
    use super::numbered;

    #[test]
    fn numbers_are_right_aligned_in_five_columns_and_grow_past_them() {
        for start in [1u32, 9, 10, 99_998, 99_999, 100_000, 123_456_789, u32::MAX - 1] {
            let got = numbered(start, ["a", "", "  b"]);
            let want: String = ["a", "", "  b"]
                .iter()
                .enumerate()
                .map(|(i, l)| format!("{:>5} | {l}\n", start as usize + i))
                .collect();
            assert_eq!(got, want, "start {start}");
        }
        assert_eq!(numbered(7, Vec::<&str>::new()), "");
    }
}
