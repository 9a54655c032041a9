"""Evaluation of Earshot's outputs against ground truth."""
