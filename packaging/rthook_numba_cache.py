"""PyInstaller runtime hook: numba caches compiled kernels in Earshot's user cache folder.

Runs in the frozen app before ``main.py``, and in every worker process it
spawns. ``NUMBA_CACHE_DIR`` becomes ``<user cache>/numba``
(``engine.paths.cache_dir()``; ``EARSHOT_CACHE_DIR`` moves it) unless the user
has set it already; nothing is ever written inside the application folder.

numba's own locators cannot use that folder in a frozen app: they need the
function's source file to exist, and PyInstaller keeps modules in an archive
and gives their code a relative file name (``engine/segment/kernels.py``). The
locator registered here accepts such names and keeps one cache sub-folder per
package folder (``<cache>/numba/engine/segment``). Like numba's frozen-app
locator, it stamps cache entries with the executable, so a rebuilt app never
loads kernels compiled for another build. If the folder cannot be written,
numba falls back to its own user-wide cache.
"""


def _earshot_numba_cache() -> None:
    import os
    import sys
    import types

    # Registered in every process first: worker processes inherit the variables set below.
    module = types.ModuleType("_earshot_numba_cache", "numba cache locator for the frozen Earshot app")

    def locator_class(name: str) -> type:
        # The module's __getattr__: numba asks for the class only when it first caches a kernel,
        # so numba is not imported at start-up.
        if name != "FrozenAppCacheLocator":
            raise AttributeError(name)
        try:
            locator = _frozen_app_locator()
        except Exception:  # numba's internals moved: use its own frozen-app locator
            from numba.core import caching

            locator = caching.UserWideCacheLocator
        module.FrozenAppCacheLocator = locator  # type: ignore[attr-defined]
        return locator

    module.__getattr__ = locator_class  # type: ignore[method-assign]
    sys.modules[module.__name__] = module
    if not os.environ.get("NUMBA_CACHE_DIR"):
        try:
            from engine.paths import cache_dir

            os.environ["NUMBA_CACHE_DIR"] = str(cache_dir() / "numba")
        except Exception:  # a read-only home: leave numba to its own default
            return
    os.environ.setdefault(
        "NUMBA_CACHE_LOCATOR_CLASSES",
        "_earshot_numba_cache.FrozenAppCacheLocator,UserProvidedCacheLocator,UserWideCacheLocator",
    )


def _frozen_app_locator() -> type:
    import os
    import sys

    from numba.core import config
    from numba.core.caching import _CacheLocator, _SourceFileBackedLocatorMixin

    class FrozenAppCacheLocator(_SourceFileBackedLocatorMixin, _CacheLocator):
        """Caches kernels of archived modules under ``NUMBA_CACHE_DIR/<package folder>``."""

        def __init__(self, py_func, py_file):
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            folder = os.path.dirname(os.path.normpath(py_file))
            self._cache_path = os.path.join(config.CACHE_DIR, folder or "_main")

        def get_cache_path(self):
            return self._cache_path

        @classmethod
        def from_function(cls, py_func, py_file):
            relative = not os.path.isabs(py_file) and not os.path.normpath(py_file).startswith("..")
            if not (config.CACHE_DIR and getattr(sys, "frozen", False) and relative):
                return None
            self = cls(py_func, py_file)
            try:
                self.ensure_cache_path()
            except OSError:
                return None
            return self

    return FrozenAppCacheLocator


_earshot_numba_cache()
