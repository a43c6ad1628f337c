"""okk.h surface (audit findings 5 and 6): op_type_t / mul_type_t names and macros, x32's okk.h member
names, the pointer getters, the command-id node and kernel registration."""
import numpy as np
import pytest

from npusim import okk
from npusim.core.errors import ConstraintError, UnsupportedError

# okk.h values, written out (not computed with OP_TYPE) so a wrong macro fails
OP_TYPES = {"S8_OP_S8_TO_S8": 31, "S8_OP_S8_TO_S16": 23, "S8_OP_U8_TO_S8": 27, "S8_OP_U8_TO_S16": 19,
            "U8_OP_S8_TO_S8": 29, "U8_OP_S8_TO_S16": 21, "U8_OP_U8_TO_S8": 25, "U8_OP_U8_TO_S16": 17,
            "U8_OP_U8_TO_U8": 9, "U8_OP_U8_TO_U16": 1, "S16_OP_S16_TO_S8": 30, "S16_OP_S16_TO_S16": 22,
            "S16_OP_U16_TO_S8": 26, "S16_OP_U16_TO_S16": 18, "U16_OP_S16_TO_S8": 28, "U16_OP_S16_TO_S16": 20,
            "U16_OP_U16_TO_S8": 24, "U16_OP_U16_TO_S16": 16, "U16_OP_U16_TO_U8": 8, "U16_OP_U16_TO_U16": 0}
MUL_TYPES = {"S16_MUL_S8_TO_S16": 7, "U16_MUL_S8_TO_S16": 6, "U16_MUL_U8_TO_U16": 0, "S16_MUL_U8_TO_S16": 5}


@pytest.mark.parametrize("name,value", sorted({**OP_TYPES, **MUL_TYPES}.items()))
def test_enumerators_have_okk_h_values(name, value):
    assert getattr(okk, name) == value
    assert name in okk.__all__


def test_macros():
    assert okk.OP_TYPE(1, 1, 0, 0, 1) == 19
    assert okk.MUL_TYPE(0, 1, 1) == 6


def test_fixed_point_accepts_enumerator():
    with okk.Device() as dev:
        dev.write_local(0, 0, np.full(256, 3, np.uint8))
        okk.okk_bdc_fixed_point_packed_add(0x2000, 0, 0, okk.dim4(4, 1, 1, 16), None, None, None,
                                           okk.S8_OP_S8_TO_S8, 0)
        assert (np.asarray(dev.read_local(0, 0x2000, 64)) == 6).all()


def test_x32_okk_h_member_names():
    v = okk.x32(_4N_s8=[1, 2, 3, -1])
    assert v.bits == 0xFF030201
    assert v._4N_u8 == (1, 2, 3, 255)
    assert okk.x32(_2N_s16=[-2, 5])._2N_u16 == (65534, 5)
    assert okk.x32(_4N_u8=[1, 2, 3, 255]) == v == okk.x32(s8x4=[1, 2, 3, -1])     # old alias kept
    with pytest.raises(ConstraintError):
        okk.x32(_4N_s8=[1, 2, 3])


def test_pointer_getters_view_the_simulated_memory():
    with okk.Device() as dev:
        g = okk.okk_global_mem_addr(okk.okk_global_mem_start_addr() + 8)
        g[:4] = [1, 2, 3, 4]
        assert list(dev.system.data[8:12]) == [1, 2, 3, 4]
        loc = okk.okk_local_mem_addr(2, 0x100)
        loc[0] = 9
        assert dev.local.data[2 * okk.okk_local_mem_size_per_npu() + 0x100] == 9
        assert len(loc) == okk.okk_local_mem_size_per_npu() - 0x100
        assert len(okk.okk_l2_sram_addr(okk.okk_l2_sram_start_addr())) == okk.okk_l2_sram_size()
        with pytest.raises(ConstraintError):
            okk.okk_local_mem_addr(64, 0)
        with pytest.raises(ConstraintError):
            okk.okk_global_mem_addr(0)
        with pytest.raises(UnsupportedError):
            okk.okk_dtcm_addr(okk.okk_dtcm_start_addr())


def test_id_node_counts_instructions():
    with okk.Device() as dev:
        okk.okk_initialize()
        dev.write_local(0, 0, np.zeros(0x1000, np.uint8))
        okk.okk_bdc_add(0x800, 0, 0x400, okk.dim4(1, 1, 1, 16), None, None, None)
        node = {}
        okk.okk_get_id_node(node)
        assert node["bd"] == 1 and node["gdma"] == 0 and node["cycle_count"] == dev.total_cycles
        okk.okk_enable_check_id_node()
        okk.okk_disable_check_id_node()
        with pytest.raises(UnsupportedError):
            okk.okk_set_id_node(node)


def test_register_and_dump(capsys):
    def my_kernel(param):
        return param
    okk.okk_register_kernel_func("my_kernel", my_kernel)
    assert "my_kernel" in okk.okk_dump_registered_kernel_funcs()
    assert "my_kernel" in capsys.readouterr().out
    with pytest.raises(ConstraintError):
        okk.okk_register_kernel_func("x", 3)
