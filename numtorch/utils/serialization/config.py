"""``torch.utils.serialization.config``: the process-wide settings of ``torch.save`` and
``torch.load``, in two sections.

``load``: ``mmap`` (``load(mmap=None)`` maps the file when True), ``endianness`` (a
``torch.serialization.LoadEndianness`` for checkpoints without a byte-order record, or None),
``mmap_flags`` (``mmap.MAP_PRIVATE`` or ``mmap.MAP_SHARED``) and
``calculate_storage_offsets`` (accepted; it changes nothing in numtorch).

``save``: ``compute_crc32`` (False writes 0 as every record's CRC-32, as torch does),
``storage_alignment`` (the byte boundary each record's data starts on, default 64) and
``use_pinned_memory_for_d2h`` (accepted; numtorch has no device copies to pin).

``torch.serialization.set_crc32_options``, ``set_default_load_endianness`` and
``set_default_mmap_options`` change the same values; assigning a setting a section does not
have raises AttributeError.
"""

from ..._serialization._options import load, save

__all__ = ["load", "save"]
