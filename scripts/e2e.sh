#!/bin/bash
# Browser tests inside a fresh network namespace: the pages' working day
# (playwright-core driving Debian's chromium against the real binary,
# kamailio and baresip), the audio of calls checked by content (audio.mjs),
# the live-call bar by keyboard at 1280 and 360 px (callbar.mjs),
# the Go tests that drive real Chromium (build tag "browser") and the tab's
# audio in Chromium and Firefox ESR, loopback-only and LAN (browsers.mjs),
# and its echo cancellation measured (echo.mjs).
# Screenshots land in test-artifacts/. Every part runs; the script fails
# when any of them failed.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(mktemp -d)/softphone
CGO_ENABLED=0 go build -o "$bin" ./cmd/softphone
mkdir -p test-artifacts
unshare -n env GOFLAGS=-mod=mod GOPROXY=off BIN="$bin" bash -c '
  ip link set lo up
  rc=0
  node server/web/e2e/day.mjs "$BIN" test-artifacts --full --day || rc=1
  # axe-core on every page, both themes, both languages; the welcome card
  # against kamailio; screenshots at 360 and 1280 px in test-artifacts/a11y/.
  node server/web/e2e/a11y.mjs "$BIN" test-artifacts || rc=1
  node server/web/e2e/audio.mjs "$BIN" test-artifacts || rc=1
  node server/web/e2e/origins.mjs "$BIN" test-artifacts || rc=1
  node server/web/e2e/office.mjs "$BIN" test-artifacts || rc=1
  node server/web/e2e/callbar.mjs "$BIN" test-artifacts || rc=1
  # A call that stops ringing takes its desktop notification away.
  node server/web/e2e/notify.mjs "$BIN" || rc=1
  # A microphone the browser refuses is said, and asked for no more.
  node server/web/e2e/micrefused.mjs "$BIN" || rc=1
  # A copy of the phone page in another tab is a tab of its own.
  node server/web/e2e/tabcopy.mjs "$BIN" || rc=1
  # The phone killed, then started again, under an open page (Chromium and
  # Firefox ESR): the page says so; a contacts file too large is refused in words.
  node server/web/e2e/phonegone.mjs "$BIN" || rc=1
  # The Call handling section of the Settings page (Chromium and Firefox ESR): a
  # bad silence timeout refused in words, saving nothing; 0 saved and kept.
  node server/web/e2e/handling.mjs "$BIN" || rc=1
  # A ring held by the autoplay policy says so; one click lets it sound.
  node server/web/e2e/ringheld.mjs "$BIN" || rc=1
  # A microphone switched during a fallback call leaves no old chain behind.
  node server/web/e2e/micswitch.mjs "$BIN" || rc=1
  # The flashing title of a ringing tab keeps the title of the page after an in-page navigation.
  node server/web/e2e/ringtitle.mjs "$BIN" || rc=1
  # A click on a call notification with no phone page open opens one.
  node server/web/e2e/swopen.mjs "$BIN" || rc=1
  go test -count=1 -tags browser -run Chrome ./audio/ || rc=1
  # The audio of the tab in the browsers users have (issue 13): Chromium without
  # the loopback flag and Firefox ESR with default prefs, on a machine with
  # loopback only and with a LAN-like address (scripts/netns.sh).
  for mode in lo lan; do
    for b in chromium firefox; do
      sh scripts/netns.sh "$mode" node server/web/e2e/browsers.mjs "$BIN" "$b" test-artifacts || rc=1
      # Echo cancellation measured: the speaker looped into the microphone.
      sh scripts/netns.sh "$mode" node server/web/e2e/echo.mjs "$BIN" "$b" || rc=1
    done
  done
  exit $rc
'
