"""A program that starts a second Python itself (as Lightning's DDP launcher does): under
numtorch.run the child's `import torch` must be numtorch's too."""
import os
import subprocess
import sys

import torch

child = ("import torch; t = torch.arange(6.).reshape(2, 3); "
         "print('child', type(t).__module__.split('.')[0], round(float(t.softmax(-1)[0, 2]), 6))")
out = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True,
                     env=dict(os.environ))
print("parent", type(torch.ones(1)).__module__.split(".")[0])
print(out.stdout.strip(), out.returncode)
