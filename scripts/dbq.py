#!/usr/bin/env python3
"""Query a recording where the sqlite3 shell is missing: dbq.py FILE SQL"""
import sqlite3
import sys

con = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
for row in con.execute(sys.argv[2]):
    print("|".join("" if v is None else str(v) for v in row))
