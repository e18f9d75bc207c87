"""Report writers: ``NAME.local.json``, ``NAME.aggregate.json``, ``NAME.md`` and ``NAME.html``.

``local`` holds per-case records (case ids included) and only ever goes to ``NAME.local.json``.
The four files are one set, written under the set's lock and sharing the run's id
(:mod:`assay.reports.sets`).
The markdown and html renderers take the aggregate alone (:class:`assay.results.Aggregate`, or
a file's JSON object they load into it), which never holds a case id, so the shareable files
are private by construction.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from assay.atomic import atomic_write_text, check_writable_dir, dumps_json
from assay.reports.html import render_html
from assay.reports.markdown import render_markdown
from assay.reports.sets import ReportSetBusy, check_report_set, report_paths, report_set_busy, report_set_lock
from assay.results import Aggregate, LocalFile, ResultModel, load_aggregate

__all__ = [
    "ReportSetBusy",
    "check_report_set",
    "render_html",
    "render_markdown",
    "report_paths",
    "report_set_busy",
    "write_reports",
]


def write_reports(
    out_dir: str | os.PathLike[str],
    name: str,
    local: LocalFile | Mapping[str, Any],
    aggregate: Aggregate | Mapping[str, Any],
    *,
    wait: bool = True,
    on_wait: Callable[[Path], None] | None = None,
) -> list[Path]:
    """Write the four report files for one run into ``out_dir`` and return their absolute paths.

    Order: ``NAME.local.json``, ``NAME.aggregate.json``, ``NAME.md``, ``NAME.html``. ``local`` and
    ``aggregate`` are models (written as ``to_json()``) or the files' JSON objects (written as
    given; the aggregate is loaded into its model to be rendered, the local file is not read).
    Everything is rendered in memory first, so a bad value (NaN in the JSON, an unserialisable
    object, an aggregate that is not one, a rendering error) raises before any file is touched;
    each file is then written atomically, the four under the set's exclusive lock
    (:func:`assay.reports.sets.report_set_lock`), so concurrent runs into one ``out_dir/name``
    leave one run's whole set, never a mix. A held lock is awaited (``on_wait(lock file)`` is
    called first), or with ``wait=False`` raises :class:`ReportSetBusy` (nothing written).
    ``out_dir`` is created if missing; an unwritable directory raises ``OSError``.
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
    with report_set_lock(paths[0].parent, name, wait=wait, on_wait=on_wait):
        for path, text in zip(paths, texts, strict=True):
            atomic_write_text(path, text)
    return paths


def _json(data: ResultModel | Mapping[str, Any]) -> Any:
    return data.to_json() if isinstance(data, ResultModel) else data
