"""Homes the browser tests, the screenshots and the page-timing benchmark serve.

:func:`build_demo_home` is what a person who just installed memex would have: the sample
exports in ``examples/exports``, a small vault whose notes link to each other (one link
unresolved), and the memory of two users' agents (alice with a record revised twice and one
forgotten, bob with his own), plus an agent key for each. :func:`build_xss_home` stores the
XSS corpus (:mod:`tests.support.xss_payloads`) as chat text and titles, note text, titles and
links, and memory text and revisions.

Written to disk and closed here: the server opens the home itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from tests.support.export_builders import DAY, T0, chatgpt_conversation, write_chatgpt_export
from tests.support.xss_payloads import numbered

ROOT = Path(__file__).resolve().parents[2]
EXPORTS = ROOT / "examples" / "exports"
KEYWORD_ONLY_CONFIG = '[embedder]\nuse = "none"\n'

#: The vault: (file name, text). "Deploy checklist" links to a note that does not exist.
VAULT_NOTES: tuple[tuple[str, str], ...] = (
    (
        "Kubernetes.md",
        "# Kubernetes\n\nHow we run services. A pod in CrashLoopBackOff: see "
        "[[Debugging pods]]. Releases follow the [[Deploy checklist]].\n",
    ),
    (
        "Debugging pods.md",
        "# Debugging pods\n\nRun `kubectl logs --previous` and `kubectl describe pod`; "
        "check the liveness probe. Back to [[Kubernetes]].\n",
    ),
    (
        "Deploy checklist.md",
        "# Deploy checklist\n\n1. Tag the image.\n2. Roll out to staging.\n3. Watch the "
        "dashboards, then [[Rollback plan]] if errors rise.\n",
    ),
    (
        "Sourdough.md",
        "# Sourdough\n\nA cold retard of 12 to 16 hours in the fridge develops flavour.\n",
    ),
)
UNRESOLVED_LINK = "Rollback plan"


@dataclass
class DemoHome:
    path: Path
    keys: dict[str, str] = field(default_factory=dict)  # user -> agent key text
    ids: dict[str, str] = field(default_factory=dict)  # what the tests open by id


def write_vault(folder: Path, notes: tuple[tuple[str, str], ...] = VAULT_NOTES) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / ".obsidian").mkdir(exist_ok=True)  # what makes a folder an Obsidian vault
    for name, text in notes:
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def new_home(path: Path, *, semantic: bool = False) -> Path:
    """An empty home; keyword-only unless ``semantic`` (then the default MiniLM stack)."""
    path.mkdir(parents=True, exist_ok=True)
    if not semantic:
        (path / "config.toml").write_text(KEYWORD_ONLY_CONFIG, encoding="utf-8")
    return path


def build_demo_home(path: Path, *, semantic: bool = False) -> DemoHome:
    from memex_core.api import Memex

    home = DemoHome(new_home(path, semantic=semantic))
    vault = write_vault(path.parent / f"{path.name}-vault")
    mx = Memex(home.path)
    try:
        mx.ingest(*sorted(EXPORTS.glob("*.json")), vault)
        alice = mx.agent("alice", name="alice-bot")
        plan = alice.write("user/travel.md", "Alice flies to Lisbon in May; window seat.")
        alice.write("user/travel.md", "Alice flies to Lisbon in June; window seat.")
        alice.write("user/travel.md", "Alice flies to Porto in June; aisle seat.")
        home.ids["alice_travel"] = plan.id
        home.ids["alice_tea"] = alice.remember("Alice prefers green tea").memory_ids[0]
        # Facts for the dream plan to weigh: a rewording, and a change of mind.
        alice.remember("Alice prefers drinking green tea")
        alice.remember("Alice no longer drinks green tea; she prefers black coffee now")
        gone = alice.remember("Alice's old phone number ends in 42").memory_ids[0]
        alice.forget(gone)
        home.ids["alice_forgotten"] = gone
        alice.remember("Alice answers acme support tickets", collection="acme:support")
        bob = mx.agent("bob", name="bob-bot")
        home.ids["bob_tea"] = bob.remember("Bob prefers oolong tea").memory_ids[0]
        bob.write("user/plan.md", "Bob's launch plan: codename heron.")
        keys = mx.agent_keys()
        for user in ("alice", "bob"):
            _, token = keys.create(user, name=f"{user}-viewer")
            home.keys[user] = token
    finally:
        mx.close()
    return home


# -- the XSS corpus, stored -------------------------------------------------------------------

XSS_CONVERSATION = "conv-xss"
PER_MESSAGE = 4  # payloads per chat message: few messages, each short enough to stay whole


def xss_texts() -> list[str]:
    """The payloads as stored text: ``xss-case-NN <payload>`` so a page's text finds each."""
    return [f"{marker} {payload}" for marker, payload in numbered()]


def build_xss_home(path: Path) -> DemoHome:
    from memex_core.api import Memex

    home = DemoHome(new_home(path))
    texts = xss_texts()
    groups = [texts[i : i + PER_MESSAGE] for i in range(0, len(texts), PER_MESSAGE)]
    messages = [
        ("user" if n % 2 == 0 else "assistant", "\n\n".join(group), T0 + n * 60)
        for n, group in enumerate(groups)
    ]
    conversations = [
        chatgpt_conversation(
            XSS_CONVERSATION, "<script>alert('title')</script> xss chat", messages
        ),
        chatgpt_conversation(
            "conv-xss-title",
            '<img src=x onerror="window.__xss=99"> {{7*7}} title',
            [("user", "xss-title-body a conversation whose title is markup", T0 + DAY)],
        ),
    ]
    export = write_chatgpt_export(path.parent / f"{path.name}-export.json", conversations)
    notes = (
        ("XSS corpus.md", "# XSS corpus\n\n" + "\n\n".join(texts) + "\n"),
        (
            "<img src=x onerror=alert(98)> note.md",
            "xss-note-title a note whose file name is markup. "
            "[[<svg onload=alert(97)>]] [[XSS corpus]] [js](javascript:alert(96))\n",
        ),
    )
    vault = write_vault(path.parent / f"{path.name}-vault", notes)
    mx = Memex(home.path)
    try:
        mx.ingest(export, vault)
        home.ids["chat"] = mx.conversation(XSS_CONVERSATION)[0].id
        home.ids["title_chat"] = mx.conversation("conv-xss-title")[0].id
        notes_found = mx.search("xss", "keyword", 50, source="obsidian")
        home.ids["note"] = next(
            r.fragment.id for r in notes_found if r.fragment.title == "XSS corpus"
        )
        alice = mx.agent("alice", name="alice-bot")
        half = len(texts) // 2
        record = alice.write("user/xss.md", "\n\n".join(texts[:half]))
        # The second revision holds the rest, so the diff shows every payload inserted or deleted.
        alice.write("user/xss.md", "\n\n".join(texts[half:]))
        home.ids["memory"] = record.id
        home.ids["memory_fact"] = alice.remember(
            "<script>window.__xss='fact'</script> Alice's fact {{7*7}}"
        ).memory_ids[0]
        keys = mx.agent_keys()
        _, token = keys.create("alice", name="alice-xss")
        home.keys["alice"] = token
    finally:
        mx.close()
    return home
