"""Report writers: ``NAME.local.json``, ``NAME.aggregate.json``, ``NAME.md`` and ``NAME.html``.

``local`` holds per-case records (case ids included) and only ever goes to ``NAME.local.json``.
The markdown and html renderers take the aggregate alone, which never holds a case id, so the
shareable files are private by construction.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from assay.atomic import atomic_write_text, check_writable_dir, dumps_json
from assay.reports.html import render_html
from assay.reports.markdown import render_markdown

__all__ = ["render_html", "render_markdown", "report_paths", "write_reports"]

#: Longest file name (bytes) on the filesystems assay targets (Linux ext4/xfs/tmpfs, macOS APFS).
NAME_MAX = 255
#: Bytes :func:`assay.atomic.atomic_write_text` adds around a name for its temporary file
#: (``"." + name + "." + 8 random characters + ".tmp"``, minus the leading dot counted above).
_TEMP_SUFFIX_BYTES = len(".xxxxxxxx.tmp")


def write_reports(
    out_dir: str | os.PathLike[str], name: str, local: Mapping[str, Any], aggregate: Mapping[str, Any]
) -> list[Path]:
    """Write the four report files for one run into ``out_dir`` and return their absolute paths.

    Order: ``NAME.local.json``, ``NAME.aggregate.json``, ``NAME.md``, ``NAME.html``. Everything
    is rendered in memory first, so a bad value (NaN in the JSON, an unserialisable object, a
    rendering error) raises before any file is touched; each file is then written atomically.
    ``out_dir`` is created if missing; an unwritable directory raises ``OSError``.
    """
    paths = report_paths(out_dir, name)
    texts = [
        dumps_json(local),
        dumps_json(aggregate),
        render_markdown(aggregate),
        render_html(aggregate),
    ]
    check_writable_dir(paths[0].parent)
    for path, text in zip(paths, texts):
        atomic_write_text(path, text)
    return paths


def report_paths(out_dir: str | os.PathLike[str], name: str) -> list[Path]:
    """The absolute paths :func:`write_reports` writes, in its order; ``name`` must be a plain file stem."""
    if not name or name in {".", ".."} or os.sep in name or (os.altsep and os.altsep in name) or "\0" in name:
        raise ValueError(f"report name must be a plain file name without path separators, got {name!r}")
    longest = len(os.fsencode(f".{name}.aggregate.json")) + _TEMP_SUFFIX_BYTES
    if longest > NAME_MAX:
        raise ValueError(
            f"report name is too long ({len(os.fsencode(name))} bytes; at most "
            f"{len(os.fsencode(name)) - (longest - NAME_MAX)} so its files fit the {NAME_MAX}-byte file name limit)"
        )
    base = Path(out_dir).expanduser().absolute()
    return [base / f"{name}{suffix}" for suffix in (".local.json", ".aggregate.json", ".md", ".html")]
