"""Verifiers of the collective StableHLO ops (upstream's TypeInference.cpp order and
messages)."""

from __future__ import annotations

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, IntegerType, Signedness, TensorType

from qcomp.dialects.quant import element_type
from qcomp.dialects.stablehlo.kinds import type_text, verify_value_kinds
from qcomp.dialects.stablehlo.verify_shapes import check_inferred, dims_compatible, fail, shape
from qcomp.ir.splat import element_count, splat_value


def _values(attr: DenseIntOrFPElementsAttr, enough: int = 2):
    """The elements of `attr`; of a splat held as one element, only the first `enough`
    (every check here is decided by then: a repeated id is a duplicate)."""
    value = splat_value(attr)
    if value is None:
        return attr.get_values()
    return (value,) * min(element_count(attr), enough)


def _dims(d) -> str:
    return ", ".join("?" if x < 0 else str(x) for x in d)


def verify_replica_groups(op, same_size: bool, expected_size: int | None = None) -> None:
    """Upstream's verifyReplicaGroups on a dense `replica_groups`."""
    attr = op.properties.get("replica_groups")
    if not isinstance(attr, DenseIntOrFPElementsAttr):
        return
    s = attr.get_shape()
    if len(s) != 2:
        fail("replica groups should be a rank 2 tensor")
    if op.use_global_ids and s[0] * s[1] == 0:
        fail("if `use_global_device_ids` is set, the replica groups cannot be empty")
    seen: set[int] = set()
    for v in (int(x) for x in _values(attr)):
        if v == -1:
            if not same_size:
                continue
            fail("Invalid replica id -1")
        if v in seen:
            fail(f"replica id #{v} seen more than once")
        seen.add(v)
    for i in range(len(seen)):
        if i not in seen:
            fail(f"replica id #{i} not seen in replica groups")
    if same_size and expected_size is not None and (s[0] == 0 or s[1] != expected_size):
        fail(f"group size of replica_groups must be {expected_size}")


def _check_global_ids(op, allow_zero: bool = False) -> None:
    cid = op.channel_id
    if op.use_global_ids and (cid < 0 if allow_zero else cid <= 0):
        if allow_zero:
            fail("channel_id cannot be negative when useGlobalDeviceIds is set")
        fail(f"channel_id must be positive when useGlobalDeviceIds is set but got: {cid}")


def _check_reducer(op, operand_types) -> None:
    """The body takes two 0-d tensors of each operand's element type and returns one."""
    block = op.computation.block
    args = block.args
    if len(args) != 2:
        fail(f"Reduction-region must take 2 parameters, but takes {len(args)} parameter(s)")
    for t in operand_types:
        want = TensorType(element_type(t), [])
        for a in args:
            if a.type != want:
                fail(f"The type of reduction-region's parameter at index 0 is different than the "
                     f"corresponding result type: '{type_text(a.type)}' vs '{type_text(want)}'")


def verify_all_gather(op) -> None:
    verify_value_kinds(op)
    verify_replica_groups(op, same_size=True)
    _check_global_ids(op, allow_zero=True)
    dim = op.all_gather_dim
    for operand, result in zip(op.operands, op.results):
        os_, rs = shape(operand.type), shape(result.type)
        if dim >= len(os_):
            fail("all_gather_dim must be a valid index of operand")
        if os_[dim] == 0:
            fail("dimension size of operand at 'all_gather_dim' cannot be zero")
        if len(rs) != len(os_):
            fail("operand and result must have the same rank")
        for i in range(len(os_)):
            if i != dim and not dims_compatible(rs[i], os_[i]):
                fail("operand and result should have the same shape except for the dimension "
                     "size at 'all_gather_dim'")
        if os_[dim] < 0 or rs[dim] < 0:
            return
        if rs[dim] % os_[dim]:
            fail(f"result gather dimension has size {rs[dim]}, expected to be a multiple of "
                 f"operand gather dimension size {os_[dim]}")


def verify_all_reduce(op) -> None:
    verify_value_kinds(op)
    verify_replica_groups(op, same_size=False)
    _check_global_ids(op)
    _check_reducer(op, [o.type for o in op.operands])
    for operand, result in zip(op.operands, op.results):
        check_inferred(operand.type, result.type)


def verify_collective_reduce(op) -> None:
    verify_value_kinds(op)
    verify_replica_groups(op, same_size=False)
    _check_global_ids(op)
    data = _check_dynamic_root(op, "collective_reduce")
    _check_reducer(op, [o.type for o in data])


def _check_dynamic_root(op, name: str) -> list:
    operands = list(op.operands)
    dynamic = "has_dynamic_root" in op.properties
    if not dynamic and not operands:
        fail(f"{name} requires at least one data operand")
    if not dynamic:
        return operands
    if len(operands) < 2:
        fail(f"{name} with has_dynamic_root=true requires at least two operands (data + root)")
    root = operands[-1].type
    e = element_type(root)
    if not (isinstance(e, IntegerType) and e.width.data == 32
            and e.signedness.data == Signedness.SIGNLESS and len(shape(root)) == 1):
        fail(f"last operand of {name} with has_dynamic_root=true must be a rank-1 i32 tensor, "
             f"but got '{type_text(root)}'")
    if shape(root)[0] != len(operands) - 1:
        fail(f"last operand of {name} with has_dynamic_root=true must have the same number of "
             f"elements as data operands ({len(operands) - 1}), but got {shape(root)[0]}")
    return operands[:-1]


def verify_reduce_scatter(op) -> None:
    verify_value_kinds(op)
    verify_replica_groups(op, same_size=True)
    _check_reducer(op, [op.operand.type])
    os_, rs = shape(op.operand.type), shape(op.result.type)
    if len(os_) != len(rs):
        fail("operand and result should have same rank")
    d = op.scatter_dimension
    if d >= len(os_):
        fail("scatter dim should be less than operand/result rank")
    _check_global_ids(op)
    if os_[d] < 0 or rs[d] < 0:
        return
    if rs[d] == 0:
        fail("result dimension size at scatter_dimension cannot be zero")
    if os_[d] == 0:
        fail("operand dimension size at scatter_dimension cannot be zero")
    if os_[d] % rs[d]:
        fail(f"operand scatter dimension has size {os_[d]}, expected to be a multiple of result "
             f"scatter dimension size {rs[d]}")
    for i in range(len(os_)):
        if i != d and not dims_compatible(os_[i], rs[i]):
            fail(f"non scatter dimensions should be same for operand ({os_[i]}) and result "
                 f"({rs[i]})")


def verify_all_to_all(op) -> None:
    verify_value_kinds(op)
    n = op.split_count
    verify_replica_groups(op, same_size=True, expected_size=n)
    split, concat = op.split_dimension, op.concat_dimension
    for operand, result in zip(op.operands, op.results):
        s = list(shape(operand.type))
        if split >= len(s):
            fail(f"AllToAll split_dimension {split} is out-of-bounds for input rank {len(s)}")
        if concat >= len(s):
            fail(f"AllToAll concat_dimension {concat} is out-of-bounds for input rank {len(s)}")
        if s[split] >= 0 and s[split] % n:
            fail(f"split dimension has size {s[split]}, expected to be a multiple of split_count "
                 f"{n}")
        if s[split] >= 0:
            s[split] //= n
        if s[concat] >= 0:
            s[concat] *= n
        check_inferred(TensorType(element_type(operand.type), s), result.type)


def verify_collective_broadcast(op) -> None:
    verify_value_kinds(op)
    attr = op.properties.get("replica_groups")
    if isinstance(attr, DenseIntOrFPElementsAttr):
        if len(attr.get_shape()) != 2:
            fail(f"replica groups should be a rank 2 tensor,but instead it is of rank "
                 f"{len(attr.get_shape())}")
        seen: set[int] = set()
        for v in (int(x) for x in _values(attr)):
            if v < 0:
                fail(f"replica_groups values must be positive, but was given {v}")
            if v in seen:
                fail(f"replica id #{v} seen more than once")
            seen.add(v)
    _check_dynamic_root(op, "collective_broadcast")


def verify_collective_permute(op) -> None:
    verify_value_kinds(op)
    if element_type(op.operand.type) != element_type(op.result.type):
        fail("requires the same element type for all operands and results")
    pairs = op.source_target_pairs
    s = pairs.get_shape()
    if len(s) != 2:
        fail(f"expect source_target_pairs attribute to be of rank 2, but got rank {len(s)}")
    if s[1] != 2:
        fail(f"expect source_target_pairs attribute of shape (N, 2), but got ({_dims(s)})")
    sources: set[int] = set()
    targets: set[int] = set()
    for i, v in enumerate(int(x) for x in _values(pairs, 3)):
        if v < 0:
            fail("replica ids in source_target_pairs must be >= 0.")
        seen = sources if i % 2 == 0 else targets
        if v in seen:
            fail("duplicate sources not allowed." if i % 2 == 0 else "duplicate targets not allowed.")
        seen.add(v)
    check_inferred(op.operand.type, op.result.type)


def verify_process_id(op) -> None:
    t = op.result.type
    ui32 = IntegerType(32, Signedness.UNSIGNED)
    if not (isinstance(t, TensorType) and element_type(t) == ui32):
        fail(f"result #0 must be ranked tensor of 32-bit unsigned integer values, but got "
             f"'{type_text(t)}'")
    if shape(t) != ():
        fail(f"inferred type(s) 'tensor<ui32>' are incompatible with return type(s) of operation "
             f"'{type_text(t)}'")


def _is_token(t) -> bool:
    return getattr(t, "name", None) == "stablehlo.token"


def verify_feed(op, token_result: bool, what: str = "", host_channel: tuple[int, str] | None
                = None) -> None:
    """infeed / outfeed / send / recv: the token operand, then either one token result
    (`token_result`) or tensors and a last token (`what` names the tensors in upstream's
    message); `host_channel`: (channel type, name) a host transfer needs (send, recv)."""
    if not _is_token(op.token.type):
        fail(f"operand #{len(op.operands) - 1} must be token, but got "
             f"'{type_text(op.token.type)}'")
    results = list(op.results)
    if token_result:
        if not _is_token(results[0].type):
            fail(f"result #0 must be token, but got '{type_text(results[0].type)}'")
    else:
        if not results:
            fail(f"result is expected to be at least of size 1, but got {len(results)}")
        for r in results[:-1]:
            if not isinstance(r.type, TensorType):
                fail(f"{what} expected to be of tensor type, but got '{type_text(r.type)}'")
        if not _is_token(results[-1].type):
            fail("last element of result types is expected to be of token type, but got "
                 f"'{type_text(results[-1].type)}'")
    if host_channel is not None:
        host = op.is_host_transfer is not None and bool(op.is_host_transfer.value.data)
        kind = op.channel_handle.type.data
        if not host and kind != 1:
            fail("channel_type should be DEVICE_TO_DEVICE when is_host_transfer is false")
        if host and kind != host_channel[0]:
            fail(f"channel_type should be {host_channel[1]} when is_host_transfer is true")
