"""torch.save as far as the stack sampler sees it: a frame of torch/serialization.py while the file is written."""
import pickle
import time


def save(obj, f, delay_s=0.0):
    with open(f, "wb") as out:
        pickle.dump(obj, out)
    if delay_s:
        time.sleep(delay_s)  # a slow disk
