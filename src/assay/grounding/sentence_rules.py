"""The rules one sentence puts on its numbers' matches, composed once per sentence for the gate.

:func:`sentence_reader` reads a claim's sentence (:class:`~assay.grounding.context.SentenceContext`)
and returns the two callables :func:`assay.grounding.match.best_match` needs: ``accept`` — the
veto of one (quantity, candidate) pair, the first of the sentence rules
(:func:`~assay.grounding.acceptable.acceptable`: signs, sums, periods, labels, directions), the
stated comparison's subject and base (:func:`~assay.grounding.comparison.comparison_veto`) and,
for a fact matched directly, a paragraph number judged as the line item it repeats
(:func:`~assay.grounding.twins.twin_veto`) — and ``license_sign``: the question's sign
licence ("What was the net loss …") on each number. A sentence that names as a profit the item
the question names as a loss (:func:`~assay.grounding.lexicon.renamed_loss_item`) is vetoed on
figures whose labels name neither. A profit or loss stated on a change of figures of both signs
that nothing orders is vetoed (:func:`~assay.grounding.operands.unordered_sign`). Two levels the
sentence says moved the other way ("rose from $118 million to $93 million") are vetoed
(:func:`~assay.grounding.level_moves.contradicted_levels`). A sentence's opening period ("In fiscal 2023,")
scopes the numbers that name none (:func:`~assay.grounding.lead_period.with_lead_year`).
What the sentence's form says of a number (:func:`~assay.grounding.forms.forms_veto`: a negated
change, …) is checked first. A number of a page's prose backs only what its own sentence there says it
is: its years and its item (:mod:`~assay.grounding.prose_numbers`, gate-19).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace

from assay.claims import Claim, Quantity
from assay.grounding.acceptable import acceptable
from assay.grounding.candidates import CHANGE_OPS, Candidate
from assay.grounding.change_amount import cell_level_veto, difference_veto, level_veto, percent_change_veto
from assay.grounding.column_period import column_veto, derived_cell_veto, named_years
from assay.grounding.comparison import comparison_veto, multiple_veto
from assay.grounding.context import SentenceContext, question_carries_sign
from assay.grounding.derivation_names import one_of_a_sum_veto, one_operand_veto
from assay.grounding.forms import SentenceForms, forms_veto, read_forms, share_base_veto
from assay.grounding.index import SnapshotIndex
from assay.grounding.labels import SnapshotVocabulary, row_item
from assay.grounding.lead_period import base_years, with_lead_year
from assay.grounding.level_moves import Move, contradicted_levels, move_order_veto, stated_moves
from assay.grounding.lexicon import POLARITY, renamed_loss_item
from assay.grounding.match import CandidateSet
from assay.grounding.operands import unordered_sign, unordered_veto
from assay.grounding.outflows import outflow_veto
from assay.grounding.page_currency import currency_veto
from assay.grounding.prose_numbers import (
    one_prose_line,
    prose_item_veto,
    prose_order,
    prose_period_veto,
    prose_polarity,
    prose_sign_veto,
)
from assay.grounding.question_period import with_question_years
from assay.grounding.rates import rate_veto
from assay.grounding.sentence_memo import sentence_memo
from assay.grounding.triggers import ALL
from assay.grounding.twins import twin_veto

__all__ = ["Twins", "Veto", "read_context", "sentence_reader"]

#: The facts a paragraph number may repeat (the cited ones, or every fact in uncited mode).
Twins = Iterable[Candidate] | CandidateSet
#: ``(rule kind, reason)`` when a match is refused, ``None`` when it stands.
Veto = tuple[str, str] | None
_NONE: frozenset[int] = frozenset()
_NO_NAMES: tuple[frozenset[int], tuple[str, ...]] = (frozenset(), ())
#: One of these is in every sentence :func:`~assay.grounding.level_moves.stated_moves` reads a move in.
_MOVE_HINTS = (" to ", " from ", "로", " than ", " over ", " on ", " versus ", " vs", " compared ")


def sentence_reader(
    claim: Claim,
    idx: SnapshotIndex,
    question: str | None,
    twins: Callable[[], Twins],
    cited: bool = False,
    may: int = ALL,
) -> tuple[Callable[[Quantity, Candidate], Veto], Callable[[Quantity], Quantity]]:
    """``(accept, license_sign)`` for the numbers of ``claim`` (see the module docstring).

    ``twins``: called only when a direct fact match needs the twin check; ``cited``: the gate's
    mode (a cited sentence's twins are its cited facts); ``may``: the sentence's
    :func:`~assay.grounding.triggers.sentence_triggers` bits (:data:`~.triggers.ALL`: unknown).
    """
    signed = question_carries_sign(question)
    text = claim.text
    read: list[SentenceContext] = []  # the sentence is read on the first value match (none: never read)
    vocabs: list[SnapshotVocabulary] = []  # the vocabulary it was read with

    def license_sign(q: Quantity) -> Quantity:
        return replace(q, sign_wording=True) if signed and not q.sign_wording and not q.explicit_sign else q

    renamed = renamed_loss_item(text, question)
    years: list[frozenset[int]] = []  # the years the sentence names, read on the first column-dated match
    moved: list[frozenset[int]] = []  # the levels whose stated move contradicts them, read on the first match
    forms: list[SentenceForms] = []  # what the sentence's form says of its numbers, read on the first match
    may_move = any(map(text.__contains__, _MOVE_HINTS))  # (stated_moves' forms all hold one)

    def own_sign(c: Candidate) -> int | None:
        return prose_polarity(c, idx.source_line(c.ref))

    def moves() -> dict[int, Move]:
        return stated_moves(text, claim.span[0], tuple(claim.numbers))

    def accept(q: Quantity, c: Candidate) -> Veto:
        if not moved:
            moved.append(contradicted_levels(text, claim.span[0], claim.numbers) if len(claim.numbers) > 1 else _NONE)
        if q.span[0] in moved[0]:
            return "sign", "the sentence puts its two levels one way (moved or compared); their values go the other"
        if not read:
            vocab = idx.vocabulary if cited else idx.uncited_vocabulary(claim.text)  # (with the passages' row items)
            vocabs.append(vocab)
            ctx = read_context(claim.text, claim.span[0], vocab, question, tuple(claim.numbers), may)
            read.append(ctx if cited else with_question_years(ctx, idx.vocabulary, question, tuple(claim.numbers)))
        ctx = read[0]
        if not forms:
            forms.append(read_forms(text, claim.span[0], tuple(claim.numbers), may))
        veto = (
            forms_veto(q, c, forms[0])
            or outflow_veto(q, c, text, claim.span[0], tuple(claim.numbers))
            or rate_veto(q, c, text, claim.span[0])
            or currency_veto(q, c, idx.page_currency)
            or (share_base_veto(q, c, text, claim.span[0], ctx.named, ctx.exact) if ctx.named and c.op else None)
        )
        veto = veto or acceptable(q, c, ctx, own_sign)  # ("a net loss of $3.8" on the page: its sign)
        if q.direction is not None and c.op in CHANGE_OPS and q.change_base != "against_other" and one_prose_line(c):
            veto = _prose_direction(q, c, idx.source_line(c.operands[0].ref), veto)
        veto = veto or comparison_veto(q, c, text, ctx.named) or percent_change_veto(q, c)
        veto = veto or (multiple_veto(q, c, text, claim.span[0], ctx.named) if q.unit == "x" else None)
        veto = veto or difference_veto(q, c, text, claim.span[0], question)
        own_years, own_items = ctx.by_number.get(q.span[0], _NO_NAMES)  # what the sentence names for q
        if veto is None and c.op is not None and ctx.named:  # a derivation named as one of its operands
            veto = one_operand_veto(q, c, own_items, ctx.named, text, claim.span[0])
        elif veto is None and len(own_items) > 1:  # one figure named as a sum of its item and another's
            veto = one_of_a_sum_veto(q, c, own_items, text, claim.span[0])
        if veto is None and q.direction is not None:  # a change between two years is no one year's level
            pool = twins() if cited else idx.facts.values()  # where a zero base may be: the cited facts, or all
            veto = level_veto(q, c, own_years, pool, idx.facts.values())  # type: ignore[arg-type]
        if veto is None and c.op is not None and not q.explicit_sign:
            stated = ctx.stated_sign(q)
            if unordered_sign(c, stated) and not (stated is not None and stated < 0 and ctx.question_loss):
                said = "a loss" if stated is not None and stated < 0 else "a profit"
                return "sign", f"the wording states {said}, but the order in time of {c.ref}'s figures is unknown"
        if veto is None and c.origin == "fact" and may_move and q.span[0] in (mv := moves()):  # forward in time
            pool = twins() if cited else idx.facts.values()
            veto = move_order_veto(q, c, mv[q.span[0]], pool, own_years, len(mv))  # type: ignore[arg-type]
        if veto is None and (c.column_year is not None or (c.op and any(o.column_year for o in c.operands))):
            if not years:  # a passage number's column names its year: the years the sentence gives it (any)
                years.append(named_years(text))
            given = own_years if own_years and len(years[0]) > 1 else years[0]  # (one year: every number's)
            if c.op is None and given and c.column_year not in given and (base := base_years(text)):
                given = given - base  # "$1,100 million, up 10% from 2018": 2018 is the base's (acceptable judges it)
            veto = (
                column_veto(c, given) or cell_level_veto(q, c, years[0], text, len(claim.numbers) == 1)
                if c.op is None
                else derived_cell_veto(c, given, text)
            )
        elif veto is None and (
            c.origin == "passage" and c.op is None and row_item(c.label) is None or c.op and one_prose_line(c)
        ):
            line = idx.source_line(c.operands[0].ref if c.op else c.ref)  # a number of prose: its own sentence's years
            if not own_years and not years and len(claim.numbers) == 1:
                years.append(named_years(text))  # (one number: every year is its)
            given = own_years or (years[0] if years and len(claim.numbers) == 1 else _NONE)
            if given:  # (of several numbers, only the years read as q's: "1.3% …, below the 13.6% rise in 2021")
                veto = prose_period_veto(c, given, line, idx.period_years, q.value)
            veto = veto or prose_sign_veto(c, ctx.stated_sign(q), line)
        if veto is None and own_items and (ctx.exact or c.op) and c.origin != "fact":  # prose: the item it is of
            exact = [n for n in own_items if n in ctx.exact]  # (a derivation: any item the sentence names it)
            veto = prose_item_veto(c, exact or list(own_items) if c.op else exact, idx.source_line, vocabs[0])
        if veto is None and renamed and all(o.value > 0 and not POLARITY.search(o.label) for o in c.operands or (c,)):
            return "label_mismatch", f"the question's {renamed!r} is named a profit, and {c.ref} names neither"
        return veto if veto is not None or c.op is not None else twin_veto(q, c, twins(), ctx, cited)

    return accept, license_sign


def _prose_direction(q: Quantity, c: Candidate, line: str, veto: Veto) -> Veto:
    """The direction rule for a change of two numbers of one line of prose (gate-20): their own sentences'
    years order them (:func:`~assay.grounding.prose_numbers.prose_order`); the stated direction must be the
    way from the earlier to the later ("sign" veto otherwise), and with no order it is not proven. The
    order found answers :func:`~assay.grounding.operands.unordered_direction`'s veto (a paragraph has no
    period header: ranks from its line's first words or none)."""
    if q.explicit_sign or q.direction is None:
        return veto
    order = prose_order(c, line)
    a, b = c.operands
    if order is None or a.value == b.value:
        return veto or unordered_veto(c)
    way = (1 if a.value > b.value else -1) * order  # the sign of later − earlier
    if way != q.direction:
        said = "a rise" if q.direction > 0 else "a fall"
        return "sign", f"the wording states {said}, but {c.ref}'s own sentence orders its figures the other way"
    return None if veto == unordered_veto(c) else veto


@sentence_memo
def read_context(
    text: str,
    offset: int,
    vocab: SnapshotVocabulary,
    question: str | None,
    numbers: tuple[Quantity, ...],
    may: int = ALL,
) -> SentenceContext:
    """:meth:`SentenceContext.read`, memoised (:func:`~assay.grounding.sentence_memo.sentence_memo`: a
    few memos' sentences): it is pure in its arguments (the vocabulary compares by content, quantities
    by value) and the context is never mutated, so an answer gated again (a retry, a memo re-checked
    before shipping) reads each sentence once.
    The sentence's opening period is read into it here (:func:`~assay.grounding.lead_period.with_lead_year`)."""
    return with_lead_year(SentenceContext.read(text, offset, vocab, question, numbers, may), vocab, numbers)
