"""The library panel: every recording with its status; filter, sort, open, remove, transcribe again."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QModelIndex, QObject, QSortFilterProxyModel, Qt, Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QStackedWidget,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.delegates import ProgressDelegate
from app.ingest_model import ProgressRole
from app.library_model import LibraryModel, SortRole, StatusRole
from app.widgets import push_button, widget_shortcut
from engine.library import LibraryRow

#: Status filter choices: label -> statuses shown (None: all).
STATUS_FILTERS: dict[str, frozenset[str] | None] = {
    "Recordings": frozenset({"done", "queued", "running"}),  # the default: files that failed are under Problems
    "All": None,
    "Indexed": frozenset({"done"}),
    "In progress": frozenset({"queued", "running"}),
    "Problems": frozenset({"failed", "interrupted", "cancelled"}),
}


#: Starting widths (pixels) of the columns after the name, which takes the rest; never narrower than
#: the column's title with room for the sort arrow.
COLUMN_WIDTHS = {1: 56, 2: 50, 3: 124, 4: 96, 5: 84}
#: Room beside a column title for the header's margins and sort arrow (px).
HEADER_TITLE_ROOM = 28
#: Characters of a name the Name column keeps room for; narrower, columns are hidden to make room.
NAME_MIN_CHARS = 20
#: Columns hidden, in this order, when the name would get less room (engine and model, indexed, words).
OPTIONAL_COLUMNS = (3, 5, 2)


class LibraryFilter(QSortFilterProxyModel):
    """Filters by name (case-insensitive substring) and by a set of statuses."""

    def __init__(self) -> None:
        super().__init__()
        self.setSortRole(SortRole)
        self.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.setFilterKeyColumn(0)
        self._statuses: frozenset[str] | None = None

    def set_statuses(self, statuses: frozenset[str] | None) -> None:
        self.beginFilterChange()
        self._statuses = statuses
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, source_row: int, source_parent: QModelIndex) -> bool:  # type: ignore[override]
        if self._statuses is not None:
            status = self.sourceModel().index(source_row, 0, source_parent).data(StatusRole)
            if status not in self._statuses:
                return False
        return super().filterAcceptsRow(source_row, source_parent)


class _EmptyState(QWidget):
    """What an empty library says: where to start."""

    def __init__(self) -> None:
        super().__init__()
        self.setAccessibleName("Empty library")
        title = QLabel("<b>Your library is empty</b>")
        text = QLabel("Add recordings (or drop files and folders on the window) and Earshot transcribes them,"
                      " finds the hot spots and makes every word searchable. Transcripts you already have"
                      " (SRT, WebVTT, captions) come in with File › Import transcripts.")
        text.setWordWrap(True)
        self.add_button = push_button("Add recordings…", "Add recordings")
        self.sample_button = push_button("Try the sample", "Add the bundled sample recording",
                                         tip="Transcribe a 20-second sample that ships with Earshot")
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.sample_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addStretch(1)
        for w in (title, text):
            w.setAlignment(Qt.AlignmentFlag.AlignCenter)
            layout.addWidget(w)
        layout.addLayout(buttons)
        layout.addStretch(2)


class LibraryPanel(QWidget):
    """Filter box and status choice above the table; actions below; a removal is confirmed inline."""

    open_requested = Signal(int)  # recording id
    reingest_requested = Signal(list)  # paths
    remove_requested = Signal(list)  # LibraryRow list
    add_files_requested = Signal()
    sample_requested = Signal()

    def __init__(self, model: LibraryModel) -> None:
        super().__init__()
        self.model = model
        self.proxy = LibraryFilter()
        self.proxy.setSourceModel(model)

        self.filter_edit = QLineEdit(placeholderText="Filter recordings by name…", clearButtonEnabled=True)
        self.filter_edit.setAccessibleName("Filter recordings")
        self.filter_edit.textChanged.connect(self.proxy.setFilterFixedString)
        self.status_filter = QComboBox()
        self.status_filter.addItems(list(STATUS_FILTERS))
        self.status_filter.setAccessibleName("Show recordings with status")
        self.status_filter.currentTextChanged.connect(self._status_chosen)

        self.table = QTableView()
        self.table.setAccessibleName("Recordings")
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setItemDelegateForColumn(LibraryModel.STATUS_COLUMN, ProgressDelegate(ProgressRole, self.table))
        self.table.verticalHeader().setVisible(False)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setMinimumSectionSize(40)
        self._column_widths: dict[int, int] = {}
        for column, width in COLUMN_WIDTHS.items():
            title = str(self.table.model().headerData(column, Qt.Orientation.Horizontal))
            self._column_widths[column] = max(width, header.fontMetrics().horizontalAdvance(title) + HEADER_TITLE_ROOM)
            header.resizeSection(column, self._column_widths[column])
        self.table.viewport().installEventFilter(self)
        self.table.doubleClicked.connect(self._open_index)
        self.table.activated.connect(self._open_index)
        self.table.selectionModel().selectionChanged.connect(self._update_buttons)

        self.add_button = push_button("Add…", "Add recordings", self.add_files_requested,
                                      tip="Add recordings to the library (or drop files and folders on the window)")
        self.reingest_button = push_button("Transcribe again", "Transcribe the selected recordings again", self._reingest)
        self.remove_button = push_button("Remove…", "Remove the selected recordings from the library", self._ask_remove)
        widget_shortcut(QKeySequence.StandardKey.Delete, self.table, self._ask_remove)

        self.confirm = _ConfirmBar()
        self.confirm.accepted.connect(self._remove)
        self.status = QLabel()
        self.status.setAccessibleName("Library status")
        self.status.setWordWrap(True)

        top = QHBoxLayout()
        top.addWidget(self.filter_edit, 1)
        top.addWidget(self.status_filter)
        buttons = QHBoxLayout()
        for b in (self.add_button, self.reingest_button, self.remove_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        self.empty = _EmptyState()
        self.empty.add_button.clicked.connect(self.add_files_requested)
        self.empty.sample_button.clicked.connect(self.sample_requested)
        self.pages = QStackedWidget()
        self.pages.addWidget(self.table)
        self.pages.addWidget(self.empty)
        model.modelReset.connect(self._show_empty_state)
        model.rowsInserted.connect(self._show_empty_state)
        model.rowsRemoved.connect(self._show_empty_state)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(self.pages, 1)
        layout.addWidget(self.confirm)
        layout.addLayout(buttons)
        layout.addWidget(self.status)
        self.setTabOrder(self.filter_edit, self.status_filter)
        self.setTabOrder(self.status_filter, self.empty.add_button)  # only one of empty state and table shows
        self.setTabOrder(self.empty.add_button, self.empty.sample_button)
        self.setTabOrder(self.empty.sample_button, self.table)
        self.setTabOrder(self.table, self.add_button)
        self._update_buttons()
        self._status_chosen(self.status_filter.currentText())
        self._show_empty_state()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.table.viewport() and event.type() == QEvent.Type.Resize:
            self._fit_columns()
        return False

    def _fit_columns(self) -> None:
        """Hide the least needed columns while the name would get less than NAME_MIN_CHARS characters."""
        room = self.table.viewport().width() - self.table.fontMetrics().averageCharWidth() * NAME_MIN_CHARS
        hidden: set[int] = set()
        for column in OPTIONAL_COLUMNS:
            if sum(w for c, w in self._column_widths.items() if c not in hidden) <= room:
                break
            hidden.add(column)
        for column in OPTIONAL_COLUMNS:
            if self.table.isColumnHidden(column) != (column in hidden):
                self.table.setColumnHidden(column, column in hidden)
                if column not in hidden:
                    self.table.horizontalHeader().resizeSection(column, self._column_widths[column])

    def _status_chosen(self, label: str) -> None:
        self.proxy.set_statuses(STATUS_FILTERS[label])
        problems = label == "Problems"
        self.reingest_button.setText("Retry" if problems else "Transcribe again")
        self.reingest_button.setAccessibleName("Retry the selected files" if problems
                                               else "Transcribe the selected recordings again")

    def _show_empty_state(self, *_: object) -> None:
        """An empty library shows what to do first instead of an empty table."""
        self.pages.setCurrentWidget(self.empty if self.model.rowCount() == 0 else self.table)

    def selected_rows(self) -> list[LibraryRow]:
        rows = {self.proxy.mapToSource(i).row() for i in self.table.selectionModel().selectedRows()}
        return [self.model.row_at(r) for r in sorted(rows)]

    def select_path(self, path: str) -> None:
        row = self.model.row_of(path)
        if row is not None:
            index = self.proxy.mapFromSource(self.model.index(row, 0))
            self.table.selectRow(index.row())

    def _open_index(self, index: QModelIndex) -> None:
        row = self.model.row_at(self.proxy.mapToSource(index).row())
        if row.recording_id is not None:
            self.open_requested.emit(row.recording_id)

    def _update_buttons(self) -> None:
        rows = self.selected_rows()
        self.reingest_button.setEnabled(bool(rows))
        self.remove_button.setEnabled(bool(rows))

    def _reingest(self) -> None:
        paths = [r.path for r in self.selected_rows()]
        if paths:
            self.reingest_requested.emit(paths)

    def _ask_remove(self) -> None:
        rows = self.selected_rows()
        if rows:
            self.confirm.ask(rows)

    def _remove(self, rows: list) -> None:
        self.remove_requested.emit(rows)


class _ConfirmBar(QWidget):
    """Inline 'Remove N recordings?' question: no modal dialog in the way."""

    accepted = Signal(list)

    def __init__(self) -> None:
        super().__init__()
        self._rows: list[LibraryRow] = []
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.yes = push_button("Remove", "Confirm removal", self._accept)
        self.no = push_button("Keep", "Cancel removal", self.hide)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.yes)
        layout.addWidget(self.no)
        self.hide()

    def ask(self, rows: list[LibraryRow]) -> None:
        self._rows = rows
        what = rows[0].name if len(rows) == 1 else f"{len(rows)} recordings"
        self.label.setText(f"Remove {what} from the library? The audio files stay where they are.")
        self.show()
        self.no.setFocus()

    def _accept(self) -> None:
        self.hide()
        self.accepted.emit(self._rows)
