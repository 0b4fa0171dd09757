"""torch's dispatcher error for an op with no kernel for a tensor's backend (dense CPU, sparse,
quantized...): one wording, shared by every place numtorch refuses such a call as torch does."""

__all__ = ["no_kernel"]


def no_kernel(op, backend, mobile_hint=True):
    """The NotImplementedError torch raises when ``aten::<op>`` has no ``backend`` kernel
    (``"CPU"``, ``"SparseCPU"``, ...). torch 2.13's CPU build ends the first line with the
    mobile sentence for every backend (sparse COO/CSR, quantized), so it is on by default."""
    msg = (f"Could not run 'aten::{op}' with arguments from the '{backend}' backend. This could "
           "be because the operator doesn't exist for this backend, or was omitted during the "
           "selective/custom build process (if using custom build).")
    if mobile_hint:
        msg += (" If you are a Facebook employee using PyTorch on mobile, please visit "
                "https://fburl.com/ptmfixes for possible resolutions.")
    return NotImplementedError(msg)
