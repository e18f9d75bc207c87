"""``python -m assay.cli``: the ``assay`` command."""

from assay.cli import main

if __name__ == "__main__":  # pragma: no cover
    main()
