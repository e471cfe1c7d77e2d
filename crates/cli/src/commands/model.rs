//! `gauntlet model pull [NAME]` and `gauntlet model list`: the local models.

use crate::settings::Env;
use anyhow::Result;
use gauntlet_local::models;

/// Fetch `name` (default: the default model) into the user cache.
pub fn pull(name: Option<&str>, env: &Env) -> Result<()> {
    let name = name.unwrap_or(models::SMOLLM2.name);
    let known = models::known(name).ok_or_else(|| models::PullError::Unknown(name.into()))?;
    let dir = models::models_dir(env);
    let path = models::pull(&known, &dir, &mut |line| crate::progress::say!("gauntlet: {line}"))?;
    println!("{}", path.display());
    Ok(())
}

/// Each known model, whether it is pulled, and where.
pub fn list(env: &Env) -> Result<()> {
    let dir = models::models_dir(env);
    for (known, path) in models::list(&dir) {
        let at = path.map_or_else(|| "not pulled (gauntlet model pull NAME)".to_string(), |p| p.display().to_string());
        println!("{:12}  {}\n              {at}", known.name, known.description);
    }
    println!("any other GGUF: gauntlet review --model-path FILE.gguf, or [models.local] path in gauntlet.toml");
    Ok(())
}
