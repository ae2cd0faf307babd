#!/usr/bin/env bash
# Builds the native Android SDK's platform-free Kotlin core (core/src) and its JUnit tests
# (core/test) into mobile/android/build/ with the machine's JDK and the pinned kotlin-compiler
# from npm. Prints the runtime classpath (core, tests, kotlin-stdlib, org.json, JUnit) on stdout.
# The Android adapter (adapter/src) needs the Android SDK and is NOT compiled here.
# Cheap when nothing changed: a hash of the sources and the toolchain skips the compile.
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
ROOT=$(cd "$HERE/../.." && pwd)

KOTLIN_VERSION=2.1.0
KOTLIN_DIR="$ROOT/.tools/kotlin"
KOTLIN_HOME="$KOTLIN_DIR/node_modules/kotlin-compiler"
JAVA_LIBS=/usr/share/java
JSON_JAR="$JAVA_LIBS/com.android.json.jar"
JUNIT_JAR="$JAVA_LIBS/junit4.jar"
HAMCREST_JAR="$JAVA_LIBS/hamcrest-core.jar"
BUILD="$HERE/build"

log() { printf '[android] %s\n' "$*" >&2; }

# need <file-or-command> <debian-package>: installs the package as root when missing, else names it.
need() {
  local what=$1 pkg=$2
  if [ -e "$what" ] || command -v "$what" >/dev/null 2>&1; then return 0; fi
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    log "installing Debian package '$pkg'"
    if [ -z "${ARUS_APT_UPDATED:-}" ]; then
      DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
      export ARUS_APT_UPDATED=1
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$pkg" >/dev/null
  else
    log "missing '$what': install the Debian package '$pkg' (as root: apt-get update && apt-get install -y $pkg) and run again"
    exit 1
  fi
}

need java openjdk-17-jdk-headless
need "$JUNIT_JAR" junit4
need "$JSON_JAR" libandroid-json-java

# kotlin-compiler, pinned, into .tools/kotlin (gitignored); Debian's kotlin (1.3) is too old.
installed=$(sed -n 's/^  "version": "\(.*\)",$/\1/p' "$KOTLIN_HOME/package.json" 2>/dev/null || true)
if [ "$installed" != "$KOTLIN_VERSION" ]; then
  log "installing kotlin-compiler@$KOTLIN_VERSION into .tools/kotlin"
  rm -rf "$KOTLIN_DIR"
  mkdir -p "$KOTLIN_DIR"
  npm install --prefix "$KOTLIN_DIR" --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
    "kotlin-compiler@$KOTLIN_VERSION" >"$KOTLIN_DIR/install.log" 2>&1 \
    || { cat "$KOTLIN_DIR/install.log" >&2; log "npm install kotlin-compiler@$KOTLIN_VERSION failed"; exit 1; }
fi
KOTLINC="$KOTLIN_HOME/bin/kotlinc"
STDLIB="$KOTLIN_HOME/lib/kotlin-stdlib.jar"

CORE_CP="$JSON_JAR"
TEST_CP="$BUILD/core:$JSON_JAR:$JUNIT_JAR:$HAMCREST_JAR"
RUN_CP="$BUILD/core:$BUILD/test:$STDLIB:$JSON_JAR:$JUNIT_JAR:$HAMCREST_JAR"

mkdir -p "$BUILD"
exec 9>"$BUILD/.lock"
flock -w 600 9 || { log "another build holds $BUILD/.lock"; exit 1; }

stamp=$( {
  echo "kotlin $KOTLIN_VERSION; java $(java -version 2>&1 | head -1)"
  cd "$HERE" && find core -name '*.kt' | LC_ALL=C sort | xargs sha256sum
} | sha256sum | cut -d' ' -f1)
if [ -f "$BUILD/.stamp" ] && [ "$(cat "$BUILD/.stamp")" = "$stamp" ]; then
  log "build up to date"
else
  rm -rf "$BUILD/core" "$BUILD/test" "$BUILD/.stamp"
  mkdir -p "$BUILD/core" "$BUILD/test" # kotlinc fails confusingly when -d does not exist
  log "compiling the core (JDK + kotlin-stdlib + org.json only)"
  "$KOTLINC" -jvm-target 17 -Werror -cp "$CORE_CP" -d "$BUILD/core" "$HERE/core/src" 2>&1 | sed 's/^/[kotlinc] /' >&2
  [ "${PIPESTATUS[0]}" = 0 ] || { log "core compile failed"; exit 1; }
  log "compiling the tests"
  "$KOTLINC" -jvm-target 17 -Werror -cp "$TEST_CP" -d "$BUILD/test" "$HERE/core/test" 2>&1 | sed 's/^/[kotlinc] /' >&2
  [ "${PIPESTATUS[0]}" = 0 ] || { log "test compile failed"; exit 1; }
  echo "$stamp" > "$BUILD/.stamp"
fi
echo "$RUN_CP"
