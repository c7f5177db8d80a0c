#!/usr/bin/env bash
# The Python hook's stack sampler (tracer/python/gpuwhy_hook/_gpuwhy_pystack.py)
# on small loops of the fake torch, each spending its steps in one activity
# (tests/python/pysample_check.py): most samples name that activity and the
# user's own function; off at GPUWHY_PY_SAMPLE_HZ=0, never started in a
# program that does not train or in a forked child.
. "$(dirname "$0")/lib.bash"
: "${GW_SOURCE_DIR:?}"
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
python3 "$GW_SOURCE_DIR/tests/python/pysample_check.py" "$GW_SOURCE_DIR/tracer/python/gpuwhy_hook" \
  "$GW_SOURCE_DIR/tests/python/fake_torch" "$PWD" || fail "stack sampler classification"
