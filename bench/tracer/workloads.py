"""The transformer training step that bench/tracer measures (storm.py's "train", hook_ab.py's "train"): one
definition, so that every cost quoted for "the transformer step" is of the same program. torch is passed in, so
that a caller imports it when and how it needs (hook_ab.py after putting the hook on the path)."""


def transformer_train_step(torch):
    """A 4-layer, 512-wide encoder on a 32x128 batch under bf16 autocast with AdamW: returns the step."""
    layer = torch.nn.TransformerEncoderLayer(512, 8, 2048, batch_first=True)
    model = torch.nn.TransformerEncoder(layer, 4).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    src = torch.randn(32, 128, 512, device="cuda")

    def train_step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(src).float().pow(2).mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    return train_step
