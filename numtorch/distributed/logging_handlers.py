"""Where ``torch.distributed``'s event logger sends its records: a name -> handler table
(``"default"`` drops them) that programs may extend before the first collective."""

import logging

__all__ = []

_log_handlers = {"default": logging.NullHandler()}
