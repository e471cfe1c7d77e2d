//! Turning a [`Request`] into one prompt string with the model's chat template.
//!
//! The shared blocks become the system message, first, so every call of a run
//! starts with the same tokens (see the engine's prefix reuse). A GGUF without a
//! chat template (a base model such as Gemma 3 270M) gets llama.cpp's built-in
//! template for its architecture, else ChatML.

use crate::LocalError;
use gauntlet_model::{Request, Turn};
use llama_cpp_2::model::{LlamaChatMessage, LlamaChatTemplate, LlamaModel};

pub struct ChatFormat {
    template: LlamaChatTemplate,
    /// Where the template came from, for messages: `gguf` or a built-in name.
    pub origin: String,
}

/// llama.cpp's built-in template for an architecture without one of its own.
fn builtin_for(architecture: &str) -> &'static str {
    match architecture {
        a if a.starts_with("gemma") => "gemma",
        "llama" => "llama3",
        a if a.starts_with("phi3") => "phi3",
        _ => "chatml",
    }
}

impl ChatFormat {
    /// The model's own template if llama.cpp can apply it, else the fallback.
    pub fn for_model(model: &LlamaModel) -> Result<ChatFormat, LocalError> {
        let probe = [message("system", "s")?, message("user", "u")?];
        if let Ok(template) = model.chat_template(None)
            && model.apply_chat_template(&template, &probe, true).is_ok()
        {
            return Ok(ChatFormat { template, origin: "gguf".into() });
        }
        let architecture = model.meta_val_str("general.architecture").unwrap_or_default();
        let name = builtin_for(&architecture);
        let template = LlamaChatTemplate::new(name).map_err(LocalError::inference)?;
        Ok(ChatFormat { template, origin: format!("built-in {name} (the GGUF has none)") })
    }

    /// The prompt for `request`, ending where the assistant's answer starts.
    pub fn render(&self, model: &LlamaModel, request: &Request) -> Result<String, LocalError> {
        let mut messages = Vec::new();
        if !request.shared.is_empty() {
            messages.push(message("system", &request.shared.join("\n\n"))?);
        }
        for turn in &request.turns {
            messages.push(match turn {
                Turn::User { text } => message("user", text)?,
                Turn::Assistant { text, .. } => message("assistant", text)?,
                // No tools run locally; results, if any, are shown as plain text.
                Turn::ToolResults { results } => {
                    let text: Vec<&str> = results.iter().map(|r| r.content.as_str()).collect();
                    message("user", &text.join("\n\n"))?
                }
            });
        }
        model.apply_chat_template(&self.template, &messages, true).map_err(LocalError::inference)
    }
}

fn message(role: &str, content: &str) -> Result<LlamaChatMessage, LocalError> {
    // A NUL byte cannot cross into C; nothing in a review needs one.
    LlamaChatMessage::new(role.into(), content.replace('\0', "")).map_err(LocalError::inference)
}
