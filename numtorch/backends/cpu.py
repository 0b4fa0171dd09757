"""``backends.cpu``: facts about the CPU backend."""


def get_cpu_capability():
    """numtorch computes with NumPy; report the BLAS NumPy was built with."""
    import numpy as np

    cfg = np.show_config(mode="dicts") if hasattr(np, "show_config") else {}
    blas = cfg.get("Build Dependencies", {}).get("blas", {}) if isinstance(cfg, dict) else {}
    return blas.get("name", "numpy")
