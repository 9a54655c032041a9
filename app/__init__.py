"""Earshot's desktop skin: Qt widgets, item models and workers over the engine."""
