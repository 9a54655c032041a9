"""Evaluation panels: run the engine's scoring tools on files the user picks; tables and plots."""
