"""memex benchmarks: `python -m benchmarks.run` (or `nox -s bench`) updates docs/benchmarks.md.

Each section measured is stored with its run in docs/benchmarks/<key>.json (store.py,
provenance.py) and the page is assembled from every stored section (assemble.py); reports a
run writes with ``--output`` are read back by reports.py (``python -m benchmarks.assemble``).

Each module measures one family against its target and, where one exists, a peer
measured in the same run. Nothing here is imported by memex itself.
"""
