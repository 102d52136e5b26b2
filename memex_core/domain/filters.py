"""Search filters, applied inside every store before top-k is taken."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from memex_core.domain.fragment import Fragment
from memex_core.domain.tags import tags_match

#: Sources a search reaches only when it names them (``source="code"``, ``--source code``):
#: a repository's code, which ``memex ask`` and ``ingest --source code`` index, would
#: otherwise outrank memory (conversations, notes) in every search. ``ask`` names it.
NAMED_ONLY_SOURCES: tuple[str, ...] = ("code",)


@dataclass(frozen=True, slots=True)
class FilterFields:
    """The fields of a fragment that search filters read, without its text: what a catalog
    returns where it only has to judge many fragments against a filter (``filter_fields``)."""

    source_kind: str
    conversation_id: str
    role: str
    owner: str
    collection: str
    private: bool
    timestamp: float | None


@dataclass(frozen=True)
class SearchFilters:
    """Restrict a search to some fragments.

    Empty tuples and ``None`` mean "no restriction". ``since`` and ``until`` are
    epoch seconds, inclusive; a fragment without a timestamp never passes a time
    filter, because nothing is known about when it was written.

    ``owners`` and ``collections`` are exact values (memory handles expand a
    collection prefix into names before searching, and always set ``owners``).
    Private fragments never pass unless ``include_private`` is set; this is the
    one restriction that is on by default, so ``is_empty`` does not cover it.

    The other default: fragments of the ``named_only`` sources (:data:`NAMED_ONLY_SOURCES`,
    a repository's code) pass only a search whose ``source_kinds`` names them;
    :meth:`hidden_source_kinds` says which a search leaves out. A caller that knows the
    home holds none of them sets ``named_only=()``, so stores skip the clause.

    ``tags`` are normalized filter tags (:func:`memex_core.domain.tags.normalize_tag`): a
    fragment passes when its note carries one of them or a tag nested under one. Stores
    never see them: the reader resolves tags to the notes (conversations) that carry them
    before a search reaches the stores, as a collection prefix is resolved to names.
    """

    source_kinds: tuple[str, ...] = ()
    conversation_ids: tuple[str, ...] = ()
    roles: tuple[str, ...] = ()
    since: float | None = None
    until: float | None = None
    owners: tuple[str, ...] = ()
    collections: tuple[str, ...] = ()
    include_private: bool = False
    named_only: tuple[str, ...] = NAMED_ONLY_SOURCES
    tags: tuple[str, ...] = ()

    def hidden_source_kinds(self) -> tuple[str, ...]:
        """The source kinds this search leaves out without being asked to: the
        ``named_only`` ones, unless ``source_kinds`` names sources (then only those pass)."""
        return () if self.source_kinds else self.named_only

    @property
    def is_empty(self) -> bool:
        """No explicit restriction (the default private exclusion still applies)."""
        return not (
            self.source_kinds
            or self.conversation_ids
            or self.roles
            or self.owners
            or self.collections
            or self.tags
            or self.since is not None
            or self.until is not None
        )

    def value_filters(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """Each field restricted to a set of values, by its :class:`FilterFields` name (the
        catalog's column), with those values; ``()`` where that field is not restricted."""
        return (
            ("source_kind", self.source_kinds),
            ("conversation_id", self.conversation_ids),
            ("role", self.roles),
            ("owner", self.owners),
            ("collection", self.collections),
        )

    def matches(self, fragment: Fragment | FilterFields) -> bool:
        """The reference semantics every store must reproduce."""
        if self.source_kinds and fragment.source_kind not in self.source_kinds:
            return False
        if self.conversation_ids and fragment.conversation_id not in self.conversation_ids:
            return False
        if self.roles and fragment.role not in self.roles:
            return False
        if self.owners and fragment.owner not in self.owners:
            return False
        if self.collections and fragment.collection not in self.collections:
            return False
        if fragment.private and not self.include_private:
            return False
        if fragment.source_kind in self.hidden_source_kinds():
            return False
        if self.tags and not tags_match(self.tags, _tags_of(fragment)):
            return False
        if self.since is not None or self.until is not None:
            if fragment.timestamp is None:
                return False
            if self.since is not None and fragment.timestamp < self.since:
                return False
            if self.until is not None and fragment.timestamp > self.until:
                return False
        return True

    def describe(self) -> list[str]:
        """Human-readable list of the active restrictions, for 'no results' guidance."""
        listed = (
            ("source", self.source_kinds),
            ("conversation", self.conversation_ids),
            ("role", self.roles),
            ("owner", self.owners),
            ("collection", self.collections),
            ("tag", self.tags),
        )
        parts = [f"{label} in {', '.join(values)}" for label, values in listed if values]
        bounds = (("since", self.since), ("until", self.until))
        return parts + [label for label, bound in bounds if bound is not None]

    def without(self, name: str) -> SearchFilters:
        """A copy with one restriction lifted (``source_kinds``, ``since``...)."""
        lifted: dict[str, Any] = {
            "source_kinds": (),
            "conversation_ids": (),
            "roles": (),
            "since": None,
            "until": None,
            "collections": (),
            "tags": (),
        }
        if name not in lifted:
            # owners is deliberately not liftable: it is how memory isolation is enforced.
            raise ValueError(f"unknown filter {name!r}")
        return replace(self, **{name: lifted[name]})


def _tags_of(fragment: Fragment | FilterFields) -> list[str]:
    """A fragment's note tags, as its source stored them in ``metadata["tags"]`` (an
    Obsidian note's); none for anything else, and for bare :class:`FilterFields`."""
    metadata = getattr(fragment, "metadata", None)
    tags = metadata.get("tags") if isinstance(metadata, dict) else None
    return tags if isinstance(tags, list) else []
