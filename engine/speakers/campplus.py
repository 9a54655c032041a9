"""CAM++ speaker embeddings (3D-Speaker's CAMPPlus, 192-d) in numpy.

Architecture (Wang et al., "CAM++", Interspeech 2023): a front convolution
module of 2-D residual blocks over (frequency, time) that shrinks 80 mel bins to
10, a strided TDNN layer, three densely connected TDNN blocks (12, 24, 16
layers, growth 32) whose layers gate their output with a context-aware mask
(global mean plus 100-frame segment means), transition layers that halve the
channels, statistics pooling (mean and standard deviation over time) and a
dense layer with non-affine batch norm. Weights: 3D-Speaker's
``campplus_cn_en_common.pt`` (Apache-2.0), read with :mod:`engine.speakers.weights`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from engine.errors import ModelError, ParameterError
from engine.speakers import features
from engine.speakers.nn import batchnorm, conv1d, conv2d, relu, sigmoid
from engine.speakers.weights import read_state_dict

BLOCKS = ((12, 1), (24, 2), (16, 2))  # (layers, dilation) of the three dense TDNN blocks
SEGMENT_FRAMES = 100  # context-aware masking: segment length for the local means (frames)
EMBEDDING_DIM = 192
MIN_FRAMES = 10  # shortest input accepted (0.1 s of features)


class CamPlusPlus:
    """The CAM++ network with its weights; ``embed`` maps feature batches to 192-d embeddings."""

    def __init__(self, weights: dict[str, np.ndarray]) -> None:
        self.w = {k: v.astype(np.float32) for k, v in weights.items() if isinstance(v, np.ndarray) and v.ndim}
        if self.w.get("xvector.dense.linear.weight", np.zeros(0)).shape[:1] != (EMBEDDING_DIM,):
            raise ModelError("CAM++ weights lack a 192-d xvector.dense layer")

    @classmethod
    def load(cls, path: str | Path) -> CamPlusPlus:
        """Read the state dict at ``path``."""
        return cls(read_state_dict(path))

    def _res_block(self, x: np.ndarray, prefix: str, stride: int) -> np.ndarray:
        w = self.w
        out = relu(batchnorm(conv2d(x, w[f"{prefix}.conv1.weight"], stride=(stride, 1), padding=1), w, f"{prefix}.bn1"))
        out = batchnorm(conv2d(out, w[f"{prefix}.conv2.weight"], padding=1), w, f"{prefix}.bn2")
        if f"{prefix}.shortcut.0.weight" in w:
            x = batchnorm(conv2d(x, w[f"{prefix}.shortcut.0.weight"], stride=(stride, 1)), w, f"{prefix}.shortcut.1")
        return relu(out + x)

    def _head(self, feats: np.ndarray) -> np.ndarray:
        w = self.w
        x = feats.transpose(0, 2, 1)[:, None]  # (batch, 1, mels, frames)
        x = relu(batchnorm(conv2d(x, w["head.conv1.weight"], padding=1), w, "head.bn1"))
        for layer in ("layer1", "layer2"):
            x = self._res_block(x, f"head.{layer}.0", 2)
            x = self._res_block(x, f"head.{layer}.1", 1)
        x = relu(batchnorm(conv2d(x, w["head.conv2.weight"], stride=(2, 1), padding=1), w, "head.bn2"))
        batch, channels, height, frames = x.shape
        return x.reshape(batch, channels * height, frames)

    def _cam_layer(self, x: np.ndarray, prefix: str, dilation: int) -> np.ndarray:
        w = self.w
        local = conv1d(x, w[f"{prefix}.linear_local.weight"], padding=dilation, dilation=dilation)
        frames = x.shape[-1]
        segments = -(-frames // SEGMENT_FRAMES)
        padded = np.zeros((*x.shape[:2], segments * SEGMENT_FRAMES), dtype=np.float32)
        padded[..., :frames] = x
        counts = np.minimum(SEGMENT_FRAMES, frames - SEGMENT_FRAMES * np.arange(segments))
        seg_means = padded.reshape(*x.shape[:2], segments, SEGMENT_FRAMES).sum(-1) / counts
        context = x.mean(-1, keepdims=True) + np.repeat(seg_means, SEGMENT_FRAMES, axis=-1)[..., :frames]
        hidden = relu(conv1d(context, w[f"{prefix}.linear1.weight"], w[f"{prefix}.linear1.bias"]))
        return local * sigmoid(conv1d(hidden, w[f"{prefix}.linear2.weight"], w[f"{prefix}.linear2.bias"]))

    def _xvector(self, x: np.ndarray) -> np.ndarray:
        w = self.w
        x = relu(
            batchnorm(conv1d(x, w["xvector.tdnn.linear.weight"], stride=2, padding=2), w, "xvector.tdnn.nonlinear.batchnorm")
        )
        for index, (layers, dilation) in enumerate(BLOCKS, start=1):
            for layer in range(1, layers + 1):
                p = f"xvector.block{index}.tdnnd{layer}"
                y = conv1d(relu(batchnorm(x, w, f"{p}.nonlinear1.batchnorm")), w[f"{p}.linear1.weight"])
                y = self._cam_layer(relu(batchnorm(y, w, f"{p}.nonlinear2.batchnorm")), f"{p}.cam_layer", dilation)
                x = np.concatenate([x, y], axis=1)
            p = f"xvector.transit{index}"
            x = conv1d(relu(batchnorm(x, w, f"{p}.nonlinear.batchnorm")), w[f"{p}.linear.weight"])
        x = relu(batchnorm(x, w, "xvector.out_nonlinear.batchnorm"))
        stats = np.concatenate([x.mean(-1), x.std(-1, ddof=1)], axis=1)[:, :, None]
        y = conv1d(stats, w["xvector.dense.linear.weight"])
        return batchnorm(y, w, "xvector.dense.nonlinear.batchnorm")[:, :, 0]

    def embed_features(self, feats: np.ndarray) -> np.ndarray:
        """Embeddings of a batch of mean-normalised fbank features (batch, frames, 80) -> (batch, 192)."""
        if feats.ndim != 3 or feats.shape[2] != features.N_MELS or feats.shape[1] < MIN_FRAMES:
            raise ParameterError(f"CAM++ needs (batch, >= {MIN_FRAMES} frames, 80) features, got {feats.shape}")
        return self._xvector(self._head(feats.astype(np.float32)))

    def embed(self, samples: np.ndarray) -> np.ndarray:
        """The 192-d embedding of one mono 16 kHz excerpt (float samples), shape (192,)."""
        feats = features.fbank(samples)
        feats = feats - feats.mean(axis=0, keepdims=True)
        return self.embed_features(feats[None])[0]
