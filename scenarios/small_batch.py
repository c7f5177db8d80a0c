"""small_batch: a model that fits easily, trained with a tiny batch.

An fp32 MLP (8 hidden layers of width 4096, Adam) trained on batch 4: every
matrix multiply is a skinny one that reads the whole weight matrix to do
almost no arithmetic, so the GPU is "busy" most of the time while its SMs do
little work, and nearly all of its memory is free.  --batch-size sets the batch;
the suite runs this script at batches 32..2048 (sweep_bs<N>) to measure how
throughput grows and where it flattens.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import common  # noqa: E402


def main():
    p = common.make_parser(__doc__.splitlines()[0])
    common.add_numeric_options(p, batch_size=4, width=4096, depth=8, classes=1000)
    p.add_argument("--sweep", action="store_true", help="this run is one point of the batch-size sweep")
    args = common.parse_args(p)
    dev = common.setup_cuda(args.seed)
    if args.batch_size < 1:
        p.error("--batch-size must be >= 1")
    # plain fp32 on purpose: no TF32, no autocast
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False

    model = common.make_mlp(args.width, args.width, args.depth, args.classes).to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=1e-4)
    loss_fn = torch.nn.CrossEntropyLoss()
    bs = args.batch_size
    gen = torch.Generator(device=dev)
    gen.manual_seed(args.seed)

    def step():
        x = torch.randn(bs, args.width, device=dev, generator=gen)
        y = torch.randint(0, args.classes, (bs,), device=dev, generator=gen)
        loss = loss_fn(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    pbytes = common.param_bytes(model)
    params = common.vars_of(args)
    params.update(param_bytes=pbytes, optimizer="Adam", dtype="float32", tf32=False)
    if args.sweep:
        desc = ("One point of the batch-size sweep: the fp32 MLP (%d hidden layers of width %d, %.0f MB of "
                "weights, Adam) trained at batch %d with data made on the GPU. The sweep runs the same model at "
                "batches 32..2048; samples_per_s over the points shows throughput rising while the GPU is "
                "under-filled and flattening once it is saturated. The expected class of a point is a guess "
                "made before measuring: small_batch below 512, none from 512 up." % (
                    args.depth, args.width, pbytes / 1e6, bs))
    else:
        desc = ("An fp32 MLP (%d hidden layers of width %d, %.0f MB of weights, Adam) is trained at batch %d "
                "with data made on the GPU, no syncs other than the step boundary. Each matrix multiply has only "
                "%d rows, so kernels read whole weight matrices to do little arithmetic: the GPU looks busy in "
                "nvidia-smi, but SM activity and tensor use are low and almost all memory is free. A larger "
                "batch would raise throughput nearly in proportion." % (
                    args.depth, args.width, pbytes / 1e6, bs, bs))
    gt = common.GroundTruth(args, "small_batch", ["small_batch"], desc, params, bs, bs,
                            extra={"sweep_point": bool(args.sweep)})
    common.run(gt, step)


if __name__ == "__main__":
    main()
