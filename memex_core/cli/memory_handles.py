"""Which memory a memory command acts through, on a local home or a ``memex serve``.

On a local home: the operator's handle, or an agent of ``--user``. With ``MEMEX_URL`` and
``MEMEX_API_KEY`` set (:func:`memex_core.cli.opening.remote_client`): an agent key acts
for its own user (``--user`` defaults to it and may not name another), and the
operator's commands need the operator secret. Also the two helpers every memory command
prints or fails through: :func:`echo_json` and :func:`hinted`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import click

from memex_core.cli.opening import API_KEY_ENV, URL_ENV, open_memex, remote_client
from memex_core.errors import MemexError, UnknownIdError

ACTOR_NAME = "cli"
NOT_FOUND_HINT = (
    "`memex memories --deleted` lists memory ids; storage paths look like "
    "users/<user>/notes.md or shared/notes.md."
)


def echo_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


@contextmanager
def hinted(ref: str) -> Iterator[None]:
    """An unknown memory names the reference and says where ids come from."""
    try:
        yield
    except UnknownIdError as exc:  # MemoryNotFound, or a memex serve's 404
        if str(exc).startswith("No memory"):
            raise MemexError(f"No memory {ref!r}. {NOT_FOUND_HINT}") from exc
        raise


def agent_key_user(ctx: click.Context) -> str | None:
    """The user of the agent key the commands run with on a memex serve; None when they
    run on a local home or with the operator secret."""
    client = remote_client(ctx)
    if client is None:
        return None
    identity = client.whoami()
    return identity.user_id if identity.kind == "agent" else None


def key_refuses(ctx: click.Context, command: str, user_id: str | None) -> None:
    """Refuse ``user_id`` if it is not the agent key's own user (nothing to refuse locally)."""
    own = agent_key_user(ctx)
    if own is not None and user_id is not None and user_id != own:
        raise MemexError(
            f"`memex {command}` runs on a memex serve with an agent key of user {own!r} "
            f"(${API_KEY_ENV}), which cannot reach the memory of {user_id!r}: use a key of "
            f"user {user_id!r}, or leave --user out."
        )


def operator_handle(ctx: click.Context, command: str, name: str = ACTOR_NAME) -> Any:
    """The operator's memory handle: the local home's, or a memex serve's when
    ``MEMEX_API_KEY`` holds the operator secret (an agent key is refused)."""
    client = remote_client(ctx)
    if client is None:
        return open_memex(ctx).operator(name)
    own = agent_key_user(ctx)
    if own is not None:
        raise MemexError(
            f"`memex {command}` is the operator's, and ${API_KEY_ENV} holds an agent key of "
            f"user {own!r}. Put the operator secret in ${API_KEY_ENV}, or unset ${URL_ENV} to "
            "use a local home."
        )
    return client.operator(name)


def keeper(ctx: click.Context, command: str, user_id: str | None) -> Any:
    """Who lists, forgets, undeletes and dreams: the operator (every user's memory), or on
    a memex serve with an agent key that key's user's memory."""
    key_refuses(ctx, command, user_id)
    client = remote_client(ctx)
    if client is not None and agent_key_user(ctx) is not None:
        return client.agent()
    return operator_handle(ctx, command)


def agent_handle(ctx: click.Context, command: str, user_id: str | None, agent_name: str) -> Any:
    """``user_id``'s agent named ``agent_name``; on a memex serve with an agent key, the
    key's user (the default) and the key's name."""
    key_refuses(ctx, command, user_id)
    client = remote_client(ctx)
    if client is None:
        if user_id is None:
            raise click.UsageError("Missing option '--user' / '-u'.")
        return open_memex(ctx).agent(user_id, name=agent_name)
    if agent_key_user(ctx) is not None:
        return client.agent()
    if user_id is None:
        raise click.UsageError(
            "Missing option '--user' / '-u' (with the operator secret, say whose memory)."
        )
    return client.operator().agent(user_id, name=agent_name)
