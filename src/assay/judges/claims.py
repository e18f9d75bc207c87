"""The README's public path of the faithfulness judge: ``from assay.judges.claims import
make_faithfulness_judge``. The judge lives in :mod:`assay.judges.faithfulness`; this module only
re-exports its factory so that documented import keeps working."""

from assay.judges.faithfulness import make_faithfulness_judge

__all__ = ["make_faithfulness_judge"]
