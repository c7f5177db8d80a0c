"""torch._dynamo as far as gpuwhy's hook looks at it: the compile start/end
callbacks (torch._dynamo.callback), the compilation metrics with their
recompile reason (torch._dynamo.utils) and OptimizedModule
(torch._dynamo.eval_frame). Imported by torch.compile, as in torch 2.x."""
from . import callback, eval_frame, utils  # noqa: F401
