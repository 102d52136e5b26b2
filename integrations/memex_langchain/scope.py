"""Who a retriever reads for: the scope fixed at construction and what one call may ask.

The rule is that a call can narrow the retriever's scope and never widen it:

* ``user``: a retriever built with ``user="alice"`` is bound to alice; a call
  may repeat ``user="alice"`` and nothing else. A retriever built without a
  user is unbound: each call may name the user it reads for (one retriever
  shared by every session of an application), and a call that names none reads
  the corpus only.
* ``collection``: a call may name the retriever's collection or one below it
  (``acme:support`` -> ``acme:support:eu``), never a parent, a sibling or a
  look-alike (``acme:supportx``).
* ``corpus`` and ``include_private``: a call may turn them off, not on.

Anything else raises :class:`ScopeError` before memex is touched, so a bug or
an injected argument is seen rather than silently answered from elsewhere.
"""

from __future__ import annotations

from dataclasses import dataclass

from memex_core.domain.memory.namespaces import covers, validate_collection
from memex_core.domain.memory.paths import validate_user_id
from memex_core.errors import MemexError


class ScopeError(MemexError, ValueError):
    """A call asked for more than its retriever's scope; the message says how to get it."""


@dataclass(frozen=True)
class CallScope:
    """The scope one call reads: what :meth:`memex_core.api.Memex.view` is opened with."""

    user: str | None
    collection: str
    corpus: bool
    include_private: bool


def narrow(
    bound: CallScope,
    *,
    user: str | None = None,
    collection: str | None = None,
    corpus: bool | None = None,
    include_private: bool | None = None,
) -> CallScope:
    """``bound`` narrowed by one call's arguments (``None``: not given)."""
    chosen_user = bound.user
    if user is not None:
        validate_user_id(user)
        if bound.user is None:
            chosen_user = user
        elif user != bound.user:
            raise ScopeError(
                f"This retriever is bound to user {bound.user!r} and cannot read for {user!r}. "
                f"Build a MemexRetriever(user={user!r}) for that user, or one without a user "
                "that takes the user per call."
            )
    chosen_collection = bound.collection
    if collection is not None:
        validate_collection(collection)
        if not covers(bound.collection, collection):
            raise ScopeError(
                f"This retriever reads collection {bound.collection!r} and below; "
                f"{collection!r} is outside it. Pass {bound.collection!r} or a collection "
                f"below it (e.g. '{bound.collection}:...'), or build a retriever for "
                f"{collection!r}."
            )
        chosen_collection = collection
    return CallScope(
        user=chosen_user,
        collection=chosen_collection,
        corpus=_only_off(bound.corpus, corpus, "corpus"),
        include_private=_only_off(bound.include_private, include_private, "include_private"),
    )


def _only_off(bound: bool, asked: bool | None, name: str) -> bool:
    if asked is None:
        return bound
    if not isinstance(asked, bool):
        raise ScopeError(f"{name} must be True or False, not {asked!r}")
    if asked and not bound:
        raise ScopeError(
            f"This retriever was built with {name}=False, so a call cannot turn it on. "
            f"Build a retriever with {name}=True for that."
        )
    return asked
