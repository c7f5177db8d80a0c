"""A neighbour on the GPU: another user's process, not a training job.

Runs bf16 matrix products on the GPU for a share of every 100 ms (the duty
cycle) and sleeps the rest, until --duration seconds have passed. Started
outside the recorded job (beside `gpuwhy record`, not under it), so the
recording sees it only in the GPU's process list (gpu_proc) and in the
counters it shares with the job. Writes no truth file: the job recorded
beside it carries the truth. Standard library and torch only.
"""
import argparse
import time

import torch


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--duration", type=float, default=30.0, help="seconds to run")
    p.add_argument("--duty", type=float, default=0.5, help="share of each 100 ms spent computing (0..1)")
    p.add_argument("--size", type=int, default=4096, help="matrix side")
    p.add_argument("--mem-gib", type=float, default=4.0, help="device memory to hold (GiB)")
    a = p.parse_args()
    dev = torch.device("cuda")
    hold = torch.empty(int(a.mem_gib * (1 << 30)), dtype=torch.uint8, device=dev)
    x = torch.randn(a.size, a.size, device=dev, dtype=torch.bfloat16)
    end = time.time() + a.duration
    while time.time() < end:
        t0 = time.time()
        while time.time() - t0 < 0.1 * a.duty:
            x = torch.tanh(x @ x)
            torch.cuda.synchronize()
        time.sleep(max(0.0, 0.1 - (time.time() - t0)))
    del hold
    print("neighbour done", flush=True)


if __name__ == "__main__":
    main()
