//! Token prices and cost estimates. Known models' prices ship in `data/prices.toml`;
//! `[prices."model"]` in gauntlet.toml overrides or adds models. Local models cost 0.

use gauntlet_model::Usage;
use serde::Deserialize;
use std::collections::BTreeMap;

/// USD per million tokens.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    /// Uncached input tokens. Default: none (required).
    pub input: f64,
    /// Output tokens. Default: none (required).
    pub output: f64,
    /// Cached input read. Default: the provider's rate (for Anthropic a tenth of
    /// `input`; for others `input`).
    pub cache_read: Option<f64>,
    /// Cache write. Default: the provider's rate (for Anthropic a quarter more than
    /// `input`; for others `input`).
    pub cache_write: Option<f64>,
}

impl Price {
    /// Cost of one call's usage. `usage.input` counts only uncached input tokens.
    pub fn cost(&self, u: &Usage) -> f64 {
        let per = |tokens: u64, price: f64| tokens as f64 * price / 1_000_000.0;
        per(u.input, self.input)
            + per(u.output, self.output)
            + per(u.cache_read, self.cache_read.unwrap_or(self.input))
            + per(u.cache_write, self.cache_write.unwrap_or(self.input))
    }
}

/// Anthropic's cache rates, as multiples of the input price: reads, and writes
/// of the five-minute cache the shared block is sent with.
const ANTHROPIC_CACHE_READ: f64 = 0.1;
const ANTHROPIC_CACHE_WRITE: f64 = 1.25;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PriceFile {
    prices: BTreeMap<String, Price>,
}

/// The price table in effect.
#[derive(Clone, Debug, Default)]
pub struct Prices {
    table: BTreeMap<String, Price>,
}

impl Prices {
    /// Built-in prices with `overrides` applied.
    pub fn with_overrides(overrides: &BTreeMap<String, Price>) -> Prices {
        let file: PriceFile = toml::from_str(include_str!("../data/prices.toml")).expect("built-in prices parse");
        let mut table = file.prices;
        table.extend(overrides.iter().map(|(k, v)| (k.clone(), *v)));
        Prices { table }
    }

    /// Price of `provider:model`, as the provider bills it; local models are free,
    /// unknown ones `None`. A price that leaves out the cache rates gets the
    /// provider's own: Anthropic bills a cache read at a tenth of the input price
    /// and a cache write at a quarter more; other providers bill both as input.
    pub fn get(&self, provider: &str, model: &str) -> Option<Price> {
        if provider == "local" {
            return Some(Price { input: 0.0, output: 0.0, cache_read: None, cache_write: None });
        }
        let mut price = self.table.get(model).copied()?;
        if provider == "anthropic" {
            price.cache_read = price.cache_read.or(Some(price.input * ANTHROPIC_CACHE_READ));
            price.cache_write = price.cache_write.or(Some(price.input * ANTHROPIC_CACHE_WRITE));
        }
        Some(price)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sonnet_cost_matches_a_hand_computed_example() {
        let p = Prices::with_overrides(&BTreeMap::new()).get("anthropic", "claude-sonnet-4-5").unwrap();
        // 10k uncached in at $3, 2k out at $15, 40k cache reads at $0.30, 4k cache writes at $3.75.
        let u = Usage { input: 10_000, output: 2_000, cache_read: 40_000, cache_write: 4_000 };
        let expected = 0.03 + 0.03 + 0.012 + 0.015;
        assert!((p.cost(&u) - expected).abs() < 1e-12, "{}", p.cost(&u));
    }

    #[test]
    fn an_anthropic_model_priced_without_cache_rates_is_billed_at_anthropics_cache_rates() {
        let mine = Price { input: 2.0, output: 10.0, cache_read: None, cache_write: None };
        let prices = Prices::with_overrides(&BTreeMap::from([("house-model".to_string(), mine)]));
        // 1M uncached in at $2, 1M cache reads at a tenth ($0.20), 1M cache writes
        // at a quarter more ($2.50), no output.
        let u = Usage { input: 1_000_000, output: 0, cache_read: 1_000_000, cache_write: 1_000_000 };
        let billed = prices.get("anthropic", "house-model").unwrap().cost(&u);
        assert!((billed - (2.0 + 0.2 + 2.5)).abs() < 1e-9, "{billed}");
        // OpenAI charges nothing extra to write its cache; without a stated read
        // rate, reads are billed as input.
        let billed = prices.get("openai", "house-model").unwrap().cost(&u);
        assert!((billed - 6.0).abs() < 1e-9, "{billed}");
        // A stated rate wins over the provider's default.
        let stated = Price { cache_read: Some(0.5), ..mine };
        let prices = Prices::with_overrides(&BTreeMap::from([("house-model".to_string(), stated)]));
        let billed = prices.get("anthropic", "house-model").unwrap().cost(&u);
        assert!((billed - (2.0 + 0.5 + 2.5)).abs() < 1e-9, "{billed}");
    }

    #[test]
    fn overrides_replace_and_add_models() {
        let o = BTreeMap::from([(
            "mine".to_string(),
            Price { input: 1.0, output: 1.0, cache_read: None, cache_write: None },
        )]);
        let prices = Prices::with_overrides(&o);
        assert!(prices.get("openai", "mine").is_some());
        assert!(prices.get("openai", "unknown-model").is_none());
        assert_eq!(
            prices.get("local", "smollm2").unwrap().cost(&Usage { input: 5, output: 5, ..Usage::default() }),
            0.0
        );
    }
}
