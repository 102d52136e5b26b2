"""The program Claude Code and Codex run at each hook event: ``python -S hook.py <agent>
--home HOME`` (see :mod:`memex_capture.hook_main` for what it does and what the agents
send). It stays this small because a script is compiled at every start while an
imported module's bytecode is cached; standard library only, and it exits 0 always.
"""

import os
import sys

# ``python -S hook.py`` puts this folder (memex_capture/) first on sys.path; the package
# is imported by its name, so its parent folder must be there instead.
_PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if _PACKAGE_PARENT not in sys.path:
    sys.path.insert(0, _PACKAGE_PARENT)

try:
    from memex_capture.hook_main import main
except BaseException as error:  # a broken install must not break the agent either
    try:
        sys.stderr.write(f"memex capture hook: cannot start ({type(error).__name__}: {error})\n")
        sys.stderr.flush()
    finally:
        os._exit(0)

# os._exit skips interpreter teardown (atexit, flushing closed pipes): nothing is
# buffered, every write went straight to its descriptor.
os._exit(main())
