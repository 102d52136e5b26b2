"""LangChain's own standard tests for retrievers, run unmodified against ``MemexRetriever``.

The home is built once for the class (a corpus with many sqlite fragments, so
``k=3`` always finds three) with the fast test components: the standard tests
check the retriever contract, not the models.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langchain_tests")

from langchain_tests.integration_tests import RetrieversIntegrationTests

from memex_core.api import Memex
from memex_langchain import MemexRetriever
from tests.support.langchain_home import build_home


@pytest.fixture(scope="module")
def standard_memex(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memex]:
    mx = build_home(Path(tmp_path_factory.mktemp("langchain-standard")) / "home")
    yield mx
    mx.close()


# The standard async test is a bare ``async def`` (LangChain runs pytest-asyncio in auto
# mode); this project runs it in strict mode, so the class carries the marker, and the
# warning it then gives for each sync standard test is silenced.
@pytest.mark.asyncio
@pytest.mark.filterwarnings("ignore:The test <Function test_.*is not an async function")
class TestMemexRetrieverStandard(RetrieversIntegrationTests):
    memex: Memex

    @pytest.fixture(autouse=True)
    def _memex(self, standard_memex: Memex) -> None:
        self.memex = standard_memex

    @property
    def retriever_constructor(self) -> type[MemexRetriever]:
        return MemexRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return {"memex": self.memex, "user": "alice"}

    @property
    def retriever_query_example(self) -> str:
        return "why is the sqlite database locked"
