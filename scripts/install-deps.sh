#!/usr/bin/env bash
# Installs the Debian packages gpuwhy needs. Safe to re-run.
#   scripts/install-deps.sh [--test] [--fuzz]
#     (none)  what building needs: the README's first command (build, man pages, catalogs, the example report)
#     --test  also what the tests need: cmocka, the sqlite3 shell, jq, python3-jsonschema, man-db, Prometheus, chromium...
#     --fuzz  also clang and its libFuzzer/sanitizer runtime, for the fuzz targets (GW_FUZZ=ON)
set -euo pipefail
test=0 fuzz=0
for arg in "$@"; do
  case $arg in
  --test) test=1 ;;
  --fuzz) fuzz=1 ;;
  *)
    sed -n '2,6p' "$0" >&2
    exit 2
    ;;
  esac
done
packages=(
  gcc make cmake pkg-config         # toolchain
  libsqlite3-dev                    # recordings
  libncurses-dev                    # gpuwhy watch
  gettext                           # message catalogs
  zlib1g-dev                        # gzip-compressed traces (gpuwhy import)
  libmicrohttpd-dev                 # gpuwhy serve
  xz-utils                          # the bundled recordings are stored as .db.xz, unpacked at configure time
  help2man                          # man pages from the --help texts (skipped with a message without it)
)
test_packages=(
  libcmocka-dev                     # unit tests (without it, cmake builds no tests)
  sqlite3                           # the sqlite3 shell the tests query recordings with
  libyajl-dev                       # reference JSON parser the import's reader is tested against (optional: the test skips without it)
  jq                                # import tests: kernel counts of real traces
  procps                            # ps/pkill used by the fault tests
  iproute2                          # ss: the exporter fault test checks which addresses listen
  python3 python3-jsonschema        # JSON checks in the shell tests, JSON Schema validation, the scenario scripts
  man-db bash-completion zsh        # installed man pages and shell completion (install test; zsh -n parses _gpuwhy)
  clang-format                      # scripts/check-format.sh
  prometheus curl                   # gpuwhy serve test: a real Prometheus server, promtool, HTTP queries
  chromium                          # HTML report test: headless rendering and screenshots
)
[ $test -eq 0 ] || packages+=("${test_packages[@]}")
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
