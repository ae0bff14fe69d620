#!/usr/bin/env bash
# bench/compare/run.sh OLD_EXT NEW_EXT OUT [ROUNDS] — two builds of the
# extension side by side, interleaved (old, new, old, new…) so the shared
# machine's load falls on both alike; same monkbrowse binary and Chromium,
# Playwright MCP in every run for the ratios. Prints a Markdown table of
# medians per page and step (bench/compare/summary.py).
#
# Build the old extension from an older commit, e.g.:
#   git worktree add --detach /tmp/old <commit> && ln -s "$PWD/extension/node_modules" /tmp/old/extension/
#   (cd /tmp/old/extension && npm run build)
#   bench/compare/run.sh /tmp/old/extension/.output/chrome-mv3 extension/.output/chrome-mv3 /tmp/cmp 4
# Environment: COMPARE_REPS (5 per run), COMPARE_PAGES (signin,app),
# COMPARE_OLD_MONKBROWSE (a monkbrowse binary built at the old commit, for
# the old side; default: both sides use this tree's binary).
set -euo pipefail
cd "$(dirname "$0")/../.."
old=$(realpath "$1") new=$(realpath "$2") out=$3 rounds=${4:-4}
reps=${COMPARE_REPS:-5} pages=${COMPARE_PAGES:-signin,app}
mkdir -p "$out/bin"
(cd server && go build -o "$out/bin/monkbrowse" ./cmd/monkbrowse)
go build -o "$out/bin/monkbench" ./bench/cmd/monkbench
(cd bench/npm && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
rm -rf "$out/ext-old" "$out/ext-new" && cp -r "$old" "$out/ext-old" && cp -r "$new" "$out/ext-new"
cp "$out/bin/monkbrowse" "$out/bin/monkbrowse-new"
cp "${COMPARE_OLD_MONKBROWSE:-$out/bin/monkbrowse}" "$out/bin/monkbrowse-old"
for round in $(seq 1 "$rounds"); do
  for v in old new; do
    printf 'round %s: %s\n' "$round" "$v" >&2
    "$out/bin/monkbench" run -servers monkbrowse,playwright -pages "$pages" -reps "$reps" -warmup 1 -startup-runs 1 \
      -extension "$out/ext-$v" -monkbrowse "$out/bin/monkbrowse-$v" -old-extension -out "$out/$v-$round" > "$out/$v-$round.log" 2>&1
  done
done
python3 bench/compare/summary.py "$out"
