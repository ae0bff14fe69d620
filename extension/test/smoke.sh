#!/usr/bin/env bash
# Smoke-tests the built extension in headless Chromium against
# test/smoke-server.mjs (no Go server needed). Needs /usr/bin/chromium and
# Node 20+. Run `npm run build` first. Prints "N passed, M failed".
set -euo pipefail
cd "$(dirname "$0")/.."
EXT="$PWD/.output/chrome-mv3"
PORT="${MONKBROWSE_SMOKE_PORT:-9555}"
test -f "$EXT/manifest.json" || { echo "build the extension first: npm run build" >&2; exit 2; }
PROFILE="$(mktemp -d)"
node --experimental-websocket --no-warnings test/smoke-server.mjs "$PORT" "$PROFILE" &
SERVER=$!
# /usr/bin/chromium is a wrapper script: exec the real binary so killing $BROWSER kills the browser.
CHROME=/usr/lib/chromium/chromium
test -x "$CHROME" || CHROME=chromium
"$CHROME" --headless=new --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$PROFILE" --load-extension="$EXT" --disable-extensions-except="$EXT" \
  --remote-debugging-port=0 about:blank >/dev/null 2>&1 &
BROWSER=$!
rc=0
wait "$SERVER" || rc=$?
kill "$BROWSER" 2>/dev/null || true
sleep 0.5
kill -9 "$BROWSER" 2>/dev/null || true
wait "$BROWSER" 2>/dev/null || true
rm -rf "$PROFILE"
exit "$rc"
