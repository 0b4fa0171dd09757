"""Facts about `import torch` that must read the same under torch and under numtorch.run."""
import importlib
import importlib.util
import os
import pickle
import sys

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader
from torch.nn.modules.linear import Linear
import torch.utils.data.dataloader as dataloader_module

facts = {}
facts["sys.path[0] is the script dir"] = sys.path[0] == os.path.dirname(__file__)
main = sys.modules["__main__"]
facts["main"] = (main.__name__, main.__spec__, main.__package__, main.__file__ == __file__,
                 os.path.isabs(main.__file__), type(main.__loader__).__name__)
facts["argv"] = sys.argv
facts["F is torch.nn.functional"] = F is torch.nn.functional
facts["DataLoader"] = DataLoader is torch.utils.data.DataLoader is dataloader_module.DataLoader
facts["Linear"] = Linear is torch.nn.Linear
names = ["torch", "torch.nn", "torch.nn.functional", "torch.nn.modules.linear", "torch.nn.init",
         "torch.utils.data", "torch.utils.data.dataloader", "torch.optim.lr_scheduler",
         "torch.autograd", "torch.autograd.function", "torch.multiprocessing", "torch.cuda",
         "torch.cuda.amp", "torch.amp", "torch.version", "torch.torch_version",
         "torch.utils.data._utils.collate", "torch.nn.utils.rnn", "torch.backends.cudnn",
         "torch._utils"]
for name in names:
    module = importlib.import_module(name)
    parent, _, leaf = name.rpartition(".")
    facts[name] = (sys.modules[name] is module,
                   getattr(sys.modules[parent], leaf) is module if parent else True)
facts["find_spec"] = importlib.util.find_spec("torch") is not None
facts["pickled class"] = pickle.loads(b"ctorch.nn.modules.linear\nLinear\n.") is Linear
facts["pickled function"] = pickle.loads(b"ctorch.nn.functional\nrelu\n.") is F.relu
for stmt in ["import torch.no_such_module", "from torch.nn import no_such_module",
             "import torch.nn.no_such.deeper"]:
    try:
        exec(stmt)
    except ImportError as exc:
        # "cannot import name" names the module by its own __name__ (numtorch.nn)
        facts[stmt] = (type(exc).__name__,) if stmt.startswith("from") else (
            type(exc).__name__, str(exc), exc.name)
facts["isinstance"] = isinstance(torch.nn.Linear(1, 1), torch.nn.Module)
facts["version type"] = isinstance(torch.__version__, str), torch.__version__ > "1.13.1"
from packaging.version import Version  # noqa: E402
facts["version parses"] = Version(torch.__version__).release[:2] >= (2, 0)
facts["version module"] = torch.version.__version__ == torch.__version__, torch.version.cuda
for key, value in facts.items():
    print(f"{key}: {value!r}")
