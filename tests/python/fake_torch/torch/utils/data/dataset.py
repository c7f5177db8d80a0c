class Dataset:
    """A map-style dataset."""


class IterableDataset(Dataset):
    """A stream: every DataLoader worker iterates all of it unless it shards by get_worker_info()."""

    def __init__(self, nbatches=1):
        self.nbatches = nbatches
