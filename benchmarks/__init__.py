"""memex benchmarks: `python -m benchmarks.run` (or `nox -s bench`) writes docs/benchmarks.md.

Each module measures one family against its target and, where one exists, a peer
measured in the same run. Nothing here is imported by memex itself.
"""
