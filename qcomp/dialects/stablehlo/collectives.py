"""StableHLO's collective ops, run over a process grid of replicas x partitions:

    %r = "stablehlo.all_gather"(%x) {all_gather_dim = 1 : i64,
           replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (...) -> ...
    %r = "stablehlo.all_reduce"(%x) ({ ^bb0(%a: tensor<f32>, %b: tensor<f32>): ... })
           {replica_groups = ...} : (...) -> ...
    all_to_all, collective_broadcast, collective_permute, collective_reduce,
    reduce_scatter (generic form, as upstream prints them)
    %id = stablehlo.replica_id : tensor<ui32>
    %id = stablehlo.partition_id : tensor<ui32>
    "stablehlo.infeed" / "stablehlo.outfeed" / "stablehlo.send" / "stablehlo.recv"
      (generic form), ordered by `!stablehlo.token` values

`channel_handle = #stablehlo.channel_handle<handle = N, type = T>` selects, with
`use_global_device_ids`, how `replica_groups` name processes (the spec's
cross_replica / cross_partition / cross_replica_and_partition / flattened_ids).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from xdsl.dialects.builtin import (
    ArrayAttr,
    BoolAttr,
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    StringAttr,
    UnitAttr,
)
from xdsl.ir import Attribute
from xdsl.irdl import (
    IRDLOperation,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import Pure

from qcomp.dialects.facts import NO_QUANTIZATION, UpstreamGeneric, type_only
from qcomp.dialects.stablehlo import verify_collectives as check
from qcomp.dialects.stablehlo.format import int_value
from qcomp.dialects.stablehlo.kinds import RANKED, TENSOR, ElementKinds
from qcomp.dialects.stablehlo.op_attrs import ChannelHandleAttr
from qcomp.ir.lazy_format import irdl_op_definition
from qcomp.ir.splat import dense_values, splat_value

ANY_TENSORS = ElementKinds(((RANKED, TENSOR),), (RANKED, TENSOR))
MOVES = type_only(fusable=False, upstream_generic=UpstreamGeneric.NEVER)
"""Collectives that move elements: quantized values keep their stored integers."""


class CollectiveOp(IRDLOperation):
    """Shared accessors: the channel id (0 without a handle) and the groups."""

    @property
    def channel_id(self) -> int:
        h = self.properties.get("channel_handle")
        return h.handle.data if isinstance(h, ChannelHandleAttr) else 0

    @property
    def use_global_ids(self) -> bool:
        return "use_global_device_ids" in self.properties

    @property
    def groups(self) -> list[list[int]]:
        """`replica_groups` (or `source_target_pairs`) as lists, -1 padding dropped."""
        attr = self.properties.get("replica_groups") or self.properties.get(
            "source_target_pairs")
        if not isinstance(attr, DenseIntOrFPElementsAttr):
            return []
        shape = attr.get_shape()
        value = splat_value(attr)
        if value is not None and len(shape) == 2:  # held as one element: -1 rows after verify
            return [[] if value == -1 else [int(value)] * shape[1] for _ in range(shape[0])]
        values = [int(v) for v in dense_values(attr)]
        if len(shape) != 2:
            return [values]
        width = shape[1]
        return [[v for v in values[i * width:(i + 1) * width] if v != -1]
                for i in range(shape[0])]


class _GroupedOp(CollectiveOp):
    """A collective over `replica_groups`, with an optional channel."""

    replica_groups = prop_def(Attribute)
    channel_handle = opt_prop_def(ChannelHandleAttr)


class _GlobalIdsOp(_GroupedOp):
    """A grouped collective that may name processes by global id."""

    use_global_device_ids = opt_prop_def(UnitAttr)


@irdl_op_definition
class AllGatherOp(_GlobalIdsOp):
    """Concatenates the operands of a process group along `all_gather_dim`."""

    name = "stablehlo.all_gather"
    operands_ = var_operand_def()
    results_ = var_result_def()
    all_gather_dim_attr = prop_def(IntegerAttr, prop_name="all_gather_dim")
    traits = traits_def(ANY_TENSORS, MOVES)

    @property
    def all_gather_dim(self) -> int:
        return int_value(self.all_gather_dim_attr)

    def verify_(self) -> None:
        check.verify_all_gather(self)


class _ReduceCollective(_GlobalIdsOp):
    """A collective with a reduction body."""

    computation = region_def("single_block")


@irdl_op_definition
class AllReduceOp(_ReduceCollective):
    """Reduces the operands of a process group with `computation`, element by element."""

    name = "stablehlo.all_reduce"
    operands_ = var_operand_def()
    results_ = var_result_def()
    traits = traits_def(ANY_TENSORS, NO_QUANTIZATION)

    def verify_(self) -> None:
        check.verify_all_reduce(self)


@irdl_op_definition
class CollectiveReduceOp(_ReduceCollective):
    """all_reduce whose result only the group's root (its first process) receives;
    the others get zeros."""

    name = "stablehlo.collective_reduce"
    operands_ = var_operand_def()
    results_ = var_result_def()
    has_dynamic_root = opt_prop_def(UnitAttr)
    traits = traits_def(ANY_TENSORS, NO_QUANTIZATION)

    def verify_(self) -> None:
        check.verify_collective_reduce(self)


@irdl_op_definition
class ReduceScatterOp(_ReduceCollective):
    """all_reduce, then process i of the group keeps part i along `scatter_dimension`."""

    name = "stablehlo.reduce_scatter"
    operand = operand_def()
    result = result_def()
    scatter_dimension_attr = prop_def(IntegerAttr, prop_name="scatter_dimension")
    traits = traits_def(ANY_TENSORS, NO_QUANTIZATION)

    @property
    def scatter_dimension(self) -> int:
        return int_value(self.scatter_dimension_attr)

    def verify_(self) -> None:
        check.verify_reduce_scatter(self)


@irdl_op_definition
class AllToAllOp(_GroupedOp):
    """Splits each operand in `split_count` parts along `split_dimension`, sends part j
    to the group's process j, and concatenates what it receives along
    `concat_dimension`."""

    name = "stablehlo.all_to_all"
    operands_ = var_operand_def()
    results_ = var_result_def()
    split_dimension_attr = prop_def(IntegerAttr, prop_name="split_dimension")
    concat_dimension_attr = prop_def(IntegerAttr, prop_name="concat_dimension")
    split_count_attr = prop_def(IntegerAttr, prop_name="split_count")
    traits = traits_def(ANY_TENSORS, MOVES)

    split_dimension = property(lambda self: int_value(self.split_dimension_attr))
    concat_dimension = property(lambda self: int_value(self.concat_dimension_attr))
    split_count = property(lambda self: int_value(self.split_count_attr))

    def verify_(self) -> None:
        check.verify_all_to_all(self)


@irdl_op_definition
class CollectiveBroadcastOp(_GroupedOp):
    """Every process of a group receives the operands of the group's root (its first
    process, or the one the last operand names when `has_dynamic_root`); a process in
    no group gets zeros."""

    name = "stablehlo.collective_broadcast"
    operands_ = var_operand_def()
    results_ = var_result_def()
    has_dynamic_root = opt_prop_def(UnitAttr)
    traits = traits_def(ANY_TENSORS, MOVES)

    def verify_(self) -> None:
        check.verify_collective_broadcast(self)


@irdl_op_definition
class CollectivePermuteOp(CollectiveOp):
    """Each target of `source_target_pairs` receives its source's operand; a process
    that is no target gets zeros."""

    name = "stablehlo.collective_permute"
    operand = operand_def()
    result = result_def()
    source_target_pairs = prop_def(DenseIntOrFPElementsAttr)
    channel_handle = opt_prop_def(ChannelHandleAttr)
    traits = traits_def(ANY_TENSORS, MOVES)

    def verify_(self) -> None:
        check.verify_collective_permute(self)


class _ProcessIdOp(IRDLOperation):
    """`stablehlo.replica_id : tensor<ui32>`."""

    assembly_format = "attr-dict `:` type(results)"
    result = result_def()

    def verify_(self) -> None:
        check.verify_process_id(self)


@irdl_op_definition
class ReplicaIdOp(_ProcessIdOp):
    """The replica id of the running process."""

    name = "stablehlo.replica_id"
    traits = traits_def(Pure(), ElementKinds(), NO_QUANTIZATION)


@irdl_op_definition
class PartitionIdOp(_ProcessIdOp):
    """The partition id of the running process."""

    name = "stablehlo.partition_id"
    traits = traits_def(Pure(), ElementKinds(), NO_QUANTIZATION)


def is_token(t) -> bool:
    """`!stablehlo.token` (its class lives with the control-flow ops)."""
    return getattr(t, "name", None) == "stablehlo.token"


class _FeedOp(IRDLOperation):
    """`infeed_config` / `outfeed_config` are default-valued ("") in upstream's ODS and
    always materialized: the generic form prints them."""

    CONFIG: ClassVar[str]

    @classmethod
    def create(cls, *, properties: Mapping[str, Attribute] = {},  # type: ignore[override]
               **kwargs):
        props = {cls.CONFIG: StringAttr(""), **properties}
        return super().create(properties=dict(sorted(props.items())), **kwargs)


@irdl_op_definition
class InfeedOp(_FeedOp):
    """Reads the next values of the grid's infeed queue."""

    name = "stablehlo.infeed"
    CONFIG: ClassVar[str] = "infeed_config"
    token = operand_def()
    results_ = var_result_def()
    infeed_config = opt_prop_def(StringAttr)
    layout = opt_prop_def(ArrayAttr)
    traits = traits_def(ElementKinds(), NO_QUANTIZATION)

    def verify_(self) -> None:
        check.verify_feed(self, False, "all elements of result types, except the last "
                                       "element, are")


@irdl_op_definition
class OutfeedOp(_FeedOp):
    """Appends `inputs` to the grid's outfeed."""

    name = "stablehlo.outfeed"
    CONFIG: ClassVar[str] = "outfeed_config"
    inputs = var_operand_def()
    token = operand_def()
    result = result_def()
    outfeed_config = opt_prop_def(StringAttr)
    traits = traits_def(ElementKinds(), NO_QUANTIZATION)

    def verify_(self) -> None:
        check.verify_feed(self, True)


@irdl_op_definition
class SendOp(CollectiveOp):
    """Sends `inputs` on the channel of `channel_handle`."""

    name = "stablehlo.send"
    inputs = var_operand_def()
    token = operand_def()
    result = result_def()
    channel_handle = prop_def(ChannelHandleAttr)
    is_host_transfer = opt_prop_def(BoolAttr)
    source_target_pairs = opt_prop_def(DenseIntOrFPElementsAttr)
    traits = traits_def(ElementKinds(), NO_QUANTIZATION)

    def verify_(self) -> None:
        check.verify_feed(self, True, host_channel=(2, "DEVICE_TO_HOST"))


@irdl_op_definition
class RecvOp(CollectiveOp):
    """Receives the values sent on the channel of `channel_handle`."""

    name = "stablehlo.recv"
    token = operand_def()
    results_ = var_result_def()
    channel_handle = prop_def(ChannelHandleAttr)
    is_host_transfer = opt_prop_def(BoolAttr)
    source_target_pairs = opt_prop_def(DenseIntOrFPElementsAttr)
    traits = traits_def(ElementKinds(), NO_QUANTIZATION)

    def verify_(self) -> None:
        check.verify_feed(self, False, "everything but the last element of result types is",
                          host_channel=(3, "HOST_TO_DEVICE"))


COLLECTIVE_OPS = [AllGatherOp, AllReduceOp, CollectiveReduceOp, ReduceScatterOp, AllToAllOp,
                  CollectiveBroadcastOp, CollectivePermuteOp, ReplicaIdOp, PartitionIdOp,
                  InfeedOp, OutfeedOp, SendOp, RecvOp]
