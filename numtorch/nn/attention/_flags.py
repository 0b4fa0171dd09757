"""Which scaled-dot-product-attention backends are enabled: the switches behind
``torch.backends.cuda.enable_*_sdp`` and ``torch.nn.attention.sdpa_kernel``.

numtorch has one attention implementation (the "math" composition); the switches decide
whether a call may run, as torch's do: on the CPU torch has the math and flash kernels, so a
call with both disabled raises; on CUDA any enabled backend serves it.
"""

# backend value -> enabled; values are SDPBackend's (MATH 0, FLASH 1, EFFICIENT 2, CUDNN 3)
ENABLED = {0: True, 1: True, 2: True, 3: True}
PRIORITY = [1, 2, 0, 3]  # torch's default order of preference (set by set_priority=True)

_NO_BACKEND = ("No viable backend for scaled_dot_product_attention was found. This is likely "
               "due to turning off both the math kernel and the fused kernels.")


def check(device_type):
    """Raise torch's error when no enabled backend can run on ``device_type``."""
    if device_type == "cpu":
        if not (ENABLED[0] or ENABLED[1]):
            raise RuntimeError(_NO_BACKEND)
    elif not any(ENABLED.values()):
        raise RuntimeError(_NO_BACKEND)


def _setter(value, doc):
    def enable(enabled):
        ENABLED[value] = bool(enabled)

    enable.__doc__ = f"Enable or disable the {doc} backend of scaled dot product attention."
    return enable


def _getter(value, doc):
    def enabled():
        return ENABLED[value]

    enabled.__doc__ = f"Whether the {doc} backend of scaled dot product attention is enabled."
    return enabled


enable_math_sdp, math_sdp_enabled = _setter(0, "math"), _getter(0, "math")
enable_flash_sdp, flash_sdp_enabled = _setter(1, "flash"), _getter(1, "flash")
enable_mem_efficient_sdp = _setter(2, "memory-efficient")
mem_efficient_sdp_enabled = _getter(2, "memory-efficient")
enable_cudnn_sdp, cudnn_sdp_enabled = _setter(3, "cuDNN"), _getter(3, "cuDNN")
for _f, _n in ((enable_math_sdp, "enable_math_sdp"), (math_sdp_enabled, "math_sdp_enabled"),
               (enable_flash_sdp, "enable_flash_sdp"), (flash_sdp_enabled, "flash_sdp_enabled"),
               (enable_mem_efficient_sdp, "enable_mem_efficient_sdp"),
               (mem_efficient_sdp_enabled, "mem_efficient_sdp_enabled"),
               (enable_cudnn_sdp, "enable_cudnn_sdp"), (cudnn_sdp_enabled, "cudnn_sdp_enabled")):
    _f.__name__ = _f.__qualname__ = _n
del _f, _n
