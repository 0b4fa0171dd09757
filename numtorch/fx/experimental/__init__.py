"""``torch.fx.experimental``: the queries libraries make about the active tracing modes."""
