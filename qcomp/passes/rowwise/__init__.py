"""Helpers of `rowwise-legalize-to-stablehlo`."""
