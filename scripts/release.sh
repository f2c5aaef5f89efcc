#!/bin/sh
# scripts/release.sh [VERSION]: the release builds, one static binary
# (CGO_ENABLED=0) per target, in dist/:
#   softphone-VERSION-{linux,darwin}-{amd64,arm64}, softphone-VERSION-windows-{amd64,arm64}.exe
# and dist/SHA256SUMS. Each reports `softphone version` as
# "softphone VERSION (release)". VERSION defaults to `git describe`.
# Checks every binary: built with CGO_ENABLED=0 for its target (go version
# -m) with the version stamped in; the one for this machine is run.
set -eu
cd "$(dirname "$0")/.."
VERSION=${1:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
case "$VERSION" in *[!A-Za-z0-9._+-]*) echo "release: bad version '$VERSION'" >&2; exit 2 ;; esac
OUT=${DIST:-dist}
TARGETS=${TARGETS:-"linux/amd64 linux/arm64 windows/amd64 windows/arm64 darwin/amd64 darwin/arm64"}
mkdir -p "$OUT"
LDFLAGS="-s -w -X main.version=$VERSION -X main.installMethod=release"
for t in $TARGETS; do
  os=${t%/*} arch=${t#*/}
  bin="$OUT/softphone-$VERSION-$os-$arch"
  [ "$os" = windows ] && bin="$bin.exe"
  echo "build $bin"
  CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -ldflags "$LDFLAGS" -o "$bin" ./cmd/softphone
  info=$(go version -m "$bin")
  for want in "build	CGO_ENABLED=0" "build	GOOS=$os" "build	GOARCH=$arch"; do
    case "$info" in *"$want"*) ;; *) echo "release: $bin: missing '$want' in go version -m" >&2; exit 1 ;; esac
  done
  # -trimpath keeps -ldflags out of the build info: look for the stamp itself.
  LC_ALL=C grep -a -q -- "$VERSION" "$bin" || { echo "release: $bin: version $VERSION not stamped in" >&2; exit 1; }
  if [ "$os" = "$(go env GOHOSTOS)" ] && [ "$arch" = "$(go env GOHOSTARCH)" ]; then
    got=$("$bin" version)
    [ "$got" = "softphone $VERSION (release)" ] || { echo "release: $bin version says '$got'" >&2; exit 1; }
    echo "  $got"
  fi
done
(cd "$OUT" && sha256sum softphone-"$VERSION"-* > SHA256SUMS)
echo "release $VERSION: $(echo $TARGETS | wc -w) binaries in $OUT/"
