"""The pinned reply block: parsed strictly, malformed lines ignored and counted, never guessed."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from assay.memory.feedback.reply import context_block, parse_reply_block, strip_reply_block


def test_the_pinned_example_parses():
    b = parse_reply_block("Answer.\n[cm]\nrg: m12:3, m7:0!\nm: The user prefers metric units.\n[/cm]")
    assert b.found and b.grades == "m12:3, m7:0!" and b.memories == ["The user prefers metric units."]
    assert b.malformed == []


def test_malformed_lines_are_counted_not_guessed():
    b = parse_reply_block("[cm]\nrg: m1:3\nrg: m2:1\nmemory: x\nm:\nrg:\njust words\n[/cm]")
    assert b.grades == "m1:3" and b.memories == [] and len(b.malformed) == 5


def test_only_the_last_block_counts_and_an_unclosed_one_is_malformed():
    b = parse_reply_block("[cm]\nrg: m1:0\n[/cm] text [cm]\nrg: m2:3\n[/cm]")
    assert b.grades == "m2:3" and len(b.malformed) == 1
    b = parse_reply_block("text [cm]\nrg: m1:3")
    assert not b.found and b.grades is None and len(b.malformed) == 1
    assert not parse_reply_block("no block here").found


def test_strip_leaves_the_response():
    assert strip_reply_block("Rex is fine.\n[cm]\nrg: m1:3\n[/cm]") == "Rex is fine."


@given(st.text(max_size=300))
def test_parsing_never_raises_and_memories_are_nonblank(text):
    b = parse_reply_block(text)
    assert all(m.strip() for m in b.memories)
    assert b.grades is None or b.grades.strip()


@given(st.lists(st.text(min_size=1, max_size=400), max_size=30), st.integers(200, 5000))
def test_the_context_block_never_exceeds_its_cap(texts, cap):
    block = context_block([(f"m{i}", t) for i, t in enumerate(texts)], instruction=None, max_chars=cap)
    assert len(block) <= cap


def test_an_unclosed_block_after_a_complete_one_applies_nothing():
    # found by rtry: the earlier (quoted) block was applied and the cut-off last one went uncounted
    b = parse_reply_block("Format: [cm]\nrg: m1:3\n[/cm] and mine:\n[cm]\nrg: m2:0!\nm: new")
    assert not b.found and b.grades is None and b.memories == []
    assert len(b.malformed) == 2


def test_strip_removes_an_unclosed_block_to_the_end():
    # failing input (issue 19 leftover): the cut-short block stayed in the response engagement is measured on
    msg = "Rex is fine.\n[cm]\nrg: m1:3\nm: half a memo"
    assert strip_reply_block(msg) == "Rex is fine."
    b = parse_reply_block(msg)
    assert not b.found and b.grades is None and b.memories == [] and len(b.malformed) == 1
    both = "Quoted: [cm]\nrg: m1:0\n[/cm] my answer.\n[cm]\nrg: m2:3"
    assert strip_reply_block(both) == "Quoted:  my answer."
    assert strip_reply_block("[cm] nothing else") == ""


@given(st.lists(st.sampled_from(["[cm]", "[/cm]", "a", " ", "\n", "rg: m1:3"]), max_size=40).map("".join))
def test_a_stripped_response_holds_no_block_opening(text):
    out = strip_reply_block(text)
    assert "[cm]" not in out
    assert out == out.strip()


def test_a_long_first_memory_is_left_out_and_the_others_still_shown():
    # failing input: the first hit did not fit, `break` emptied the block of the two that fit
    hits = [("m1", "x" * 5000), ("m2", "The dog is Rex."), ("m3", "Metric units.")]
    block = context_block(hits, instruction=None, max_chars=1000)
    assert "[m1]" not in block and block.index("[m2]") < block.index("[m3]") and len(block) <= 1000


def test_an_over_long_instruction_is_cut_and_the_reply_format_kept():
    # failing input: an arm instruction longer than the cap cut the footer, losing [cm] … [/cm]
    block = context_block([("m1", "note")], instruction="Be brief. " * 500, max_chars=800)
    assert len(block) <= 800 and "[…instruction cut]" in block
    assert block.rstrip().endswith("[/cm]") and "[cm]\nrg:" in block
