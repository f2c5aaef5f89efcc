#!/bin/bash
# The whole test suite: installs what it needs, checks formatting, vet,
# staticcheck and generated files, then runs every Go test with the race
# detector and the browser tests inside a fresh network namespace
# (unshare -n: only loopback exists, so no test packet can leave the machine).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:$(go env GOPATH)/bin"
export CI="${CI:-true}"
# No session bus unless a test starts its own (testpeer.WithKeyring): a
# client library that finds none may otherwise auto-launch one whose keyring
# is locked, and keep using it for the rest of the test process.
export DBUS_SESSION_BUS_ADDRESS="unix:path=/nonexistent/softphone-tests"

bash scripts/install-test-deps.sh

echo "== gofmt"
bad=$(gofmt -l $(git ls-files '*.go'))
[ -z "$bad" ] || { echo "not gofmt'ed: $bad"; exit 1; }
echo "== go vet"
go vet ./...
echo "== staticcheck"
staticcheck ./...
echo "== generated files are current"
go tool templ generate -path views >/dev/null
if [ -f package.json ]; then npm run --silent build >/dev/null; fi
git diff --exit-code --stat -- views static || { echo "generated files are stale: run 'go tool templ generate -path views' and 'npm run build', and commit"; exit 1; }

echo "== openapi.json: Redocly's recommended rules; the typed client generated from it is current and the browser tests' calls type-check against it"
REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true npm run --silent lint:openapi
npm run --silent gen:api >/dev/null
git diff --exit-code --stat -- server/api/e2e/openapi.d.ts || { echo "server/api/e2e/openapi.d.ts is stale: run 'npm run gen:api' and commit"; exit 1; }
npm run --silent typecheck:api

echo "== go test -race (inside unshare -n)"
go build -o /dev/null ./cmd/softphone
unshare -n env GOFLAGS=-mod=mod GOPROXY=off bash -c 'ip link set lo up && go test -race -count=1 -timeout 20m ./...'

echo "== release builds: six static targets (scripts/release.sh)"
rel=$(mktemp -d)
DIST="$rel" sh scripts/release.sh ci-check
rm -rf "$rel"

if [ -x scripts/e2e.sh ]; then
  echo "== browser tests (inside unshare -n)"
  bash scripts/e2e.sh
fi
