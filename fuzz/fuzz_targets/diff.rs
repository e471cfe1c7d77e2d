//! The diff parser reads `git diff` output and `--patch` files a user (or a pull
//! request) supplies. Beyond not panicking, every line it returns must be
//! numbered consistently with its hunk: inline comments are placed by those
//! numbers.

#![no_main]

use gauntlet_change::{LineKind, parse_patch};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(files) = parse_patch(text) else {
        return;
    };
    for file in &files {
        let _ = (file.path(), file.added(), file.removed());
        assert!(file.old_path.is_some() || file.new_path.is_some(), "a file diff names a path");
        for hunk in &file.hunks {
            let side = hunk.new_side();
            let (mut old_seen, mut new_seen) = (0u32, 0u32);
            for line in &hunk.lines {
                assert!(side.contains(&line.anchor), "anchor {} outside {side:?}", line.anchor);
                assert!(!line.text.ends_with('\n'), "line text keeps no terminator");
                match line.kind {
                    LineKind::Context => assert!(line.old.is_some() && line.new == Some(line.anchor)),
                    LineKind::Added => assert!(line.old.is_none() && line.new == Some(line.anchor)),
                    LineKind::Removed => assert!(line.old.is_some() && line.new.is_none()),
                }
                old_seen += u32::from(line.old.is_some());
                new_seen += u32::from(line.new.is_some());
            }
            assert_eq!(old_seen, hunk.old_lines, "old-side lines agree with the hunk header");
            assert_eq!(new_seen, hunk.new_lines, "new-side lines agree with the hunk header");
            for line in hunk.lines.iter().filter(|l| l.kind != LineKind::Removed) {
                assert!(file.in_hunk(line.anchor));
            }
        }
    }
});
