"""Report writers: ``NAME.local.json``, ``NAME.aggregate.json``, ``NAME.md`` and ``NAME.html``.

``local`` holds per-case records (case ids included) and only ever goes to ``NAME.local.json``.
The markdown and html renderers take the aggregate alone (:class:`assay.results.Aggregate`, or
a file's JSON object they load into it), which never holds a case id, so the shareable files
are private by construction.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from assay.atomic import atomic_write_text, check_writable_dir, dumps_json
from assay.reports.html import render_html
from assay.reports.markdown import render_markdown
from assay.results import Aggregate, LocalFile, ResultModel, load_aggregate

__all__ = ["render_html", "render_markdown", "report_paths", "write_reports"]

#: Longest file name (bytes) on the filesystems assay targets (Linux ext4/xfs/tmpfs, macOS APFS).
NAME_MAX = 255
#: Bytes :func:`assay.atomic.atomic_write_text` adds around a name for its temporary file
#: (``"." + name + "." + 8 random characters + ".tmp"``, minus the leading dot counted above).
_TEMP_SUFFIX_BYTES = len(".xxxxxxxx.tmp")


def write_reports(
    out_dir: str | os.PathLike[str],
    name: str,
    local: LocalFile | Mapping[str, Any],
    aggregate: Aggregate | Mapping[str, Any],
) -> list[Path]:
    """Write the four report files for one run into ``out_dir`` and return their absolute paths.

    Order: ``NAME.local.json``, ``NAME.aggregate.json``, ``NAME.md``, ``NAME.html``. ``local`` and
    ``aggregate`` are models (written as ``to_json()``) or the files' JSON objects (written as
    given; the aggregate is loaded into its model to be rendered, the local file is not read).
    Everything is rendered in memory first, so a bad value (NaN in the JSON, an unserialisable
    object, an aggregate that is not one, a rendering error) raises before any file is touched;
    each file is then written atomically. ``out_dir`` is created if missing; an unwritable
    directory raises ``OSError``.
    """
    paths = report_paths(out_dir, name)
    model = load_aggregate(aggregate)
    texts = [
        dumps_json(_json(local)),
        dumps_json(_json(aggregate)),
        render_markdown(model),
        render_html(model),
    ]
    check_writable_dir(paths[0].parent)
    for path, text in zip(paths, texts, strict=True):
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


def _json(data: ResultModel | Mapping[str, Any]) -> Any:
    return data.to_json() if isinstance(data, ResultModel) else data
