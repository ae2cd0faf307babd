#!/usr/bin/env bash
# Builds the Kotlin core (scripts/build.sh) and runs its JUnit unit tests: every *Test class in
# core/test. Arguments, when given, are the test classes to run instead (e.g. app.arus.sdk.LineDecoderTest).
# The engine integration test (app.arus.sdk.EngineIntegration) needs a local testnet, panel and
# broadcaster: test/mobile/android.test.ts runs it.
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
CP=$(bash "$HERE/scripts/build.sh")
if [ $# -gt 0 ]; then
  classes=("$@")
else
  mapfile -t classes < <(cd "$HERE/build/test" && find . -name '*Test.class' ! -name '*$*' | sed 's|^\./||; s|\.class$||; s|/|.|g' | LC_ALL=C sort)
fi
echo "[android] running ${#classes[@]} JUnit classes" >&2
exec java -cp "$CP" -Darus.root="$ROOT" org.junit.runner.JUnitCore "${classes[@]}"
