"""The server's prompts: ready-made instructions a user can pick in their MCP client.

``handover`` hands the next agent a summary of recent work on a topic, built
from a context pack; ``update-knowledge`` asks the agent to store the durable
facts it learned this session. Both return the text of one user message.
"""

from __future__ import annotations

from memex_mcp.tools import MemexTools

HANDOVER_BUDGET = 6000
KNOWN_FACTS_SHOWN = 10


def handover(tools: MemexTools, topic: str) -> str:
    """A request to write a handover note on ``topic``, with memex's context attached."""
    pack = tools.view.context(topic, HANDOVER_BUDGET)
    if pack.items:
        material = "\n\n".join(
            f"[{item.id}] ({item.reason}) {item.title}\n{item.text}" for item in pack.items
        )
        found = (
            f"memex holds the following material about it ({len(pack.items)} item(s), most "
            "relevant first; the `get` tool returns any item whole by its id):\n\n" + material
        )
    else:
        found = (
            "memex holds nothing about it yet; base the handover on this session alone, "
            "and use the `search` tool if you expect earlier work under other words."
        )
    return (
        f"Another agent will continue the work on: {topic}\n\n{found}\n\n"
        "Write a handover note for that agent with these sections:\n"
        "1. Goal: what the work is for.\n"
        "2. State: what is done and what is in progress.\n"
        "3. Decisions: what was decided and why (cite the ids in brackets).\n"
        "4. Open questions and risks.\n"
        "5. Next steps, concrete and in order.\n"
        "Keep it short, say where the material is silent rather than guessing, and "
        "remember any durable decision with the `remember` tool."
    )


def update_knowledge(tools: MemexTools, topic: str = "") -> str:
    """A request to store what this session taught, without repeating what is known."""
    known = ""
    if topic.strip():
        found = tools.view.search(topic, limit=KNOWN_FACTS_SHOWN, source="memory")
        if found.results:
            known = (
                f"\n\nAlready remembered about {topic!r} (do not store these again; remember "
                "a corrected version if one is wrong):\n"
                + "\n".join(f"- [{r.fragment.conversation_id}] {r.fragment.content}" for r in found)
            )
    about = f" about {topic!r}" if topic.strip() else ""
    kinds = ", ".join(tools.fact_kinds())
    return (
        f"Before this session ends, update the long-term memory{about} for user "
        f"{tools.scope.user!r}.\n\n"
        "1. List the durable facts you learned in this session: preferences, decisions and "
        "their reasons, names, conventions, facts about projects and people. Leave out "
        "passing state (what you are doing right now), anything already in files or "
        "history, and secrets (tokens, passwords, keys).\n"
        "2. Check each against memory with the `search` tool (source 'memory') so you do "
        "not store it twice.\n"
        "3. Call the `remember` tool once per new fact, as one short sentence that stands "
        f"on its own (name the subject; no 'it' or 'this'), with a kind from: {kinds}.\n"
        "4. Finish with the list of what you stored." + known
    )
