"""Work to do when SIGTERM ends ``memex serve``, before the handler that was there acts.

uvicorn hands a SIGTERM it caught back to the handler that was installed before it once it
has shut down (the warm socket's, or the default: die of it), so a ``finally`` never runs
then: what must happen at the end (stop following, remove the run file) is chained here.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Callable
from typing import Any


def on_sigterm(action: Callable[[], None]) -> None:
    """Run ``action`` when SIGTERM ends the process, then let the handler that was there
    act. Only the main thread can install handlers; a process that ignores SIGTERM is not
    ended by it, so its ``finally`` blocks run and nothing is chained."""
    if threading.current_thread() is not threading.main_thread():
        return
    previous = signal.getsignal(signal.SIGTERM)
    if previous == signal.SIG_IGN or previous is None:
        return

    def act_then_pass_on(signum: int, frame: Any) -> None:
        with contextlib.suppress(Exception):  # exiting anyway: the failure must not stop it
            action()
        if callable(previous):
            previous(signum, frame)
            return
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)

    signal.signal(signal.SIGTERM, act_then_pass_on)
