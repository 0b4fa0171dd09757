"""The legacy (pre-1.6) checkpoint writer, for ``save(..., _use_new_zipfile_serialization=False)``.

The legacy format is a plain stream: five pickles (the magic number, the format's protocol
version, a description of the machine, the object, the list of storage keys) followed by each
storage as an 8-byte element count and its raw little-endian bytes, in the order of the key
list. The object's pickle is the same as in the zip format except that each storage reference
carries a sixth field (the view of a storage it stands for; always None here).
"""

import io
import pickle
import struct

import numpy as np

from ._common import _LEGACY_PROTOCOL, _MAGIC, _STORAGE_NAME
from ._write import _pickle

# what torch records about the saving machine (C type sizes in bytes)
_SYS_INFO = {"protocol_version": _LEGACY_PROTOCOL, "little_endian": True,
             "type_sizes": {"short": 2, "int": 4, "long": 4}}


def write_legacy(obj, fileobj, protocol):
    """Write ``obj`` to the binary file object ``fileobj`` in the legacy format."""
    data, storages = _pickle(obj, protocol, legacy=True)
    head = io.BytesIO()
    for value in (_MAGIC, _LEGACY_PROTOCOL, _SYS_INFO):
        pickle.dump(value, head, protocol=protocol)
    fileobj.write(head.getvalue())
    fileobj.write(data)
    fileobj.write(pickle.dumps([ref.key for ref in storages], protocol=protocol))
    for ref in storages:
        # the count its reference in the pickle names: bytes for the dtypes without a typed
        # storage (uint16/32/64, saved as torch's UntypedStorage), elements for the others
        untyped = ref.dtype_name not in _STORAGE_NAME
        fileobj.write(struct.pack("<q", int(ref.flat.nbytes if untyped else ref.flat.size)))
        fileobj.write(memoryview(ref.flat.reshape(-1).view(np.uint8)))
