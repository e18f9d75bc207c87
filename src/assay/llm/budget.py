"""The token budget: each call reserves its estimate before it is sent; the rest are skipped.

Rule: a call is admitted only when ``spent + reserved + estimate <= limit``; on its reply the
reservation is replaced by the tokens the server reported (or the estimate, when it reported
none); on an error the reservation is released. So with estimates that cover the real usage
(:func:`assay.llm.base.estimate_tokens` leans high and counts the completion cap) the limit is
never exceeded, and an underestimate can overshoot by at most the in-flight calls' excess. The
check-and-reserve is one critical section under a ``threading.Lock``: safe under asyncio
concurrency (no ``await`` inside) and across threads. A budget of ``None`` is unlimited.
"""

from __future__ import annotations

import threading

from assay.llm.base import BudgetExhausted

__all__ = ["TokenBudget"]


class TokenBudget:
    """Tokens allowed for one run (``limit`` ≥ 0, or ``None`` for no limit).

    ``spent`` = tokens of completed calls; ``reserved`` = estimates of calls in flight;
    ``refused`` = calls refused for lack of budget.
    """

    def __init__(self, limit: int | None):
        if limit is not None and limit < 0:
            raise ValueError(f"token budget must be >= 0, got {limit}")
        self.limit = limit
        self.spent = 0
        self.reserved = 0
        self.refused = 0
        self._lock = threading.Lock()

    def reserve(self, estimate: int) -> int:
        """Reserve ``estimate`` tokens (≥ 0) and return it (the reservation to settle/release).

        Raises :class:`BudgetExhausted` when ``spent + reserved + estimate > limit``.
        """
        if estimate < 0:
            raise ValueError(f"estimate must be >= 0, got {estimate}")
        with self._lock:
            if self.limit is not None and self.spent + self.reserved + estimate > self.limit:
                self.refused += 1
                raise BudgetExhausted(
                    f"budget: {self.limit} tokens, {self.spent} spent, {self.reserved} reserved; "
                    f"this call needs ~{estimate}"
                )
            self.reserved += estimate
            return estimate

    def settle(self, reservation: int, used: int) -> None:
        """Replace a reservation by the tokens actually ``used`` (≥ 0)."""
        with self._lock:
            self.reserved -= reservation
            self.spent += max(0, int(used))

    def release(self, reservation: int) -> None:
        """Give a reservation back (the call failed before using tokens that were reported)."""
        with self._lock:
            self.reserved -= reservation

    @property
    def remaining(self) -> int | None:
        """Tokens not spent nor reserved (``None`` when unlimited; may be negative after an
        underestimate)."""
        with self._lock:
            return None if self.limit is None else self.limit - self.spent - self.reserved

    def to_dict(self) -> dict[str, int | None]:
        """``{"limit", "spent", "refused"}`` for usage reports."""
        return {"limit": self.limit, "spent": self.spent, "refused": self.refused}
