#!/usr/bin/env bash
# Extracts the translatable strings of gpuwhy report, explain, check, compare,
# baseline and sweep into a PO
# template: po/xgettext.sh OUT.pot. Used by the gpuwhy-pot build target and
# by the catalog test, so both see the same keywords and sources.
set -euo pipefail
out=${1:?usage: po/xgettext.sh OUT.pot}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# Relative paths keep the locations in the template stable across checkouts.
sources=(lib/analysis/*.c lib/render/*.c src/cmd_report.c src/cmd_explain.c
  lib/check/*.c lib/compare/*.c lib/sources/xid.c src/cmd_check.c src/cmd_compare.c src/cmd_baseline.c
  src/cmd_sweep.c src/cmd_experiment.c)
# _() and N_() mark strings; the printf-like helpers mark their format
# argument, so xgettext flags those as c-format and msgfmt --check compares
# the directives of each translation with its msgid.
exec xgettext --language=C --from-code=UTF-8 \
  --keyword=_ --keyword=N_ --flag=_:1:pass-c-format \
  --flag=note:2:c-format --flag=interp:2:c-format \
  --flag=gw_check_reason:2:c-format --flag=gw_check_fix:2:c-format --flag=note_append:2:c-format \
  --flag=gw_cli_usage_error:2:c-format --flag=basis:3:c-format --flag=reason:2:c-format \
  --flag=fail:4:c-format --flag=gw_textf:3:c-format \
  --add-comments=TRANSLATORS: --add-location=file --sort-by-file \
  --package-name=gpuwhy --package-version="${GW_VERSION:-0.1.0}" \
  --msgid-bugs-address="the gpuwhy issue tracker" --copyright-holder="the gpuwhy authors" \
  -o "$out" "${sources[@]}"
