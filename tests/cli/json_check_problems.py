"""The end of a JSON checker of tests/cli (json_numbers_check.py,
json_schema_check.py): the first 50 problems, then a count and exit status 1,
or the checker's ok line."""
import sys


def finish(problems, n_documents, ok_line):
    for p in problems[:50]:
        print(p)
    if problems:
        print(f"{len(problems)} problems in {n_documents} documents")
        sys.exit(1)
    print(ok_line)
