"""The storage of a quantized type, as MLIR keeps it: the builtin storage type as
written (`i8`, `si8`, `ui8`; the keyword `u8` is the signless `i8`; or a float
`f8E5M2`, `f8E4M3FN`, `f4E2M1FN`) and MLIR's Signed flag, so each spelling prints back
as written and two spellings are two types. `UniformQuantizedType` and
`AnyQuantizedType` (types.py) take their storage accessors from `StorageAccessors`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.dialects.builtin import IntAttr, IntegerType, Signedness
from xdsl.ir import Attribute

from qcomp.dialects.quant.syntax import SIGNEDNESS_OF_PREFIX, storage_parts


def print_storage(storage: Attribute, signed: bool, smin: int, smax: int) -> str:
    text, _, default = storage_parts(storage, signed)
    if (smin, smax) != default:
        text += f"<{smin}:{smax}>"
    return text


def storage_params(storage: Attribute, spelling: str | None = None,
                   signed: bool | None = None) -> tuple[Attribute, IntAttr]:
    """MLIR's (storage type, Signed flag) of a storage given as a builtin integer type
    and, optionally, its spelling prefix (`i`, `si`, `u`, `ui`) or Signed flag. Without
    either, the signedness says: signless `iN`, signed `siN`, unsigned `uN` (qcomp's
    integer form of unsigned storage). A float storage type is signed."""
    if not isinstance(storage, IntegerType):
        return storage, IntAttr(1)
    width = storage.width.data
    if spelling is None:
        if signed is not None:
            return storage, IntAttr(int(signed))
        spelling = {Signedness.SIGNLESS: "i", Signedness.SIGNED: "si",
                    Signedness.UNSIGNED: "u"}[storage.signedness.data]
    return (IntegerType(width, SIGNEDNESS_OF_PREFIX[spelling]),
            IntAttr(int(spelling in ("i", "si"))))


class StorageAccessors:
    """What the quantized types say about their storage (`storage_type_attr`,
    `signed_attr`, `storage_min_attr`, `storage_max_attr`: parameters of the types, so
    declared there, in their order)."""

    if TYPE_CHECKING:
        storage_type_attr: Attribute
        signed_attr: IntAttr
        storage_min_attr: IntAttr
        storage_max_attr: IntAttr

    @property
    def storage_type(self) -> Attribute:
        """MLIR's getStorageType(): the builtin type as written (`u8` is `i8`)."""
        return self.storage_type_attr

    @property
    def is_signed(self) -> bool:
        return self.signed_attr.data == 1

    @property
    def is_float_storage(self) -> bool:
        return not isinstance(self.storage_type_attr, IntegerType)

    @property
    def storage_spelling(self) -> str:
        """The storage as written, without its range: `i8`, `si8`, `u8`, `ui8`, `f8E5M2`."""
        return storage_parts(self.storage_type_attr, self.is_signed)[0]

    @property
    def storage_prefix(self) -> str | None:
        """`i`, `si`, `u` or `ui` (None for float storage)."""
        if self.is_float_storage:
            return None
        return self.storage_spelling.rstrip("0123456789")

    @property
    def storage_key(self) -> tuple[Attribute, bool]:
        """(MLIR's storage type, Signed flag): equal exactly when two types spell their
        storage alike."""
        return self.storage_type_attr, self.is_signed

    @property
    def storage_bitwidth(self) -> int:
        return storage_parts(self.storage_type_attr, self.is_signed)[1]

    @property
    def storage(self) -> Attribute:
        """The storage as the type qcomp's passes, interpreter and lowerings use: signless
        `iN` when signed (`i8`, `si8`), unsigned `uiN` otherwise (`u8`, `ui8`); float
        storage is its float type (`f8E4M3FN`)."""
        if self.is_float_storage:
            return self.storage_type_attr
        width = self.storage_bitwidth
        return IntegerType(width, Signedness.SIGNLESS if self.is_signed else Signedness.UNSIGNED)

    @property
    def storage_min(self) -> int:
        return self.storage_min_attr.data

    @property
    def storage_max(self) -> int:
        return self.storage_max_attr.data

    @property
    def has_storage_bounds(self) -> bool:
        return (self.storage_min, self.storage_max) != storage_parts(
            self.storage_type_attr, self.is_signed)[2]
