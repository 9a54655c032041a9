"""Earshot's command line: argument parsing and the one place errors become messages."""

from engine.cli.main import main

__all__ = ["main"]
