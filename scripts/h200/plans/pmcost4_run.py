#!/usr/bin/env python3
"""One run of pmcost4: runs the command, passes its stdout through, and writes to STAMP the wall time
(time.time_ns, the clock storm.py's --chunks-out uses) at which the tracer's verbose PM sampling log
(GPUWHY_TRACE_PM_VERBOSE=1) announced cuptiPmSamplingStart, or nothing when it never did.
The tracer's stderr lines are read as they come and dropped, so the pipe never fills.
usage: pmcost4_run.py STAMP -- CMD..."""
import subprocess
import sys
import time

stamp_path = sys.argv[1]
cmd = sys.argv[sys.argv.index("--") + 1:]
child = subprocess.Popen(cmd, stderr=subprocess.PIPE)
started_ns = 0
for raw in child.stderr:
    if not started_ns and b"cuptiPmSamplingStart" in raw:
        started_ns = time.time_ns()
rc = child.wait()
with open(stamp_path, "w") as f:
    f.write("%d\n" % started_ns if started_ns else "")
sys.exit(rc)
