"""Loads the ``mnist_cnn.pt`` that pytorch/examples' mnist/main.py --save-model wrote (run by the
runner under the other library than the one that saved it), evaluates it with that program's own
``Net`` and ``test`` on the same test set, and checks the printed test line against the one the
saving run printed (in the run directory's ``_main.py.log``).

    python reload_mnist_cnn.py EXAMPLES_MNIST_DIR
"""
import contextlib
import io
import re
import sys

import torch
from torchvision import datasets, transforms

sys.path.insert(0, sys.argv[1])
import main as mnist

model = mnist.Net()
model.load_state_dict(torch.load("mnist_cnn.pt"))  # weights_only: torch's default
transform = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
loader = torch.utils.data.DataLoader(datasets.MNIST("../data", train=False, transform=transform),
                                     batch_size=1000)
out = io.StringIO()
with contextlib.redirect_stdout(out):
    mnist.test(model, torch.device("cpu"), loader)
pattern = r"Test set: Average loss: ([\d.]+), Accuracy: (\d+)/"
with open("_main.py.log") as f:
    saved = re.findall(pattern, f.read())[-1]
loaded = re.search(pattern, out.getvalue()).groups()
print(f"saved run: {saved}, reloaded under {torch.__name__}: {loaded}")
if abs(float(saved[0]) - float(loaded[0])) > 2e-4 or saved[1] != loaded[1]:
    sys.exit("reloaded model disagrees with the saving run")
