"""Part-two data-range remarks (audit finding 8): lookup_int32_to_fp32's input is documented as
[-128, 127] (reference §4.3); the hardware wraps (a value, not an error), strict mode reports it."""
import numpy as np
import pytest

import npusim
from npusim import okk
from npusim.core.errors import ConstraintError

SH = okk.dim4(1, 1, 1, 4)


def _write(dev, vals):
    dev.write_local(0, 0, np.array(vals, np.int32).view(np.uint8))


def test_lookup_int32_out_of_range_wraps_by_default_and_is_reported_in_strict_mode():
    with okk.Device() as dev:
        _write(dev, [1, -128, 127, 128])
        okk.okk_bdc_lookup_int32_to_fp32(0x1000, 0, SH)
        got = np.asarray(dev.read_local(0, 0x1000, 16)).view(np.float32)
        assert list(got) == [1.0, -128.0, 127.0, -128.0]          # 128 wraps through int8
        with npusim.configure(strict=True):
            with pytest.raises(ConstraintError) as e:
                okk.okk_bdc_lookup_int32_to_fp32(0x1000, 0, SH)
            assert "[-128, 127]" in e.value.rule and e.value.value == 128


def test_lookup_int32_in_range_passes_strict_mode():
    with okk.Device() as dev:
        _write(dev, [-128, -1, 0, 127])
        with npusim.configure(strict=True):
            okk.okk_bdc_lookup_int32_to_fp32(0x1000, 0, SH)
        got = np.asarray(dev.read_local(0, 0x1000, 16)).view(np.float32)
        assert list(got) == [-128.0, -1.0, 0.0, 127.0]
