"""``torch._inductor``: the compiler backend behind ``torch.compile``. numtorch runs compiled
programs eagerly, so only its ``config`` flags exist (programs such as gpt-fast set them
before compiling); they are recorded and have no effect."""

from . import config

__all__ = ["config"]
