#!/usr/bin/env bash
# gpuwhy record points NCCL's debug output at a private file and moves the
# lines into the recording (nccl_log); a user's own NCCL_DEBUG is left alone;
# --no-nccl-log turns it off. The command below writes the way NCCL does: one
# file per process named by NCCL_DEBUG_FILE's %h and %p, the last line written
# in two parts.
. "$(dirname "$0")/lib.bash"
export GPUWHY_NVML_LIB=/nonexistent/libnvidia-ml.so.1
unset NCCL_DEBUG NCCL_DEBUG_FILE

cat > fake_nccl.sh <<'SH'
#!/bin/sh
echo "NCCL_DEBUG=${NCCL_DEBUG:-unset}" > env.txt
[ -n "${NCCL_DEBUG_FILE:-}" ] || exit 0
f=$(echo "$NCCL_DEBUG_FILE" | sed "s/%h/$(hostname)/; s/%p/$$/")
echo "node1:$$:$$ [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read" >> "$f"
printf "node1:$$:$$ [0] NCCL INFO Connected all" >> "$f"
sleep 1.3
echo " rings" >> "$f"
SH
chmod +x fake_nccl.sh

"$GW_BIN" record -q -o r.db -- ./fake_nccl.sh || fail "record exited $?"
assert_eq "NCCL_DEBUG given to the command" "$(cat env.txt)" "NCCL_DEBUG=INFO"
assert_eq "lines moved" "$(q r.db 'select count(*) from nccl_log')" 2
q r.db "select line from nccl_log" | grep -qx '.*via P2P/CUMEM/read' || fail "channel line missing"
q r.db "select line from nccl_log" | grep -qx '.*NCCL INFO Connected all rings' || fail "line written in two parts not joined"
assert_eq "pid from the file name" "$(q r.db 'select count(distinct pid) from nccl_log where pid > 0')" 1
assert_eq "meta count" "$(q r.db "select value from meta where key = 'nccl_log_lines'")" 2
[ ! -e r.db.nccl ] || fail "the NCCL log folder was left behind"

# The user's own choice wins.
NCCL_DEBUG=WARN "$GW_BIN" record -q -o u.db -- ./fake_nccl.sh || fail "record exited $?"
assert_eq "user's NCCL_DEBUG kept" "$(cat env.txt)" "NCCL_DEBUG=WARN"
"$GW_BIN" record -q --no-nccl-log -o o.db -- ./fake_nccl.sh || fail "record exited $?"
assert_eq "--no-nccl-log" "$(cat env.txt)" "NCCL_DEBUG=unset"
assert_eq "no table without capture" "$(q o.db "select count(*) from sqlite_master where name = 'nccl_log'")" 0
# The recorder's own cost per phase is on record.
for k in startup gpu host kmsg trace store; do
  [ -n "$(q r.db "select value from meta where key = 'recorder_cpu_${k}_s'")" ] || fail "no recorder_cpu_${k}_s"
done
echo "record_nccl_log: passed"
