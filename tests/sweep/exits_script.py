"""A script for `npusim run` that simulates something, prints, then ends with sys.exit(STATUS)."""
import sys

import tiled_add

out = tiled_add.run(128, 512)
print("ran the tiled add")
sys.exit(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
