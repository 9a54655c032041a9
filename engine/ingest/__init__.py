"""Ingest: decode, recognise and index recordings."""

from engine.ingest.job import FileOutcome, IngestJob, expand_paths

__all__ = ["FileOutcome", "IngestJob", "expand_paths"]
