"""The evaluation window: one tab per scoring tool of the engine.

A tab is built only when its engine package is there; otherwise it says what it
waits for (so a build without one of the evaluation engines still opens).
"""

from __future__ import annotations

import importlib.util

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QTabWidget, QVBoxLayout, QWidget

from app.tasks import TaskPool

#: Tabs: title, engine package it needs, what it will do.
PANELS = (
    ("Story segmentation", "engine.evaluate.segmentation", "score story boundaries (TDT cost, Pk, WindowDiff)"),
    ("Rasch measurement", "engine.evaluate.rasch", "place systems and questions on one logit scale"),
    ("Named entities", "engine.evaluate.entities", "score entity tagging (precision, recall, F by type) on files you pick"),
    ("Passage retrieval", "engine.evaluate.passages", "score passage retrieval runs against judgements"),
)


def engine_available(package: str) -> bool:
    try:
        return importlib.util.find_spec(package) is not None
    except (ImportError, ValueError):
        return False


class Placeholder(QWidget):
    """Says what the panel will do and which engine package it waits for."""

    def __init__(self, title: str, package: str, purpose: str) -> None:
        super().__init__()
        self.package = package
        present = engine_available(package)
        why = (f"The engine package <code>{package}</code> is there, but this panel is not built yet."
               if present else f"It waits for the engine package <code>{package}</code>, not part of this build yet.")
        label = QLabel(f"<h3>{title}</h3><p>This panel will {purpose}.</p><p>{why}</p>")
        label.setWordWrap(True)
        label.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        label.setAccessibleName(f"{title} (not available yet)")
        layout = QVBoxLayout(self)
        layout.addWidget(label)


class EvaluationWindow(QWidget):
    """A separate top-level window (Tools → Evaluation)."""

    def __init__(self, pool: TaskPool, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setWindowTitle("Earshot — Evaluation")
        self.resize(1100, 720)
        self.tabs = QTabWidget()
        self.tabs.setAccessibleName("Evaluation tools")
        self.panels: dict[str, QWidget] = {}
        for title, package, purpose in PANELS:
            panel = self._panel(pool, title, package, purpose)
            self.panels[title] = panel
            self.tabs.addTab(panel, title)
        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs)

    @staticmethod
    def _panel(pool: TaskPool, title: str, package: str, purpose: str) -> QWidget:
        if not engine_available(package):
            return Placeholder(title, package, purpose)
        # lazy: a panel is built only when its engine package is in this build
        if package == "engine.evaluate.segmentation":
            from app.evaluation.segmentation_panel import SegmentationPanel

            return SegmentationPanel(pool)
        if package == "engine.evaluate.rasch":
            from app.evaluation.rasch_panel import RaschPanel

            return RaschPanel(pool)
        if package == "engine.evaluate.entities":
            from app.evaluation.entities_panel import EntitiesPanel

            return EntitiesPanel(pool)
        if package == "engine.evaluate.passages":
            from app.evaluation.passages_panel import PassagesPanel

            return PassagesPanel(pool)
        return Placeholder(title, package, purpose)
