#!/bin/bash
# Every JSON document of every command (report, compare, sweep, check,
# baseline) on the fixtures: counts, bytes and nanoseconds as integers (no
# 1.39885e+11), nothing above 2^53 as a number (epoch ns, compare's seed are
# strings), unknown as null (issue 35 item 6; tests/cli/json_numbers_check.py).
source "$(dirname "$0")/lib.bash"
: "${GW_FAKE_NVML:?}"
source "$(dirname "$0")/json_documents.bash"
json_documents
python3 "$(dirname "$0")/json_numbers_check.py" "$SCRATCH"/docs/*.json || fail "numbers in JSON documents"
