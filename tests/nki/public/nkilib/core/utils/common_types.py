# Verbatim from github.com/aws-neuron/nki-library, path src/nkilib_src/nkilib/core/utils/common_types.py,
# commit d2ad3a579498d1888aa8740af97fd325dd5f2740. A test input for npusim, kept as published (only this header was added).
# Copyright Amazon.com, Inc. or its affiliates. All Rights Reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License").
# You may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.


from enum import Enum


class QKVOutputLayout(Enum):
    BSD = 0  # (b, s, (n_q_heads + 2 * n_kv_heads) * d_head)
    NBSd = 1  # (num_heads, b, s, d_head)
    NBdS = 2  # (num_heads, b, d_head, s)


class NormType(Enum):
    NO_NORM = 0
    RMS_NORM = 1
    LAYER_NORM = 2
    RMS_NORM_SKIP_GAMMA = 3


class ActFnType(Enum):
    SiLU = 0
    GELU = 1
    GELU_Tanh_Approx = 2
    Swish = 3


class RouterActFnType(Enum):
    """Supported activation types for RouterTopK kernel"""

    SIGMOID = 0
    SOFTMAX = 1

    def __str__(self):
        return self.name.lower()


class ExpertAffinityScaleMode(Enum):
    NO_SCALE = 0
    POST_SCALE = 1
    PRE_SCALE = 2
    PRE_SCALE_DELAYED = 3


class QuantizationType(Enum):
    NONE = 0
    STATIC = 1
    ROW = 2
    MX = 3
    STATIC_MX = 4
    ROW_MX = 5


class QKVWeightLayout(Enum):
    """Layout of fused QKV weight tensor passed to the kernel.

    The kernel requires weights in a specific layout depending on quantization
    type and whether the DMA transpose optimization is enabled. Starting from a
    standard float checkpoint with shape [H, I] (I = fused QKV output dim):

    CONTIGUOUS (non-MX):
        Use the checkpoint weights as-is in [H, I] layout.

    MX_CONTIGUOUS (MX without DMA transpose):
        Pack every 4 consecutive H rows into float8_e4m3fn_x4:
            w.reshape(H//4, 4, I).transpose(0, 2, 1).reshape(H//4, I*4)
        then cast to float8_e4m3fn_x4. Result shape: [H//4, I] in x4 dtype.

    MX_INTERLEAVED (MX with DMA transpose — FP8 or BF16+static-dequant input):
        Starting from MX_CONTIGUOUS packed weights, unpack back to [H, I],
        then reorder rows so that the x4 quads match the interleaved layout
        produced by DMA transpose on the input:
            h_idx = np.arange(H).reshape(2, H//4, 2).transpose(1, 0, 2).reshape(H)
            w_reordered = w_unpacked[h_idx, :]
        then re-pack to float8_e4m3fn_x4. Result shape: [H//4, I] in x4 dtype.
    """

    CONTIGUOUS = 0
    MX_CONTIGUOUS = 1
    MX_INTERLEAVED = 2


class GateUpDim(Enum):
    GATE = 0
    UP = 1
