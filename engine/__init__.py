"""Earshot's engine: audio in, numbers and records out. Never imports Qt."""
