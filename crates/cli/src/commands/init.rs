//! `gauntlet init`: write a commented starter `gauntlet.toml`.

use crate::settings::{FILE_NAME, STARTER};
use anyhow::{Result, bail};
use std::io::Write;
use std::path::Path;

pub fn run(root: &Path, force: bool) -> Result<()> {
    let path = root.join(FILE_NAME);
    if path.exists() && !force {
        bail!("{} already exists; pass --force to overwrite it", path.display());
    }
    // Write beside the target and rename, so a failure never leaves half a file.
    let mut tmp = tempfile::NamedTempFile::new_in(root)?;
    tmp.write_all(STARTER.as_bytes())?;
    tmp.persist(&path).map_err(|e| e.error)?;
    println!("wrote {}", path.display());
    Ok(())
}
