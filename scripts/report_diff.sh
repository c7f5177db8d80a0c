#!/bin/bash
# scripts/report_diff.sh BIN_BEFORE BIN_AFTER OUTDIR [LANG...]
# Renders every fixture recording (tests/fixtures/scenarios/*.db, and any
# other *.db under tests/fixtures) in json, text, md and html with two gpuwhy
# binaries, in English (LANG=C) and in each further LANG given (for example
# zh_CN.UTF-8), and prints which outputs differ with a short diff summary.
# The outputs stay under OUTDIR/before and OUTDIR/after. REPORT_DIFF_MATCH, a
# grep -E pattern, keeps only the fixtures whose path matches (a quick look). Exit status: 0 when
# every output is byte-identical, 1 when some differ, 2 for a usage error.
set -u
if [ $# -lt 3 ]; then
  echo "usage: $0 BIN_BEFORE BIN_AFTER OUTDIR [LANG...]" >&2
  exit 2
fi
before=$(realpath "$1") after=$(realpath "$2") outdir=$3
shift 3
langs=(C "$@")
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$outdir/before" "$outdir/after"
mapfile -t dbs < <(find "$root/tests/fixtures" -name '*.db' -type f | sort | grep -E "${REPORT_DIFF_MATCH:-.}")
ndiff=0 nsame=0
for db in "${dbs[@]}"; do
  rel=${db#"$root/tests/fixtures/"}
  name=${rel%.db}
  name=${name//\//_}
  for lang in "${langs[@]}"; do
    for fmt in json text md html; do
      out="$name.$lang.$fmt"
      for side in before after; do
        bin=$before
        [ "$side" = after ] && bin=$after
        # NO_COLOR and a file: no terminal colour; the report's own exit status is kept beside it
        env -u LANGUAGE -u LC_ALL -u LC_MESSAGES LANG="$lang" NO_COLOR=1 "$bin" report --format "$fmt" "$db" \
          >"$outdir/$side/$out" 2>"$outdir/$side/$out.err"
        echo "exit $?" >>"$outdir/$side/$out.err"
      done
      if cmp -s "$outdir/before/$out" "$outdir/after/$out" && cmp -s "$outdir/before/$out.err" "$outdir/after/$out.err"; then
        nsame=$((nsame + 1))
      else
        ndiff=$((ndiff + 1))
        lines=$(diff "$outdir/before/$out" "$outdir/after/$out" | grep -c '^[<>]')
        echo "DIFFERS $out ($lines lines changed)"
        # the first changed lines, cut to 160 characters: enough to tell a deliberate change from a slip
        diff "$outdir/before/$out" "$outdir/after/$out" | grep '^[<>]' | head -4 | cut -c1-160 | sed 's/^/    /'
        cmp -s "$outdir/before/$out.err" "$outdir/after/$out.err" ||
          echo "    stderr/exit: $(tr '\n' ' ' <"$outdir/before/$out.err") -> $(tr '\n' ' ' <"$outdir/after/$out.err")"
      fi
    done
  done
done
echo "$nsame identical, $ndiff differ (${#dbs[@]} recordings x ${#langs[@]} languages x 4 formats)"
[ "$ndiff" -eq 0 ]
