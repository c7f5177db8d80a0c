"""torch.backends.cudnn's flags with torch 2.x's defaults: benchmark off, TF32 convolutions allowed."""
enabled = True
benchmark = False
deterministic = False
allow_tf32 = True
