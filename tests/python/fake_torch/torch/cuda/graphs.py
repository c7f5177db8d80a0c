"""torch.cuda.graphs as far as the hook touches it: CUDAGraph.capture_begin,
which every capture (torch.cuda.graph, make_graphed_callables, torch.compile's
CUDA graph trees) goes through."""


class CUDAGraph:
    def __init__(self):
        self.captured = False

    def capture_begin(self, pool=None, capture_error_mode="global"):
        self.captured = True

    def capture_end(self):
        pass

    def replay(self):
        pass


class graph:
    def __init__(self, cuda_graph, pool=None, stream=None):
        self.cuda_graph = cuda_graph

    def __enter__(self):
        self.cuda_graph.capture_begin()

    def __exit__(self, *exc):
        self.cuda_graph.capture_end()
        return False
