#!/usr/bin/env python3
"""A steady GPU load for the sampler benchmark: bf16 matmuls with short pauses,
so the GPU's counters move (busy, idle, clocks, power) while the samplers run."""
import sys
import time

import torch

seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 70.0
a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
end = time.time() + seconds
while time.time() < end:
    for _ in range(20):
        c = a @ b
    torch.cuda.synchronize()
    time.sleep(0.05)
print("load done", float(c[0, 0]))
