"""The vocabulary of the number reader: the quantity regex, currency symbols, and the patterns
around a number that make it something else (a date, an ordinal, a code, a label).

Pure data, compiled once at import; :mod:`assay.claims.quantities` applies them.
"""

from __future__ import annotations

import re

CURRENCY_SYMBOLS = {
    "$": "USD",
    "US$": "USD",
    "S$": "SGD",
    "HK$": "HKD",
    "NZ$": "NZD",
    "R$": "BRL",
    "€": "EUR",
    "£": "GBP",
    "¥": "JPY",
    "₩": "KRW",
    "C$": "CAD",
    "A$": "AUD",
}
ISO = r"(?:USD|EUR|GBP|JPY|KRW|CNY|CAD|AUD|CHF|INR|HKD|SGD)"
KOREAN_SCALE = {"만": 1e4, "억": 1e8, "조": 1e12}
#: Korean digit multipliers inside a 만-group: 5천억 = 5,000억, 3천5백만 = 3,500만.
KOREAN_SUB = {"천": 1e3, "백": 1e2, "십": 1e1}
NUM = r"(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d{1,3}(?:[ \u202f\u00a0]\d{3})+(?!\d|,\d)(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
#: The same without the plain-space thousands separator (source passages: there a space
#: separates table cells, "Cost of sales 900 800" is two numbers, not 900,800).
NUM_NO_SPACE = NUM.replace(r"[ \u202f\u00a0]", r"[\u202f\u00a0]")


def _number_regex(num: str) -> re.Pattern[str]:
    """The quantity pattern around the number pattern ``num``."""
    return re.compile(
        r"(?<![\w.,$€£¥₩])"
        r"(?P<open>\()?"
        r"(?P<sign>[-−–](?=[\s$€£¥₩]?\d|\s?\.\d))?\s?"
        r"(?:(?P<cur>US\$|HK\$|NZ\$|S\$|R\$|C\$|A\$|[$€£¥₩]|" + ISO + r"\s)(?P<sign2>\s?[-−](?=\d|\.\d))?)?\s?"
        r"(?P<open2>\()?"
        r"(?P<num>" + num + r")"
        r"(?P<kr>(?:\s?(?:[천백십]\s?)?[조억만]|[천백십](?![조억만]))"
        r"(?:\s?" + num + r"\s?(?:[천백십]\s?)?[조억만])*(?:\s?" + num + r"(?:\s?[천백십])?(?![\d.조억만]))?)?"
        # scale words and suffixes: "$97.0 bn", "$97.0 bln", "$5m", "$96,995mm"; a one-letter suffix or "mm" is a
        # scale only after a currency (":func:`_to_quantity`), spaced ("$97.0 B") only after a currency before it
        r"(?P<scale>\s?(?:thousand|million|billion|trillion)s?\b|\s?(?:bln|mln|bn|mn)(?![A-Za-z])"
        r"|(?:mm|[KMBkmb])(?![A-Za-z])|(?(cur)\s(?:mm|[KMB])(?![A-Za-z])|(?!)))?"
        r"(?P<suffix>\s?(?:%p(?![A-Za-z])|%|퍼센트포인트|퍼센트|percent\b|per\s?cent\b|pct\b|pp\b|ppts?\b|pts?\b|points?\b|p\.p\.|"
        r"percentage points?\b|basis points?\b|bps\b|[x×](?![A-Za-z])|times\b))?"
        r"(?P<close>\s?\)(?P<pct2>%)?)?"
        r"(?P<scale2>\s?(?:thousand|million|billion|trillion)s?\b)?"
        # a currency after the number; "cents", "pence", "¢": its hundredth ("613 cents" is 6.13)
        r"(?P<cur2>\s?(?:원|엔|위안|유로|달러|won\b|dollars?\b|euros?\b|yen\b|yuan\b|renminbi\b|cents?\b|pence\b|¢|"
        + ISO
        + r"\b))?"
        r"(?P<share>\s?(?:per (?:diluted |basic )?share|/share|a share)\b)?"
    )


NUMBER = _number_regex(NUM)
NUMBER_NO_SPACE = _number_regex(NUM_NO_SPACE)

_MONTHS = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|"
    r"Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
)
DATE_BEFORE = re.compile(_MONTHS + r"\.?\s+$")
DATE_AFTER = re.compile(r"^(?:st|nd|rd|th)?\s*,?\s*" + _MONTHS + r"\b|^,\s*(?:19|20)\d\d")
#: Numeric dates, masked before numbers are read: 2019-12-31, 12/31/2019, 31.12.2019, 12/31.
#: Written digit-first (the look-behind after the first digit) so the regex engine scans for a
#: digit in C instead of trying the look-behind at every position; the same matches as
#: ``(?<![\d.,])(?:\d{4}-\d{1,2}-\d{1,2}|\d{1,2}[/\-.]\d{1,2}[/\-.]\d{2,4}|\d{1,2}/\d{1,2}(?![\d/]))(?![\d.]\d)``.
NUMERIC_DATE = re.compile(
    r"\d(?<![\d.,]\d)(?:\d{3}-\d{1,2}-\d{1,2}|\d?[/\-.]\d{1,2}[/\-.]\d{2,4}|\d?/\d{1,2}(?![\d/]))(?![\d.]\d)"
)
FORMULA_CONSTANTS = {1.0, 2.0, 3.0, 4.0, 12.0, 100.0, 365.0, 1000.0}
ORDINAL_AFTER = re.compile(r"^(?:st|nd|rd|th)\b")
DURATION_AFTER = re.compile(r"^[\s-]*(?:months?|years?|days?|weeks?|quarters?|hours?|minutes?)\b", re.I)
#: Korean dates, periods and ordinals written right after the number: 2023년 3월 31일, 3분기,
#: 상반기, 12개월, 2위, 3번째, 2차, 제5호.
KOREAN_LABEL_AFTER = re.compile(r"^(?:년|월|일|분기|반기|개월|위|번째|차|호)")
CODE_AFTER = re.compile(r"^(?:-[A-Za-z]|[A-Za-z])")
LABEL_BEFORE = re.compile(
    r"(?:\b(?:Item|Note|Notes|Section|Part|Page|page|Table|Figure|Exhibit|Schedule|Rule|Article|Chapter|ASC|ASU|Topic|No\.|Level|Tier|Q|H|FY|CY|level|tier|note|notes|item|section|exhibit|schedule|article|chapter)\s?)$"
)

GROUPING = re.compile(r"[,\s\u202f\u00a0]")

#: Cardinal number words (value), fraction denominators (value of 1/n, singular and plural),
#: and multiple verbs (the ratio they state) — see :mod:`assay.claims.numwords`.
CARDINAL_WORDS = {
    w: float(i)
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
        "sixteen seventeen eighteen nineteen".split()
    )
} | {w: float(10 * i) for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split(), start=2)}
FRACTION_WORDS = {
    "half": 2,
    "halves": 2,
    "third": 3,
    "thirds": 3,
    "quarter": 4,
    "quarters": 4,
    "fourth": 4,
    "fourths": 4,
    "fifth": 5,
    "fifths": 5,
    "sixth": 6,
    "sixths": 6,
    "seventh": 7,
    "sevenths": 7,
    "eighth": 8,
    "eighths": 8,
    "ninth": 9,
    "ninths": 9,
    "tenth": 10,
    "tenths": 10,
}
MULTIPLE_WORDS = {
    "doubled": 2.0,
    "doubling": 2.0,
    "tripled": 3.0,
    "trebled": 3.0,
    "tripling": 3.0,
    "quadrupled": 4.0,
    "halved": 0.5,
    "halving": 0.5,
    "twice": 2.0,
    "thrice": 3.0,
}
#: Every word that can start or make a number word (the reader's cheap pre-check).
NUMBER_WORDS = frozenset(CARDINAL_WORDS) | frozenset(FRACTION_WORDS) | frozenset(MULTIPLE_WORDS)

#: Words written with a period that ends neither a sentence nor a clause ("VMware, Inc.", "U.S.",
#: "incl. dilutive effect", "approx.", "No. 5"), compared lower-case without their final period.
ABBREVIATIONS = frozenset(
    "inc corp co ltd llc plc u.s u.k vs e.g i.e approx incl excl no nos mr ms mrs dr jr sr st fig "
    "jan feb mar apr jun jul aug sep sept oct nov dec est etc avg".split()
)
#: A period that ends a clause inside a sentence (the clause rules' ``[.;!?](?=\s)``): not the
#: period of an :data:`ABBREVIATIONS` word, nor of an initial ("Richard S. Hill"; a sentence
#: has already been cut by :func:`~assay.claims.split_sentences`, so a capital letter and a
#: period inside one is a name's initial).
#: The whitespace look-ahead comes first: a decimal point ("$70,495.7") fails it at once, before the
#: look-behinds (the users add ``(?=\s)`` too; the same matches, ~2× faster). The abbreviations
#: are one look-behind per length (a look-behind's branches must share a width): ``(?<!A|B)`` is
#: ``(?<!A)(?<!B)``, in 4 look-behinds instead of 40 (the clause scan of a memo ~40% faster).
CLAUSE_DOT = r"\.(?=\s)(?<!\b[A-Z]\.)(?<!\.\.\.)" + "".join(
    r"(?<!(?i:\b(?:" + "|".join(re.escape(a) for a in sorted(ABBREVIATIONS) if len(a) == n) + r")\.))"
    for n in sorted({len(a) for a in ABBREVIATIONS}, reverse=True)
)
#: Closing quotes and brackets that stay with the sentence (or clause) their mark ends.
CLOSERS = "\"'”’)）」』"
#: What an ellipsis that ends a sentence is followed by: a capital letter, an opening quote or
#: bracket, or the text's end (after whitespace); "revenue was … $383.3 billion" goes on.
OPENS_SENTENCE = r"(?=\s*(?:[A-Z\"'“‘(\[]|$))"
#: Sentence ends beyond ``[.!?](?=\s)`` (issue 15; :func:`~assay.claims.split_sentences` cuts
#: at the same): a mark and its closers before whitespace, a CJK mark (no space follows one), a
#: mark right before a capitalised word ("moved.Total"), an ellipsis (``…``, ``...``; the dot
#: rule above leaves "..." out) that ends a sentence. The clause scans include them, so a word
#: of change or loss of one sentence never reaches the next one's number ("Net sales fell…
#: Total net sales were $11,043 million" read the 11,043 as a fall).
#: Each branch starts with its literal mark (``\.…|!…``, not ``[.!]…``): sre then skips to the
#: marks in C, and a character class first made the scan of a memo ~4× slower (measured).
SENTENCE_END_EXTRA = "|".join(
    [
        *(re.escape(c) + rf"[{CLOSERS}]+(?=\s|$)" for c in ".!?…"),
        *(c + f"[{CLOSERS}]*" for c in "。！？"),
        *(re.escape(c) + r"(?<=[a-z0-9%)].)(?=[A-Z][a-z])" for c in ".!?"),
        rf"…{OPENS_SENTENCE}|\.(?<=\.\.\.){OPENS_SENTENCE}",
    ]
)
#: A clause end of an answer or passage: ";", "!", "?", a clause dot (each before whitespace), a
#: line break, or a :data:`SENTENCE_END_EXTRA`. ``(?:[;!?]|DOT)(?=\s)`` with a literal first in
#: each branch: sre skips to it in C.
CLAUSE_END = r";(?=\s)|!(?=\s)|\?(?=\s)|" + CLAUSE_DOT + r"(?=\s)|\n|" + SENTENCE_END_EXTRA
