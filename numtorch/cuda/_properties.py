"""``torch.cuda.get_device_properties``: torch's properties object over CuPy's dict.

CuPy's ``runtime.getDeviceProperties`` returns the CUDA runtime's struct as a dict with CUDA's
field names (``totalGlobalMem``, ``multiProcessorCount``...); programs read torch's attribute
names (``props.total_memory``, ``props.multi_processor_count``) and print its repr.
"""

# torch's attribute -> the CUDA runtime's field (as CuPy names it)
_FIELDS = {
    "name": "name", "major": "major", "minor": "minor", "total_memory": "totalGlobalMem",
    "multi_processor_count": "multiProcessorCount", "is_integrated": "integrated",
    "is_multi_gpu_board": "isMultiGpuBoard",
    "max_threads_per_multi_processor": "maxThreadsPerMultiProcessor",
    "regs_per_multiprocessor": "regsPerMultiprocessor", "warp_size": "warpSize",
    "max_threads_per_block": "maxThreadsPerBlock", "shared_memory_per_block": "sharedMemPerBlock",
    "shared_memory_per_block_optin": "sharedMemPerBlockOptin",
    "shared_memory_per_multiprocessor": "sharedMemPerMultiprocessor",
    "L2_cache_size": "l2CacheSize", "clock_rate": "clockRate",
    "memory_clock_rate": "memoryClockRate", "memory_bus_width": "memoryBusWidth",
    "pci_bus_id": "pciBusID", "pci_device_id": "pciDeviceID", "pci_domain_id": "pciDomainID",
    "uuid": "uuid",
}
_FLAGS = ("is_integrated", "is_multi_gpu_board")


def _uuid(raw):
    if isinstance(raw, (bytes, bytearray)) and len(raw) == 16:
        h = raw.hex()
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
    return raw.decode(errors="replace") if isinstance(raw, (bytes, bytearray)) else raw


class _CudaDeviceProperties:
    """One GPU's properties under torch's names (read-only attributes)."""

    __slots__ = tuple(_FIELDS)

    def __init__(self, props):
        for attr, key in _FIELDS.items():
            value = props.get(key, 0)
            if attr == "name" and isinstance(value, (bytes, bytearray)):
                value = value.decode(errors="replace")
            elif attr == "uuid":
                value = _uuid(value) if value else ""
            elif attr in _FLAGS:
                value = int(value or 0)
            object.__setattr__(self, attr, value)

    def __setattr__(self, name, value):
        raise AttributeError(f"attribute '{name}' of 'torch._C._CudaDeviceProperties' objects "
                             "is not writable")

    def __repr__(self):
        mb = 1024 * 1024
        return (f"_CudaDeviceProperties(name='{self.name}', major={self.major}, "
                f"minor={self.minor}, total_memory={self.total_memory // mb}MB, "
                f"multi_processor_count={self.multi_processor_count}, uuid={self.uuid}, "
                f"pci_bus_id={self.pci_bus_id}, pci_device_id={self.pci_device_id}, "
                f"pci_domain_id={self.pci_domain_id}, L2_cache_size={self.L2_cache_size // mb}MB)")


_CudaDeviceProperties.__name__ = _CudaDeviceProperties.__qualname__ = "_CudaDeviceProperties"
_CudaDeviceProperties.__module__ = "torch._C"
