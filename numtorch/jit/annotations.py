"""``torch.jit.annotations``: the typing names TorchScript code imports from here."""

from typing import Any, Dict, List, Optional, Tuple, Union  # noqa: F401

__all__ = ["Any", "Dict", "List", "Optional", "Tuple", "Union", "BroadcastingList1",
           "BroadcastingList2", "BroadcastingList3"]


class _BroadcastingList:
    """``BroadcastingList2[int]``: an int or a list of 2 ints, to TorchScript; an annotation
    with no runtime value, as in torch."""

    def __getitem__(self, types):
        return None


BroadcastingList1 = BroadcastingList2 = BroadcastingList3 = _BroadcastingList()
