#!/usr/bin/env bash
# Installs the Debian packages gpuwhy needs to build and test. Safe to re-run.
set -euo pipefail
packages=(
  gcc make cmake pkg-config         # toolchain
  libsqlite3-dev sqlite3            # recordings (and the sqlite3 shell the tests query with)
  libncurses-dev                    # gpuwhy watch
  libcmocka-dev                     # unit tests
  gettext                           # message catalogs
  libyajl-dev                       # streaming JSON for large trace imports
  zlib1g-dev                        # gzip-compressed traces (gpuwhy import)
  jq                                # import tests: kernel counts of real traces
  libmicrohttpd-dev                 # gpuwhy serve
  procps                            # ps/pkill used by the fault tests
  iproute2                          # ss: the exporter fault test checks which addresses listen
  python3                           # JSON checks in the shell tests, the scenario scripts
  clang-format
  prometheus curl                   # gpuwhy serve test: a real Prometheus server, promtool, HTTP queries
  chromium                          # HTML report test: headless rendering and screenshots
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
