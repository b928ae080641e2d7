#!/usr/bin/env bash
# Installs Debian's chromium for the browser tests when it is missing (CI machines start without it).
set -euo pipefail
command -v chromium >/dev/null 2>&1 && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
else
  echo "ensure_chromium: chromium missing and cannot be installed (not root or no apt-get)" >&2
  exit 1
fi
