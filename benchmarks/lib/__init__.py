"""Code shared by several benchmark scripts: result files, the machine record, readers of the
data sets, binary metrics and the bootstrap, the word-overlap floor, scoring helpers."""
