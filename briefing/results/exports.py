"""The results table as files: CSV streamed row by row, XLSX written row by row (openpyxl's
write-only mode) into a temporary file that is then streamed. Both hold client text, so
neither lets a cell become a spreadsheet formula."""

from __future__ import annotations

import csv
import datetime
import re
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from typing import IO, Any

from django.utils import timezone

from briefing.results.table import Column
from briefing.stages.summaries import format_number

# A cell a spreadsheet would run as a formula (OWASP's CSV injection list). A phone or a
# signed number ("+7 916 123-45-67", "-5") is data, not a formula, and stays as it is.
_FORMULA_START = re.compile(r"^[=+\-@\t\r]")
_PLAIN_NUMBER = re.compile(r"^[+-]?[\d\s().,\-\u00a0\u202f]*$")
LIST_SEPARATOR = "; "
BOOLEAN_WORDS = {
    "ru": ("да", "нет"),
    "uk": ("так", "ні"),
    "en": ("yes", "no"),
}
# Excel reads a CSV as UTF-8 (Cyrillic as text, not mojibake) only after this mark.
UTF8_BOM = "\ufeff"


def text_safe(text: str) -> str:
    """Text as a cell shows it, never run: a leading ' where it would start a formula."""
    if _FORMULA_START.match(text) and not _PLAIN_NUMBER.match(text):
        return "'" + text
    return text


def cell_text(value: Any, *, language: str) -> str:
    """A value as one line of text: lists joined with "; ", yes/no in `language`,
    datetimes in the site's time zone to the minute, numbers with thin spaces."""
    if value is None:
        return ""
    if isinstance(value, bool):
        yes, no = BOOLEAN_WORDS.get(language, BOOLEAN_WORDS["en"])
        return yes if value else no
    if isinstance(value, datetime.datetime):
        return timezone.localtime(value).strftime("%Y-%m-%d %H:%M")
    if isinstance(value, list | tuple):
        # Items are sentences: their own closing "." or ";" before the separator read ".;".
        items = (cell_text(v, language=language).rstrip(" .;") for v in value if v != "")
        return LIST_SEPARATOR.join(item for item in items if item)
    if isinstance(value, int | float):
        return format_number(value)
    return str(value)


# --- CSV -----------------------------------------------------------------------------------


class _Line:
    """csv.writer's file: hands back each line it writes."""

    def write(self, line: str) -> str:
        return line


def _csv_value(value: Any, *, language: str) -> str:
    # Numbers stay plain (no thin spaces) so a spreadsheet reads them as numbers.
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return text_safe(cell_text(value, language=language))


def csv_lines(
    columns: Sequence[Column], rows: Iterable[Sequence[Any]], *, language: str
) -> Iterator[str]:
    """The header, then a line per row, each as soon as its row is read."""
    writer = csv.writer(_Line())
    yield UTF8_BOM + writer.writerow([text_safe(c.label) for c in columns])
    for row in rows:
        yield writer.writerow([_csv_value(v, language=language) for v in row])


# --- XLSX ----------------------------------------------------------------------------------


def xlsx_write(
    columns: Sequence[Column], rows: Iterable[Sequence[Any]], *, language: str, title: str
) -> IO[bytes]:
    """The workbook in a temporary file (rewound), one sheet as a spreadsheet user expects:
    the header row frozen and filtered, columns sized to their kind, numbers as numbers with
    thousands separators, datetimes and ISO dates (a deadline) as dates, every text a string
    cell (never a formula)."""
    from openpyxl import Workbook
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.utils import get_column_letter

    workbook = Workbook(write_only=True)
    sheet = workbook.create_sheet(title=title[:31])
    sheet.freeze_panes = "A2"
    for number, column in enumerate(columns, start=1):
        width = min(max(len(column.label) + 2, COLUMN_WIDTHS.get(column.kind, 18)), 60)
        sheet.column_dimensions[get_column_letter(number)].width = width

    def cell(value: Any) -> WriteOnlyCell:
        if isinstance(value, datetime.datetime):
            written = WriteOnlyCell(sheet, timezone.localtime(value).replace(tzinfo=None))
            written.number_format = "yyyy-mm-dd hh:mm"
            return written
        if isinstance(value, str) and _ISO_DATE.match(value):
            written = WriteOnlyCell(sheet, datetime.date.fromisoformat(value))
            written.number_format = "yyyy-mm-dd"
            return written
        if isinstance(value, int | float) and not isinstance(value, bool):
            written = WriteOnlyCell(sheet, value)
            written.number_format = "#,##0" if isinstance(value, int) else "#,##0.00"
            return written
        text = _xlsx_text(cell_text(value, language=language))
        written = WriteOnlyCell(sheet, text)
        written.data_type = "s"  # a text starting with "=" stays text
        return written

    sheet.append([cell(column.label) for column in columns])
    count = 0
    for row in rows:
        sheet.append([cell(value) for value in row])
        count += 1
    sheet.auto_filter.ref = f"A1:{get_column_letter(max(len(columns), 1))}{count + 1}"
    out = tempfile.TemporaryFile()  # noqa: SIM115 (the response closes it once sent)
    workbook.save(out)
    out.seek(0)
    return out


# Column widths (characters) by kind: a date, a number, a short text, long text.
COLUMN_WIDTHS = {"int": 14, "datetime": 17, "text": 30, "field": 24, "contacts": 30,
                 "requests": 50}  # fmt: skip
# A value that is a date and nothing else (a deadline as the brief stores it).
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")

# XML 1.0 cannot hold these control characters; openpyxl refuses a cell with one.
_XML_ILLEGAL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")


def _xlsx_text(text: str) -> str:
    return _XML_ILLEGAL.sub("", text)


__all__ = ["cell_text", "csv_lines", "text_safe", "xlsx_write"]
