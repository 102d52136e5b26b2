"""Benchmark 20: ``memex ask`` evidence recall over this repository (issue 16).

A fixed snapshot of this repository (``git archive HEAD`` of the commit the benchmark runs
at, committed into a fresh git repository in the run's temp folder) is indexed as the
``code`` source (without this file and its report, which hold the questions verbatim) of a
home that also holds the sample exports of ../shared/data/exports as
memory, so memory competes with code for every question (the exports are mostly coding
sessions: "search", "index", "memory" appear in both). The questions below were written
for this benchmark, each with its evidence: the file and the symbol (function, method,
class) that answers it.

Per question, evidence recall@5 and @10 (the share of its evidence symbols among the first
k items) for:

- ``ask``: hybrid search in each pool, the two pools fused by RRF (what ``memex ask`` does);
- ``ask, keyword only``: the same two pools and fusion, keyword search only;
- ``code pool alone``: hybrid search over the repository's code only (no memory competing);
- ``git grep -i``: the question's words (stopwords dropped) counted per tracked file with
  ``git grep -i -c -F``, files ranked by total hits. It ranks files, not symbols, so it is
  compared at file level (an item counts when it is from the evidence's file); the ``ask``
  rows report both levels.

Also: the time to index the snapshot the first time and again with nothing changed (the
check every ``ask`` makes before it searches), ``ask`` latency p50/p90 (index check, the
question embedded, two pool searches, fusion; no chat model), the time of one query
embedding (memex embeds the question for each pool: a user's ``ask`` costs one more than
the bench's, whose query cache serves the second pool), and the share of memory among
``ask``'s first 10.
"""

from __future__ import annotations

import io
import json
import statistics
import subprocess
import tarfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.context import RunContext, StderrProgress, log
from benchmarks.data import REPO_ROOT, data_root, missing
from benchmarks.metrics import mean
from benchmarks.report import Check, Section, table
from memex_core.api import Memex
from memex_core.domain.disclosure import query_terms
from memex_core.facade.ask_workflow import code_source, update_code_index
from memex_core.services.ask_fusion import CODE, AskResult
from memex_core.services.search import SearchResults

TITLE = "20. `memex ask`: evidence recall over this repository"
#: The budget ``ask`` gets when ranking for recall@k: large enough that no item is cut out.
RANKING_BUDGET = 1_000_000
INCREMENTAL_RUNS = 3

#: Files of the snapshot that hold the questions verbatim: left out of the index.
HOLDS_THE_QUESTIONS = ("benchmarks/ask_recall.py", "docs/benchmarks-ask-recall.md")

#: (question, [(path, symbol), ...]): written for this benchmark against this repository.
QUESTIONS: list[tuple[str, list[tuple[str, str]]]] = [
    ("where is the BM25 IDF computed?", [("plugins/memex_bm25/owner_stats.py", "okapi_idf")]),
    (
        "what does the relevance floor do when no candidate has evidence?",
        [("memex_core/domain/relevance.py", "select")],
    ),
    (
        "when do a weak keyword share and a similarity just under the floor count as agreeing?",
        [("memex_core/domain/relevance.py", "agree")],
    ),
    (
        "how does reciprocal rank fusion combine the keyword and semantic rankings?",
        [("plugins/memex_rrf/fusion.py", "ReciprocalRankFusion.fuse")],
    ),
    (
        "how does the BM25 tokenizer stem its tokens?",
        [("plugins/memex_bm25/tokenizer.py", "Tokenizer._stem")],
    ),
    (
        "how is a long message split into chunks at paragraph boundaries?",
        [("memex_core/domain/chunking.py", "split_text")],
    ),
    (
        "how is the write lock on a home acquired, and what happens on timeout?",
        [("memex_core/catalog/lock.py", "WriteLock.acquire")],
    ),
    (
        'how does a phrase like "last week" in a query become a time filter?',
        [("memex_core/query_time_phrases.py", "extract_time_phrase")],
    ),
    (
        "how are wikilinks found in an Obsidian note?",
        [("plugins/memex_obsidian/wikilinks.py", "find_wikilinks")],
    ),
    (
        "how does a link target resolve to a note's path in the vault?",
        [("memex_core/domain/link_resolution.py", "LinkResolver.resolve")],
    ),
    (
        "how is a fragment's stable id derived from its source and content?",
        [("memex_core/domain/fragment.py", "fragment_id")],
    ),
    (
        "how are long tool outputs compacted before indexing?",
        [("memex_core/domain/compaction.py", "compact_tool_output")],
    ),
    (
        "which nonsense probes calibrate the relevance floor?",
        [("memex_core/services/calibration.py", "nonsense_probes")],
    ),
    (
        "how does the MCP server keep a tool call inside its collection?",
        [("integrations/memex_mcp/scope.py", "ServerScope.narrow")],
    ),
    (
        "how is an agent key checked when a client presents it?",
        [("memex_core/services/agent_keys.py", "AgentKeys.verify")],
    ),
    (
        "how is an agent key's secret hashed with its salt?",
        [("memex_core/domain/agent_keys.py", "hash_secret")],
    ),
    (
        "which branch of a branching ChatGPT conversation is read?",
        [("plugins/memex_chatgpt/thread.py", "active_path")],
    ),
    (
        "how does the codex source recognise a rollout file?",
        [("plugins/memex_codex/detect.py", "looks_like_rollout")],
    ),
    (
        "how does the rules consolidator decide between ADD, UPDATE, DELETE and NONE?",
        [("plugins/memex_rules/consolidator.py", "RulesConsolidator.decide")],
    ),
    (
        "how does the secrets redactor find high-entropy strings?",
        [("plugins/memex_secrets/redactor.py", "DetectSecretsRedactor._high_entropy")],
    ),
    (
        "how are PEM private key blocks detected?",
        [("plugins/memex_secrets/patterns.py", "pem_blocks")],
    ),
    (
        "how does the numpy MiniLM encoder apply layer normalisation?",
        [("plugins/memex_minilm/numpy_encoder.py", "layer_norm_")],
    ),
    (
        "how does the embedder choose between the numpy, onnx and torch backends?",
        [("plugins/memex_minilm/embedder.py", "resolve_backend")],
    ),
    (
        "how does hybrid search fuse keyword and semantic hits with the semantic weight?",
        [("memex_core/services/search.py", "SearchService.hybrid")],
    ),
    (
        "how does folder sync skip a note that did not change?",
        [("memex_core/services/folder_sync.py", "FolderSync._sync_document")],
    ),
    (
        "how does ingest pick which source reads a file?",
        [("memex_core/services/ingest.py", "IngestService.pick_source")],
    ),
    (
        "how does a short id prefix resolve to a full fragment id?",
        [("memex_core/api.py", "Memex._resolve_prefix")],
    ),
    (
        "how does the context pack spend its character budget on hits, links and recent items?",
        [("memex_core/services/context.py", "ContextBuilder.build")],
    ),
    (
        "how does the code source tell that a file is minified or generated?",
        [("plugins/memex_code/files.py", "skip_by_content")],
    ),
    (
        "how does ask fuse the memory pool and the code pool?",
        [("memex_core/services/ask_fusion.py", "fuse_pools")],
    ),
    (
        "how are the citations in a model's answer checked against the pack's items?",
        [("memex_core/services/ask_fusion.py", "check_citations")],
    ),
    (
        "how is the git blob hash of an edited file computed?",
        [("plugins/memex_code/git.py", "blob_hash")],
    ),
    (
        "how is the cached ONNX graph keyed by the weights and precision?",
        [("plugins/memex_minilm/onnx_cache.py", "cache_key")],
    ),
    (
        "how does fact extraction skip lines inside code blocks?",
        [("plugins/memex_rules/sentences.py", "lines_outside_code")],
    ),
]

#: A ranked list of (path, symbol) for one question; symbol None for whole files.
Ranked = list[tuple[str, str | None]]


@dataclass
class Method:
    name: str
    symbol_level: bool
    recall: dict[int, list[float]] = field(default_factory=lambda: {5: [], 10: []})
    file_recall: dict[int, list[float]] = field(default_factory=lambda: {5: [], 10: []})

    def add(self, ranked: Ranked, evidence: Sequence[tuple[str, str]]) -> None:
        for k in (5, 10):
            top = ranked[:k]
            if self.symbol_level:
                self.recall[k].append(sum(1 for e in evidence if e in top) / len(evidence))
            paths = {p for p, _ in top}
            self.file_recall[k].append(sum(1 for p, _ in evidence if p in paths) / len(evidence))


def snapshot(target: Path) -> tuple[Path, str]:
    """``git archive HEAD`` of this repository, committed into a new repository at ``target``."""
    commit = _git(REPO_ROOT, "rev-parse", "HEAD").strip()
    archive = subprocess.run(
        ["git", "-C", str(REPO_ROOT), "archive", "--format=tar", commit],
        capture_output=True,
        check=True,
    ).stdout
    target.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(target, filter="data")
    for name in HOLDS_THE_QUESTIONS:
        # The questions themselves, verbatim, would compete with every answer.
        (target / name).unlink(missing_ok=True)
    _git(target, "init", "-q")
    _git(target, "add", "-A")
    _git(
        target,
        "-c",
        "user.email=bench@example.com",
        "-c",
        "user.name=bench",
        "commit",
        "-qm",
        f"snapshot of {commit}",
    )
    return target, commit


def _git(folder: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(folder), *args], capture_output=True, text=True, check=True
    ).stdout


def grep_ranking(repo: Path, question: str) -> Ranked:
    """Tracked files ranked by how many lines hold one of the question's words (summed over
    the words), as ``git grep -i -c`` counts them; ties by path."""
    hits: Counter[str] = Counter()
    for word in query_terms(question):
        done = subprocess.run(
            ["git", "-C", str(repo), "grep", "-i", "-c", "-F", "-e", word],
            capture_output=True,
            text=True,
            check=False,
        )
        for line in done.stdout.splitlines():
            path, _, count = line.rpartition(":")
            if count.isdigit():
                hits[path] += int(count)
    ordered = sorted(hits.items(), key=lambda item: (-item[1], item[0]))
    return [(path, None) for path, _ in ordered[:10]]


def _ask_ranking(result: AskResult) -> Ranked:
    return [
        (item.location.rsplit(":", 1)[0], item.symbol) if item.kind == CODE else ("", None)
        for item in result.items
    ]


def _present_symbols(mx: Memex) -> set[tuple[str, str]]:
    rows = mx.query("SELECT metadata FROM fragments WHERE source_kind = 'code'", limit=None)[1]
    present = set()
    for (metadata,) in rows:
        meta = json.loads(metadata)
        present.add((meta.get("path", ""), meta.get("symbol", "")))
    return present


def measure(ctx: RunContext) -> dict[str, Any]:
    repo, commit = snapshot(ctx.tmp / "ask-repo")
    home = ctx.home("ask")
    figures: dict[str, Any] = {"commit": commit[:12], "questions": len(QUESTIONS)}
    with ctx.memex(home) as mx:
        started = time.perf_counter()
        report = mx.ingest(data_root() / "exports", progress=StderrProgress())
        figures["memory_fragments"] = mx.catalog.count_fragments()
        figures["memory_seconds"] = time.perf_counter() - started
        log(f"  memory: {figures['memory_fragments']:,} fragments ({report.count('new')} files)")
        source = code_source(mx)
        if source is None:
            raise RuntimeError("the code source is not installed (pip install -e .)")
        root = source.repository_root(repo)
        before = dict(ctx.embed_stats)
        started = time.perf_counter()
        first = update_code_index(mx, source, root, StderrProgress(), StderrProgress())
        figures["index_first_seconds"] = time.perf_counter() - started
        figures["index_first"] = first
        figures["embedded_texts"] = ctx.embed_stats["texts"] - before["texts"]
        figures["embed_seconds"] = ctx.embed_stats["seconds"] - before["seconds"]
        figures["code_fragments"] = mx.catalog.count_fragments() - figures["memory_fragments"]
        again = []
        for _ in range(INCREMENTAL_RUNS):
            started = time.perf_counter()
            update_code_index(mx, source, root)
            again.append(time.perf_counter() - started)
        figures["index_again_seconds"] = statistics.median(again)
        present = _present_symbols(mx)
        absent = [e for _, evidence in QUESTIONS for e in evidence if e not in present]
        figures["absent_evidence"] = absent
        code_ids = tuple(d.id for d in mx.catalog.documents_under(str(root)).values())

        def keyword_search(query: str, mode: str, limit: int, **options: Any) -> SearchResults:
            return mx.search(query, "keyword", limit, **options)

        def code_only(question: str) -> Ranked:
            found = mx.search(
                question, "hybrid", 10, source=CODE, conversation=code_ids, time_phrases=False
            )
            return [(r.fragment.metadata["path"], r.fragment.metadata["symbol"]) for r in found]

        methods = {
            "ask": Method("`ask` (hybrid pools, RRF-fused)", True),
            "keyword": Method("`ask`, keyword only", True),
            "code": Method("code pool alone (hybrid, no memory)", True),
            "grep": Method("`git grep -i`, files by hit count", False),
        }
        runs: dict[str, Callable[[str], Ranked]] = {
            "ask": lambda q: _ask_ranking(
                mx.ask(q, repo=root, budget_chars=RANKING_BUDGET, answer=False)
            ),
            "keyword": lambda q: _ask_ranking(
                mx.ask(
                    q,
                    repo=root,
                    budget_chars=RANKING_BUDGET,
                    answer=False,
                    search=keyword_search,
                )
            ),
            "code": code_only,
            "grep": lambda q: grep_ranking(repo, q),
        }
        latencies: list[float] = []
        query_embedding: list[float] = []
        memory_share: list[float] = []
        in_pack: list[float] = []
        misses: list[str] = []
        for question, evidence in QUESTIONS:
            for key, method in methods.items():
                ranked = runs[key](question)
                method.add(ranked, evidence)
                if key == "ask":
                    memory_share.append(sum(1 for p, _ in ranked[:10] if p == "") / 10)
                    if not any(e in ranked[:10] for e in evidence):
                        misses.append(question)
            # Timed with the question embedded afresh (the methods above cached its vector).
            # The bench's cache then serves the second pool; memex alone embeds it again
            # there, which costs one more query embedding (timed apart below).
            ctx.query_vectors.clear()
            started = time.perf_counter()
            packed = mx.ask(question, repo=root, answer=False)  # the default budget
            latencies.append(time.perf_counter() - started)
            started = time.perf_counter()
            ctx.inner_embedder().embed_query(question)
            query_embedding.append(time.perf_counter() - started)
            got = _ask_ranking(packed)
            in_pack.append(sum(1 for e in evidence if e in got) / len(evidence))
        figures.update(
            methods=methods,
            latency_p50=statistics.median(latencies),
            latency_p90=sorted(latencies)[int(0.9 * (len(latencies) - 1))],
            query_embedding_p50=statistics.median(query_embedding),
            memory_share=mean(memory_share),
            in_pack=mean(in_pack),
            budget=packed.budget_chars,
            pack_items=len(packed.items),
            misses=misses,
        )
    return figures


def render(figures: dict[str, Any], section: Section) -> Section:
    methods: dict[str, Method] = figures["methods"]

    def fmt(values: list[float]) -> str:
        return f"{mean(values):.3f}" if values else "-"

    rows = []
    for method in methods.values():
        rows.append(
            [
                method.name,
                fmt(method.recall[5]) if method.symbol_level else "-",
                fmt(method.recall[10]) if method.symbol_level else "-",
                fmt(method.file_recall[5]),
                fmt(method.file_recall[10]),
            ]
        )
    ask, grep = methods["ask"], methods["grep"]
    keyword = methods["keyword"]
    section.checks = [
        Check(
            "ask evidence recall@10 (symbol)",
            fmt(ask.recall[10]),
            "-",
            peer=f"keyword only {fmt(keyword.recall[10])}",
        ),
        Check(
            "ask evidence recall@10 (file)",
            fmt(ask.file_recall[10]),
            "-",
            peer=f"git grep {fmt(grep.file_recall[10])}",
        ),
        Check("ask latency p50", f"{figures['latency_p50'] * 1000:.0f} ms", "-"),
    ]
    first = figures["index_first"]
    assert isinstance(first, dict)
    section.add(
        f"Snapshot of commit `{figures['commit']}` ({first.get('files', 0):,} tracked files "
        f"indexed, {first.get('skipped_files', 0)} skipped by name; "
        f"{figures['code_fragments']:,} code fragments) plus the sample exports as memory "
        f"({figures['memory_fragments']:,} fragments). {figures['questions']} questions "
        "written for the benchmark, one evidence symbol each.",
        table(
            [
                "method",
                "recall@5 (symbol)",
                "recall@10 (symbol)",
                "recall@5 (file)",
                "recall@10 (file)",
            ],
            rows,
        ),
        table(
            ["figure", "value"],
            [
                [
                    "index the snapshot, first time",
                    f"{figures['index_first_seconds']:.1f} s (of which embedding "
                    f"{figures['embed_seconds']:.1f} s for {figures['embedded_texts']:,} texts "
                    "not in the bench's vector cache)",
                ],
                [
                    "index again, nothing changed (median of 3)",
                    f"{figures['index_again_seconds'] * 1000:.0f} ms",
                ],
                [
                    "ask latency p50 / p90 (index check, question embedded, 2 pool searches, "
                    "fusion)",
                    f"{figures['latency_p50'] * 1000:.0f} / {figures['latency_p90'] * 1000:.0f} ms",
                ],
                [
                    "one query embedding, p50 (memex embeds the question once per pool)",
                    f"{figures['query_embedding_p50'] * 1000:.0f} ms",
                ],
                ["memory's share of ask's first 10 items", f"{figures['memory_share']:.2f}"],
                [
                    f"evidence in the default {figures['budget']:,}-character pack",
                    f"{figures['in_pack']:.3f}",
                ],
            ],
        ),
    )
    absent = figures["absent_evidence"]
    if absent:
        section.add(f"Evidence not found among the snapshot's chunks: {absent}")
    misses = figures["misses"]
    assert isinstance(misses, list)
    if misses:
        section.add(
            f"Questions whose evidence `ask` missed in its first 10 ({len(misses)}): "
            + "; ".join(f'"{q}"' for q in misses)
        )
    return section


def run(ctx: RunContext) -> Section:
    section = Section("ask", TITLE)
    reason = missing(data_root() / "exports")
    if reason:
        section.skipped = reason
        return section
    if ctx.embedder_available() is not None:
        section.skipped = f"semantic search unavailable: {ctx.embedder_available()}"
        return section
    return render(measure(ctx), section)
