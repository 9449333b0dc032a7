#!/usr/bin/env bash
# Installs the Debian packages the gateway builds and runs with, when missing.
# Usage: scripts/install-deps.sh [--with-test-tools]
set -euo pipefail
packages=(redis-server libhiredis-dev libsqlite3-dev libssl-dev libcurl4-openssl-dev)
if [[ "${1:-}" == "--with-test-tools" ]]; then packages+=(wrk postgresql redis-sentinel openssl nginx chromium chromium-driver fonts-ipafont-gothic iproute2 curl nftables); fi
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if [[ "${1:-}" == "--with-test-tools" ]]; then
  # Python test tools go into a virtual environment under .build/ (never the system Python),
  # created once and rebuilt only when scripts/test-requirements.txt changes. scripts/test.sh
  # puts its bin/ first on PATH.
  venv=.build/test-venv
  want=$(sha256sum scripts/test-requirements.txt | cut -d' ' -f1)
  if [[ ! -x "$venv/bin/python3" || "$(cat "$venv/requirements.sha256" 2>/dev/null)" != "$want" ]]; then
    echo "test tools: installing scripts/test-requirements.txt into $venv"
    if ! python3 -m venv --clear "$venv" 2>/dev/null; then
      SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
      $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-venv >/dev/null
      python3 -m venv --clear "$venv"
    fi
    "$venv/bin/python3" -m pip install --quiet --disable-pip-version-check -r scripts/test-requirements.txt
    echo "$want" >"$venv/requirements.sha256"
  fi
fi
