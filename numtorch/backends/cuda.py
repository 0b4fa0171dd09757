"""``backends.cuda``: matmul precision flags, accepted and stored (no effect on CuPy)."""


class _Matmul:
    allow_fp16_reduced_precision_reduction = True
    allow_bf16_reduced_precision_reduction = True

    # one flag with torch.set_float32_matmul_precision: TF32 is its 'high' setting
    @property
    def allow_tf32(self):
        from .. import _compat

        return _compat.get_float32_matmul_precision() != "highest"

    @allow_tf32.setter
    def allow_tf32(self, value):
        from .. import _compat

        _compat._flags["matmul_precision"] = "high" if value else "highest"


matmul = _Matmul()

# the scaled-dot-product-attention backend switches (state in nn.attention, used by sdpa_kernel)
from ..nn.attention._flags import (  # noqa: E402,F401
    enable_math_sdp, math_sdp_enabled, enable_flash_sdp, flash_sdp_enabled,
    enable_mem_efficient_sdp, mem_efficient_sdp_enabled, enable_cudnn_sdp, cudnn_sdp_enabled,
)


def is_built():
    from .. import cuda

    return cuda.is_available()
