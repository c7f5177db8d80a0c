#!/usr/bin/env python3
"""Query a recording where the sqlite3 shell is missing: dbq.py FILE SQL[; SQL...]"""
import sqlite3
import sys

con = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
# Several statements may be given, separated by ';' (as the sqlite3 shell takes them).
for statement in (s.strip() for s in sys.argv[2].split(";")):
    if statement:
        for row in con.execute(statement):
            print("|".join("" if v is None else str(v) for v in row))
