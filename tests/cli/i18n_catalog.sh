#!/bin/bash
# The zh_CN catalog stays complete: po/gpuwhy.pot holds exactly the strings
# the sources mark today, and po/zh_CN.po translates every one of them, none
# fuzzy, none empty, none left as the English text, with the same printf
# directives as its msgid.
source "$(dirname "$0")/lib.bash"
: "${GW_SOURCE_DIR:?GW_SOURCE_DIR must point at the source tree}"
for tool in xgettext msgfmt msgcmp msgexec msggrep; do
  command -v "$tool" >/dev/null || { echo "$tool missing (package gettext): skipped"; exit 77; }
done
po_dir="$GW_SOURCE_DIR/po"

# The template against a fresh extraction: nothing missing, nothing stale.
bash "$po_dir/xgettext.sh" "$SCRATCH/fresh.pot"
msgcmp --use-untranslated "$po_dir/gpuwhy.pot" fresh.pot ||
  fail "po/gpuwhy.pot lacks strings the sources mark: cmake --build B --target gpuwhy-pot"
msgcmp --use-untranslated fresh.pot "$po_dir/gpuwhy.pot" ||
  fail "po/gpuwhy.pot holds strings no source marks any more: cmake --build B --target gpuwhy-pot"
nids=$(grep -c '^msgid ' fresh.pot)
nids=$((nids - 1)) # the header entry
assert_ge "marked strings" "$nids" 150

# check_catalog PO: 0 when PO translates every string of fresh.pot.
check_catalog() {
  local po=$1 stats translated
  # --check: directives equal to the msgid's; --statistics counts the rest.
  stats=$(LC_ALL=C msgfmt --check --statistics -o /dev/null "$po" 2>&1) || {
    echo "$stats"
    return 1
  }
  case $stats in
  *fuzzy* | *untranslated*)
    echo "$po: $stats"
    return 1
    ;;
  esac
  translated=${stats%% translated message*}
  if [ "$translated" != "$nids" ]; then
    echo "$po: $translated translated, the sources mark $nids"
    return 1
  fi
  # every string of the sources is there, translated (fuzzy ones do not count)
  msgcmp "$po" fresh.pot || return 1
  # a msgstr equal to its msgid was copied, not translated
  local same
  same=$(msgexec -i "$po" sh -c '[ -z "$MSGEXEC_MSGID" ] || [ "$(cat)" != "$MSGEXEC_MSGID" ] || printf "%s\n" "$MSGEXEC_MSGID"')
  if [ -n "$same" ]; then
    echo "$po: left in English: $same"
    return 1
  fi
  return 0
}
check_catalog "$po_dir/zh_CN.po" || fail "po/zh_CN.po is incomplete"

# The check itself catches each kind of gap: an emptied, a fuzzy, a copied
# and a directive-changing translation of one message.
msgid='GPU %d: %d Xid error(s) in the kernel log'
grep -qF "msgid \"$msgid\"" "$po_dir/zh_CN.po" || fail "probe message missing from po/zh_CN.po"
probe() { # probe NAME AWK-PROGRAM: the catalog edited by the program must fail the check
  awk -v id="msgid \"$msgid\"" "$2" "$po_dir/zh_CN.po" >"$1.po"
  cmp -s "$1.po" "$po_dir/zh_CN.po" && fail "probe $1 did not change the catalog"
  if check_catalog "$1.po" >"$1.log" 2>&1; then
    fail "a catalog with a $1 translation passed the check"
  fi
}
probe empty '$0 == id { print; getline; print "msgstr \"\""; next } { print }'
probe fuzzy '$0 == id { print "#, fuzzy"; print; next } { print }'
probe copied '$0 == id { print; getline; print "msgstr \"GPU %d: %d Xid error(s) in the kernel log\""; next } { print }'
probe directive '$0 == id { print; getline; sub(/%d 个/, "%s 个"); print; next } { print }'
echo "catalog complete: $nids messages"
