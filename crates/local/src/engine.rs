//! One loaded model and one context, driven from a single thread.
//!
//! The context is the KV cache; keeping it between calls is what makes prefix reuse
//! possible. The tokens it holds are remembered, and each call trims the cache back
//! to the longest prefix it shares with the new prompt and evaluates only the rest:
//! every reviewer and validator call of a run starts with the same shared blocks, so
//! after the first call those are never evaluated again.

use crate::grammar::Grammar;
use crate::{LocalError, Stats, template::ChatFormat};
use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::LlamaToken;
use llama_cpp_2::token::data::LlamaTokenData;
use llama_cpp_2::token::data_array::LlamaTokenDataArray;
use std::num::NonZeroU32;
use std::path::Path;
use std::time::Instant;

/// Tokens evaluated per decode call while reading a prompt.
pub const BATCH: usize = 512;

/// Load a GGUF, with a clear error naming the fix when it is missing or broken.
pub fn load_model(backend: &LlamaBackend, path: &Path) -> Result<LlamaModel, LocalError> {
    let mut magic = [0u8; 4];
    let readable = std::fs::File::open(path).and_then(|mut f| std::io::Read::read_exact(&mut f, &mut magic));
    match readable {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(LocalError::Missing(path.to_path_buf())),
        Err(e) => return Err(LocalError::Corrupt { path: path.to_path_buf(), message: e.to_string() }),
        Ok(()) if &magic != b"GGUF" => {
            return Err(LocalError::Corrupt { path: path.to_path_buf(), message: "not a GGUF file".into() });
        }
        Ok(()) => {}
    }
    LlamaModel::load_from_file(backend, path, &LlamaModelParams::default())
        .map_err(|e| LocalError::Corrupt { path: path.to_path_buf(), message: e.to_string() })
}

/// Context parameters shared by the provider and the benchmark's bare baseline.
pub fn context_params(n_ctx: u32, threads: usize) -> LlamaContextParams {
    LlamaContextParams::default()
        .with_n_ctx(NonZeroU32::new(n_ctx))
        .with_n_batch(BATCH as u32)
        .with_n_threads(threads as i32)
        .with_n_threads_batch(threads as i32)
}

/// What one completion produced.
pub struct Generated {
    pub text: String,
    pub evaluated: usize,
    pub reused: usize,
    pub generated: usize,
}

pub struct Session<'m> {
    model: &'m LlamaModel,
    ctx: LlamaContext<'m>,
    /// Tokens whose keys and values are in the cache, in position order.
    cached: Vec<LlamaToken>,
    format: ChatFormat,
    pub stats: Stats,
}

impl<'m> Session<'m> {
    pub fn new(model: &'m LlamaModel, ctx: LlamaContext<'m>, format: ChatFormat) -> Session<'m> {
        Session { model, ctx, cached: Vec::new(), format, stats: Stats::default() }
    }

    pub fn n_ctx(&self) -> usize {
        self.ctx.n_ctx() as usize
    }

    pub fn format(&self) -> &ChatFormat {
        &self.format
    }

    /// Complete `prompt` (already templated). With a grammar, the answer is held
    /// to it and may take up to its worst case; without one, up to `max_tokens`.
    pub fn complete(
        &mut self,
        prompt: &str,
        grammar: Option<&Grammar>,
        max_tokens: usize,
    ) -> Result<Generated, LocalError> {
        let tokens = self.model.vocab().tokenize(prompt.as_bytes(), true, true);
        let n_ctx = self.n_ctx();
        if tokens.len() + 1 >= n_ctx {
            return Err(LocalError::ContextFull { prompt: tokens.len(), n_ctx });
        }
        let started = Instant::now();
        let reused = self.reuse_prefix(&tokens)?;
        let last = self.evaluate(&tokens[reused..], reused)?;
        self.stats.prompt_ms += started.elapsed().as_secs_f64() * 1e3;
        self.stats.evaluated += (tokens.len() - reused) as u64;
        self.stats.reused += reused as u64;

        // With a grammar the limit is its worst case (+1 for the end token), so a
        // JSON answer is never cut off, unless the context window is smaller.
        let wanted = grammar.map_or(max_tokens, |g| g.max_bytes + 1);
        let room = n_ctx - tokens.len();
        let started = Instant::now();
        let (text, generated) = self.generate(grammar, last, wanted.min(room))?;
        self.stats.generate_ms += started.elapsed().as_secs_f64() * 1e3;
        self.stats.generated += generated as u64;
        if grammar.is_some() && serde_json::from_str::<serde_json::Value>(&text).is_err() {
            return Err(LocalError::CutOff { limit: wanted.min(room), n_ctx, wanted });
        }
        Ok(Generated { text, evaluated: tokens.len() - reused, reused, generated })
    }

    /// Trim the cache to the longest prefix shared with `tokens`; return its length.
    fn reuse_prefix(&mut self, tokens: &[LlamaToken]) -> Result<usize, LocalError> {
        let mut keep = self.cached.iter().zip(tokens).take_while(|(a, b)| a == b).count();
        // The last prompt token is always evaluated: its logits start the answer.
        keep = keep.min(tokens.len() - 1);
        let removed = self.ctx.clear_kv_cache_seq(Some(0), Some(keep as u32), None).unwrap_or(false);
        if !removed {
            // The cache could not be trimmed (e.g. a recurrent model): start over.
            self.ctx.clear_kv_cache();
            keep = 0;
        }
        self.cached.truncate(keep);
        Ok(keep)
    }

    /// Evaluate `tokens` at positions from `start`; return the batch index of the
    /// last token's logits.
    fn evaluate(&mut self, tokens: &[LlamaToken], start: usize) -> Result<i32, LocalError> {
        let mut batch = LlamaBatch::new(BATCH, 1);
        let mut last = 0;
        for (chunk_index, chunk) in tokens.chunks(BATCH).enumerate() {
            batch.clear();
            let is_last_chunk = (chunk_index + 1) * BATCH >= tokens.len();
            for (i, token) in chunk.iter().enumerate() {
                let pos = start + chunk_index * BATCH + i;
                let want_logits = is_last_chunk && i + 1 == chunk.len();
                batch.add(*token, pos as i32, &[0], want_logits).map_err(LocalError::inference)?;
            }
            self.ctx.decode(&mut batch).map_err(LocalError::inference)?;
            self.cached.extend_from_slice(chunk);
            last = batch.n_tokens() - 1;
        }
        Ok(last)
    }

    fn generate(
        &mut self,
        grammar: Option<&Grammar>,
        mut idx: i32,
        limit: usize,
    ) -> Result<(String, usize), LocalError> {
        let mut sampler = match grammar {
            Some(g) => Some(LlamaSampler::grammar(self.model, &g.gbnf, "root").map_err(LocalError::inference)?),
            None => None,
        };
        let vocab = self.model.vocab();
        let mut bytes = Vec::new();
        let mut batch = LlamaBatch::new(1, 1);
        for n in 0..limit {
            let token = self.pick(sampler.as_mut(), idx)?;
            if vocab.is_eog(token) {
                return Ok((String::from_utf8_lossy(&bytes).into_owned(), n));
            }
            if let Some(s) = sampler.as_mut() {
                s.accept(token);
            }
            let piece = vocab.token_to_piece(token, false, None);
            bytes.extend_from_slice(&piece);
            // The grammar's root is an object: once it closes, the only token left
            // is the end token, so stop without paying for one more decode.
            if grammar.is_some() && piece.ends_with(b"}") && serde_json::from_slice::<serde_json::Value>(&bytes).is_ok()
            {
                return Ok((String::from_utf8_lossy(&bytes).into_owned(), n + 1));
            }
            batch.clear();
            batch.add(token, self.cached.len() as i32, &[0], true).map_err(LocalError::inference)?;
            self.ctx.decode(&mut batch).map_err(LocalError::inference)?;
            self.cached.push(token);
            idx = 0;
        }
        Ok((String::from_utf8_lossy(&bytes).into_owned(), limit))
    }

    /// Greedy choice under the grammar. The most likely token is checked alone
    /// first; only when the grammar rejects it is the whole vocabulary masked,
    /// which is the expensive step (about half the time per token otherwise).
    fn pick(&mut self, grammar: Option<&mut LlamaSampler>, idx: i32) -> Result<LlamaToken, LocalError> {
        let logits = self.ctx.get_logits_ith(idx);
        let best = argmax(logits);
        let Some(grammar) = grammar else { return Ok(best) };
        let mut single = LlamaTokenDataArray::new(vec![LlamaTokenData::new(best, logits[best.0 as usize], 0.0)], false);
        grammar.apply(&mut single);
        if single.data[0].logit() > f32::NEG_INFINITY {
            return Ok(best);
        }
        let mut all = LlamaTokenDataArray::from_iter(
            logits.iter().enumerate().map(|(i, l)| LlamaTokenData::new(LlamaToken(i as i32), *l, 0.0)),
            false,
        );
        grammar.apply(&mut all);
        let allowed = all.data.iter().filter(|d| d.logit() > f32::NEG_INFINITY);
        allowed
            .max_by(|a, b| a.logit().total_cmp(&b.logit()))
            .map(LlamaTokenData::id)
            .ok_or(LocalError::Inference("the grammar allows no next token".into()))
    }
}

fn argmax(logits: &[f32]) -> LlamaToken {
    let (i, _) =
        logits.iter().enumerate().fold((0, f32::NEG_INFINITY), |best, (i, &l)| if l > best.1 { (i, l) } else { best });
    LlamaToken(i as i32)
}
