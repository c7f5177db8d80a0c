#!/usr/bin/env python3
"""torch.cuda.nvtx on the H200 for scripts/h200/plans/hookcost.sh.

  hookcost_nvtx.py steps N      N steps of a small CUDA matmul, each inside
                                torch.cuda.nvtx.range_push("train_step") / range_pop
                                with a nested "forward"; prints "ran N steps"
  hookcost_nvtx.py cost N       N range_push + range_pop pairs with no work:
                                prints ns_per_pair (NVTX_INJECTION64_PATH decides
                                whether gpuwhy's tracer receives them)"""
import sys
import time

import torch

mode, n = sys.argv[1], int(sys.argv[2])
if mode == "steps":
    x = torch.randn(1024, 1024, device="cuda")
    for _ in range(n):
        torch.cuda.nvtx.range_push("train_step")
        torch.cuda.nvtx.range_push("forward")
        y = x @ x
        torch.cuda.nvtx.range_pop()
        torch.cuda.synchronize()
        time.sleep(0.005)  # steps of at least 5 ms, so their durations are easy to check
        torch.cuda.nvtx.range_pop()
    print("ran %d steps %.1f" % (n, float(y[0, 0])))
else:
    push, pop = torch.cuda.nvtx.range_push, torch.cuda.nvtx.range_pop
    for _ in range(1000):  # NVTX initialises on its first call
        push("warm")
        pop()
    t0 = time.perf_counter_ns()
    for _ in range(n):
        push("train_step")
        pop()
    print("ns_per_pair %.1f" % ((time.perf_counter_ns() - t0) / n))
