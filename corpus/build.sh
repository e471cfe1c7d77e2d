#!/usr/bin/env bash
# Rebuild every case's repository bundle from its sources:
#   src/CASE/base/     the repository before the change (or src/CASE/same_base_as
#                      naming another case whose base it shares)
#   src/CASE/head/     files the change adds or rewrites, laid over the base
#   src/CASE/message   the change's commit message
# and write CASE/repo.bundle with two branches: `main` (the base) and `change`
# (one commit on top). Authors and dates are fixed so commit ids are stable.
#
# Usage: corpus/build.sh [CASE...]    (default: every case under src/)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
export GIT_AUTHOR_NAME="Corpus Author" GIT_AUTHOR_EMAIL="author@corpus.invalid"
export GIT_COMMITTER_NAME="Corpus Author" GIT_COMMITTER_EMAIL="author@corpus.invalid"
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1

build() {
  local name="$1" src="$here/src/$1" base
  base="$src/base"
  if [[ -f "$src/same_base_as" ]]; then
    base="$here/src/$(tr -d '[:space:]' < "$src/same_base_as")/base"
  fi
  [[ -d "$base" ]] || { echo "build.sh: $name: no base folder ($base)" >&2; return 1; }
  [[ -d "$src/head" ]] || { echo "build.sh: $name: no head folder" >&2; return 1; }
  [[ -f "$src/message" ]] || { echo "build.sh: $name: no commit message file" >&2; return 1; }

  local work
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' RETURN
  git -C "$work" init -q -b main
  cp -R "$base/." "$work/"
  git -C "$work" add -A
  GIT_AUTHOR_DATE="2024-05-02T09:00:00Z" GIT_COMMITTER_DATE="2024-05-02T09:00:00Z" \
    git -C "$work" commit -q -m "Import the project"
  git -C "$work" checkout -q -b change
  cp -R "$src/head/." "$work/"
  git -C "$work" add -A
  GIT_AUTHOR_DATE="2024-05-06T14:30:00Z" GIT_COMMITTER_DATE="2024-05-06T14:30:00Z" \
    git -C "$work" commit -q -F "$src/message"
  mkdir -p "$here/$name"
  git -C "$work" bundle create -q "$here/$name/repo.bundle" main change
  [[ -f "$here/$name/case.toml" ]] || echo "build.sh: $name: warning: no case.toml yet" >&2
  echo "built $name/repo.bundle"
}

if [[ $# -gt 0 ]]; then
  cases=("$@")
else
  cases=()
  for d in "$here"/src/*/; do cases+=("$(basename "$d")"); done
fi
for c in "${cases[@]}"; do build "$c"; done
