#!/usr/bin/env python3
"""Checks a report's sentences against the numbers they sit beside.

usage: sentence_check.py COMPARE.json DIR

DIR holds, for each recording NAME, NAME.db (the recording), NAME.txt (its
text report, English, no colour) and NAME.json (its JSON report); COMPARE.json
is `gpuwhy compare --format json` over the same recordings, in the same order
as their names sort, for the memory peak compare shows. Each contradiction is
printed as "NAME: KIND: detail"; the exit status is 1 when there is one.

The numbers come from the JSON report (active seconds, kernel counts, memory
fractions, the suggested commands), from compare's JSON (the memory peak) and
from the recording itself (the GPU names, the trace windows, the recorded
command), never from the text being checked. Which GPU models have GPM is
written here, apart from gpuwhy's own table: GPM came with Hopper.
"""
import json
import os
import re
import shlex
import sqlite3
import sys

# NVML's GPM (GPU Performance Monitoring) exists from Hopper on.
GPM_MODELS = ("H100", "H200", "H800", "H20", "GH200", "B100", "B200", "GB200", "B300")
# "room for a larger batch" is wrong past this share of device memory at the peak:
# a batch twice as large needs about twice the activations, and 20% leaves no room for that.
ROOM_MAX_PEAK = 0.8


def model_has_gpm(name):
    return any(re.search(r"(?<![A-Za-z0-9])" + m + r"(?![A-Za-z0-9])", name or "", re.I) for m in GPM_MODELS)


def query(db, sql):
    try:
        con = sqlite3.connect("file:" + db + "?mode=ro", uri=True)
        try:
            return con.execute(sql).fetchall()
        finally:
            con.close()
    except sqlite3.Error:
        return []


def recording_facts(db):
    gpus = {g: (n or "", s) for g, n, s in query(db, "SELECT gpu, name, gpm_supported FROM gpu")}
    totals = [t for (t,) in query(db, "SELECT mem_total_bytes FROM gpu") if t]
    windows = query(db, "SELECT count(*) FROM trace_window WHERE mode = 'sampled'")
    command = None
    rows = query(db, "SELECT command FROM run WHERE id = 1")
    if rows and rows[0][0]:
        try:
            c = json.loads(rows[0][0])
            if isinstance(c, list) and c and all(isinstance(a, str) for a in c):
                command = c
        except ValueError:
            pass
    return {
        "gpus": gpus,
        "mem_total": max(totals) if totals else None,
        "windows": windows[0][0] if windows else 0,
        "command": command,
    }


def check(name, text, rep, facts, peak_bytes):
    bad = []

    def say(kind, detail):
        bad.append(f"{name}: {kind}: {detail}")

    gpus = rep.get("gpus", [])
    active_s = rep.get("active_s") or 0
    kernels = {g["gpu"]: (g.get("kernels") or {}).get("count") or 0 for g in gpus}

    # 1. "GPU N never became active" beside that GPU's kernels, or beside active time of a single GPU
    for m in re.finditer(r"GPU (\d+) never became active", text):
        gi = int(m.group(1))
        if kernels.get(gi, 0) > 0 or (len(gpus) == 1 and active_s > 0):
            say("never-active", f"GPU {gi} 'never became active' with {kernels.get(gi, 0)} kernels, {active_s} s active")

    # 2. the active time the ledger line prints must be the JSON's, to its printed precision
    for m in re.finditer(r"of ([0-9.]+) (s|ms) (?:of )?active", text):
        shown = float(m.group(1)) / (1000 if m.group(2) == "ms" else 1)
        digits = len(m.group(1).split(".")[1]) if "." in m.group(1) else 0
        tol = 0.5 * 10 ** -digits / (1000 if m.group(2) == "ms" else 1) + 1e-4 + 0.001 * active_s
        # a zero is a claim of its own: "0.0 s active" beside a positive active time reads as none
        if active_s > 0 and (shown == 0 or abs(shown - active_s) > tol):
            say("active-time", f"'{m.group(0)}' while the JSON has active_s {active_s}")

    # 2b. "N kernels in 0.00 s traced": kernels take time; a zero there reads as none
    for m in re.finditer(r"GPU (\d+): (\d+) kernels in ([0-9.]+) (s|ms) ", text):
        if int(m.group(2)) > 0 and float(m.group(3)) == 0:
            say("traced-time", f"'{m.group(0).strip()}' beside {m.group(2)} kernels")

    # 3. "has no GPM" / "no GPM on this GPU" about a model that has it
    names = {g: n for g, (n, _) in facts["gpus"].items()}
    if re.search(r"has no GPM|no GPM on this GPU", text):
        with_gpm = [n for n in names.values() if model_has_gpm(n)]
        if with_gpm:
            say("no-gpm", f"says the GPU has no GPM, but the recording's GPU is {with_gpm[0]} (Hopper or later)")

    # 4. memory: "room for a larger batch" past the peak, and a used share below compare's peak
    total = facts["mem_total"]
    peaks = [p for p in [peak_bytes / total if peak_bytes and total else None] if p is not None]
    peaks += [g["profile"]["mem_used_peak_frac"] for g in gpus if g.get("profile", {}).get("mem_used_peak_frac")]
    peak = max(peaks) if peaks else None
    if peak is not None:
        # the claim about this run's memory, not a fix's "leaving room for a larger batch"
        if re.search(r"device memory[^\n]*: room for a larger batch", text) and peak > ROOM_MAX_PEAK:
            say("memory-room", f"'room for a larger batch' with a memory peak of {peak:.0%}")
        for m in re.finditer(r"(\d+)% of device memory used|device memory (\d+)% used", text):
            used = float(m.group(1) or m.group(2)) / 100
            # compare's peak is over the steps; the report's may cover a little more, never less
            if peak_bytes and total and used < peak_bytes / total - 0.05:
                say("memory-used", f"'{m.group(0)}' while compare shows a peak of {peak_bytes / total:.0%}")

    # 5. advice to record a trace, or "no kernel timeline", on a recording that has trace windows
    if facts["windows"] > 0:
        for m in re.finditer(r"record --trace(?![=\w])[^\n]*", text):
            say("trace-advice", f"'{m.group(0)[:70]}' on a recording with {facts['windows']} trace windows")
        if "(no kernel timeline)" in text:
            say("trace-advice", f"'(no kernel timeline)' on a recording with {facts['windows']} trace windows")

    # 6. a suggested next run says CMD although the command is recorded; a filled one must be it
    cmd = facts["command"]
    suggested = re.findall(r"^\s*\$ (gpuwhy .*)$", text, re.M)
    suggested += [e.get("command", "") for e in rep.get("experiments", [])]
    for line in suggested:
        if " -- " not in line:
            continue
        tail = line.split(" -- ", 1)[1]
        if cmd and (tail == "CMD" or tail.startswith("CMD ")):
            say("cmd", f"'{line[:70]}' although the recording holds the command {shlex.join(cmd)[:60]}")
        elif cmd:
            try:
                words = shlex.split(tail)
            except ValueError as e:
                say("cmd", f"'{line[:70]}' does not parse as a shell command: {e}")
                continue
            # the recorded words in order; a batch-size value may stand as {bs}, the sweep's placeholder
            if len(words) < len(cmd) or any(w != c and w != "{bs}" and not w.endswith("={bs}")
                                            for w, c in zip(words, cmd)):
                say("cmd", f"'{line[:90]}' is not the recorded command {shlex.join(cmd)[:60]}")
    return bad


def main():
    compare_path, folder = sys.argv[1:3]
    names = sorted(f[:-3] for f in os.listdir(folder) if f.endswith(".db"))
    runs = json.load(open(compare_path))["runs"]
    if len(runs) != len(names):
        print(f"compare has {len(runs)} runs for {len(names)} recordings")
        return 1
    bad, checked = [], 0
    for name, run in zip(names, runs):
        base = os.path.join(folder, name)
        if os.path.basename(run.get("path", "")) != name + ".db":
            print(f"compare's run {run.get('path')} is not {name}.db")
            return 1
        with open(base + ".txt") as f:
            text = f.read()
        with open(base + ".json") as f:
            rep = json.load(f)
        bad += check(name, text, rep, recording_facts(base + ".db"), run.get("mem_used_peak_bytes"))
        checked += 1
    for b in bad:
        print(b)
    print(f"{checked} reports checked, {len(bad)} contradictions")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
