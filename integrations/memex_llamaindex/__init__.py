"""memex for LlamaIndex: a retriever over memex search, and a long-term memory block.

>>> from memex_llamaindex import MemexMemoryBlock, MemexRetriever, SessionScope

* :class:`MemexRetriever` is a ``BaseRetriever`` returning ``NodeWithScore``
  (the node id is the fragment id, the score the fused score).
* :class:`MemexMemoryBlock` is a ``BaseMemoryBlock`` for
  ``llama_index.core.memory.Memory``: flushed messages go into the session
  user's memex memory, relevant memories come back into the prompt.

Both read through :meth:`memex_core.api.Memex.view`, the scope every
integration uses; install with ``pip install 'memex[llamaindex]'``.
"""

from memex_llamaindex.memory_block import MemexMemoryBlock, SessionResolver, SessionScope
from memex_llamaindex.retriever import MemexRetriever

__all__ = ["MemexMemoryBlock", "MemexRetriever", "SessionResolver", "SessionScope"]
