# Shared helpers for the shell tests: a scratch folder and assertions.
set -euo pipefail
: "${GW_BIN:?GW_BIN must point at the gpuwhy binary}"
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT
cd "$SCRATCH"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}
# assert_ge NAME VALUE MIN
assert_ge() { awk -v v="$2" -v m="$3" 'BEGIN { exit !(v + 0 >= m + 0) }' || fail "$1 = $2, expected >= $3"; }
assert_eq() { [ "$2" = "$3" ] || fail "$1 = '$2', expected '$3'"; }
q() { sqlite3 -batch -noheader "$1" "$2"; }
