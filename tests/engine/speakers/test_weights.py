"""The torch-free state-dict reader, on files written here in torch's zip layout and on the real weights."""

from __future__ import annotations

import io
import pickle
import sys
import types
import zipfile
from collections import OrderedDict
from pathlib import Path

import numpy as np
import pytest

from engine.errors import ModelError
from engine.speakers.weights import Opaque, read_state_dict


class _Storage:
    def __init__(self, key: str, data: np.ndarray) -> None:
        self.key, self.data = key, data


def _fake_torch(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    """Modules named like torch's, so pickle records the same global names torch.save does."""
    torch = types.ModuleType("torch")
    utils = types.ModuleType("torch._utils")

    def _rebuild_tensor_v2(*args: object) -> None: ...
    def _rebuild_parameter(*args: object) -> None: ...

    for function in (_rebuild_tensor_v2, _rebuild_parameter):
        function.__module__ = utils.__name__
        function.__qualname__ = function.__name__
    utils._rebuild_tensor_v2 = _rebuild_tensor_v2  # type: ignore[attr-defined]
    utils._rebuild_parameter = _rebuild_parameter  # type: ignore[attr-defined]
    for name in ("FloatStorage", "LongStorage"):
        setattr(torch, name, type(name, (), {"__module__": "torch"}))
    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.setitem(sys.modules, "torch._utils", utils)
    return torch


def write_torch_zip(path: Path, tensors: dict[str, np.ndarray], monkeypatch: pytest.MonkeyPatch,
                    transposed: str | None = None) -> None:  # fmt: skip
    """Write ``tensors`` as torch.save does: data.pkl with persistent storage ids, raw storages beside it.

    ``transposed`` names a 2-D tensor stored column-major (a non-contiguous stride).
    """
    torch = _fake_torch(monkeypatch)
    utils = sys.modules["torch._utils"]
    storages: dict[str, np.ndarray] = {}

    class Tensor:
        def __init__(self, name: str, array: np.ndarray) -> None:
            self.name, self.array = name, array

        def __reduce__(self):  # type: ignore[no-untyped-def]
            key = str(len(storages))
            kind = torch.FloatStorage if self.array.dtype == np.float32 else torch.LongStorage
            if self.name == transposed:
                storages[key] = np.ascontiguousarray(self.array.T)
                stride = (1, self.array.shape[0])
            else:
                storages[key] = np.ascontiguousarray(self.array)
                stride = tuple(s // self.array.itemsize for s in self.array.strides)
            storage = _Storage(key, storages[key])
            storage.kind = kind  # type: ignore[attr-defined]
            tensor = (utils._rebuild_tensor_v2, (storage, 0, self.array.shape, stride, False, OrderedDict()))
            return (utils._rebuild_parameter, (tensor_holder(tensor), True, OrderedDict()))

    class tensor_holder:  # noqa: N801 - stands in for the inner reduce tuple
        def __init__(self, reduced: tuple) -> None:  # type: ignore[type-arg]
            self.reduced = reduced

        def __reduce__(self):  # type: ignore[no-untyped-def]
            return self.reduced

    class Pickler(pickle.Pickler):
        def persistent_id(self, obj: object) -> object:
            if isinstance(obj, _Storage):
                return ("storage", obj.kind, obj.key, "cpu", obj.data.size)  # type: ignore[attr-defined]
            return None

    buffer = io.BytesIO()
    Pickler(buffer, protocol=2).dump(OrderedDict((k, Tensor(k, v)) for k, v in tensors.items()))
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("model/data.pkl", buffer.getvalue())
        archive.writestr("model/byteorder", "little")
        for key, data in storages.items():
            archive.writestr(f"model/data/{key}", data.astype(data.dtype.newbyteorder("<")).tobytes())


def test_tensors_come_back_with_their_values_shapes_and_strides(tmp_path: Path, rng: np.random.Generator,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    tensors = {
        "conv.weight": rng.standard_normal((4, 3, 5)).astype(np.float32),
        "lstm.weight_ih": rng.standard_normal((6, 2)).astype(np.float32),
        "bn.num_batches_tracked": np.array(7, dtype=np.int64),
    }
    write_torch_zip(tmp_path / "m.pt", tensors, monkeypatch, transposed="lstm.weight_ih")
    monkeypatch.undo()
    read = read_state_dict(tmp_path / "m.pt")
    assert list(read) == list(tensors)
    for name, array in tensors.items():
        np.testing.assert_array_equal(read[name], array)
        assert read[name].dtype == array.dtype
    assert read["lstm.weight_ih"].flags.c_contiguous


def test_a_class_outside_the_state_dict_vocabulary_is_never_called(tmp_path: Path) -> None:
    class Evil:
        def __reduce__(self):  # type: ignore[no-untyped-def]
            import os

            return (os.remove, (str(tmp_path / "victim"),))

    (tmp_path / "victim").write_text("still here")
    with zipfile.ZipFile(tmp_path / "evil.pt", "w") as archive:
        archive.writestr("x/data.pkl", pickle.dumps({"weight": Evil()}, protocol=2))
    read = read_state_dict(tmp_path / "evil.pt")
    assert isinstance(read["weight"], Opaque)
    assert (tmp_path / "victim").read_text() == "still here"


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        pytest.param(b"not a zip", "not a readable PyTorch state dict", id="not-a-zip"),
        pytest.param(None, "not a PyTorch state dict (no single data.pkl)", id="zip-without-pickle"),
    ],
)
def test_a_file_that_is_no_state_dict_is_named_in_one_line(tmp_path: Path, content: bytes | None, reason: str) -> None:
    path = tmp_path / "bad.pt"
    if content is None:
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("readme.txt", "hello")
    else:
        path.write_bytes(content)
    with pytest.raises(ModelError) as error:
        read_state_dict(path)
    assert str(error.value).startswith(f"{path}: {reason}")


def test_the_real_checkpoints_read_to_their_known_shapes(speaker_files) -> None:  # type: ignore[no-untyped-def]
    seg = read_state_dict(speaker_files.segmentation)
    assert seg["state_dict"]["classifier.weight"].shape == (7, 128)
    assert seg["state_dict"]["lstm.weight_ih_l3_reverse"].shape == (512, 256)
    cam = read_state_dict(speaker_files.embedding)
    assert cam["xvector.dense.linear.weight"].shape == (192, 1024, 1)
    assert sum(v.size for v in cam.values() if isinstance(v, np.ndarray)) == 6_930_842
