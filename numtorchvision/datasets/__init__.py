"""placeholder, filled in shortly."""
