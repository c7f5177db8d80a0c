#!/bin/bash
# Every JSON document of every command on the fixtures validates against its
# JSON Schema in docs/schema/ (draft 2020-12, named after its "schema" field).
# Skipped when python3-jsonschema is missing; CI installs it (install-deps.sh --test).
source "$(dirname "$0")/lib.bash"
: "${GW_FAKE_NVML:?}" "${GW_SOURCE_DIR:?}"
python3 -c 'import jsonschema' 2>/dev/null || { echo "python3-jsonschema not installed: skipped"; exit 77; }
source "$(dirname "$0")/json_documents.bash"
json_documents
python3 "$(dirname "$0")/json_schema_check.py" "$GW_SOURCE_DIR/docs/schema" "$SCRATCH"/docs/*.json ||
  fail "documents that do not match docs/schema/"
