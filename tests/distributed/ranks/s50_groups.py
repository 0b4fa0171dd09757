"""Session 50 oracle rank program: ``get_pg_count`` through group creation (new_group on
members and non-members, a refused new_group, new_subgroups, new_subgroups_by_enumeration,
destroying a subgroup) and the group names. Run by torch's launcher and by numtorch's
(``numtorch.run``); writes ``{case: result}`` to ``<out>/<tag>_rank<r>.json``."""

import json
import os
import sys

import torch.distributed as dist

out_dir, tag = sys.argv[1], sys.argv[2]
R = None
results = {"before_init": dist.get_pg_count()}
dist.init_process_group("gloo")
R = dist.get_rank()
results["init"] = dist.get_pg_count()
results["world_name"] = dist.group.WORLD.group_name
g = dist.new_group([1])  # rank 0 is no member: it counts there too
results["new_group_one_member"] = dist.get_pg_count()
g = dist.new_group([0, 1])
results["new_group_both"] = [dist.get_pg_count(), g.group_name]
try:
    dist.new_group([0, 5])
except ValueError as e:
    results["new_group_refused"] = [type(e).__name__, dist.get_pg_count()]
cur, everyone = dist.new_subgroups(group_size=1)
results["new_subgroups"] = [dist.get_pg_count(), cur.group_name, len(everyone)]
cur, everyone = dist.new_subgroups_by_enumeration([[0], [1]])
results["by_enumeration"] = [dist.get_pg_count(), cur.group_name]
dist.destroy_process_group(g)
results["after_destroying_a_subgroup"] = dist.get_pg_count()
dist.barrier()
dist.destroy_process_group()
results["after_destroying_all"] = dist.get_pg_count()
with open(os.path.join(out_dir, f"{tag}_rank{R}.json"), "w") as f:
    json.dump(results, f)
