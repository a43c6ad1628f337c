"""``neuronxcc.nki.typing``: the same annotations as ``nki.typing`` (``tensor[...]``)."""
from ..typing import Annotation, NkiTensor, mutable_tensor, scalar, tensor  # noqa: F401

__all__ = ["tensor", "mutable_tensor", "scalar", "NkiTensor", "Annotation"]
