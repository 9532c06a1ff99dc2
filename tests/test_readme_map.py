"""tests/README.md, the map from code to its tests, stays true: every path it names exists,
and every test file is on it."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAP = ROOT / "tests" / "README.md"


def _table_paths() -> set[str]:
    rows = [line for line in MAP.read_text(encoding="utf-8").splitlines() if line.startswith("|")]
    cells = re.findall(r"`([^`]+)`", "\n".join(rows))
    return {cell for cell in cells if "/" in cell or cell.startswith(".")}


def test_every_path_on_the_map_exists():
    paths = _table_paths()
    assert len(paths) > 50  # the table was read at all
    assert sorted(path for path in paths if not (ROOT / path).exists()) == []


def test_every_test_file_is_on_the_map():
    listed = _table_paths()
    test_files = {str(path.relative_to(ROOT)) for path in (ROOT / "tests").rglob("test_*.py")}
    assert sorted(test_files - listed) == []
