"""Single-process script: misuse cases, run with torch (gloo) or numtorch; prints JSON.

Usage: python torch_misuse.py torch|numtorch. Every case's exception class and message (or
"ok") is printed as one JSON object, so the test compares numtorch with torch.
"""

import datetime
import json
import os
import sys
import warnings

warnings.simplefilter("ignore")
if sys.argv[1] == "torch":
    import torch
else:
    import numtorch as torch
dist = torch.distributed
out = {}


def case(name, fn):
    try:
        fn()
        out[name] = "ok"
    except Exception as e:  # noqa: BLE001
        out[name] = f"{type(e).__name__}: {e}"


case("before_init/get_rank", dist.get_rank)
case("before_init/all_reduce", lambda: dist.all_reduce(torch.ones(2)))
case("before_init/destroy", dist.destroy_process_group)
case("before_init/is_initialized", lambda: dist.is_initialized() and 1 / 0)
case("env_missing", lambda: dist.init_process_group("gloo"))
os.environ.update(RANK="0", WORLD_SIZE="1", MASTER_ADDR="127.0.0.1")
case("env_missing_port", lambda: dist.init_process_group("gloo"))
case("unknown_backend", lambda: dist.init_process_group("nope"))
os.environ["MASTER_PORT"] = sys.argv[2]
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
case("init_twice", lambda: dist.init_process_group("gloo"))
case("get_backend", lambda: dist.get_backend() == "gloo" or 1 / 0)
R = dist.ReduceOp
for dt in ("float32", "int64", "bool", "complex64", "float16", "uint8"):
    for op in ("AVG", "PRODUCT", "MIN", "BAND", "BXOR"):
        t = torch.ones(2, dtype=getattr(torch, dt))
        case(f"all_reduce/{dt}/{op}", lambda: dist.all_reduce(t, op=getattr(R, op)))
case("tensor_arg", lambda: dist.all_reduce(3))
case("tensor_list_arg", lambda: dist.all_gather(torch.ones(2), torch.ones(2)))
case("tensor_list_elems", lambda: dist.all_gather([1], torch.ones(2)))
case("all_gather_len", lambda: dist.all_gather([torch.zeros(2)] * 2, torch.ones(2)))
case("all_gather_shape", lambda: dist.all_gather([torch.zeros(3)], torch.ones(2)))
case("all_gather_dtype", lambda: dist.all_gather([torch.zeros(2, dtype=torch.int64)],
                                                 torch.ones(2)))
case("broadcast_root", lambda: dist.broadcast(torch.ones(2), src=3))
case("broadcast_no_src", lambda: dist.broadcast(torch.ones(2)))
case("broadcast_both_src", lambda: dist.broadcast(torch.ones(2), src=0, group_src=0))
case("reduce_root", lambda: dist.reduce(torch.ones(2), dst=3))
case("gather_no_list", lambda: dist.gather(torch.ones(2), None, dst=0))
case("gather_len", lambda: dist.gather(torch.ones(2), [torch.zeros(2)] * 2, dst=0))
case("gather_shape", lambda: dist.gather(torch.ones(2), [torch.zeros(3)], dst=0))
case("scatter_no_list", lambda: dist.scatter(torch.zeros(2), None, src=0))
case("scatter_len", lambda: dist.scatter(torch.zeros(2), [torch.ones(2)] * 2, src=0))
case("scatter_shape", lambda: dist.scatter(torch.zeros(2), [torch.ones(3)], src=0))
case("reduce_scatter_len", lambda: dist.reduce_scatter(torch.zeros(2), [torch.ones(2)] * 2))
case("all_to_all_len", lambda: dist.all_to_all([torch.zeros(2)] * 2, [torch.ones(2)]))
case("send_to_self", lambda: dist.send(torch.ones(2), 0))
case("p2p_op_bad", lambda: dist.P2POp(print, torch.ones(1), 0))
case("batch_isend_irecv_bad", lambda: dist.batch_isend_irecv([1]))
case("new_group_duplicates", lambda: dist.new_group([0, 0]))
case("new_group_too_big", lambda: dist.new_group([0, 5]))
case("all_gather_object_short", lambda: dist.all_gather_object([], 1))
case("scatter_object_list_empty", lambda: dist.scatter_object_list([], [1], src=0))
case("scatter_object_list_none", lambda: dist.scatter_object_list([None], None, src=0))
case("ddp_no_params", lambda: torch.nn.parallel.DistributedDataParallel(torch.nn.ReLU()))
case("ddp_cpu_device_ids", lambda: torch.nn.parallel.DistributedDataParallel(
    torch.nn.Linear(2, 2), device_ids=[0]))
m = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(2, 2))
out["ddp_attributes"] = [m.bucket_bytes_cap, m.broadcast_buffers, m.find_unused_parameters,
                         m.gradient_as_bucket_view, m.static_graph, m.dim, m.device_ids,
                         m.output_device, m.require_backward_grad_sync,
                         m.require_forward_param_sync, list(m.state_dict())]
out["reduce_op_repr"] = [repr(R.SUM), str(R.MAX), int(R.BXOR), R.SUM == R.SUM,
                         list(R.RedOpType.__members__)]
out["backend_names"] = [dist.Backend("GLOO"), dist.Backend.MPI, dist.Backend("foo")]
dist.destroy_process_group()
case("destroy_twice", dist.destroy_process_group)
print("REPORT " + json.dumps(out), flush=True)
