"""The import contracts of .importlinter hold (see docs/architecture.md), and the error type
that made every app depend on briefing stays in core."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import skip_or_fail

ROOT = Path(__file__).resolve().parents[1]
APPS = ("api", "briefing", "config", "core", "crm", "dlq", "llmkit", "studio", "webhooks")


def test_the_import_contracts_hold():
    lint_imports = Path(sys.executable).parent / "lint-imports"
    if not lint_imports.exists():
        found = shutil.which("lint-imports")
        if found is None:
            skip_or_fail("import-linter is not installed (pip install -e '.[dev]')")
        lint_imports = Path(found)
    done = subprocess.run(
        [str(lint_imports), "--no-cache"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " broken." not in done.stdout or "0 broken" in done.stdout


def test_no_app_imports_briefing_errors_any_more():
    # The file, not find_spec: a shared virtualenv's editable install may still offer
    # another checkout's briefing/errors.py.
    assert not (ROOT / "briefing" / "errors.py").exists()
    imports_it = re.compile(r"^\s*from briefing(?:\.errors| import errors)\b", re.M)
    offenders = [
        str(path.relative_to(ROOT))
        for app in (*APPS, "tests")
        for path in (ROOT / app).rglob("*.py")
        if imports_it.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []
