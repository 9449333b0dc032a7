#!/usr/bin/env bash
# Regenerates the console's screenshots in docs/console/ (docs/console.md shows them): the
# browser test's full matrix (Tests/Interop/console_browser.py with CONSOLE_SCREENSHOTS=all):
# the overview, a release page with its chart and a push funnel, at 1280x800 and 360x740, in
# English and Japanese, light and dark. Needs what `make test` needs; starts its own redis-server.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --with-test-tools
export PATH="$PWD/.build/test-venv/bin:$PATH"
source scripts/lib.sh
start_redis
export REDIS_URL="redis://127.0.0.1:${redis_port}/0"
swift build --build-tests
rm -f .build/screenshots/console-*
CONSOLE_SCREENSHOTS=all .build/debug/SuperAppGatewayPackageTests.xctest --testing-library swift-testing \
  --filter ConsoleBrowserTests
mkdir -p docs/console
for page in overview release funnel; do
  for variant in en-light en-dark ja-light ja-dark; do
    for size in 1280x800 360x740; do
      cp ".build/screenshots/console-$page-$variant-$size.png" docs/console/
    done
  done
done
echo "docs/console: $(ls docs/console | wc -l) screenshots"
