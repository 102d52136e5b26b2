"""What :class:`memex_core.api.Memex` is made of: each module one of its concerns.

``components`` opens the catalog, indexes and models a home is configured with and holds
its locks (``Memex`` is a ``HomeComponents``); ``turn_context`` says what the indexes see
of each turn; ``writing`` ingests and keeps the indexes in step; ``reading`` searches and
reads fragments back; ``floor`` is the relevance floor; ``disclosure`` the small-steps
reads (timelines, notes to explore, context packs); ``doctoring`` hands the doctor the
components; ``ask_workflow`` is ``memex ask``'s workflow and ``code_index`` its code index
(keyword first, embedding what a question reaches); ``protocols`` says what the
views, memory handles and ask workflow need of a memex, so they depend on that, not on
``Memex``. Nothing here imports :mod:`memex_core.api`, the views or the handles.
"""
