"""The workloads that bench/tracer measures: the transformer training step (storm.py's "train", hook_ab.py's
"train") and the kernel storm (storm.py's "storm", count_compare.py's): one definition each, so that every cost
quoted for "the transformer step" or "the storm" is of the same program. torch is passed in, so that a caller
imports it when and how it needs (hook_ab.py after putting the hook on the path)."""


def mul_add_storm(x, y, pairs=200):
    """The kernel storm: pairs x (mul + add) on small tensors, two kernels of about a microsecond each per
    pair, issued as fast as Python can."""
    z = x
    for _ in range(pairs):
        z = z * y
        z = z + y
    return z


def transformer_train_step(torch, batch=32):
    """A 4-layer, 512-wide encoder on a batch x 128 batch under bf16 autocast with AdamW: returns the step.
    batch 32 is host-bound on the H200 (the step is as fast as Python issues it); batch 256 gives the GPU eight
    times the work for the same launches, so the GPU sets the pace and the host's speed drops out."""
    layer = torch.nn.TransformerEncoderLayer(512, 8, 2048, batch_first=True)
    model = torch.nn.TransformerEncoder(layer, 4).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    src = torch.randn(batch, 128, 512, device="cuda")

    def train_step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(src).float().pow(2).mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    return train_step
