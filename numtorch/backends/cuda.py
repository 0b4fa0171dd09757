"""``backends.cuda``: matmul precision flags, accepted and stored (no effect on CuPy)."""


class _Matmul:
    allow_tf32 = False
    allow_fp16_reduced_precision_reduction = True
    allow_bf16_reduced_precision_reduction = True


matmul = _Matmul()


def is_built():
    from .. import cuda

    return cuda.is_available()
