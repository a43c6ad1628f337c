"""Package marker for the verbatim nki-library kernels npusim tests (not from the library)."""
