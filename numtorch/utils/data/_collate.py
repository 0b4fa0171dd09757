"""The collate functions' old import path inside numtorch; they live in ``_utils/collate.py``
(torch's ``torch.utils.data._utils.collate``)."""

from ._utils.collate import collate, default_collate, default_convert  # noqa: F401
