class Tensor:
    def __init__(self, shape):
        self.shape = tuple(shape)


def zeros(*shape):
    return Tensor(shape)
