//! `--output FORMAT=PATH`: report files written next to the report on stdout, so
//! one run can feed several consumers (SARIF for code scanning beside the posted
//! review, Code Quality beside the GitLab comments).
//!
//! Every path is checked before any model call, so a typo costs nothing, and
//! every file is written through a temporary file in its own folder and a
//! rename: a reader (an upload step, a later job) never sees half a report.

use anyhow::{Result, bail};
use gauntlet_report::{Format, Options};
use gauntlet_review::Review;
use std::path::{Path, PathBuf};

/// One `--output`: a format and the file it goes to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Output {
    pub format: Format,
    pub path: PathBuf,
}

/// Parse `FORMAT=PATH` (clap's value parser, so a bad one is a usage error).
pub fn parse(text: &str) -> Result<Output, String> {
    let Some((format, path)) = text.split_once('=') else {
        return Err(format!("`{text}` is not FORMAT=PATH; for example `sarif=gauntlet.sarif`"));
    };
    let format: Format = format.trim().parse().map_err(|e: gauntlet_report::UnknownFormat| e.to_string())?;
    if path.is_empty() {
        return Err(format!("`{text}` names no file after `=`; for example `{format}=gauntlet.{format}`"));
    }
    Ok(Output { format, path: PathBuf::from(path) })
}

/// Refuse, before any model call, outputs that could not be written: two to one
/// file, a folder in place of a file, a folder that is missing or read-only.
pub fn check(outputs: &[Output], also: &[&Path]) -> Result<()> {
    let mut seen: Vec<&Path> = also.to_vec();
    for out in outputs {
        let path = out.path.as_path();
        if seen.contains(&path) {
            bail!(
                "--output {}={}: another report is already written to that file; give each its own path",
                out.format,
                path.display()
            );
        }
        seen.push(path);
        if path.is_dir() {
            bail!("--output {}={}: that is a folder; name a file inside it", out.format, path.display());
        }
        let dir = folder(path);
        if !dir.is_dir() {
            bail!(
                "--output {}={}: the folder {} does not exist; create it first or choose another path",
                out.format,
                path.display(),
                dir.display()
            );
        }
        // The same kind of file the real write makes, so whatever stops that stops this.
        if let Err(e) = tempfile::Builder::new().prefix(".gauntlet-").tempfile_in(dir) {
            bail!(
                "--output {}={}: cannot write in {} ({e}); choose a folder you can write to",
                out.format,
                path.display(),
                dir.display()
            );
        }
    }
    Ok(())
}

/// The folder a file is written in (`.` for a bare file name).
fn folder(path: &Path) -> &Path {
    path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."))
}

/// Write every output but those `skip` leaves to its caller. Files are never
/// coloured: escapes are for a terminal. A run that reviewed nothing (a skip, or
/// no file a model could be shown) writes none of them (see [`not_written`]).
pub fn write(outputs: &[Output], review: &Review, verbose: bool, skip: impl Fn(Format) -> bool) -> Result<()> {
    let outputs: Vec<&Output> = outputs.iter().filter(|o| !skip(o.format)).collect();
    if let Some(skipped) = &review.skipped {
        return not_written(outputs, &format!("the run was skipped ({})", skipped.reason));
    }
    if review.nothing_reviewable() {
        return not_written(outputs, "no changed file could be shown to a model");
    }
    let opts = Options { verbose, color: false };
    for out in outputs {
        let text = gauntlet_report::render(review, out.format, &opts);
        crate::files::write_atomically(&out.path, &text)?;
    }
    Ok(())
}

/// The outputs of a run that reviewed nothing: none is written, and a file an
/// earlier run left at the path is removed, each said on stderr with `why`. A
/// report of such a run holds no finding, so it would read as a clean review
/// (and an empty SARIF upload closes the code-scanning alerts that still stand);
/// a missing file cannot be mistaken for one. (`gauntlet ci` writes its Code
/// Quality report, which shows what stands, on its own: see `CiArgs::one_codequality` in args.rs.)
pub fn not_written<'o>(outputs: impl IntoIterator<Item = &'o Output>, why: &str) -> Result<()> {
    for out in outputs {
        match std::fs::remove_file(&out.path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => bail!(
                "--output {}={}: cannot remove the report an earlier run left there ({e}); remove it, or choose another path",
                out.format,
                out.path.display()
            ),
        }
        eprintln!(
            "gauntlet: --output {}={} was not written: {why}, and a report of a run that reviewed nothing would read as a clean review",
            out.format,
            out.path.display()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_and_path_split_at_the_first_equals_sign() {
        let out = parse("sarif=out/a=b.sarif").unwrap();
        assert_eq!((out.format, out.path), (Format::Sarif, PathBuf::from("out/a=b.sarif")));
    }

    #[test]
    fn a_bad_output_says_what_a_good_one_looks_like() {
        assert!(parse("gauntlet.sarif").unwrap_err().contains("FORMAT=PATH"));
        let unknown = parse("sarf=x.sarif").unwrap_err();
        assert!(unknown.contains("unknown format `sarf`") && unknown.contains("sarif"), "{unknown}");
        assert!(parse("json=").unwrap_err().contains("names no file"));
    }

    #[test]
    fn two_outputs_to_one_file_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json");
        let twice = [Output { format: Format::Json, path: path.clone() }, Output { format: Format::Sarif, path }];
        let err = check(&twice, &[]).unwrap_err().to_string();
        assert!(err.contains("already written to that file"), "{err}");
    }
}
