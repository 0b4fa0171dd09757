"""``torch._dynamo.config``: the flags programs set before compiling. numtorch compiles
nothing, so they are recorded and have no effect."""

suppress_errors = False
verbose = False
cache_size_limit = 8
accumulated_cache_size_limit = 256
optimize_ddp = True
capture_scalar_outputs = False
capture_dynamic_output_shape_ops = False
automatic_dynamic_shapes = True
assume_static_by_default = True
