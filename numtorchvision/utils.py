"""Image grids and saving (filled in shortly)."""
