"""time_sequence_prediction's pattern: a NumPy array saved with torch.save to an open file and
read back with torch.load's default weights_only (refused since torch 2.6) unless the
environment forces the full unpickler. Prints what happened."""
import sys

import numpy as np
import torch

np.random.seed(2)
data = np.sin(np.arange(12).reshape(3, 4) / 3.0).astype("float64")
torch.save(data, open(sys.argv[1], "wb"))  # noqa: SIM115 - the program's own idiom
try:
    back = torch.load(sys.argv[1])
except Exception as e:  # noqa: BLE001 - the class is the fact compared
    print("refused:", type(e).__module__, type(e).__name__)
else:
    print("loaded:", type(back).__name__, back.dtype, back.shape, float(back.sum()))
    print("input:", torch.from_numpy(back[1:, :-1]).double().sum().item())
