"""torch.nn.Module's call path as far as the hook goes: global forward
pre-hooks, then the module's own forward hooks after forward; each set is
copied before it runs, so a hook may remove itself, as in torch 2.x."""
import itertools

_global_forward_pre_hooks = {}
_ids = itertools.count()


class RemovableHandle:
    def __init__(self, hooks, key):
        self.hooks, self.key = hooks, key

    def remove(self):
        self.hooks.pop(self.key, None)


def register_module_forward_pre_hook(hook):
    key = next(_ids)
    _global_forward_pre_hooks[key] = hook
    return RemovableHandle(_global_forward_pre_hooks, key)


class Module:
    def forward(self, *args):
        return args[0] if args else None

    def register_forward_hook(self, hook):
        hooks = self.__dict__.setdefault("_forward_hooks", {})
        key = next(_ids)
        hooks[key] = hook
        return RemovableHandle(hooks, key)

    def __call__(self, *args, **kwargs):
        for hook in tuple(_global_forward_pre_hooks.values()):
            result = hook(self, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
        output = self.forward(*args, **kwargs)
        for hook in tuple(self.__dict__.get("_forward_hooks", {}).values()):
            result = hook(self, args, output)
            if result is not None:
                output = result
        return output
