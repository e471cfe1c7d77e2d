use super::*;
use gauntlet_review::progress::{FIND, VALIDATE};
use indicatif::{InMemoryTerm, ProgressDrawTarget};

/// A writer whose text the test reads back.
#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl Write for Buffer {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().write(bytes)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Buffer {
    fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
    move |name| vars.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string())
}

/// Two finders (one fails), then two findings validated, with usage in between.
fn run(observer: &Observer) {
    let events = [
        Event::StepStarted { step: FIND, total: 2 },
        Event::Usage { tokens: 1_000, cost: Some(0.01) },
        Event::FinderDone { reviewer: "correctness", done: 1, total: 2, answered: true },
        Event::FinderDone { reviewer: "security", done: 2, total: 2, answered: false },
        Event::StepFinished { step: FIND },
        Event::StepStarted { step: VALIDATE, total: 2 },
        Event::Usage { tokens: 500, cost: Some(0.005) },
        Event::ValidationDone { done: 1, total: 2, judged: true },
    ];
    for e in &events {
        observer.event(e);
    }
}

#[test]
fn quiet_wins_over_everything_and_ci_or_a_pipe_gets_plain_lines() {
    assert_eq!(Mode::choose(true, &env(&[]), true), Mode::Quiet);
    assert_eq!(Mode::choose(true, &env(&[("CI", "true")]), false), Mode::Quiet);
    assert_eq!(Mode::choose(false, &env(&[("CI", "true")]), true), Mode::Plain);
    assert_eq!(Mode::choose(false, &env(&[("TF_BUILD", "True")]), true), Mode::Plain);
    assert_eq!(Mode::choose(false, &env(&[("TERM", "dumb")]), true), Mode::Plain);
    assert_eq!(Mode::choose(false, &env(&[]), false), Mode::Plain);
    assert_eq!(Mode::choose(false, &env(&[]), true), Mode::Live);
    // CI=false (some tools set it so) is not CI.
    assert_eq!(Mode::choose(false, &env(&[("CI", "false")]), true), Mode::Live);
}

#[test]
fn plain_display_writes_one_line_per_finished_step_and_nothing_for_a_step_under_way() {
    let out = Buffer::default();
    let display = Display::plain(Box::new(out.clone()));
    run(&display.observer());
    let text = out.text();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1, "only find has finished: {text}");
    assert!(lines[0].starts_with("gauntlet: find: 2 of 2 finders done (1 failed) in "), "{text}");
    assert!(lines[0].ends_with("; 1,000 tokens, $0.0100 so far"), "{text}");
    display.observer().event(&Event::StepFinished { step: VALIDATE });
    let text = out.text();
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(text.lines().nth(1).unwrap().starts_with("gauntlet: validate: 1 of 2 findings done in "), "{text}");
}

#[test]
fn live_display_shows_the_step_under_way_and_keeps_finished_steps_above_it() {
    let term = InMemoryTerm::new(10, 120);
    let display = Display::live(live::Bar::to(ProgressDrawTarget::term_like(Box::new(term.clone()))));
    run(&display.observer());
    let screen = term.contents();
    let lines: Vec<&str> = screen.lines().collect();
    assert!(lines[0].starts_with("gauntlet: find: 2 of 2 finders done (1 failed)"), "{screen}");
    let live = lines.last().unwrap();
    assert!(live.contains("validate 1/2 findings · 1,500 tokens, $0.0150"), "{screen}");
    assert!(live.contains(" 00:00:0"), "the elapsed time is shown: {screen}");
    display.finish();
    let screen = term.contents();
    assert!(screen.starts_with("gauntlet: find: 2 of 2"), "{screen}");
    assert!(!screen.contains("validate 1/2"), "the live line is cleared before the report: {screen}");
}

#[test]
fn backtest_lines_count_cases_done_of_total_with_the_spending_of_all_cases() {
    let term = InMemoryTerm::new(10, 140);
    let bar = live::Bar::to(ProgressDrawTarget::term_like(Box::new(term.clone())));
    let cases = Cases::with(3, Some(bar));
    cases.event(&Event::StepStarted { step: FIND, total: 9 });
    cases.event(&Event::Usage { tokens: 2_000, cost: Some(0.02) });
    cases.finished("a: 1 published, 1/1 known defect(s) caught");
    cases.event(&Event::Usage { tokens: 1_000, cost: Some(0.01) });
    cases.finished("b: failed: no such commit");
    let screen = term.contents();
    let lines: Vec<&str> = screen.lines().collect();
    assert_eq!(lines[0], "gauntlet: [1/3] a: 1 published, 1/1 known defect(s) caught; 2,000 tokens, $0.0200 so far");
    assert_eq!(lines[1], "gauntlet: [2/3] b: failed: no such commit; 3,000 tokens, $0.0300 so far");
    assert!(lines[2].contains("2/3 cases · 3,000 tokens, $0.0300"), "{screen}");
    cases.finish();
    assert!(!term.contents().contains("2/3 cases ·"), "the bar is cleared before the report");
}
