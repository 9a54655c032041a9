"""The two networks as they ran before they were made fast. Segmentation: channels first, one
unfolded matrix for the SincNet filters, each LSTM direction stepped with the gates in PyTorch's
order. CAM++: every batch norm on its own, the context mask computed at every frame. The fast
paths must give the same outputs on real audio."""

from __future__ import annotations

import numpy as np

from engine.speakers.campplus import BLOCKS, SEGMENT_FRAMES, CamPlusPlus
from engine.speakers.nn import batchnorm, conv1d, conv2d, leaky_relu, relu, sigmoid
from engine.speakers.segmentation import LSTM_LAYERS, Segmentation


def _instance_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """(batch, channels, time), each row normalised over time."""
    y = (x - x.mean(axis=-1, keepdims=True)) / np.sqrt(x.var(axis=-1, keepdims=True) + 1e-5)
    return y * weight[None, :, None] + bias[None, :, None]


def _max_pool(x: np.ndarray, size: int) -> np.ndarray:
    count = x.shape[-1] // size
    return x[..., : count * size].reshape(*x.shape[:-1], count, size).max(axis=-1)


def _bilstm(x: np.ndarray, w: dict[str, np.ndarray], layer: int) -> np.ndarray:
    """(batch, time, in) -> (batch, time, 256), each direction stepped on its own."""
    outputs = []
    for suffix, seq in (("", x), ("_reverse", x[:, ::-1])):
        w_ih, w_hh = w[f"lstm.weight_ih_l{layer}{suffix}"], w[f"lstm.weight_hh_l{layer}{suffix}"]
        bias = w[f"lstm.bias_ih_l{layer}{suffix}"] + w[f"lstm.bias_hh_l{layer}{suffix}"]
        hidden = w_hh.shape[1]
        h = np.zeros((x.shape[0], hidden), dtype=np.float32)
        c = np.zeros_like(h)
        steps = []
        for t in range(seq.shape[1]):
            z = seq[:, t] @ w_ih.T + h @ w_hh.T + bias
            i, f, g, o = (z[:, k * hidden : (k + 1) * hidden] for k in range(4))
            c = 1 / (1 + np.exp(-f)) * c + 1 / (1 + np.exp(-i)) * np.tanh(g)
            h = 1 / (1 + np.exp(-o)) * np.tanh(c)
            steps.append(h)
        out = np.stack(steps, axis=1)
        outputs.append(out if suffix == "" else out[:, ::-1])
    return np.concatenate(outputs, axis=2)


def segmentation_log_probs(model: Segmentation, windows: np.ndarray) -> np.ndarray:
    """(batch, samples) -> (batch, frames, 7), the previous way."""
    w = model.w
    x = _instance_norm(windows[:, None, :].astype(np.float32), w["sincnet.wav_norm1d.weight"], w["sincnet.wav_norm1d.bias"])
    x = np.abs(conv1d(x, model.filters[:, None, :], stride=10))
    x = leaky_relu(_instance_norm(_max_pool(x, 3), w["sincnet.norm1d.0.weight"], w["sincnet.norm1d.0.bias"]))
    for index in (1, 2):
        x = _max_pool(conv1d(x, w[f"sincnet.conv1d.{index}.weight"], w[f"sincnet.conv1d.{index}.bias"]), 3)
        x = leaky_relu(_instance_norm(x, w[f"sincnet.norm1d.{index}.weight"], w[f"sincnet.norm1d.{index}.bias"]))
    x = x.transpose(0, 2, 1)
    for layer in range(LSTM_LAYERS):
        x = _bilstm(x, w, layer)
    for index in (0, 1):
        x = leaky_relu(x @ w[f"linear.{index}.weight"].T + w[f"linear.{index}.bias"])
    logits = x @ w["classifier.weight"].T + w["classifier.bias"]
    logits = logits - logits.max(axis=-1, keepdims=True)
    return logits - np.log(np.exp(logits).sum(axis=-1, keepdims=True))


def _res_block(w: dict[str, np.ndarray], x: np.ndarray, prefix: str, stride: int) -> np.ndarray:
    out = relu(batchnorm(conv2d(x, w[f"{prefix}.conv1.weight"], stride=(stride, 1), padding=1), w, f"{prefix}.bn1"))
    out = batchnorm(conv2d(out, w[f"{prefix}.conv2.weight"], padding=1), w, f"{prefix}.bn2")
    if f"{prefix}.shortcut.0.weight" in w:
        x = batchnorm(conv2d(x, w[f"{prefix}.shortcut.0.weight"], stride=(stride, 1)), w, f"{prefix}.shortcut.1")
    return relu(out + x)


def _cam_layer(w: dict[str, np.ndarray], x: np.ndarray, prefix: str, dilation: int) -> np.ndarray:
    """The context-aware mask computed at every frame, as the paper writes it."""
    local = conv1d(x, w[f"{prefix}.linear_local.weight"], padding=dilation, dilation=dilation)
    frames = x.shape[-1]
    starts = [(t // SEGMENT_FRAMES) * SEGMENT_FRAMES for t in range(frames)]
    segment_mean = np.stack([x[..., a : a + SEGMENT_FRAMES].mean(-1) for a in starts], axis=-1)
    context = x.mean(-1, keepdims=True) + segment_mean
    hidden = relu(conv1d(context, w[f"{prefix}.linear1.weight"], w[f"{prefix}.linear1.bias"]))
    return local * sigmoid(conv1d(hidden, w[f"{prefix}.linear2.weight"], w[f"{prefix}.linear2.bias"]))


def campplus_embeddings(model: CamPlusPlus, feats: np.ndarray) -> np.ndarray:
    """(batch, frames, 80) -> (batch, 192), every batch norm applied on its own after its convolution."""
    w = model.w
    x = relu(batchnorm(conv2d(feats.transpose(0, 2, 1)[:, None], w["head.conv1.weight"], padding=1), w, "head.bn1"))
    for layer in ("layer1", "layer2"):
        x = _res_block(w, _res_block(w, x, f"head.{layer}.0", 2), f"head.{layer}.1", 1)
    x = relu(batchnorm(conv2d(x, w["head.conv2.weight"], stride=(2, 1), padding=1), w, "head.bn2"))
    x = x.reshape(x.shape[0], -1, x.shape[3])
    x = relu(batchnorm(conv1d(x, w["xvector.tdnn.linear.weight"], stride=2, padding=2), w, "xvector.tdnn.nonlinear.batchnorm"))
    for index, (layers, dilation) in enumerate(BLOCKS, start=1):
        for layer in range(1, layers + 1):
            p = f"xvector.block{index}.tdnnd{layer}"
            y = conv1d(relu(batchnorm(x, w, f"{p}.nonlinear1.batchnorm")), w[f"{p}.linear1.weight"])
            y = _cam_layer(w, relu(batchnorm(y, w, f"{p}.nonlinear2.batchnorm")), f"{p}.cam_layer", dilation)
            x = np.concatenate([x, y], axis=1)
        p = f"xvector.transit{index}"
        x = conv1d(relu(batchnorm(x, w, f"{p}.nonlinear.batchnorm")), w[f"{p}.linear.weight"])
    x = relu(batchnorm(x, w, "xvector.out_nonlinear.batchnorm"))
    stats = np.concatenate([x.mean(-1), x.std(-1, ddof=1)], axis=1)[:, :, None]
    return batchnorm(conv1d(stats, w["xvector.dense.linear.weight"]), w, "xvector.dense.nonlinear.batchnorm")[:, :, 0]
