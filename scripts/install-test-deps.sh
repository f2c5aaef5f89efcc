#!/bin/sh
# Installs what the tests need on Debian 12 (as root, or with sudo): the real
# SIP peers, the keyring, the browser, the audio tools, the Go linters and the
# npm packages. Safe to run again.
set -eu
cd "$(dirname "$0")/.."
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
PKGS="sip-tester baresip-core kamailio tshark gnome-keyring dbus libsecret-tools sox libsox-fmt-all
      chromium fonts-liberation iproute2 espeak-ng pocketsphinx pocketsphinx-en-us wrk python3
      kamailio-presence-modules kamailio-sqlite-modules
      wine64 gcc-mingw-w64-x86-64
      kamailio-tls-modules coturn iptables linphone-cli
      firefox-esr pulseaudio pulseaudio-utils"
missing=""
for p in $PKGS; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  # shellcheck disable=SC2086
  $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
go mod download
go install honnef.co/go/tools/cmd/staticcheck@v0.7.0
if [ -f package-lock.json ]; then npm ci --no-audit --no-fund --silent; fi
