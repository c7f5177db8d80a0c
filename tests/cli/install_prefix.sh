#!/bin/bash
# cmake --install into a temporary prefix: the installed binary finds the
# tracer (record --trace) and the catalogs (a zh_CN report) relative to
# itself, and record --trace leaves no spool folder (X.db.trace) behind.
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
echo "ok: installed under a prefix, the binary finds its tracer and catalogs"
