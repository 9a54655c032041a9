"""Earshot's engine: audio in, numbers and records out. Never imports Qt."""

#: The release, as pyproject.toml gives it (a test keeps the two the same).
__version__ = "0.1.0"
