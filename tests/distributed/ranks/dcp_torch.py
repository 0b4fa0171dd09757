"""Real torch's side of tests/distributed/test_dcp.py (run in its own process).

    python dcp_torch.py write CKPT OUT.json   # dcp.save of dcp_state.build(torch); dump
    python dcp_torch.py read CKPT OUT.json    # dcp.load into dcp_state.template(torch); dump
    python dcp_torch.py errors CKPT OUT.json  # the failing loads: class, first, last line
    python dcp_torch.py convert CKPT OUT.json # format_utils.dcp_to_torch_save; dump the file
    python dcp_torch.py hf_write DIR OUT.json # dcp.save of hf_state(torch), Hugging Face files
    python dcp_torch.py hf_read DIR OUT.json  # every tensor of a Hugging Face directory
    python dcp_torch.py optim - OUT.json      # get_state_dict of fresh optimizers
    python dcp_torch.py full CKPT OUT.json    # dcp.load of a (sharded) checkpoint into
                                              # whole tensors: {fqn: values} of its metadata
"""

import json
import os
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch
import torch.distributed.checkpoint as dcp
from dcp_state import (
    ERROR_CASES,
    HF_MAPPING,
    build,
    dump,
    hf_state,
    optim_cases,
    template,
)

warnings.simplefilter("ignore")
mode, ckpt, out = sys.argv[1:4]
if mode == "write":
    sd = build(torch)
    dcp.save(sd, checkpoint_id=ckpt)
    res = dump(torch, sd)
elif mode == "read":
    sd = template(torch)
    dcp.load(sd, checkpoint_id=ckpt)
    res = dump(torch, sd)
elif mode == "errors":
    res = {}
    for name, make in ERROR_CASES.items():
        try:
            dcp.load(make(torch), checkpoint_id=ckpt)
            res[name] = None
        except BaseException as e:  # noqa: BLE001  (CheckpointException is a BaseException)
            lines = str(e).splitlines()
            res[name] = [type(e).__name__, lines[0], lines[-1]]
    try:
        dcp.load({"a": 1})
    except BaseException as e:  # noqa: BLE001
        res["no_checkpoint_id"] = [type(e).__name__, str(e)]
elif mode == "convert":
    from torch.distributed.checkpoint.format_utils import dcp_to_torch_save

    dcp_to_torch_save(ckpt, out + ".pt")
    res = dump(torch, torch.load(out + ".pt", weights_only=False))
elif mode == "hf_write":
    sd = hf_state(torch)
    dcp.save(sd, storage_writer=dcp.HuggingFaceStorageWriter(ckpt,
                                                             fqn_to_index_mapping=HF_MAPPING))
    res = dump(torch, sd)
elif mode == "hf_read":
    md = dcp.HuggingFaceStorageReader(ckpt).read_metadata()
    sd = {fqn: torch.zeros(m.size, dtype=m.properties.dtype)
          for fqn, m in md.state_dict_metadata.items()}
    dcp.load(sd, storage_reader=dcp.HuggingFaceStorageReader(ckpt))
    res = dump(torch, sd)
elif mode == "optim":
    res = optim_cases(torch)
else:  # full
    md = dcp.FileSystemReader(ckpt).read_metadata()
    sd = {}
    for fqn, m in md.state_dict_metadata.items():
        if isinstance(m, dcp.TensorStorageMetadata):
            sd[fqn] = torch.zeros(m.size, dtype=m.properties.dtype)
        else:
            sd[fqn] = None
    dcp.load(sd, checkpoint_id=ckpt)
    res = {k: dump(torch, v) for k, v in sd.items()}
with open(out, "w") as f:
    json.dump(res, f)
