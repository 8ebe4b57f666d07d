"""Verifiers of the StableHLO ops (filled in step by step)."""

from __future__ import annotations


def _noop(op) -> None:
    return None


verify_elementwise = verify_clamp = verify_select = verify_compare = _noop
verify_constant = verify_iota = verify_bitcast_convert = verify_reshape = _noop
verify_transpose = verify_broadcast_in_dim = verify_concatenate = verify_slice = _noop
verify_pad = verify_gather = verify_dot = verify_dot_general = verify_convolution = _noop
verify_batch_norm_inference = verify_reduce = verify_reduce_window = _noop
verify_optimization_barrier = _noop
