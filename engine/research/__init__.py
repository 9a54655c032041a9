"""Training and research: fitting, tuning, experiments and explanations of the shipped models.

The CLI and the tools reach it; runtime code never imports it (the layers contract in
``pyproject.toml``).
"""
