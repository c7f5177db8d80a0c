#!/bin/bash
# The verdicts do not hang on the host's sampling rate: every real H200
# recording (host rows at every 100 ms tick, as the recorder wrote them then)
# turned into what it writes now (host, process and per-core rows once a
# second, each the mean of that second; scripts/host_once_a_second.py) gets
# the same verdict and the same list of findings.
source "$(dirname "$0")/lib.bash"
: "${GW_FIXTURES:?GW_FIXTURES must point at tests/fixtures}"
: "${GW_SOURCE_DIR:?GW_SOURCE_DIR must point at the source tree}"
n=0
for db in "$GW_FIXTURES"/scenarios/*.db; do
  name=$(basename "$db" .db)
  python3 "$GW_SOURCE_DIR/scripts/host_once_a_second.py" "$db" "$name.db" || fail "$name: could not resample"
  every_tick=$(q "$db" 'select count(*) from host_sample')
  per_second=$(q "$name.db" 'select count(*) from host_sample')
  # the DDP recordings already had their per-core rows once a second
  [ "$per_second" -lt "$every_tick" ] || fail "$name: $per_second host rows after resampling, $every_tick before"
  "$GW_BIN" report --format json "$db" >"$name.tick.json" || fail "$name: report failed"
  "$GW_BIN" report --format json "$name.db" >"$name.second.json" || fail "$name: report on the resampled copy failed"
  same_findings "$name" "$name.tick.json" "$name.second.json" || fail "$name: the verdict changed with the host rate"
  n=$((n + 1))
done
assert_ge "recordings checked" "$n" 20
echo "all $n recordings: the same verdict and findings with the host once a second"
