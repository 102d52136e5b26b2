"""Crafted inputs with which an agent bound to alice tries to reach bob's memory.

Pure data for the isolation matrix (``tests/isolation/test_matrix_*.py``): each table
is a list of ``pytest.param`` with an id, so every attack shows up by name in the
test report. The home the attacks run against (bob's ``users/bob/secret.md`` and
the rest) is built in ``tests/isolation/world.py``; the names it uses are defined
here so the tables can aim at them.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

import pytest

#: In every one of bob's memories; alice may type it (it is in her queries).
BOB_CANARY = "CANARY-BOB-7f3a"
#: Also in every one of bob's memories, but alice never types it: if it shows up in
#: anything alice gets back or in any log entry of hers, it came from bob's memory.
BOB_HIDDEN = "quokkazeta"
CAROL_CANARY = "CANARY-CAROL-91c2"
#: In the operator's corpus (owner ""), which agents must not see either.
CORPUS_CANARY = "CANARY-CORPUS-55d1"
FOREIGN_MARKERS = (BOB_CANARY, BOB_HIDDEN, CAROL_CANARY, CORPUS_CANARY)

# -- family 1: paths --------------------------------------------------------------------------
#
# (id, path, inside): ``inside`` paths are legitimate names in alice's own space
# (they may be read or written; they must land in users/alice/); every other one
# must be refused with a MemexError, whatever the operation.

_PATHS: list[tuple[str, Any, bool]] = [
    ("dotdot-from-user", "user/../users/bob/secret.md", False),
    ("dotdot-relative", "../bob/secret.md", False),
    ("dotdot-twice", "user/../../users/bob/secret.md", False),
    ("storage-path", "users/bob/secret.md", False),
    ("storage-path-own-user", "users/alice/../bob/secret.md", False),
    ("storage-dot-segment", "users/bob/./secret.md", False),
    ("absolute-storage", "/users/bob/secret.md", False),
    ("absolute-user", "/user/secret.md", False),
    ("pct-slash", "user/..%2f..%2fusers/bob/secret.md", False),
    ("pct-dots", "%2e%2e/bob/secret.md", False),
    ("pct-dots-in-user", "user/%2e%2e/%2e%2e/users/bob/secret.md", False),
    ("pct-upper-all", "user/%2E%2E%2F%2E%2E%2Fusers%2Fbob%2Fsecret.md", False),
    ("pct-double-encoded", "user/%252e%252e/%252e%252e/users/bob/secret.md", False),
    ("pct-overlong-utf8-dot", "user/%c0%ae%c0%ae/%c0%ae%c0%ae/users/bob/secret.md", False),
    ("pct-null", "user/%00/../../users/bob/secret.md", False),
    ("backslashes", "user\\..\\..\\users\\bob\\secret.md", False),
    ("backslash-mixed", "user/..\\..\\users/bob/secret.md", False),
    ("null-byte", "user/x.md\x00/../../bob/secret.md", False),
    ("null-truncate", "users/bob/secret.md\x00user/x.md", False),
    ("fullwidth-solidus", "user/..\uff0f..\uff0fusers\uff0fbob\uff0fsecret.md", False),
    ("division-slash", "user/..\u2215..\u2215users\u2215bob\u2215secret.md", False),
    ("fraction-slash", "user/..\u2044..\u2044users\u2044bob\u2044secret.md", False),
    ("one-dot-leader", "user/\u2024\u2024/\u2024\u2024/users/bob/secret.md", False),
    ("two-dot-leader", "user/\u2025/\u2025/users/bob/secret.md", False),
    ("fullwidth-dots", "user/\uff0e\uff0e/\uff0e\uff0e/users/bob/secret.md", False),
    ("combining-long-solidus", "user/a\u0338..\u0338bob/secret.md", False),
    ("zero-width-space", "user/.\u200b./.\u200b./users/bob/secret.md", False),
    ("zero-width-joiner-folder", "us\u200der/../users/bob/secret.md", False),
    ("byte-order-mark", "\ufeffusers/bob/secret.md", False),
    ("rtl-override", "user/\u202edm.terces/bob", False),
    ("rtl-override-leading", "\u202eusers/bob/secret.md", False),
    ("overlong-segment", "user/" + "a" * 300 + ".md", False),
    ("overlong-path", "user/" + "/".join(["abcdefghij"] * 120), False),
    ("too-deep", "user/" + "a/" * 40 + "x.md", False),
    ("dot-then-dotdot", "user/./../users/bob/secret.md", False),
    ("shared-escape", "shared/../users/bob/secret.md", False),
    ("shared-double-escape", "shared/../../users/bob/secret.md", False),
    ("upper-USER", "USER/../users/bob/secret.md", False),
    ("title-User", "User/secret.md", False),
    ("upper-USERS", "USERS/bob/secret.md", False),
    ("trailing-dot", "user/secret.md.", False),
    ("trailing-space", "user/secret.md ", False),
    ("dotdot-space", "user/.. /users/bob/secret.md", False),
    ("three-dots", "user/.../users/bob/secret.md", False),
    ("double-slash-dotdot", "user//../bob/secret.md", False),
    ("tilde-user", "~bob/secret.md", False),
    ("file-scheme", "file:users/bob/secret.md", False),
    ("file-url", "file:///users/bob/secret.md", False),
    ("hash-suffix", "user/secret.md#../../bob", False),
    ("query-suffix", "user/secret.md?../../users/bob/secret.md", False),
    ("drive-letter", "C:/users/bob/secret.md", False),
    ("unc", "//server/users/bob/secret.md", False),
    ("colon-user", "user:bob/secret.md", False),
    ("bare-user", "user/", False),
    ("bare-users-bob", "users/bob", False),
    ("empty", "", False),
    ("newline", "user/\n../users/bob/secret.md", False),
    ("tab", "user/..\t/users/bob/secret.md", False),
    ("dotdot-at-end", "user/secret.md/..", False),
    ("mem-prefixed-path", "mem_../users/bob/secret.md", False),
    # Legitimate names in alice's own space that merely look like bob's.
    ("own-secret", "user/secret.md", True),
    ("own-deleted-name", "user/old.md", True),
    ("own-private-name", "user/private.md", True),
    ("own-tilde-folder", "user/~bob/secret.md", True),
    ("own-users-bob-folder", "user/users/bob/secret.md", True),
    ("shared-secret", "shared/secret.md", True),
]

PATH_ATTACKS = [pytest.param(path, inside, id=name) for name, path, inside in _PATHS]

#: The operations a path can be given to, and the access-log action each records.
PATH_OPERATIONS = {
    "get": "read",
    "write": "write",
    "forget": "forget",
    "undelete": "undelete",
    "links": "links",
}


#: Refs a tool layer might pass that are not text at all (JSON numbers, lists, nulls).
NON_TEXT_REFS = [
    pytest.param(None, id="none"),
    pytest.param(7, id="int"),
    pytest.param(b"users/bob/secret.md", id="bytes"),
    pytest.param(PurePosixPath("users/bob/secret.md"), id="pathlib"),
    pytest.param(["users/bob/secret.md"], id="list"),
]

# -- family 2: ids ----------------------------------------------------------------------------

#: Names of bob's (and carol's) memories in the home; the test resolves them to ids.
FOREIGN_MEMORIES = [
    "bob_fact",
    "bob_file",
    "bob_private_fact",
    "bob_private_file",
    "bob_deleted_fact",
    "bob_deleted_file",
    "bob_acme_bob",
    "bob_acme",
    "bob_conversation",
    "bob_same_as_alice",
    "carol_fact",
]

ID_OPERATIONS = ["get", "forget", "undelete", "links"]

#: Ids built from one of bob's real ids (``{id}`` is replaced by it) or from nothing.
FORGED_IDS = [
    pytest.param("mem_x' OR '1'='1", id="sql-or"),
    pytest.param("mem_x' OR 1=1 --", id="sql-comment"),
    pytest.param("mem_x'; DELETE FROM memories; --", id="sql-delete"),
    pytest.param("mem_x' UNION SELECT id FROM memories --", id="sql-union"),
    pytest.param("mem_%", id="like-percent"),
    pytest.param("mem_*", id="glob-star"),
    pytest.param("mem_", id="bare-prefix"),
    pytest.param("%", id="percent"),
    pytest.param("*", id="star"),
    pytest.param("{id}%", id="real-id-percent"),
    pytest.param("{id_but_last}_", id="real-id-underscore-wildcard"),
    pytest.param("{id} ", id="real-id-trailing-space"),
    pytest.param("{id}\x00", id="real-id-null"),
    pytest.param("{id}' OR '1'='1", id="real-id-sql-or"),
    pytest.param("{ID}", id="real-id-uppercase"),
]

# -- family 3: search -------------------------------------------------------------------------

SEARCH_MODES = ["keyword", "semantic", "hybrid"]

CANARY_QUERIES = [
    pytest.param(BOB_CANARY, id="bob-canary"),
    pytest.param("bob oolong therapist codename billing", id="bob-words"),
    pytest.param(f"{BOB_CANARY} OR * OR owner:users/bob", id="bob-query-syntax"),
    pytest.param(CAROL_CANARY, id="carol-canary"),
    pytest.param(CORPUS_CANARY, id="corpus-canary"),
]

OTHER_USER_IDS = [
    pytest.param("bob", id="bob"),
    pytest.param("carol", id="carol"),
    pytest.param("BOB", id="bob-upper"),
    pytest.param("bob ", id="bob-space"),
    pytest.param("../bob", id="dotdot-bob"),
    pytest.param("users/bob", id="owner-value"),
    pytest.param("", id="empty"),
    pytest.param("*", id="star"),
]

#: Valid collection prefixes: they narrow alice's view, never widen it.
VALID_COLLECTIONS = [
    pytest.param("", id="empty-covers-all"),
    pytest.param("acme", id="acme"),
    pytest.param("acme:bob", id="acme-bob"),
    pytest.param("acme:carol", id="acme-carol"),
    pytest.param("ACME", id="acme-upper"),
]

#: Invalid collection prefixes: InvalidCollection, never a wider search.
INVALID_COLLECTIONS = [
    pytest.param("*", id="star"),
    pytest.param("%", id="percent"),
    pytest.param("acme:%", id="acme-percent"),
    pytest.param("acme:*", id="acme-star"),
    pytest.param("acme:", id="trailing-colon"),
    pytest.param(":acme", id="leading-colon"),
    pytest.param("acme::bob", id="double-colon"),
    pytest.param("acme:bob' OR '1'='1", id="sql"),
    pytest.param("acme bob", id="space"),
    pytest.param("a" * 65, id="overlong-segment"),
    pytest.param("acme/bob", id="slash"),
    pytest.param("acme:_%", id="like-wildcards"),
]

TIME_BOUNDS = [
    pytest.param(0.0, None, id="since-epoch"),
    pytest.param(None, 0.0, id="until-epoch"),
    pytest.param(float("-inf"), float("inf"), id="infinities"),
    pytest.param(float("nan"), float("nan"), id="nan"),
    pytest.param(1e308, None, id="since-far-future"),
    pytest.param(None, -1e308, id="until-far-past"),
    pytest.param(-1e308, 1e308, id="widest"),
]

#: list() calls: keyword arguments.
LIST_CALLS = [
    pytest.param({}, id="default"),
    pytest.param({"include_deleted": True}, id="include-deleted"),
    pytest.param({"collection": "acme"}, id="acme"),
    pytest.param({"collection": "acme:bob", "include_deleted": True}, id="acme-bob"),
    pytest.param({"user_id": "bob", "include_deleted": True}, id="user-bob"),
    pytest.param({"kind": "file", "include_deleted": True}, id="files"),
    pytest.param({"kind": "conversation", "include_deleted": True}, id="conversations"),
    pytest.param({"limit": -1, "offset": -5, "include_deleted": True}, id="negative-limit"),
]

# -- family 4: writes -------------------------------------------------------------------------

#: MEMEX_SHARED_WRITE_MODE values (None: unset) and whether agents may then write shared/.
SHARED_WRITE_MODES = [
    pytest.param(None, False, id="unset"),
    pytest.param("ro", False, id="ro"),
    pytest.param("", False, id="empty"),
    pytest.param("yes", False, id="yes"),
    pytest.param("1", False, id="one"),
    pytest.param("true", False, id="true"),
    pytest.param("r w", False, id="r-space-w"),
    pytest.param("rw=1", False, id="rw-assignment"),
    pytest.param("read-write", False, id="read-write"),
    pytest.param("wr", False, id="wr"),
    # Documented leniency: surrounding spaces and case are ignored.
    pytest.param("rw", True, id="rw"),
    pytest.param("RW ", True, id="RW-trailing-space"),
    pytest.param(" Rw", True, id="Rw-leading-space"),
]

REMEMBER_FOR_OTHERS = [
    pytest.param("bob", id="bob"),
    pytest.param("carol", id="carol"),
    pytest.param("BOB", id="bob-upper"),
    pytest.param("../bob", id="dotdot-bob"),
    pytest.param("users/bob", id="owner-value"),
    pytest.param("shared", id="shared"),
    pytest.param("alice/../bob", id="alice-dotdot-bob"),
]

#: Link targets alice writes in her own memory file, aimed at bob's files.
LINK_ATTACKS = [
    pytest.param("users/bob/secret.md", id="storage-path"),
    pytest.param("users/bob/secret", id="storage-path-no-ext"),
    pytest.param("../bob/secret.md", id="relative-dotdot"),
    pytest.param("../../users/bob/secret.md", id="relative-dotdot-twice"),
    pytest.param("user/../../users/bob/secret", id="virtual-dotdot"),
    pytest.param("/users/bob/secret.md", id="absolute"),
    pytest.param("shared/../users/bob/secret.md", id="shared-dotdot"),
    pytest.param("users%2fbob%2fsecret", id="percent-encoded"),
    pytest.param("user\\..\\..\\users\\bob\\secret", id="backslashes"),
    pytest.param("\uff0e\uff0e/bob/secret", id="fullwidth-dots"),
    pytest.param("user/\u2024\u2024/\u2024\u2024/users/bob/secret", id="one-dot-leaders"),
    pytest.param("secret", id="bare-name"),
    pytest.param("user/secret", id="virtual-same-name"),
]

# -- family 5: consolidation ------------------------------------------------------------------

CONSOLIDATION_ACTIONS = ["UPDATE", "DELETE", "NONE"]
CONSOLIDATION_TARGETS = [
    "bob_fact",
    "bob_private_fact",
    "bob_deleted_fact",
    "bob_acme",
    "bob_same_as_alice",
    "carol_fact",
]

# -- family 6: operator and agent -------------------------------------------------------------

OPERATOR_ONLY_METHODS = ["purge", "access_log", "history", "restore"]

INVALID_USER_IDS = [
    pytest.param("../bob", id="dotdot-bob"),
    pytest.param("bob/../alice", id="bob-dotdot-alice"),
    pytest.param("alice/../bob", id="alice-dotdot-bob"),
    pytest.param("users/bob", id="owner-value"),
    pytest.param("", id="empty"),
    pytest.param("*", id="star"),
    pytest.param("%", id="percent"),
    pytest.param("bob\x00", id="null"),
    pytest.param("bob ", id="trailing-space"),
    pytest.param(" bob", id="leading-space"),
    pytest.param("..", id="dotdot"),
    pytest.param("bob/", id="trailing-slash"),
    pytest.param("b\u200bob", id="zero-width"),
    pytest.param("\uff42ob", id="fullwidth-b"),
    pytest.param("x" * 129, id="overlong"),
]

#: Valid user ids that are not bob but look like (or are prefixes of) his.
LOOKALIKE_USERS = [
    pytest.param("BOB", id="upper"),
    pytest.param("Bob", id="title"),
    pytest.param("bo", id="prefix"),
    pytest.param("bob2", id="suffix"),
    pytest.param("bob.", id="trailing-dot"),
    pytest.param("bob_", id="trailing-underscore"),
    pytest.param("shared", id="named-shared"),
]
