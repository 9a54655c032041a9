"""The numpy layers against their slow twins in naive.py, and the SincNet and fbank front ends."""

from __future__ import annotations

import numpy as np
import pytest

from engine.speakers import features, nn, segmentation
from tests.engine.speakers import naive


@pytest.mark.parametrize(("stride", "padding", "dilation"), [(1, 0, 1), (2, 2, 1), (1, 2, 2), (10, 0, 1)])
def test_conv1d_matches_the_loops(rng: np.random.Generator, stride: int, padding: int, dilation: int) -> None:
    x = rng.standard_normal((2, 3, 40)).astype(np.float32)
    w = rng.standard_normal((4, 3, 5)).astype(np.float32)
    got = nn.conv1d(x, w, stride=stride, padding=padding, dilation=dilation)
    np.testing.assert_allclose(got, naive.conv1d(x, w, stride=stride, padding=padding, dilation=dilation), atol=1e-4)


def test_a_pointwise_conv1d_with_bias_matches_the_loops(rng: np.random.Generator) -> None:
    x = rng.standard_normal((2, 6, 9)).astype(np.float32)
    w = rng.standard_normal((5, 6, 1)).astype(np.float32)
    b = rng.standard_normal(5).astype(np.float32)
    np.testing.assert_allclose(nn.conv1d(x, w, b), naive.conv1d(x, w) + b[None, :, None], atol=1e-4)


@pytest.mark.parametrize("stride", [(1, 1), (2, 1)])
def test_conv2d_matches_the_loops(rng: np.random.Generator, stride: tuple[int, int]) -> None:
    x = rng.standard_normal((2, 3, 8, 7)).astype(np.float32)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    np.testing.assert_allclose(nn.conv2d(x, w, stride=stride, padding=1), naive.conv2d(x, w, stride=stride, padding=1), atol=1e-4)


def test_lstm_matches_the_textbook_equations_both_ways(rng: np.random.Generator) -> None:
    x = rng.standard_normal((2, 12, 5)).astype(np.float32)
    w_ih, w_hh = rng.standard_normal((16, 5)).astype(np.float32), rng.standard_normal((16, 4)).astype(np.float32)
    b_ih, b_hh = rng.standard_normal(16).astype(np.float32), rng.standard_normal(16).astype(np.float32)
    back = [rng.standard_normal(shape).astype(np.float32) for shape in ((16, 5), (16, 4), (16,), (16,))]
    out = nn.bilstm(x, nn.LstmWeights(w_ih, w_hh, b_ih, b_hh), nn.LstmWeights(*back))
    assert out.shape == (2, 12, 8)
    for b in range(2):
        np.testing.assert_allclose(out[b, :, :4], naive.lstm(x[b], w_ih, w_hh, b_ih, b_hh), atol=1e-5)
        np.testing.assert_allclose(out[b, :, 4:], naive.lstm(x[b][::-1], *back)[::-1], atol=1e-5)


@pytest.mark.parametrize("stride", [1, 10])
def test_the_strided_mono_convolution_matches_the_loops(rng: np.random.Generator, stride: int) -> None:
    x, w = rng.standard_normal((2, 90)).astype(np.float32), rng.standard_normal((4, 11)).astype(np.float32)
    got = nn.strided_conv_mono(x, w, stride=stride)
    np.testing.assert_allclose(got, naive.conv1d(x[:, None], w[:, None], stride=stride).transpose(0, 2, 1), atol=1e-4)


def test_the_time_major_convolution_matches_the_loops(rng: np.random.Generator) -> None:
    x, w = rng.standard_normal((2, 3, 20)).astype(np.float32), rng.standard_normal((4, 3, 5)).astype(np.float32)
    b = rng.standard_normal(4).astype(np.float32)
    got = nn.conv1d_time_major(x.transpose(0, 2, 1), w, b)
    np.testing.assert_allclose(got, (naive.conv1d(x, w) + b[None, :, None]).transpose(0, 2, 1), atol=1e-4)


def test_time_pooling_and_instance_norm_by_hand() -> None:
    x = np.array([[[1.0], [5.0], [2.0], [0.0], [3.0], [-1.0], [9.0]]], dtype=np.float32)  # (1, 7, 1)
    assert nn.max_pool_time(x, 3)[0, :, 0].tolist() == [5.0, 3.0]  # the seventh step is a partial tail
    y = nn.instance_norm_time(np.array([[[1.0], [3.0]]], dtype=np.float32), np.array([2.0]), np.array([1.0]))
    np.testing.assert_allclose(y[0, :, 0], [-1.0, 3.0], atol=1e-4)  # (+-1 / 1) * 2 + 1


def test_sinc_filters_match_the_tap_by_tap_formula(rng: np.random.Generator) -> None:
    low_hz = rng.uniform(0, 3000, (4, 1)).astype(np.float32)
    band_hz = rng.uniform(0, 1000, (4, 1)).astype(np.float32)
    filters = segmentation.sinc_filters(low_hz, band_hz)
    assert filters.shape == (8, 251)
    for k in range(4):
        low = 50 + abs(float(low_hz[k, 0]))
        high = min(low + 50 + abs(float(band_hz[k, 0])), 8000.0)
        np.testing.assert_allclose(filters[k], naive.sinc_bandpass(low, high, 251, 16000), rtol=1e-4, atol=1e-6)
    # the sine halves are odd, the cosine halves even
    np.testing.assert_allclose(filters[4:], -filters[4:, ::-1], atol=1e-6)
    np.testing.assert_allclose(filters[:4], filters[:4, ::-1], atol=1e-6)


def test_a_cosine_sinc_filter_passes_its_band_and_stops_far_outside() -> None:
    filters = segmentation.sinc_filters(np.array([[950.0]]), np.array([[450.0]]))  # 1000 to 1500 Hz
    response = np.abs(np.fft.rfft(filters[0], 16000))  # 1 Hz bins
    assert response[1250] > 0.9
    assert response[3000] < 0.05


def test_the_segmentation_frame_count_is_589_for_ten_seconds() -> None:
    assert segmentation.n_frames(160_000) == 589
    assert segmentation.frame_centres(589)[-1] == pytest.approx((588 * 270 + 495) / 16000)


def test_fbank_frames_and_a_tone_in_its_mel_band() -> None:
    t = np.arange(16_000) / 16_000
    feats = features.fbank(np.sin(2 * np.pi * 1000 * t).astype(np.float32))
    assert feats.shape == (features.n_frames(16_000), 80) == (98, 80)
    banks = features.mel_banks()
    assert int(np.argmax(feats.mean(axis=0))) == int(np.argmax(banks[32]))  # bin 32 of 512 = 1000 Hz
    assert features.fbank(np.zeros(399, dtype=np.float32)).shape == (0, 80)
