//! What a run has done so far, from its progress events, and the lines that say it.
//! Plain functions over data: the clock is passed in as the time since the run began.

use gauntlet_review::progress::{Event, FIND, REVALIDATE, VALIDATE};
use std::time::Duration;

/// One step of a run, as far as it got.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    pub name: String,
    pub total: usize,
    pub done: usize,
    /// Units that ended without a result (a failed session, a missing verdict).
    pub failed: usize,
    pub started: Duration,
    pub ended: Option<Duration>,
}

/// Steps, units and spending of one run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tally {
    pub steps: Vec<Step>,
    pub tokens: u64,
    /// Estimated cost of the calls whose price is known.
    pub cost: f64,
    /// Calls whose price is not known, so `cost` leaves them out.
    pub unpriced: usize,
}

impl Tally {
    /// Take in one event at `now`. When it ends a step, the line that reports it.
    pub fn apply(&mut self, event: &Event<'_>, now: Duration) -> Option<String> {
        match event {
            Event::StepStarted { step, total } => self.steps.push(Step {
                name: step.to_string(),
                total: *total,
                done: 0,
                failed: 0,
                started: now,
                ended: None,
            }),
            Event::FinderDone { done, total, answered: ok, .. }
            | Event::ValidationDone { done, total, judged: ok }
            | Event::UnitDone { done, total, ok, .. } => {
                if let Some(step) = self.current_mut() {
                    step.done = (*done).max(step.done);
                    step.total = *total;
                    step.failed += usize::from(!ok);
                }
            }
            Event::Usage { tokens, cost } => {
                self.tokens += tokens;
                match cost {
                    Some(c) if c.is_finite() => self.cost += c,
                    _ => self.unpriced += 1,
                }
            }
            Event::StepFinished { step } => {
                let index = self.steps.iter().rposition(|s| s.name == *step && s.ended.is_none())?;
                self.steps[index].ended = Some(now);
                return Some(self.finished_line(&self.steps[index]));
            }
        }
        None
    }

    /// The step under way, if any.
    pub fn current(&self) -> Option<&Step> {
        self.steps.last().filter(|s| s.ended.is_none())
    }

    fn current_mut(&mut self) -> Option<&mut Step> {
        self.steps.last_mut().filter(|s| s.ended.is_none())
    }

    /// Tokens and cost so far, e.g. `12,345 tokens, $0.0123`.
    pub fn spent(&self) -> String {
        let tokens = format!("{} tokens", thousands(self.tokens));
        match (self.unpriced, self.cost > 0.0) {
            // Before any call there is no price to speak of, known or not.
            (0, _) if self.tokens == 0 => tokens,
            (0, _) => format!("{tokens}, ${:.4}", self.cost),
            (_, false) => format!("{tokens}, cost unknown"),
            (n, true) => format!("{tokens}, ${:.4} (+{n} call(s) of unknown price)", self.cost),
        }
    }

    /// The plain line for a step that ended.
    pub fn finished_line(&self, step: &Step) -> String {
        let took = step.ended.unwrap_or(step.started).saturating_sub(step.started);
        let units = units(&step.name);
        if step.total == 0 {
            return format!("{}: nothing to do; {} so far", step.name, self.spent());
        }
        let failed = if step.failed > 0 { format!(" ({} failed)", step.failed) } else { String::new() };
        // A loop's total is a cap it may stop well short of, not work left undone.
        let of = if units == "rounds" { "of at most" } else { "of" };
        format!(
            "{}: {} {of} {} {units} done{failed} in {}; {} so far",
            step.name,
            step.done,
            step.total,
            seconds(took),
            self.spent()
        )
    }

    /// One line for a live display: the step under way with its units, and spending.
    /// Steps that ended have their own lines above it; the elapsed time is shown beside it.
    pub fn live_line(&self) -> String {
        match self.current() {
            Some(step) => {
                let failed = if step.failed > 0 { format!(", {} failed", step.failed) } else { String::new() };
                let units = units(&step.name);
                format!("{} {}/{} {units}{failed} · {}", step.name, step.done, step.total, self.spent())
            }
            None => self.spent(),
        }
    }
}

/// What a step's units are called.
fn units(step: &str) -> &'static str {
    match step {
        FIND => "finders",
        VALIDATE | REVALIDATE => "findings",
        "fix" => "findings",
        "refine" => "rounds",
        "backtest" => "cases",
        _ => "units",
    }
}

/// `1234567` as `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    // The leading group holds what is left over after groups of three.
    let head = match digits.len() % 3 {
        0 => 3.min(digits.len()),
        short => short,
    };
    let (first, rest) = digits.split_at(head);
    let mut out = first.to_string();
    for group in rest.as_bytes().chunks(3) {
        out.push(',');
        out.push_str(std::str::from_utf8(group).expect("ASCII digits"));
    }
    out
}

/// A duration as seconds with one decimal, e.g. `2.5s`.
pub fn seconds(d: Duration) -> String {
    format!("{:.1}s", d.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ms: u64) -> Duration {
        Duration::from_millis(ms)
    }

    fn find_then_validate() -> (Tally, Vec<String>) {
        let mut t = Tally::default();
        let events = [
            (Event::StepStarted { step: FIND, total: 2 }, 0),
            (Event::Usage { tokens: 1_200, cost: Some(0.01) }, 900),
            (Event::FinderDone { reviewer: "correctness", done: 1, total: 2, answered: true }, 1_000),
            (Event::FinderDone { reviewer: "security", done: 2, total: 2, answered: false }, 1_500),
            (Event::StepFinished { step: FIND }, 1_500),
            (Event::StepStarted { step: VALIDATE, total: 1 }, 1_500),
            (Event::Usage { tokens: 300, cost: Some(0.002) }, 2_000),
            (Event::ValidationDone { done: 1, total: 1, judged: true }, 2_000),
            (Event::StepFinished { step: VALIDATE }, 2_000),
        ];
        let lines = events.iter().filter_map(|(e, ms)| t.apply(e, at(*ms))).collect();
        (t, lines)
    }

    #[test]
    fn each_finished_step_gives_one_line_in_order_with_counts_time_and_spending() {
        let (_, lines) = find_then_validate();
        assert_eq!(
            lines,
            [
                "find: 2 of 2 finders done (1 failed) in 1.5s; 1,200 tokens, $0.0100 so far",
                "validate: 1 of 1 findings done in 0.5s; 1,500 tokens, $0.0120 so far",
            ]
        );
    }

    #[test]
    fn live_line_shows_the_step_under_way_its_failures_and_spending() {
        let mut t = Tally::default();
        t.apply(&Event::StepStarted { step: FIND, total: 3 }, at(0));
        t.apply(&Event::FinderDone { reviewer: "a", done: 1, total: 3, answered: true }, at(10));
        t.apply(&Event::Usage { tokens: 50_000, cost: Some(0.25) }, at(10));
        assert_eq!(t.live_line(), "find 1/3 finders · 50,000 tokens, $0.2500");
        t.apply(&Event::FinderDone { reviewer: "b", done: 2, total: 3, answered: false }, at(20));
        t.apply(&Event::FinderDone { reviewer: "c", done: 3, total: 3, answered: true }, at(30));
        t.apply(&Event::StepFinished { step: FIND }, at(30));
        t.apply(&Event::StepStarted { step: VALIDATE, total: 4 }, at(30));
        t.apply(&Event::ValidationDone { done: 1, total: 4, judged: true }, at(40));
        assert_eq!(t.live_line(), "validate 1/4 findings · 50,000 tokens, $0.2500");
        t.apply(&Event::ValidationDone { done: 2, total: 4, judged: false }, at(50));
        assert_eq!(t.live_line(), "validate 2/4 findings, 1 failed · 50,000 tokens, $0.2500");
        t.apply(&Event::StepFinished { step: VALIDATE }, at(60));
        assert_eq!(t.live_line(), "50,000 tokens, $0.2500", "between steps only spending is left");
    }

    #[test]
    fn units_arriving_out_of_order_never_move_the_count_back() {
        let mut t = Tally::default();
        t.apply(&Event::StepStarted { step: VALIDATE, total: 3 }, at(0));
        t.apply(&Event::ValidationDone { done: 2, total: 3, judged: true }, at(1));
        t.apply(&Event::ValidationDone { done: 1, total: 3, judged: true }, at(2));
        assert_eq!(t.current().map(|s| s.done), Some(2));
    }

    #[test]
    fn a_step_with_no_units_says_so() {
        let mut t = Tally::default();
        t.apply(&Event::StepStarted { step: VALIDATE, total: 0 }, at(0));
        let line = t.apply(&Event::StepFinished { step: VALIDATE }, at(0)).expect("a line");
        assert_eq!(line, "validate: nothing to do; 0 tokens so far", "no price is claimed before a call");
    }

    #[test]
    fn unknown_prices_are_said_not_counted_as_free() {
        let mut t = Tally::default();
        t.apply(&Event::Usage { tokens: 10, cost: None }, at(0));
        assert_eq!(t.spent(), "10 tokens, cost unknown");
        t.apply(&Event::Usage { tokens: 10, cost: Some(0.5) }, at(0));
        assert_eq!(t.spent(), "20 tokens, $0.5000 (+1 call(s) of unknown price)");
    }

    #[test]
    fn a_loop_that_stops_early_is_not_shown_as_work_left_undone() {
        let mut t = Tally::default();
        t.apply(&Event::StepStarted { step: "refine", total: 10 }, at(0));
        t.apply(&Event::UnitDone { step: "refine", done: 3, total: 10, ok: true }, at(3_000));
        let line = t.apply(&Event::StepFinished { step: "refine" }, at(3_000)).expect("a line");
        assert!(line.starts_with("refine: 3 of at most 10 rounds done in 3.0s"), "{line}");
    }

    #[test]
    fn a_finish_without_its_start_gives_no_line() {
        let mut t = Tally::default();
        assert_eq!(t.apply(&Event::StepFinished { step: FIND }, at(0)), None);
    }

    #[test]
    fn thousands_groups_digits_from_the_right() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
