//! The examples and the environment section that `--help` shows after each
//! command's flags (and that `gauntlet man` renders into the pages).

/// `gauntlet --help`: the commands to start with, and every variable gauntlet reads.
pub const TOP: &str = "\
Examples:
  gauntlet review                          review this branch against its base
  gauntlet review --fail-on high           ... and exit 3 when a high finding is published
  gauntlet ci --fail-on high --output sarif=gauntlet.sarif
                                           in a pull-request pipeline: post, and keep a SARIF file
  gauntlet completions bash > ~/.local/share/bash-completion/completions/gauntlet

Environment:
  ANTHROPIC_API_KEY, OPENAI_API_KEY   model keys (a hosted provider is chosen by the one set)
  ANTHROPIC_BASE_URL, OPENAI_BASE_URL other endpoints (an OpenAI-compatible server, a proxy)
  GAUNTLET_PROVIDER, GAUNTLET_MODEL   what --provider and --model default to
  GAUNTLET_CACHE_DIR                  where `ci` keeps the earned-blocking record
  XDG_CACHE_HOME, HOME                the user cache (local models, the rules channel)
  NO_COLOR, TERM=dumb                 no colour in the terminal report (--color always overrides)
  CI, TF_BUILD                        plain progress lines instead of a live display
  GITHUB_TOKEN, GH_TOKEN, GITLAB_TOKEN, GAUNTLET_GITLAB_TOKEN, AZURE_DEVOPS_TOKEN,
  SYSTEM_ACCESSTOKEN                  code-host tokens (`ci`, `stats`, `review --pr`)
  GITHUB_*, CI_*, SYSTEM_*, BUILD_*   the CI's own variables: which pull request `ci` runs for

Exit codes: 0 done (findings or not), 1 nothing reviewed or the run timed out, 2 an error to fix,
3 a finding at or above --fail-on, 4 a candidate at or above --fail-on could not be validated,
130 interrupted.";

pub const REVIEW: &str = "\
Examples:
  gauntlet review                                  this branch against its base
  gauntlet review --staged                         what `git commit` would record
  gauntlet review --base origin/main --head HEAD~1
  gauntlet review --pr https://github.com/o/r/pull/7
  gauntlet review --fail-on medium                 exit 3 on a medium or high finding
  gauntlet review --format json --output sarif=gauntlet.sarif --output markdown=review.md

Environment: ANTHROPIC_API_KEY, OPENAI_API_KEY, *_BASE_URL, GAUNTLET_PROVIDER, GAUNTLET_MODEL,
NO_COLOR, TERM (see `gauntlet --help`).";

pub const CI: &str = "\
Examples:
  gauntlet ci                                      advisory: post, exit 0 whatever is found
  gauntlet ci --fail-on high                       fail the job on a high finding nobody dismissed
  gauntlet ci --output sarif=gauntlet.sarif        also keep SARIF for GitHub code scanning
  gauntlet ci --output codequality=gl-code-quality-report.json

Environment: the CI's own variables name the pull request; GITHUB_TOKEN, GITLAB_TOKEN
(or GAUNTLET_GITLAB_TOKEN) and SYSTEM_ACCESSTOKEN post; GAUNTLET_CACHE_DIR keeps the
earned-blocking record (see `gauntlet --help`).";

pub const INIT: &str = "\
Examples:
  gauntlet init            write gauntlet.toml at the repository root
  gauntlet init --force    replace an existing one";

pub const REVIEWERS: &str = "\
Examples:
  gauntlet reviewers                       which reviewers would run on this branch, and why
  gauntlet reviewers --staged --reviewers security";

pub const MODEL: &str = "\
Examples:
  gauntlet model pull              fetch the default offline model (smollm2)
  gauntlet model pull gemma3-270m
  gauntlet model list";

pub const FIX: &str = "\
Examples:
  gauntlet fix                                     review, then fix each published finding
  gauntlet fix --from report.json --out patches/   fix the findings of a saved JSON report
  gauntlet fix --check 'cargo test' --apply";

pub const REFINE: &str = "\
Examples:
  gauntlet refine docs/design.md --goal 'a spec a new engineer can implement'
  gauntlet refine notes.md --goal 'shorter, same facts' --in-place";

pub const BACKTEST: &str = "\
Examples:
  gauntlet backtest mine --last 2000 --out corpus
  gauntlet backtest corpus --baseline --format html > backtest.html
  gauntlet backtest corpus --shard 1/4 --format json > shard1.json
  gauntlet backtest merge shard*.json";

pub const STATS: &str = "\
Examples:
  gauntlet stats                       the newest 50 merged or closed pull requests
  gauntlet stats --since 2026-01-01 --format html > stats.html
  gauntlet stats --keep-record .cache/gauntlet

Environment: GITHUB_TOKEN, GITLAB_TOKEN or AZURE_DEVOPS_TOKEN reads the pull requests.";

pub const RULES: &str = "\
Examples:
  gauntlet rules lock
  gauntlet rules verify
  gauntlet rules draft --escape 3f2a9c0 --out draft.md
  gauntlet rules draft --from-stats";

pub const COMPLETIONS: &str = "\
Examples:
  gauntlet completions bash > ~/.local/share/bash-completion/completions/gauntlet
  gauntlet completions zsh > ~/.zfunc/_gauntlet        (with fpath+=~/.zfunc in .zshrc)
  gauntlet completions fish > ~/.config/fish/completions/gauntlet.fish
  gauntlet completions powershell >> $PROFILE";

pub const MAN: &str = "\
Examples:
  gauntlet man | man -l -
  gauntlet man /usr/local/share/man/man1";
