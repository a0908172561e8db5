#!/usr/bin/env bash
# Idempotent setup: installs the Debian packages Mirage needs when they are
# missing (with sudo when not root), then downloads the Go modules.
# --with-browser (make test) adds Debian's chromium, which the page tests
# (internal/browsercheck: layout, overflow, label boxes) drive headless.
set -euo pipefail

packages=(libxgboost-dev python3-xgboost python3-onnx)
if [ "${1:-}" = "--with-browser" ] && ! command -v chromium >/dev/null && [ ! -x /usr/bin/chromium ]; then
	packages+=(chromium)
fi
missing=()
for p in "${packages[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done
if ((${#missing[@]})); then
	if command -v apt-get >/dev/null; then
		sudo=""
		if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
		echo "setup: installing ${missing[*]}" >&2
		$sudo apt-get update -qq
		DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
	else
		echo "setup: apt-get not found; install ${missing[*]} by hand (needed by later stages)" >&2
	fi
fi
if ! command -v go >/dev/null; then
	echo "setup: Go 1.26 or newer is required (https://go.dev/dl/)" >&2
	exit 1
fi
go mod download
