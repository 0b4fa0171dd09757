"""NumPy references of numtorch's fused CUDA kernels (see _kernels.py)."""
