"""``numtorch.utils.ffi``: C extensions built with cffi (the 0.x ``torch.utils.ffi``).

``create_extension(...)`` configures the build, ``.build()`` compiles it into an importable
package whose functions take numtorch tensors where the C declarations say
``THFloatTensor *`` (or another TH tensor type). cffi comes with the ``ffi`` extra.
"""

from ._build import create_extension
from ._bridge import wrap_library as _wrap_library  # noqa: F401 (the built packages use it)

__all__ = ["create_extension"]
