"""``torch.distributed._composable``: the per-module APIs (``fsdp.fully_shard``)."""
