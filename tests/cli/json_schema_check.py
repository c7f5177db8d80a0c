"""Validate gpuwhy JSON documents against docs/schema/<name>.schema.json
(JSON Schema draft 2020-12), the name taken from the document's "schema"
field ("gpuwhy.report/2" -> gpuwhy.report). Usage: json_schema_check.py
SCHEMA_DIR FILE... Exit 77 when python3-jsonschema is missing, 1 on any
invalid document or one without a schema file."""
import json
import os
import re
import sys

from json_check_problems import finish

try:
    import jsonschema
except ImportError:
    print("python3-jsonschema is not installed: skipped (scripts/install-deps.sh --test installs it)")
    sys.exit(77)


def main():
    schema_dir, paths = sys.argv[1], sys.argv[2:]
    validators = {}
    problems = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        m = re.fullmatch(r"(gpuwhy\.[a-z_]+)/([0-9]+)", str(doc.get("schema")))
        if not m:
            problems.append(f"{path}: \"schema\" is {doc.get('schema')!r}, not gpuwhy.<command>/<version>")
            continue
        name, version = m.group(1), int(m.group(2))
        if doc.get("schema_version") != version:
            problems.append(f"{path}: schema_version {doc.get('schema_version')} but schema {doc['schema']}")
        if name not in validators:
            schema_path = os.path.join(schema_dir, name + ".schema.json")
            if not os.path.exists(schema_path):
                problems.append(f"{path}: no schema file {schema_path}")
                continue
            with open(schema_path, encoding="utf-8") as f:
                schema = json.load(f)
            jsonschema.Draft202012Validator.check_schema(schema)
            validators[name] = jsonschema.Draft202012Validator(schema)
        for err in validators[name].iter_errors(doc):
            where = "/".join(str(p) for p in err.absolute_path)
            problems.append(f"{path}: at /{where}: {err.message}")
    finish(problems, len(paths),
           f"ok: {len(paths)} documents valid against {len(validators)} schemas ({', '.join(sorted(validators))})")


if __name__ == "__main__":
    main()
