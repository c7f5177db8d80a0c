"""torch._dynamo.utils: the graph counter and the last compilations' metrics."""
import collections

counters = collections.defaultdict(collections.Counter)
_compilation_metrics = collections.deque(maxlen=64)


class CompilationMetrics:
    def __init__(self, compile_id, recompile_reason):
        self.compile_id, self.recompile_reason = compile_id, recompile_reason


def get_compilation_metrics():
    return list(_compilation_metrics)
