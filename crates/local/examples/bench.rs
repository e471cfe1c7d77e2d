//! Throughput of gauntlet's local provider against the bare llama.cpp binding on
//! the same GGUF in the same process, and prompt tokens saved by prefix reuse.
//!
//! `cargo run -p gauntlet-local --example bench [FILE.gguf]` (default: the pulled smollm2).

use gauntlet_local::{Local, LocalConfig, engine, models};
use gauntlet_model::{Request, Schema, Tier, Turn};
use llama_cpp_2::llama_batch::LlamaBatch;
use std::time::Instant;

const GENERATE: usize = 128;

fn shared_block() -> String {
    let code: String = (1..=60).map(|i| format!("    let value_{i} = compute({i}) + offset; // line {i}\n")).collect();
    format!("You review code. The change:\n```rust\nfn main() {{\n{code}}}\n```\n")
}

fn request(user: &str, schema: Option<Schema>, max_tokens: u32) -> Request {
    Request {
        shared: vec![shared_block()].into(),
        turns: vec![Turn::user(user)],
        schema,
        tools: Vec::new(),
        max_tokens,
        tier: Tier::Standard,
        step: "bench".into(),
        reviewer: None,
    }
}

/// Prompt processing and generation tok/s through the binding alone.
fn bare(path: &std::path::Path, prompt: &str, threads: usize) -> (f64, f64) {
    let backend = gauntlet_local::backend().unwrap();
    let model = engine::load_model(backend, path).unwrap();
    let mut ctx = model.new_context(backend, engine::context_params(4096, threads)).unwrap();
    let tokens = model.vocab().tokenize(prompt.as_bytes(), true, true);
    let started = Instant::now();
    let mut batch = LlamaBatch::new(engine::BATCH, 1);
    for (c, chunk) in tokens.chunks(engine::BATCH).enumerate() {
        batch.clear();
        for (i, t) in chunk.iter().enumerate() {
            let pos = c * engine::BATCH + i;
            batch.add(*t, pos as i32, &[0], pos + 1 == tokens.len()).unwrap();
        }
        ctx.decode(&mut batch).unwrap();
    }
    let pp = tokens.len() as f64 / started.elapsed().as_secs_f64();
    let mut sampler = llama_cpp_2::sampling::LlamaSampler::greedy();
    let mut idx = batch.n_tokens() - 1;
    let started = Instant::now();
    let mut n = 0;
    while n < GENERATE {
        let token = sampler.sample(&ctx, idx);
        n += 1;
        if model.vocab().is_eog(token) {
            break;
        }
        let mut one = LlamaBatch::new(1, 1);
        one.add(token, (tokens.len() + n - 1) as i32, &[0], true).unwrap();
        ctx.decode(&mut one).unwrap();
        idx = 0;
    }
    (pp, n as f64 / started.elapsed().as_secs_f64())
}

fn main() {
    let path = std::env::args().nth(1).map(std::path::PathBuf::from).unwrap_or_else(|| {
        let env = |k: &str| std::env::var(k).ok();
        models::pull(&models::SMOLLM2, &models::models_dir(&env), &mut |l| eprintln!("{l}")).unwrap()
    });
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let free = request("Summarise the change in one long paragraph.", None, GENERATE as u32);

    let local = Local::load(LocalConfig { context: Some(4096), ..LocalConfig::new(&path) }).unwrap();
    let prompt = {
        // The exact prompt the provider evaluates, so both sides do the same work.
        let backend = gauntlet_local::backend().unwrap();
        let model = engine::load_model(backend, &path).unwrap();
        gauntlet_local::ChatFormat::for_model(&model).unwrap().render(&model, &free).unwrap()
    };
    let (bare_pp, bare_tg) = bare(&path, &prompt, threads);
    rt.block_on(local.run(&free)).unwrap();
    let s = local.stats();
    let (pp, tg) = (s.evaluated as f64 / (s.prompt_ms / 1e3), s.generated as f64 / (s.generate_ms / 1e3));
    println!("threads {threads}, model {}", path.display());
    println!("prompt processing  bare {bare_pp:8.1} tok/s   gauntlet {pp:8.1} tok/s   ratio {:.2}", pp / bare_pp);
    println!("generation         bare {bare_tg:8.1} tok/s   gauntlet {tg:8.1} tok/s   ratio {:.2}", tg / bare_tg);
    drop(local);

    // Four reviewers over the same change, each under the findings grammar.
    let local = Local::load(LocalConfig { context: Some(8192), ..LocalConfig::new(&path) }).unwrap();
    let started = Instant::now();
    for name in ["correctness", "security", "errors", "tests"] {
        let schema = Schema { name: "f".into(), json: gauntlet_review::contract::findings_schema(2) };
        let req = request(&format!("You are the {name} reviewer. Report at most 2 findings."), Some(schema), 0);
        rt.block_on(local.run(&req)).unwrap();
    }
    let s = local.stats();
    let without = s.evaluated + s.reused;
    println!(
        "4 reviewers: prompt tokens evaluated {} with reuse, {without} without ({:.1}x fewer); \
         reuse saved ~{:.1}s of prompt processing; constrained generation {:.1} tok/s; wall {:.1}s",
        s.evaluated,
        without as f64 / s.evaluated as f64,
        s.reused as f64 / pp,
        s.generated as f64 / (s.generate_ms / 1e3),
        started.elapsed().as_secs_f64()
    );
}
