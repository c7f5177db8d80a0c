#!/usr/bin/env bash
# Extracts the translatable strings of every gpuwhy command into a PO
# template: po/xgettext.sh OUT.pot. Used by the gpuwhy-pot build target and
# by the catalog test, so both see the same keywords and sources.
set -euo pipefail
out=${1:?usage: po/xgettext.sh OUT.pot}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# Relative paths keep the locations in the template stable across checkouts.
sources=(lib/analysis/*.c lib/render/*.c src/cmd_report.c src/cmd_explain.c
  lib/check/*.c lib/compare/*.c lib/sources/xid.c lib/sources/clock_reasons.c src/cmd_check.c src/cmd_compare.c src/cmd_baseline.c
  src/cmd_sweep.c src/cmd_experiment.c lib/record/*.c lib/import/*.c lib/serve/*.c src/cmd_record.c
  src/cmd_watch.c src/cmd_import.c src/cmd_export.c src/cmd_serve.c src/main.c src/cli.c lib/core/json_stream.c)
# _() and N_() mark strings, gw_ngettext a singular and plural pair; the
# printf-like helpers mark their format argument, so xgettext flags those as
# c-format and msgfmt --check compares the directives of each translation
# with its msgid.
exec xgettext --language=C --from-code=UTF-8 \
  --keyword=_ --keyword=N_ --keyword=gw_ngettext:1,2 --flag=_:1:pass-c-format \
  --flag=gw_ngettext:1:pass-c-format --flag=gw_ngettext:2:pass-c-format \
  --flag=note:2:c-format \
  --flag=gw_check_reason:2:c-format --flag=gw_check_fix:2:c-format --flag=note_append:2:c-format \
  --flag=gw_cli_usage_error:2:c-format --flag=basis:3:c-format --flag=reason:2:c-format \
  --flag=fail:4:c-format --flag=gw_textf:3:c-format --flag=gw_err_set:2:c-format --flag=say:2:c-format \
  --flag=add:3:c-format \
  --add-comments=TRANSLATORS: --add-location=file --sort-by-file \
  --package-name=gpuwhy --package-version="${GW_VERSION:-0.1.0}" \
  --msgid-bugs-address="the gpuwhy issue tracker" --copyright-holder="the gpuwhy authors" \
  -o "$out" "${sources[@]}"
