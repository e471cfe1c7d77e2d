//! Writing files for the user: atomically (a reader never sees half a file, a crash
//! never leaves one), and never over an existing file unless the user asked.

use anyhow::{Context, Result};
use std::io::Write;
use std::path::Path;

/// Write `text` to `path` through a temporary file in the same folder and a rename.
pub fn write_atomically(path: &Path, text: &str) -> Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir).with_context(|| format!("cannot write in {}", dir.display()))?;
    tmp.write_all(text.as_bytes()).with_context(|| format!("cannot write {}", path.display()))?;
    // Keep the replaced file's permissions (refine --in-place on an executable script).
    if let Ok(meta) = std::fs::metadata(path) {
        let _ = std::fs::set_permissions(tmp.path(), meta.permissions());
    }
    tmp.persist(path).map_err(|e| e.error).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}
