"""The claim reader as it was at a commit, for equivalence tests: ``assay.claims`` written from git
into a temporary package (``claims_<commit>``) and imported beside today's."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def claims_at_commit(
    commit: str,
    dest: Path,
    modules: Iterable[str] | None = None,
    edit: Callable[[str, str], str] | None = None,
) -> ModuleType:
    """``assay.claims`` at ``commit`` imported as ``claims_<commit>`` from a package written under
    ``dest``; ``modules``: the module names to write (default: every ``.py`` file of the package at
    that commit); ``edit(name, source)``: a deliberate change applied to one module's source.
    Skips the test (``pytest.skip``) when the commit is not in this checkout's history."""
    if modules is None:
        listed = subprocess.run(
            ["git", "-C", str(ROOT), "ls-tree", "--name-only", f"{commit}:src/assay/claims"],
            capture_output=True,
            text=True,
        )
        if listed.returncode != 0:
            pytest.skip(f"commit {commit} is not in this checkout's history")
        modules = [n[:-3] for n in listed.stdout.split() if n.endswith(".py")]
    name = f"claims_{commit}"
    pkg = dest / name
    pkg.mkdir()
    for module in modules:
        shown = subprocess.run(
            ["git", "-C", str(ROOT), "show", f"{commit}:src/assay/claims/{module}.py"], capture_output=True, text=True
        )
        if shown.returncode != 0:
            pytest.skip(f"commit {commit} is not in this checkout's history")
        source = re.sub(r"\bassay\.claims\b", name, shown.stdout)
        (pkg / f"{module}.py").write_text(edit(module, source) if edit else source, encoding="utf-8")
    sys.path.insert(0, str(dest))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(dest))


#: Texts the sentence-end rules since 39fb590 may read otherwise (a deliberate change, issue 15: an
#: ellipsis, a CJK mark, a closing quote or bracket after the mark, a mark before a capitalised
#: word with no space; tested in tests/grounding/test_boundaries_and_sub_questions.py): the
#: reader-equivalence tests leave them out (see the count asserted in test_reader_equivalence_cx).
SENTENCE_ENDS_SINCE = re.compile(
    r"[…。！？]|\.\.\.|[.!?][\"'”’)）」』]|[a-z0-9%)][.!?][A-Z][a-z]"
    # and a level after "by <change> to", a base after "compared with/to", "versus", "vs.", "against"
    # (no direction, no range: gate-13; tested in tests/grounding/test_gate13_regressions.py)
    r"|\bby\s+\S+(?:\s+\w+)?\s+to\s|\b(?:compared\s+(?:with|to)|versus|vs\.?|against)\s",
    re.I,
)
#: What the reader reads otherwise on purpose since gate-16 — scale suffixes ("£59.1m", "$96,995 mm", "$97.0
#: bln", "$97.0 bn", "$97.0 B"; tests/claims/test_scale_suffixes.py) — and gate-17: a currency's hundredth ("613
#: cents", "94¢", "12 pence"; tests/claims/test_hundredths.py) and the move words "cut", "slashed", "trimmed",
#: "lowered", "boosted", "lifted", the comparatives "behind" and "ahead of", and "made up" and "fell short" as no
#: move, and "<verb> <amount> to <level>" with no "by" read as a change and its level, not a range
#: (tests/grounding/test_move_words.py); gate-20: a lower-case label word before a number ("level 1", "note 23",
#: "tier 1") as the capitalised ones were (tests/claims/test_label_numbers.py); gate-21: "widened" and "narrowed" as
#: a rise and a fall (of a size: tests/grounding/test_gate21_hunt.py). The reader-equivalence tests leave texts
#: holding one out.
READER_CHANGES_SINCE = re.compile(
    r"\d\s?(?:mm|bln|mln|[mb])(?![A-Za-z])|\d\s(?:bn|mn|[KMB])(?![A-Za-z])|\d\s?(?:cents?\b|pence\b|¢)"
    r"|(?i:\b(?:cut|slashed|trimmed|lowered|boosted|lifted|behind|ahead\s+of|short)\b|\bmak(?:e|es|ing)\s+up\b|\bmade\s+up\b)"
    r"|\b[a-z]+\s+[$€£¥]\S+(?:\s+(?:million|billion|thousand))?\s+to\s"  # a change and its level with no "by"
    r"|\b(?:level|tier|notes?|item|section|exhibit|schedule|article|chapter)\s?\d"  # gate-20: lower-case labels
    r"|(?i:\b(?:widen|narrow)(?:ed|ing)\b)"  # gate-21: size words as a direction
)
