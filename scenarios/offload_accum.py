"""schedule_shape: gradient accumulation with the optimizer offloaded to the CPU.

Each optimizer step runs --accum micro-batches of forward and backward on the
GPU (bf16 autocast, data made on the GPU), then copies the fp32 gradients to
pinned host buffers, runs AdamW on fp32 master copies of the parameters on the
CPU (torch's own multi-threaded CPU kernels, driven from the main thread) and
copies the updated parameters back.  While the CPU updates, the GPU has no
work at all: every optimizer step has a host phase on the critical path, at a
fixed period of --accum micro-batches.  This is what ZeRO-Offload-style
training does to fit a model whose optimizer state does not fit on the GPU.

Why schedule_shape: the GPU idles in a stall that recurs at a fixed step
period while the host does work the schedule puts on the critical path, the
seed's section 2.6.  It is not input (the data is made on the GPU, no loader,
the copies are the optimizer's), not launch overhead (a few hundred kernels a
step, each long, and one long gap), not small batch (each micro-batch fills
the GPU).  The cheapest fixes are schedule fixes: accumulate more
micro-batches per optimizer step (the host phase is paid less often), overlap
the CPU update with the next micro-batches (a delayed parameter update), or
keep the optimizer on the GPU when its memory allows.
"""

import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import common  # noqa: E402


def main():
    p = common.make_parser(__doc__.splitlines()[0], warmup_steps=2)
    p.add_argument("--accum", type=int, default=4, help="micro-batches per optimizer step")
    common.add_numeric_options(p, micro_batch=65536, width=4096, depth=6, classes=1000)
    p.add_argument("--pageable", action="store_true", help="copy through pageable host memory instead of pinned")
    args = common.parse_args(p)
    if args.accum < 1 or args.micro_batch < 1:
        p.error("--accum and --micro-batch must be >= 1")
    dev = common.setup_cuda(args.seed)

    model = common.make_mlp(args.width, args.width, args.depth, args.classes).to(dev)
    gpu_params = [q for q in model.parameters()]
    pin = not args.pageable
    # fp32 master parameters and gradient buffers on the host; AdamW's moments
    # live there too (created by its first step): the GPU holds no optimizer state
    master = []
    for q in gpu_params:
        m = q.detach().to("cpu")
        m = (m.pin_memory() if pin else m).requires_grad_(True)
        m.grad = torch.empty(m.shape, dtype=m.dtype, pin_memory=pin)
        master.append(m)
    opt = torch.optim.AdamW(master, lr=1e-4)  # torch's own CPU kernels, its default implementation
    loss_fn = torch.nn.CrossEntropyLoss()
    gen = torch.Generator(device=dev)
    gen.manual_seed(args.seed)
    phases = []  # per optimizer step: (gpu phase ns, host phase ns)

    def step():
        t0 = time.monotonic_ns()
        for _ in range(args.accum):
            x = torch.randn(args.micro_batch, args.width, device=dev, generator=gen)
            y = torch.randint(0, args.classes, (args.micro_batch,), device=dev, generator=gen)
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = loss_fn(model(x), y) / args.accum
            loss.backward()
        for q, m in zip(gpu_params, master):
            m.grad.copy_(q.grad, non_blocking=pin)
        torch.cuda.synchronize()  # the gradients are on the host: the GPU has nothing left to do
        t1 = time.monotonic_ns()
        opt.step()  # on the CPU
        with torch.no_grad():
            for q, m in zip(gpu_params, master):
                q.copy_(m, non_blocking=pin)
                q.grad = None
        torch.cuda.synchronize()
        phases.append((t1 - t0, time.monotonic_ns() - t1))

    def measured(gt):
        n = len([s for s in gt.steps if s["kind"] == "train"])
        ph = phases[-n:] if n else []
        g = [a for a, _ in ph]
        h = [b for _, b in ph]
        return {"offload": {
            "gpu_phase_median_ms": round(statistics.median(g) / 1e6, 1) if g else None,
            "host_phase_median_ms": round(statistics.median(h) / 1e6, 1) if h else None,
            # the share of each optimizer step in which the GPU has no work
            "host_phase_share": round(sum(h) / (sum(g) + sum(h)), 3) if ph else None,
            "cpu_threads": torch.get_num_threads(),
        }}

    nparams = sum(q.numel() for q in gpu_params)
    params = common.vars_of(args)
    params.update(parameters=nparams, param_bytes=common.param_bytes(model), pinned=pin,
                  samples_per_optimizer_step=args.accum * args.micro_batch, precision="bf16 autocast")
    gt = common.GroundTruth(
        args, "offload_accum", ["schedule_shape"],
        "Gradient accumulation with the optimizer offloaded to the CPU: every optimizer step (one step in "
        "this truth) runs %d micro-batches of %d samples through a %d-layer MLP (width %d, %.0f M fp32 "
        "parameters, bf16 autocast, data made on the GPU), copies the gradients to %s host buffers, runs "
        "AdamW on fp32 master copies on the CPU (%d torch threads, driven by the main thread) and copies the "
        "parameters back. During the CPU update the GPU has no work: a host phase on the critical path at "
        "a fixed period of %d micro-batches (the truth's offload block holds the measured GPU and host "
        "phases). Expected schedule_shape: a stall recurring at a fixed step period because of work the "
        "schedule puts on the host, as with evaluation or checkpoints; not input (no loader, the data is "
        "made on the GPU, the PCIe traffic is the optimizer's own), not launch overhead (few, long kernels "
        "and one long gap), not small batch (each micro-batch fills the GPU). Fixes: more micro-batches per "
        "optimizer step, overlapping the CPU update with the next micro-batches, or the optimizer on the "
        "GPU where memory allows." % (
            args.accum, args.micro_batch, args.depth, args.width, nparams / 1e6,
            "pinned" if pin else "pageable", torch.get_num_threads(), args.accum),
        params, args.micro_batch, args.accum * args.micro_batch)
    gt.late_extra.append(measured)
    common.run(gt, step)


if __name__ == "__main__":
    main()
