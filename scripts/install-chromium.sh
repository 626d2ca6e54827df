#!/usr/bin/env bash
# Installs Chromium from Debian's packages for the browser test of the HTML reports
# (tests/it/html.rs). Idempotent: returns at once when a Chromium is already on PATH.
# Needs root (or sudo) and apt; elsewhere it says so and exits 0, and the browser test
# is then skipped with a message.
set -euo pipefail
for name in chromium chromium-browser; do
    if command -v "$name" >/dev/null 2>&1; then
        echo "install-chromium: $(command -v "$name") is installed"
        exit 0
    fi
done
if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-chromium: no apt-get here; install Chromium yourself to run the browser test" >&2
    exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        sudo="sudo"
    else
        echo "install-chromium: not root and no sudo; the browser test will be skipped" >&2
        exit 0
    fi
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
echo "install-chromium: installed $(command -v chromium)"
