"""A kernel file for `npusim sweep`: run(**config) and check(output, **config). It imports its sibling
module by name: the sweep puts the file's folder on the worker's sys.path."""
import tiled_add


def run(tile_p, tile_f):
    return tiled_add.run(tile_p, tile_f)


def check(out, **config):
    return tiled_add.check(out)
