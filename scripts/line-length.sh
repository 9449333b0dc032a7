#!/usr/bin/env bash
# Lines over 120 characters stay under 2 % of the project's Swift lines. Wrap a new long line
# with `swift format --configuration .swift-format` (the project's line length and indent);
# nothing else is enforced, so nothing is mass-reformatted. What remains long is mostly test
# names and messages that are one string.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 - <<'PY'
import pathlib, sys
files = [p for root in ("Sources", "Tests", "Benchmarks", "Plugins") for p in pathlib.Path(root).rglob("*.swift")]
lines = [(str(p), n + 1, line) for p in files for n, line in enumerate(p.read_text(encoding="utf-8").split("\n"))]
long = [(p, n) for p, n, line in lines if len(line) > 120]
print(f"lines over 120 characters: {len(long)} of {len(lines)} ({len(long) * 100 / len(lines):.1f} %)")
if len(long) * 100 >= len(lines) * 2:
    for p, n in long[:50]: print(f"  {p}:{n}")
    sys.exit("that is 2 % or more of the Swift lines: wrap the new ones")
PY
