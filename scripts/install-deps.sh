#!/usr/bin/env bash
# Installs the Debian packages gpuwhy needs to build and test. Safe to re-run.
#   scripts/install-deps.sh [--fuzz]
#     --fuzz  also clang and its libFuzzer/sanitizer runtime, for the fuzz targets (GW_FUZZ=ON)
set -euo pipefail
fuzz=0
for arg in "$@"; do
  case $arg in
  --fuzz) fuzz=1 ;;
  *)
    sed -n '2,4p' "$0" >&2
    exit 2
    ;;
  esac
done
packages=(
  gcc make cmake pkg-config         # toolchain
  libsqlite3-dev sqlite3            # recordings (and the sqlite3 shell the tests query with)
  libncurses-dev                    # gpuwhy watch
  libcmocka-dev                     # unit tests
  gettext                           # message catalogs
  libyajl-dev                       # reference JSON parser the import's reader is tested against (optional: the test skips without it)
  zlib1g-dev                        # gzip-compressed traces (gpuwhy import)
  jq                                # import tests: kernel counts of real traces
  xz-utils                          # the test recordings are stored as .db.xz, unpacked at configure time
  libmicrohttpd-dev                 # gpuwhy serve
  procps                            # ps/pkill used by the fault tests
  iproute2                          # ss: the exporter fault test checks which addresses listen
  python3                           # JSON checks in the shell tests, the scenario scripts
  clang-format
  prometheus curl                   # gpuwhy serve test: a real Prometheus server, promtool, HTTP queries
  chromium                          # HTML report test: headless rendering and screenshots
)
# Debian's default clang and the matching runtime (libclang_rt.fuzzer, not a dependency of clang).
[ $fuzz -eq 0 ] || packages+=(clang libclang-rt-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
