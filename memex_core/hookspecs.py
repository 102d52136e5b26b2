"""memex's plugin hooks. One hook per kind of plugin, each a ``register_*`` callback.

A plugin is a module (or object) with functions marked ``@hookimpl`` named after
these hooks, advertised in the ``memex`` entry-point group::

    [project.entry-points.memex]
    myformat = "memex_myformat"

Every ``register_*`` hook receives a ``register`` callable with the signature::

    register(name, factory, *, requires=(), extra=None, description="")

``factory`` is called lazily with a :class:`memex_core.domain.PluginContext`
and returns the component. ``requires`` lists importable module names the
component needs; when one is missing the component is listed as unavailable
with ``pip install 'memex[<extra>]'`` as the hint, and nothing is imported.
Keep heavy imports inside the factory so ``memex --help`` stays fast.
"""

from __future__ import annotations

from typing import Any

import pluggy

hookspec = pluggy.HookspecMarker("memex")
hookimpl = pluggy.HookimplMarker("memex")


@hookspec
def register_sources(register: Any) -> None:
    """Register source adapters that turn files (or whole folders) into fragments.

    The factory returns either a file source, an object with ``source_kind``,
    ``can_handle(path)`` and ``ingest(path) -> Iterator[Fragment]`` (see
    ``memex_core.domain.Source``), or a folder source with ``can_handle_folder``,
    ``scan`` and ``read_document`` (``memex_core.domain.FolderSource``), whose
    folder memex syncs as a whole: changed documents replaced, deleted ones
    removed, links resolved across the folder. ``memex ingest`` offers each folder
    named on the command line to the folder sources first, then each file to every
    file source in turn, using the first that says yes. A file source that sets
    ``replace_changed_files = True`` (a transcript that grows) has a changed file's
    earlier fragments replaced rather than kept; one with ``explain_unread(path)``
    says why it refused a file it knows (an export's ``users.json``), which ingest
    reports instead of "no source can read this file". Items a source skips with
    ``memex_core.source_kit.warn_skipped`` land in the ingest report's ``skipped``.
    """


@hookspec
def register_keyword_stores(register: Any) -> None:
    """Register lexical indexes (``memex_core.domain.KeywordStore``).

    The store chosen by ``[keyword] use`` in ``config.toml`` (default ``bm25``) serves
    ``memex keyword`` and the keyword signal of ``memex dig``.
    """


@hookspec
def register_vector_stores(register: Any) -> None:
    """Register vector indexes (``memex_core.domain.VectorStore``).

    memex computes embeddings itself and passes them in; a store never embeds.
    ``[vector] use`` in ``config.toml`` (default ``chroma``) picks one.
    """


@hookspec
def register_embedders(register: Any) -> None:
    """Register text embedders (``memex_core.domain.Embedder``).

    ``[embedder] use`` in ``config.toml`` (default ``minilm``) picks one. The
    catalog records the embedder name and dimension that built the stored
    vectors; switching embedders requires ``memex rebuild --vectors``.
    """


@hookspec
def register_rankers(register: Any) -> None:
    """Register rankers that fuse signal rankings (``memex_core.domain.Ranker``).

    ``[ranker] use`` in ``config.toml`` (default ``rerank``: RRF, then a learned rerank of
    the best 50; ``rrf`` when its plugin is not loaded and config.toml names no ranker)
    picks the one hybrid search uses.
    """


@hookspec
def register_extractors(register: Any) -> None:
    """Register extractors that turn conversations into memory facts
    (``memex_core.domain.Extractor``).

    ``extract(fragments, fact_types)`` returns facts, each naming one of the
    fact types it was given. The ``[extractor] use`` setting (default
    ``rules``, which needs no model) picks the one ``memex remember`` uses.
    """


@hookspec
def register_consolidators(register: Any) -> None:
    """Register consolidators that decide ADD, UPDATE, DELETE or NONE for a new
    fact against similar memories (``memex_core.domain.Consolidator``).

    memex finds the similar memories (same owner and collection, cosine at or
    above ``[memory] similarity_threshold``, default 0.5) and applies the
    decision without destroying anything: UPDATE writes a revision, DELETE
    invalidates. ``[consolidator] use`` picks one (default ``rules``).
    """


@hookspec
def register_supersession_judges(register: Any) -> None:
    """Register judges that decide which earlier facts a new fact closes
    (``memex_core.domain.memory.validity.SupersessionJudge``).

    On every fact written to memory (``remember`` with or without ``--consolidate``,
    conversation extraction, ``memex dream``) memex offers the judge the new fact and the
    same owner's current facts in the same collection closest to it; the judge returns the
    ones the new fact updates or contradicts (same subject and attribute), and memex closes
    them (``valid_until``, ``superseded_by``) in the same transaction, never deleting them.
    ``valid_from(text, said_at)`` says when a fact became true by its own words.
    ``[supersession] use`` picks one (default ``rules``, which needs no model; ``none``
    turns supersession off). A judge may also offer ``answering(question)``
    (``memex_core.domain.memory.validity.AnsweringJudge``): a test of whether a stored fact
    sets the subject and attribute a question asks about, or None for a question it cannot
    read. A memory search then ranks the facts it found that pass the test as one more
    signal, and keeps them under the relevance floor ("Who is my partner?" finds "I am with
    Elena these days", which shares no word with it). And ``valid_until(text, said_at)``
    (``memex_core.domain.memory.validity.EndingJudge``): when a fact stopped holding by its
    own words ("Back in 2020 prod was on Heroku"), or None; such a fact is stored already
    ended, with no successor.
    """


@hookspec
def register_redactors(register: Any) -> None:
    """Register redactors that replace likely secrets before memory is stored
    (``memex_core.domain.Redactor``).

    Every memory write passes through the redactor chosen by
    ``[redactor] use`` (default ``detect_secrets``); ``redact(text)`` returns the
    cleaned text and the kinds of secret found, never the secret values.
    """


@hookspec
def register_chat_models(register: Any) -> None:
    """Register chat models that answer questions from a context pack
    (``memex_core.domain.ChatModel``).

    ``memex ask`` (and ``Memex.ask``) packs what memory and code hold about a question
    into numbered items, and, when ``[ask] chat_model`` is set, builds the ``llm`` chat
    model with the ``[ask]`` table's ``chat_model``, ``chat_model_args`` and
    ``max_retries``, asks it to answer citing the items, and checks every citation against
    the pack. The factory raises a ``MemexError`` naming the ``[ask]`` setting to fix.
    """


@hookspec
def register_catalogs(register: Any) -> None:
    """Register catalogs: the record of truth every index is derived from
    (``memex_core.catalog.base.SqlCatalog``).

    ``[catalog] use`` in ``config.toml`` picks one: ``sqlite`` (the default, one file
    in the home) or ``postgres`` (a PostgreSQL database shared by several hosts,
    ``[catalog.postgres] url`` or ``MEMEX_CATALOG_URL``; a ``postgresql://`` URL in
    that variable selects it when ``use`` is not set). The factory returns an open
    catalog; memex migrates its schema before first use.
    """


@hookspec
def register_commands(cli: Any) -> None:
    """Add commands to the ``memex`` command line.

    ``cli`` is the root ``click.Group``; decorate functions with ``@cli.command()``.
    """


@hookspec
def register_doctor_checks(register: Any) -> None:
    """Add checks to ``memex doctor`` for what a plugin keeps beside the indexes.

    Call ``register(name, check)``; ``check(home)`` gets the home folder (a
    ``pathlib.Path``) and returns an iterable of
    ``memex_core.services.doctor.Finding`` (``severity`` ``drift`` or ``damage``
    makes the doctor's exit status 1; ``note`` only informs), each with the fix
    in words. Checks run after the doctor's own, without the write lock, and
    must only read: a check that raises is reported as a note naming it, never
    as a crash. The capture plane uses it to report a spool nobody drains.
    """
