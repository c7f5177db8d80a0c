#!/bin/bash
# cmake --install into a temporary prefix: the installed binary finds the
# tracer (record --trace) and the catalogs (a zh_CN report) relative to
# itself, and record --trace leaves no spool folder (X.db.trace) behind; the
# man pages (one per command, `man gpuwhy-report` works), bash and zsh
# completion, the docs, the licence and deploy/ are in place.
source "$(dirname "$0")/lib.bash"
: "${GW_FIXTURES:?GW_FIXTURES must point at tests/fixtures}"
build=$(dirname "$GW_BIN")
[ -f "$build/cmake_install.cmake" ] || { echo "no cmake_install.cmake beside $GW_BIN: skipped"; exit 77; }
cmake --install "$build" --prefix "$SCRATCH/prefix" >install.log 2>&1 || fail "cmake --install failed: $(tail -3 install.log)"
bin="$SCRATCH/prefix/bin/gpuwhy"
[ -x "$bin" ] || fail "no bin/gpuwhy under the prefix"
clean_env=(env -u GPUWHY_TRACER_LIB -u GPUWHY_LOCALEDIR -u LANGUAGE -u LC_ALL -u LC_MESSAGES)

# the tracer, when this build has one: found under <prefix>/lib/gpuwhy
if [ -f "$build/tracer/libgpuwhy-tracer.so" ]; then
  [ -f "$SCRATCH/prefix/lib/gpuwhy/libgpuwhy-tracer.so" ] || fail "the tracer is not installed in lib/gpuwhy"
  mkdir run && cd run
  # GPUWHY_TRACE_PRELOAD=0: a sanitizer-built tracer cannot be preloaded into
  # an uninstrumented program (the sanitizer runtime must come first).
  "${clean_env[@]}" LANG=C GPUWHY_TRACE_PRELOAD=0 "$bin" record --trace=full -o traced.db --nvml-lib "$GW_FAKE_NVML" -- true >rec.log 2>&1 ||
    fail "record --trace from the prefix failed: $(tail -3 rec.log)"
  [ -s traced.db ] || fail "no recording"
  [ "$(q traced.db "select value from meta where key = 'trace_mode'")" = full ] || fail "trace_mode not recorded"
  [ ! -e traced.db.trace ] || fail "record --trace left its spool folder traced.db.trace"
  cd ..
else
  echo "note: no tracer in this build; the tracer part is skipped"
fi

# the catalogs: a Chinese report from the installed binary alone
"${clean_env[@]}" LANG=zh_CN.UTF-8 "$bin" report "$GW_FIXTURES/scenarios/launch_tiny_ops.db" >zh.txt
grep -q "速度受限于内核启动" zh.txt || fail "the installed binary did not find its zh_CN catalog: $(head -3 zh.txt)"

# man pages: one per command of `gpuwhy --help`, when this build made them (help2man)
prefix=$SCRATCH/prefix
if [ -d "$build/man" ]; then
  commands=$("$bin" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }')
  [ -n "$commands" ] || fail "no commands in gpuwhy --help"
  [ -f "$prefix/share/man/man1/gpuwhy.1" ] || fail "no share/man/man1/gpuwhy.1"
  for c in $commands; do
    [ -s "$prefix/share/man/man1/gpuwhy-$c.1" ] || fail "no man page for gpuwhy $c"
  done
  if command -v man >/dev/null; then
    MANPATH=$prefix/share/man MANWIDTH=100 man gpuwhy-report >man.txt 2>man.err || fail "man gpuwhy-report: $(cat man.err)"
    grep -q "^NAME" man.txt && grep -q "gpuwhy-report - where each GPU" man.txt || fail "man gpuwhy-report: $(head -5 man.txt)"
    # the page is the --help text: every option of it is there
    for opt in $("$bin" report --help | grep -oE -- '--[a-z][a-z-]*' | sort -u); do
      grep -q -- "$opt" man.txt || fail "man gpuwhy-report lacks $opt of gpuwhy report --help"
    done
  else
    echo "note: man (man-db) not installed; the pages are checked as files only"
  fi
else
  echo "note: this build made no man pages (no help2man at configure)"
fi

# completion: installed where bash-completion and zsh look, and the bash one works when sourced
comp=$prefix/share/bash-completion/completions/gpuwhy
[ -f "$comp" ] || fail "no share/bash-completion/completions/gpuwhy"
[ -f "$prefix/share/zsh/site-functions/_gpuwhy" ] || fail "no share/zsh/site-functions/_gpuwhy"
got=$(PATH="$prefix/bin:$PATH" bash -c 'source "$1" && complete -p gpuwhy >/dev/null &&
  COMP_WORDS=(gpuwhy report --for) COMP_CWORD=2 && _gpuwhy && echo "${COMPREPLY[*]}"' _ "$comp") ||
  fail "sourcing the installed bash completion failed"
assert_eq "installed completion of gpuwhy report --for" "$got" "--format"
if command -v zsh >/dev/null; then
  zsh -n "$prefix/share/zsh/site-functions/_gpuwhy" || fail "the zsh completion does not parse"
fi

# docs, licence, JSON Schemas, deploy/
for f in share/doc/gpuwhy/README.md share/doc/gpuwhy/LICENSE share/doc/gpuwhy/report-json.md \
  share/doc/gpuwhy/schema/gpuwhy.report.schema.json share/gpuwhy/deploy/README.md \
  share/gpuwhy/deploy/prometheus/gpuwhy-alerts.yml share/gpuwhy/deploy/grafana/gpuwhy-dashboard.json \
  share/locale/zh_CN/LC_MESSAGES/gpuwhy.mo share/gpuwhy/python/gpuwhy_hook/sitecustomize.py; do
  [ -s "$prefix/$f" ] || fail "cmake --install did not put $f"
done
echo "ok: installed under a prefix, the binary finds its tracer and catalogs; man pages, completion, docs, deploy/"
