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
from engine.speakers.nn import batchnorm_affine, conv1d, conv2d, fold_batchnorm, relu, sigmoid
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
        self._folded: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._affine: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def _conv_bn(self, conv: str, norm: str) -> tuple[np.ndarray, np.ndarray]:
        """The convolution ``conv`` (bias-free) with the batch norm ``norm`` after it folded in: (weight, bias)."""
        if conv not in self._folded:
            self._folded[conv] = fold_batchnorm(self.w[f"{conv}.weight"], self.w, norm)
        return self._folded[conv]

    def _bn_relu(self, x: np.ndarray, norm: str) -> np.ndarray:
        """ReLU of the batch norm ``norm`` of (batch, channels, time)."""
        if norm not in self._affine:
            self._affine[norm] = tuple(v[None, :, None] for v in batchnorm_affine(self.w, norm))  # type: ignore[assignment]
        scale, shift = self._affine[norm]
        y = x * scale
        y += shift
        return np.maximum(y, 0.0, out=y)

    @classmethod
    def load(cls, path: str | Path) -> CamPlusPlus:
        """Read the state dict at ``path``."""
        return cls(read_state_dict(path))

    def _res_block(self, x: np.ndarray, prefix: str, stride: int) -> np.ndarray:
        out = relu(conv2d(x, *self._conv_bn(f"{prefix}.conv1", f"{prefix}.bn1"), stride=(stride, 1), padding=1))
        out = conv2d(out, *self._conv_bn(f"{prefix}.conv2", f"{prefix}.bn2"), padding=1)
        if f"{prefix}.shortcut.0.weight" in self.w:
            x = conv2d(x, *self._conv_bn(f"{prefix}.shortcut.0", f"{prefix}.shortcut.1"), stride=(stride, 1))
        out += x
        return np.maximum(out, 0.0, out=out)

    def _head(self, feats: np.ndarray) -> np.ndarray:
        x = feats.transpose(0, 2, 1)[:, None]  # (batch, 1, mels, frames)
        x = relu(conv2d(x, *self._conv_bn("head.conv1", "head.bn1"), padding=1))
        for layer in ("layer1", "layer2"):
            x = self._res_block(x, f"head.{layer}.0", 2)
            x = self._res_block(x, f"head.{layer}.1", 1)
        x = relu(conv2d(x, *self._conv_bn("head.conv2", "head.bn2"), stride=(2, 1), padding=1))
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
        # The context is the global mean plus its segment's mean, the same for every frame of a
        # segment: the mask is computed once per segment, then spread over its frames.
        context = x.mean(-1, keepdims=True) + padded.reshape(*x.shape[:2], segments, SEGMENT_FRAMES).sum(-1) / counts
        hidden = relu(conv1d(context, w[f"{prefix}.linear1.weight"], w[f"{prefix}.linear1.bias"]))
        mask = sigmoid(conv1d(hidden, w[f"{prefix}.linear2.weight"], w[f"{prefix}.linear2.bias"]))
        return local * np.repeat(mask, SEGMENT_FRAMES, axis=-1)[..., :frames]

    def _xvector(self, x: np.ndarray) -> np.ndarray:
        x = relu(conv1d(x, *self._conv_bn("xvector.tdnn.linear", "xvector.tdnn.nonlinear.batchnorm"), stride=2, padding=2))
        for index, (layers, dilation) in enumerate(BLOCKS, start=1):
            for layer in range(1, layers + 1):
                p = f"xvector.block{index}.tdnnd{layer}"
                linear1 = self._conv_bn(f"{p}.linear1", f"{p}.nonlinear2.batchnorm")
                y = conv1d(self._bn_relu(x, f"{p}.nonlinear1.batchnorm"), *linear1)
                y = self._cam_layer(np.maximum(y, 0.0, out=y), f"{p}.cam_layer", dilation)
                x = np.concatenate([x, y], axis=1)
            p = f"xvector.transit{index}"
            x = conv1d(self._bn_relu(x, f"{p}.nonlinear.batchnorm"), self.w[f"{p}.linear.weight"])
        x = self._bn_relu(x, "xvector.out_nonlinear.batchnorm")
        stats = np.concatenate([x.mean(-1), x.std(-1, ddof=1)], axis=1)[:, :, None]
        return conv1d(stats, *self._conv_bn("xvector.dense.linear", "xvector.dense.nonlinear.batchnorm"))[:, :, 0]

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
