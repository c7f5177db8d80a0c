"""torch.optim.Optimizer's global step hooks, as in torch 2.x: registering
returns a handle whose remove() takes the hook out (torch.utils.hooks.RemovableHandle)."""
_global_pre_hooks = []
_global_post_hooks = []


class RemovableHandle:
    def __init__(self, hooks, hook):
        self.hooks, self.hook = hooks, hook

    def remove(self):
        if self.hook in self.hooks:
            self.hooks.remove(self.hook)


def register_optimizer_step_pre_hook(hook):
    _global_pre_hooks.append(hook)
    return RemovableHandle(_global_pre_hooks, hook)


def register_optimizer_step_post_hook(hook):
    _global_post_hooks.append(hook)
    return RemovableHandle(_global_post_hooks, hook)


class Optimizer:
    def __init__(self, params=(), lr=0.1):
        self.lr = lr
        self.steps = 0

    def _step(self):
        self.steps += 1

    def step(self, *args, **kwargs):
        # torch 2.x: step() is wrapped by _use_grad_for_differentiable, which
        # imports torch._dynamo (compiling or not)
        import torch._dynamo  # noqa: F401

        for hook in _global_pre_hooks:
            hook(self, args, kwargs)
        out = self._step()
        for hook in _global_post_hooks:
            hook(self, args, kwargs)
        return out


class SGD(Optimizer):
    pass
