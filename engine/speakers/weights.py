"""Read PyTorch state dicts without torch.

A ``torch.save`` file (format of PyTorch 1.6 and later) is a zip holding
``<name>/data.pkl``, a pickle whose tensors refer by *persistent id* to raw
little-endian storages ``<name>/data/<key>``. This module unpickles it with a
restricted unpickler that knows only the few torch callables a state dict uses
(tensor and parameter rebuilders, storage types, ``OrderedDict``) and turns each
tensor into a ``numpy.ndarray``; any other class becomes an inert ``Opaque``
stand-in. No code named by the file is imported or run.
"""

from __future__ import annotations

import io
import pickle
import zipfile
from collections import OrderedDict
from pathlib import Path
from typing import Any

import numpy as np

from engine.errors import ModelError

#: Storage class name -> numpy dtype (little-endian, as torch writes them).
STORAGE_DTYPES: dict[str, str] = {
    "FloatStorage": "<f4",
    "DoubleStorage": "<f8",
    "HalfStorage": "<f2",
    "LongStorage": "<i8",
    "IntStorage": "<i4",
    "ShortStorage": "<i2",
    "CharStorage": "i1",
    "ByteStorage": "u1",
    "BoolStorage": "?",
}


class _StorageType:
    """Stands for ``torch.<Kind>Storage`` while unpickling."""

    def __init__(self, name: str) -> None:
        self.dtype = np.dtype(STORAGE_DTYPES[name])


def _rebuild_tensor(storage: np.ndarray, offset: int, size: tuple[int, ...], stride: tuple[int, ...], *_: Any) -> np.ndarray:
    """A tensor as an array view of its storage, copied to a C-contiguous array."""
    if not size:
        return np.array(storage[offset])
    itemsize = storage.dtype.itemsize
    view = np.lib.stride_tricks.as_strided(storage[offset:], shape=tuple(size), strides=tuple(s * itemsize for s in stride))
    return np.ascontiguousarray(view)


class Opaque:
    """An object of a class this reader does not know (hyper-parameters, versions, enums).

    Keeps its constructor arguments and pickled state for inspection; no code of
    the original class runs.
    """

    qualname = ""
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = {}  # noqa: RUF012
    state: Any = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.args = args
        self.kwargs = kwargs
        self.state: Any = None

    def __setstate__(self, state: Any) -> None:
        self.state = state

    def __repr__(self) -> str:
        return f"<{self.qualname} {self.args!r}>"


def _opaque(module: str, name: str) -> type[Opaque]:
    """A new ``Opaque`` subclass standing for ``module.name``."""
    return type(name, (Opaque,), {"qualname": f"{module}.{name}", "__reduce__": None})


def _rebuild_parameter(data: np.ndarray, *_: Any) -> np.ndarray:
    return data


class _Unpickler(pickle.Unpickler):
    def __init__(self, data: bytes, archive: zipfile.ZipFile, prefix: str) -> None:
        super().__init__(io.BytesIO(data))
        self._archive = archive
        self._prefix = prefix
        self._storages: dict[str, np.ndarray] = {}

    def find_class(self, module: str, name: str) -> Any:
        if module == "collections" and name == "OrderedDict":
            return OrderedDict
        if module == "torch._utils" and name in ("_rebuild_tensor_v2", "_rebuild_tensor"):
            return _rebuild_tensor
        if module == "torch._utils" and name == "_rebuild_parameter":
            return _rebuild_parameter
        if module == "torch" and name in STORAGE_DTYPES:
            return _StorageType(name)
        if module.startswith("torch") and name.startswith("_rebuild"):
            raise pickle.UnpicklingError(f"{module}.{name} is not supported")
        return _opaque(module, name)

    def persistent_load(self, pid: Any) -> np.ndarray:
        if not (isinstance(pid, tuple) and pid and pid[0] == "storage"):
            raise pickle.UnpicklingError(f"unknown persistent id {pid!r}")
        kind, key = pid[1], str(pid[2])
        if key not in self._storages:
            raw = self._archive.read(f"{self._prefix}data/{key}")
            self._storages[key] = np.frombuffer(raw, dtype=kind.dtype)
        return self._storages[key]


def read_state_dict(path: str | Path) -> dict[str, Any]:
    """The contents of a ``torch.save`` zip file, with every tensor as a numpy array.

    Raises ``ModelError`` naming the file if it is not such a zip or holds
    anything other than tensors, numbers, strings and (ordered) dicts.
    """
    path = Path(path)
    try:
        with zipfile.ZipFile(path) as archive:
            pickles = [n for n in archive.namelist() if n.endswith("/data.pkl")]
            if len(pickles) != 1:
                raise ModelError(f"{path}: not a PyTorch state dict (no single data.pkl)")
            prefix = pickles[0][: -len("data.pkl")]
            byteorder = f"{prefix}byteorder"
            if byteorder in archive.namelist() and archive.read(byteorder) != b"little":
                raise ModelError(f"{path}: big-endian tensors are not supported")
            result = _Unpickler(archive.read(pickles[0]), archive, prefix).load()
    except (OSError, zipfile.BadZipFile, pickle.UnpicklingError, KeyError, EOFError) as error:
        raise ModelError(f"{path}: not a readable PyTorch state dict ({error})") from error
    if not isinstance(result, dict):
        raise ModelError(f"{path}: holds a {type(result).__name__}, not a dict")
    return dict(result)
