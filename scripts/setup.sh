#!/usr/bin/env bash
# Installs whatever a fresh machine (Node 20 + npm) lacks: pnpm, the workspace
# dependencies, Debian ffmpeg and Chromium (and the test tools, a JDK among them); then builds every package.
# Safe to run again: every step is skipped when already satisfied.
set -euo pipefail
cd "$(dirname "$0")/.."

PNPM_VERSION=10.34.9
log() { printf '[setup] %s\n' "$*" >&2; }

apt_install() {
  # apt_install <command-to-check> <debian-package> [extra apt flags]
  local cmd=$1 pkg=$2; shift 2
  if command -v "$cmd" >/dev/null 2>&1; then return 0; fi
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    log "installing Debian package '$pkg'"
    if [ -z "${ARUS_APT_UPDATED:-}" ]; then
      DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
      export ARUS_APT_UPDATED=1
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" "$pkg" >/dev/null
  else
    log "missing '$cmd': install the Debian package '$pkg' (as root: apt-get update && apt-get install -y $pkg) and run again"
    exit 1
  fi
}

apt_install_file() {
  # apt_install_file <file-to-check> <debian-package> [extra apt flags]: for packages without a command (jars)
  local file=$1 pkg=$2; shift 2
  if [ -e "$file" ]; then return 0; fi
  apt_install "$file" "$pkg" "$@"
}

# 1. pnpm, pinned (pnpm 11 needs Node 22; corepack cannot verify signatures here).
if command -v pnpm >/dev/null 2>&1 && [ "$(pnpm -v 2>/dev/null)" = "$PNPM_VERSION" ]; then
  PNPM=pnpm
elif [ -x .tools/node_modules/.bin/pnpm ]; then
  PNPM="$PWD/.tools/node_modules/.bin/pnpm"
else
  log "installing pnpm@$PNPM_VERSION"
  if npm i -g "pnpm@$PNPM_VERSION" >/dev/null 2>&1 && [ "$(pnpm -v 2>/dev/null)" = "$PNPM_VERSION" ]; then
    PNPM=pnpm
  else
    log "global install not possible; installing pnpm locally into .tools/"
    npm i --no-save --prefix .tools "pnpm@$PNPM_VERSION" >/dev/null
    PNPM="$PWD/.tools/node_modules/.bin/pnpm"
  fi
fi

# 2. System packages: ffmpeg always; faketime (a reseller process living weeks ahead in the
#    expiry tests); openssh (the tool server's tunnel tests); Chromium for the browser tests
#    (ARUS_SKIP_CHROMIUM=1 skips it).
apt_install ffmpeg ffmpeg --no-install-recommends
apt_install ffprobe ffmpeg --no-install-recommends
apt_install faketime faketime --no-install-recommends
# A throwaway sshd on 127.0.0.1 for the tool server's SSH tests (the system's sshd is never started).
apt_install /usr/sbin/sshd openssh-server --no-install-recommends
apt_install ssh openssh-client --no-install-recommends
# patch(1): the React Native binding's react-native-bare-kit patch is checked against the published package.
apt_install patch patch --no-install-recommends
if [ -z "${ARUS_SKIP_CHROMIUM:-}" ]; then apt_install chromium chromium --no-install-recommends; fi
# The network lab (packages/lab): nftables for its NAT routers, gcc for its delay stage
# (iproute2's ip and tc are on every Debian machine).
apt_install nft nftables --no-install-recommends
apt_install gcc gcc --no-install-recommends
# The native Android SDK's Kotlin core (mobile/android): a JDK, JUnit 4 and Android's org.json
# (the Kotlin compiler itself comes from npm in mobile/android/scripts/build.sh).
apt_install java openjdk-17-jdk-headless --no-install-recommends
apt_install_file /usr/share/java/junit4.jar junit4 --no-install-recommends
apt_install_file /usr/share/java/com.android.json.jar libandroid-json-java --no-install-recommends

# 3. Workspace dependencies from the committed lockfile, then the build.
log "installing workspace dependencies"
CI=true "$PNPM" install --frozen-lockfile --reporter=silent >&2 || { log "pnpm install failed"; exit 1; }
log "building"
"$PNPM" exec tsc -b
echo "$PNPM"
