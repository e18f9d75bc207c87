"""The agent's reply block and the context block the prompt hook injects: one pinned format each.

The prompt hook shows the agent its memories as (:func:`context_block`)::

    [assay memory] Memories for this turn (grade them in your reply, see below):
    [m1a2b3c4d5e6f7a8b] The user's dog is called Rex.
    …
    When you finish, end your reply with:
    [cm]
    rg: <id>:<0-3>[!], …
    m: <a new memory worth keeping>
    [/cm]

and the agent ends its reply with one block (parsed by :func:`parse_reply_block`)::

    [cm]
    rg: m12:3, m7:0!
    m: The user prefers metric units.
    [/cm]

``rg:`` (at most one line) holds the grades in the delivery log's grade syntax
(:func:`assay.memory.feedback.grades.parse_grades`: 0–3, ``!`` = hard negative, only with 0 or
1); each ``m:`` line is one new memory. The block is the *last* ``[cm]`` … ``[/cm]`` pair of the
message; every other non-blank line inside it, a second ``rg:`` line, an empty ``m:`` and any
earlier block are malformed: ignored and counted, never guessed at. A ``[cm]`` left open after
the last complete block makes that open one the last block: nothing is applied.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["ReplyBlock", "parse_reply_block", "strip_reply_block", "context_block", "BLOCK_OPEN", "BLOCK_CLOSE"]

BLOCK_OPEN = "[cm]"
BLOCK_CLOSE = "[/cm]"

_BLOCK = re.compile(r"\[cm\](.*?)\[/cm\]", re.DOTALL)

#: Ends an arm instruction cut to fit the context block (:func:`context_block`).
INSTRUCTION_CUT = " […instruction cut]"

#: Longest memory a reply block may write (a note, not a document; the store has no hard cap).
MAX_MEMORY_CHARS = 2000


@dataclass
class ReplyBlock:
    """A parsed reply block: the ``grades`` field text (``None``: no ``rg:`` line), the new
    ``memories`` in order, and the ``malformed`` lines (``"line: problem"``); ``found`` is False
    when the message has no complete block."""

    found: bool = False
    grades: str | None = None
    memories: list[str] = field(default_factory=list)
    malformed: list[str] = field(default_factory=list)


def parse_reply_block(message: str) -> ReplyBlock:
    """Parse the last ``[cm]`` … ``[/cm]`` block of ``message`` (see the module docstring). Never raises."""
    blocks = list(_BLOCK.finditer(message))
    # A [cm] opened after the last complete block is the reply's last block, unclosed (a reply
    # cut short): applying an earlier block instead would be a guess, so nothing is applied.
    unclosed = BLOCK_OPEN in message[blocks[-1].end() :] if blocks else BLOCK_OPEN in message
    out = ReplyBlock(found=bool(blocks) and not unclosed)
    if unclosed:
        out.malformed.append(f"{BLOCK_OPEN}: block not closed with {BLOCK_CLOSE}")
        out.malformed += [f"{b.group(0)[:40]!r}: only the last block counts" for b in blocks]
        return out
    if not blocks:
        return out
    for earlier in blocks[:-1]:
        out.malformed.append(f"{earlier.group(0)[:40]!r}: only the last block counts")
    for raw in blocks[-1].group(1).splitlines():
        line = raw.strip()
        if not line:
            continue
        tag, colon, rest = line.partition(":")
        tag, rest = tag.strip(), rest.strip()
        if not colon or tag not in ("rg", "m"):
            out.malformed.append(f"{line[:80]}: expected 'rg: <grades>' or 'm: <memory>'")
        elif tag == "rg":
            if out.grades is not None:
                out.malformed.append(f"{line[:80]}: a second rg: line")
            elif not rest:
                out.malformed.append(f"{line[:80]}: empty rg: line")
            else:
                out.grades = rest
        elif not rest:
            out.malformed.append(f"{line[:80]}: empty m: line")
        elif len(rest) > MAX_MEMORY_CHARS:
            out.malformed.append(f"{rest[:40]}…: memory longer than {MAX_MEMORY_CHARS} characters")
        else:
            out.memories.append(rest)
    return out


def strip_reply_block(message: str) -> str:
    """``message`` without its reply blocks: the response engagement is measured on. A ``[cm]``
    left open (after the last complete block, or with none) is stripped to the end of the
    message too: the rest is a cut-short block, not the response (:func:`parse_reply_block`
    counts it malformed and applies nothing)."""
    rest = _BLOCK.sub("", message)
    cut = rest.find(BLOCK_OPEN)  # every [cm] left is unclosed: complete blocks are gone
    return (rest if cut < 0 else rest[:cut]).strip()


def context_block(hits: list[tuple[str, str]], *, instruction: str | None, max_chars: int) -> str:
    """The ``additionalContext`` of the prompt hook: the memories ``[(id, text)]`` best first, the
    arm's ``instruction`` (if any) and the reply-block request, at most ``max_chars`` characters.

    Each memory that does not fit in what is left is left out whole (never cut mid-text) and
    the next, shorter ones still tried, in rank order: one long first memory no longer empties
    the block. The footer always fits (``max_chars`` ≥ 200): an instruction longer than the
    room left after the header and the reply-block request is cut, ending in
    :data:`INSTRUCTION_CUT`, so the ``[cm]`` format is never lost. ``""`` when there is
    nothing to show."""
    if not hits and not instruction:
        return ""
    head = "[assay memory] Memories for this turn (grade them in your reply, see below):"
    request = "\n".join(
        [
            "When you finish, end your reply with:",
            BLOCK_OPEN,
            "rg: <id>:<0-3>[!], … (3 = essential, 0 = useless, ! = misleading)",
            "m: <a new memory worth keeping> (one line each, optional)",
            BLOCK_CLOSE,
        ]
    )
    if instruction:
        room = max_chars - len(head) - len(request) - 2
        if len(instruction) > room:
            instruction = instruction[: max(0, room - len(INSTRUCTION_CUT))].rstrip() + INSTRUCTION_CUT
    foot = f"{instruction}\n{request}" if instruction else request
    lines = [head]
    budget = max_chars - len(head) - len(foot) - 2
    for mid, text in hits:
        line = f"[{mid}] {' '.join(text.split())}"
        if len(line) + 1 > budget:
            continue
        lines.append(line)
        budget -= len(line) + 1
    return "\n".join([*lines, foot])[:max_chars]
