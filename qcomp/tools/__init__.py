"""qcomp's command-line tools. Importing the package (as `qcomp-opt` and `qcomp-run` do
first) makes `dataclasses` compile each generated method text once
(`qcomp.tools.dataclass_methods`): a third of the tools' start-up was compiling them."""

from qcomp.tools import dataclass_methods

dataclass_methods.install()
