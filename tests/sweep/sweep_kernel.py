"""A kernel file for `npusim sweep`: run(**config) and check(output, **config). It imports its sibling
module by name: the sweep puts the file's folder on the worker's sys.path."""
import kernels


def run(tile_p, tile_f):
    return kernels.run(tile_p, tile_f)


def check(out, **config):
    return kernels.check(out)
