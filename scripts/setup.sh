#!/usr/bin/env bash
# `npm run setup`: installs what a fresh Debian/Ubuntu machine lacks (Chromium for the plan
# pictures, the colour emoji font), then the npm packages. Idempotent: a second run installs
# nothing and takes a second or two.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "setup: $*"; }

node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$node_major" -lt 20 ]; then
	say "Node.js 20 or newer is needed (found: $(node --version 2>/dev/null || echo none)); see https://nodejs.org" >&2
	exit 1
fi

# A browser configured by hand counts (the same variables the app reads).
has_chromium() {
	local configured="${LEARNHARNESS_CHROMIUM_PATH:-${PUPPETEER_EXECUTABLE_PATH:-}}"
	if [ -n "$configured" ]; then
		[ -x "$configured" ] && return 0
		say "warning: the configured browser $configured is not an executable file (LEARNHARNESS_CHROMIUM_PATH / PUPPETEER_EXECUTABLE_PATH)" >&2
	fi
	# Debian's chromium package installs /usr/bin/chromium.
	[ -x /usr/bin/chromium ] || command -v chromium >/dev/null 2>&1
}

# The package database knows for sure; without dpkg, look for the font file itself.
has_emoji_font() {
	if command -v dpkg-query >/dev/null 2>&1 &&
		[ "$(dpkg-query -W -f='${Status}' fonts-noto-color-emoji 2>/dev/null)" = "install ok installed" ]; then
		return 0
	fi
	[ -n "$(find /usr/share/fonts /usr/local/share/fonts -name 'NotoColorEmoji*' -print -quit 2>/dev/null)" ]
}

need=()
has_chromium || need+=(chromium)
has_emoji_font || need+=(fonts-noto-color-emoji)

if [ ${#need[@]} -gt 0 ]; then
	if ! command -v apt-get >/dev/null 2>&1; then
		say "missing ${need[*]}, and this is not a Debian-like system: install Chromium yourself and set LEARNHARNESS_CHROMIUM_PATH" >&2
		say "continuing; plan pictures fall back to a text outline until Chromium is installed" >&2
	else
		sudo=()
		if [ "$(id -u)" != "0" ]; then
			# Never prompt for a password from a script (CI would hang): passwordless sudo or nothing.
			if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo=(sudo -n); else sudo=(none); fi
		fi
		if [ "${sudo[0]:-}" = "none" ]; then
			say "missing ${need[*]}; install them as root:  sudo apt-get update && sudo apt-get install -y ${need[*]}" >&2
			say "continuing; plan pictures fall back to a text outline until Chromium is installed" >&2
		else
			say "installing ${need[*]} (Debian packages)"
			export DEBIAN_FRONTEND=noninteractive
			"${sudo[@]}" apt-get update -qq
			"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${need[@]}"
		fi
	fi
else
	say "chromium and the emoji font are installed"
fi

# The shared-store tests (and a local multi-process setup) use Redis and PostgreSQL on 127.0.0.1.
# Where they are installed but not running (a fresh CI machine after a reboot), start them; where
# they are not installed, those tests skip. Best effort: a failure here never fails the setup.
start_services() {
	if command -v redis-server >/dev/null 2>&1 && command -v redis-cli >/dev/null 2>&1; then
		if redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
			say "redis is running on 127.0.0.1:6379"
		else
			local rdir=/var/lib/redis
			[ -d "$rdir" ] && [ -w "$rdir" ] || rdir="${TMPDIR:-/tmp}"
			say "starting redis-server on 127.0.0.1:6379"
			redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no --dir "$rdir" >/dev/null 2>&1 ||
				say "warning: redis-server did not start; the Redis tests will skip" >&2
		fi
	fi
	if command -v pg_isready >/dev/null 2>&1 && command -v pg_ctlcluster >/dev/null 2>&1; then
		if pg_isready -q -h 127.0.0.1 -p 5432; then
			say "postgresql is running on 127.0.0.1:5432"
		elif [ "$(id -u)" = "0" ] && [ -d /etc/postgresql ]; then
			local version
			version=$(ls /etc/postgresql | head -n 1)
			say "starting postgresql $version"
			pg_ctlcluster --skip-systemctl-redirect "$version" main start >/dev/null 2>&1 ||
				say "warning: postgresql did not start; the PostgreSQL tests will skip" >&2
		else
			say "postgresql is installed but not running; start it as root to run its tests" >&2
		fi
	fi
}
start_services

# puppeteer is aliased to puppeteer-core (see package.json): nothing downloads a browser.
export PUPPETEER_SKIP_DOWNLOAD=1
stamp=node_modules/.lh-lock
if [ -f node_modules/.package-lock.json ] && cmp -s package-lock.json "$stamp"; then
	say "npm packages up to date"
elif npm ci --no-audit --no-fund; then
	cp package-lock.json "$stamp"
else
	say "npm ci failed. If sqlite3 could not be built (no prebuilt binary for this machine), install the" >&2
	say "build tools and run setup again:  sudo apt-get install -y python3 make g++" >&2
	exit 1
fi
say "done. Next: npm start (a lesson in this terminal), npm test, or npx learnharness doctor"
