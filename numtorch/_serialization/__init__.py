"""Private parts of :mod:`numtorch.serialization` (writer, readers, safetensors)."""
