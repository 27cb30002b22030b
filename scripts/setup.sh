#!/usr/bin/env bash
# Installs what a fresh Debian machine lacks, then the npm packages. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ] || need+=(chromium)
[ -d /usr/share/fonts/truetype/noto ] && ls /usr/share/fonts/truetype/noto 2>/dev/null | grep -q NotoColorEmoji || need+=(fonts-noto-color-emoji)

if [ ${#need[@]} -gt 0 ]; then
	if [ "$(id -u)" = "0" ]; then
		echo "setup: installing ${need[*]} (Debian packages)"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq
		apt-get install -y -qq --no-install-recommends "${need[@]}"
	else
		echo "setup: missing ${need[*]}; run as root:  sudo apt-get update && sudo apt-get install -y ${need[*]}" >&2
		echo "setup: continuing; the plan picture falls back to a text outline until Chromium is installed" >&2
	fi
fi

# puppeteer is aliased to puppeteer-core (see package.json): nothing downloads a browser.
export PUPPETEER_SKIP_DOWNLOAD=1
if [ -f node_modules/.package-lock.json ] && cmp -s package-lock.json node_modules/.lh-lock 2>/dev/null; then
	echo "setup: npm packages up to date"
else
	npm ci --no-audit --no-fund
	cp package-lock.json node_modules/.lh-lock
fi
echo "setup: done"
