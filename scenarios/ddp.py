"""multi_gpu: DistributedDataParallel on the GPUs of one host (run under torchrun).

Modes:
  balanced     every rank the same compute-heavy MLP step; gradients all-reduced
               during backward (healthy: communication hidden behind compute)
  straggler    as balanced, but one rank (--slow-rank) gets 40% more samples a
               step: the other ranks wait for it in every all-reduce
  comm_heavy   a large model (about a billion parameters) and a small batch:
               the gradient all-reduce takes longer than the compute it follows
  grad_accum   the comm_heavy model with gradient accumulation: --accum
               micro-batches under no_sync(), one all-reduce per optimizer step

Every rank runs the same number of steps (rank 0 decides it after the warm-up
and broadcasts it), so no rank is left waiting in a collective at the end.
Rank 0 writes the truth JSON with every rank's step times.
"""

import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
from torch.nn.parallel import DistributedDataParallel as DDP  # noqa: E402

import common  # noqa: E402

MODES = {
    # mode: (layers, width, batch per rank, accumulation steps, expected classes)
    "balanced": (8, 4096, 4096, 1, ["none"]),
    "straggler": (8, 4096, 4096, 1, ["multi_gpu_sync"]),
    "comm_heavy": (16, 8192, 32, 1, ["multi_gpu_sync"]),
    "grad_accum": (16, 8192, 256, 16, ["none"]),
}


def build_model(layers, width):
    mods = []
    for _ in range(layers):
        mods += [torch.nn.Linear(width, width), torch.nn.GELU()]
    return torch.nn.Sequential(*mods)


def main():
    p = common.make_parser(__doc__.splitlines()[0], duration=30.0, warmup_steps=5)
    p.add_argument("--mode", choices=sorted(MODES), required=True)
    p.add_argument("--slow-rank", type=int, default=1, help="straggler mode: the rank with more work")
    p.add_argument("--extra-work", type=float, default=0.4, help="straggler mode: extra share of samples")
    p.add_argument("--layers", type=int, default=None)
    p.add_argument("--width", type=int, default=None)
    p.add_argument("--batch-size", type=int, default=None, help="samples per rank per micro-batch")
    p.add_argument("--accum", type=int, default=None, help="micro-batches per optimizer step")
    args = common.parse_args(p)

    layers, width, batch, accum, expected = MODES[args.mode]
    layers = args.layers or layers
    width = args.width or width
    batch = args.batch_size or batch
    accum = args.accum or accum

    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    local = int(os.environ.get("LOCAL_RANK", rank))
    dev = torch.device("cuda", local)
    torch.cuda.set_device(dev)
    torch.manual_seed(args.seed)
    my_batch = batch
    if args.mode == "straggler" and rank == args.slow_rank % world:
        my_batch = int(round(batch * (1.0 + args.extra_work)))

    model = DDP(build_model(layers, width).to(dev), device_ids=[local])
    opt = torch.optim.SGD(model.parameters(), lr=1e-4)
    n_params = sum(q.numel() for q in model.parameters())
    gen = torch.Generator(device=dev)
    gen.manual_seed(args.seed + rank)
    x = torch.randn(my_batch, width, device=dev, generator=gen)

    def micro(sync):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            out = model(x)
            loss = out.float().pow(2).mean()
        if sync:
            loss.backward()
        else:
            with model.no_sync():
                loss.backward()

    def step():
        for i in range(accum):
            micro(i == accum - 1)
        opt.step()
        opt.zero_grad(set_to_none=True)

    nvtx = common._Nvtx()
    common.log("[ddp %s] rank %d/%d on %s: %d layers x %d, %.0f M parameters, batch %d x %d micro-batches" % (
        args.mode, rank, world, dev, layers, width, n_params / 1e6, my_batch, accum))
    step_s = common.warm_up(step, args.warmup_steps)
    n_steps = torch.tensor([max(3, int(args.duration / max(step_s, 1e-4)))], device=dev)
    dist.broadcast(n_steps, src=0)
    n_steps = int(n_steps.item())
    common.log("[ddp %s] rank %d: warm-up median step %.1f ms; running %d steps" % (
        args.mode, rank, step_s * 1e3, n_steps))

    steps = []
    started_ns = time.time_ns()
    for i in range(n_steps):
        nvtx.push("step")
        t0 = time.time_ns()
        step()
        torch.cuda.synchronize()
        t1 = time.time_ns()
        nvtx.pop()
        steps.append({"i": i, "start_ns": t0, "end_ns": t1, "kind": "train"})
    ended_ns = time.time_ns()

    mine = {"rank": rank, "gpu": local, "batch": my_batch, "steps": steps,
            "median_step_ms": statistics.median([(s["end_ns"] - s["start_ns"]) / 1e6 for s in steps]),
            "pid": os.getpid()}
    everyone = [None] * world
    dist.all_gather_object(everyone, mine)
    if rank == 0:
        name = "ddp_" + args.mode
        desc = {
            "balanced": "Every rank trains the same MLP on the same batch size; DDP all-reduces gradients in buckets "
                        "during backward, hidden behind compute. Healthy multi-GPU training.",
            "straggler": "Rank %d gets %.0f%% more samples per step than the others; in every all-reduce the other "
                         "ranks wait for it, their NCCL kernels spinning (GPU-Util reads busy on all GPUs)." % (
                             args.slow_rank % world, args.extra_work * 100),
            "comm_heavy": "A model of about %.0f M parameters with a batch of %d per rank: the gradient all-reduce "
                          "(%.1f GB of fp32 gradients a step) takes longer than the forward and backward it follows, "
                          "so communication is the step." % (n_params / 1e6, batch, n_params * 4 / 1e9),
            "grad_accum": "The comm_heavy model with %d micro-batches of %d per optimizer step under no_sync(): one "
                          "all-reduce per %d micro-batches, so communication is a small part of the step." % (
                              accum, batch, accum),
        }[args.mode]
        gt = common.GroundTruth(args, name, expected, desc, common.vars_of(args), batch, batch * accum * world)
        gt.started_ns, gt.ended_ns = started_ns, ended_ns
        gt.steps = steps
        gt.status = "done"
        gt.extra = {"world_size": world, "parameters": n_params, "accum": accum,
                    "straggler_rank": (args.slow_rank % world) if args.mode == "straggler" else None,
                    "ranks": [{k: v for k, v in r.items() if k != "steps"} for r in everyone],
                    "nccl_version": ".".join(map(str, torch.cuda.nccl.version()))}
        gt.write()
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
