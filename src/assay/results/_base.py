"""The base of every result-file model: a lenient reader and an exact writer (internal).

- Reading: unknown keys are kept (``extra="allow"``), so a file written by a newer assay of the
  same schema loads and dumps back whole; optional keys have defaults.
- Writing: :meth:`ResultModel.to_json` dumps the keys that were given (read from a file or passed
  to the constructor), never a default the file did not have, in the file's key order
  (:attr:`ResultModel.key_order`), so ``to_json()`` of a loaded file is the file again and
  :func:`assay.atomic.dumps_json` writes the same bytes.
- Numbers keep their JSON type (``1`` stays ``1``, ``1.0`` stays ``1.0``) and a bool is not a
  number: the bytes of a number do not change on a round trip.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    StrictFloat,
    StrictInt,
    model_serializer,
)

#: A JSON number as written (int or float, never a bool); NaN is accepted here and refused by the
#: writer (:func:`assay.atomic.dumps_json`), as before the files were typed.
Number = StrictInt | StrictFloat
#: A confidence interval ``[lo, hi]``.
Interval = Annotated[list[Number], Field(min_length=2, max_length=2)]


class ResultModel(BaseModel):
    """Base of the result-file models: extra keys kept, frozen, dumped in the file's key order."""

    model_config = ConfigDict(extra="allow", frozen=True, populate_by_name=True)

    #: The file's key order (schema 1 as written since the first release); keys not listed keep the
    #: field order and extra keys come last. Empty: the field order is the file order.
    key_order: ClassVar[tuple[str, ...]] = ()

    def to_json(self) -> dict[str, Any]:
        """The JSON object of this model: the keys it was given, in file order (nested models too)."""
        return self.model_dump(by_alias=True, exclude_unset=True)

    @model_serializer(mode="wrap")
    def _in_file_order(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if not self.key_order or not isinstance(data, dict):
            return data
        head = {k: data[k] for k in self.key_order if k in data}
        return head | {k: v for k, v in data.items() if k not in head}
