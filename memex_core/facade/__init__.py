"""What :class:`memex_core.api.Memex` is made of: each module one of its concerns.

``components`` opens the catalog, indexes and models a home is configured with and holds
its locks; ``writing`` ingests and keeps the indexes in step; ``reading`` searches and reads
fragments back; ``floor`` is the relevance floor; ``disclosure`` the small-steps reads
(compact hits, timelines, context packs); ``ask_workflow`` the ask command's workflow;
``protocols`` says what the views and memory handles need of a memex, so they depend on
that, not on ``Memex``. Nothing here imports :mod:`memex_core.api`.
"""
