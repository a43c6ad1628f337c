"""Audit findings 2, 3, 4: AddReluCast on 910A, the per-TPosition buffer limit, non-vector positions."""
import pytest

from npusim import ascendc as asc
from npusim.core.errors import ConstraintError


def test_addrelucast_on_910a_fails_the_dtype_check():
    # AddReluCast.md: Atlas 训练系列产品 不支持 -> no src->dst pair passes the dtype static_assert.
    with asc.core_context("Ascend910A"):
        pipe = asc.TPipe(); buf = asc.TBuf(); pipe.InitBuffer(buf, 4096)
        s = buf.GetWithOffset(asc.half, 128, 0)
        d = buf.GetWithOffset(asc.int8_t, 128, 2048)
        with pytest.raises(ConstraintError) as e:
            asc.AddReluCast(d, s, s, 128)
    assert (e.value.api, e.value.param, e.value.value) == ("AddReluCast", "dtype", "half->int8_t")
    assert e.value.rule.startswith("Failed to check dtype in AddReluCast") and "Ascend910A are none" in e.value.rule


@pytest.mark.parametrize("soc,limit", [("Ascend910B1", 8), ("Ascend310P3", 8), ("Ascend910A", 4)])
def test_alloc_limit_is_shared_by_all_queues_of_a_position(soc, limit):
    # FAQ "运行验证时AllocTensor/FreeTensor失败": six depth-1 VECIN queues, one buffer each; with a limit of
    # 4 the 5th AllocTensor fails ("max buffer number in same queue position is 4").
    with asc.core_context(soc):
        pipe = asc.TPipe()
        ques = [asc.TQue(asc.TPosition.VECIN, 1) for _ in range(limit + 2)]
        for q in ques:
            pipe.InitBuffer(q, 1, 256)
        out = asc.TQue(asc.TPosition.VECOUT, 1); pipe.InitBuffer(out, 1, 256)
        held = [q.AllocTensor(asc.half) for q in ques[:limit]]
        o = out.AllocTensor(asc.half)                      # another position has its own count
        with pytest.raises(ConstraintError) as e:
            ques[limit].AllocTensor(asc.half)
        assert (e.value.api, e.value.param, e.value.value) == ("AllocTensor", "queue", limit + 1)
        assert f"max buffer number in same queue position is {limit}" in e.value.rule
        ques[0].FreeTensor(held[0])                        # freeing one makes room again
        t = ques[limit].AllocTensor(asc.half)
        ques[limit].EnQue(t)                               # enqueued tensors still count
        with pytest.raises(ConstraintError, match="same queue position"):
            ques[limit + 1].AllocTensor(asc.half)
        ques[limit].FreeTensor(ques[limit].DeQue(asc.half))
        ques[limit + 1].AllocTensor(asc.half)
        out.FreeTensor(o)


def test_one_queue_with_eight_buffers_still_cycles():
    with asc.core_context("Ascend910B1"):
        pipe = asc.TPipe(); q = asc.TQue(asc.TPosition.VECIN, 8); pipe.InitBuffer(q, 8, 256)
        ts = [q.AllocTensor(asc.half) for _ in range(8)]
        for t in ts:
            q.FreeTensor(t)
        for _ in range(3):
            q.FreeTensor(q.AllocTensor(asc.half))


@pytest.mark.parametrize("make", [lambda: asc.TQue(asc.TPosition.A1, 1), lambda: asc.TBuf(asc.TPosition.A1),
                                  lambda: asc.TQue(asc.TPosition.CO2, 2)])
def test_non_vector_positions_are_constraint_errors(make):
    with asc.core_context("Ascend910B1"):
        with pytest.raises(ConstraintError) as e:
            make()
    assert e.value.api in ("TQue", "TBuf") and e.value.param == "position"
    assert e.value.value in ("A1", "CO2") and "VECIN / VECCALC / VECOUT" in e.value.rule
