"""``torch.nn.LinearCrossEntropyOptions``: the chunking choices of
:func:`numtorch.nn.functional.linear_cross_entropy`."""

import dataclasses

__all__ = ["LinearCrossEntropyOptions"]


@dataclasses.dataclass
class LinearCrossEntropyOptions:
    """How torch may split the batch of a linear cross entropy so the full logits are never
    held at once. numtorch records the choices and always computes the full logits.

    Attributes:
        allow_retain_graph (bool): allow backward to run twice through the chunked path.
        batch_chunk_size (int, optional): rows per chunk.
        chunking_method (str, optional): how chunk sizes are chosen (``"auto"``).
        acc_policy (str): accumulation precision, ``"accurate"``, ``"balanced"``,
            ``"compact"`` or ``"auto"``.
        acc_dtype (numtorch.dtype, optional): the accumulation dtype.
    """

    allow_retain_graph: bool = False
    batch_chunk_size: object = None
    chunking_method: object = "auto"
    acc_policy: str = "auto"
    acc_dtype: object = None


LinearCrossEntropyOptions.__module__ = "numtorch.nn.modules.linear_cross_entropy_options"
