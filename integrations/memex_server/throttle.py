"""Failed credentials, limited per client address and across all of them.

Every credential ``memex serve`` checks (an API request's bearer token, the viewer's sign-in
form: :func:`memex_server.auth.caller` and :func:`~memex_server.auth.checked`, one check)
that is neither a live agent key nor the operator secret counts as a failure of the
client's address. An address with ``[serve] auth_failures`` failures (default 5) within
``auth_window_s`` seconds (default 300) is refused, 429 ``too_many_failures`` with
``Retry-After``, without its credential being checked, until the oldest of those failures
is older than the window: a guesser gets ``auth_failures`` tries per window, whatever it
sends meanwhile.

Across addresses: once the server has seen ``auth_global_failures`` failures (default 100)
within the window, from anywhere, an address may fail only once per window, so a guesser
spread over many addresses is slowed five times more. An address without a recent failure
is never refused, so people signing in from elsewhere are not locked out by an attack.

What does not count: a request without credentials (nothing was guessed), a key that was
revoked but is otherwise right (an agent not yet given its new key is not guessing), and
a refused CSRF token or form. A success does not wipe an address's failures either: a
holder of one agent key could otherwise guess the operator secret between its own
requests.

Addresses are the ones uvicorn hands over (``request.client``): behind a reverse proxy
listed in ``[serve] trusted_proxies`` (:mod:`memex_server.network`; none by default), the
client's address from ``X-Forwarded-For``; otherwise the address that connected (behind an
unlisted proxy, the proxy's own, shared by every client). IPv6 addresses count per /64
network (one host usually holds a whole /64).

Memory is bounded: at most ``auth_tracked_addresses`` addresses (default 10,000), each with
at most ``auth_failures`` times, and ``auth_global_failures`` times in all. When the table
is full, the address that failed least recently is forgotten first.

Pure Python with an injectable clock, no web framework: the tests drive it directly.
"""

from __future__ import annotations

import ipaddress
import math
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memex_core.errors import MemexError

DEFAULT_FAILURES = 5
DEFAULT_WINDOW_S = 300.0
DEFAULT_GLOBAL_FAILURES = 100
DEFAULT_TRACKED_ADDRESSES = 10_000
#: An IPv6 client is counted by its network of this many leading bits.
IPV6_PREFIX = 64


@dataclass(frozen=True)
class AuthLimits:
    """The ``[serve] auth_*`` settings of config.toml. ``failures = 0`` turns the limit off
    (a server behind a gateway that limits already); ``global_failures = 0`` turns off the
    limit across addresses only."""

    failures: int = DEFAULT_FAILURES
    window_s: float = DEFAULT_WINDOW_S
    global_failures: int = DEFAULT_GLOBAL_FAILURES
    tracked_addresses: int = DEFAULT_TRACKED_ADDRESSES

    @classmethod
    def from_table(cls, table: Mapping[str, Any], config_path: Path | str) -> AuthLimits:
        def number(key: str, default: float, minimum: float, whole: bool) -> float:
            raw = table.get(key, default)
            ok = isinstance(raw, int | float) and not isinstance(raw, bool) and raw >= minimum
            if ok and whole and raw != int(raw):
                ok = False
            if not ok:
                kind = "a whole number" if whole else "a number"
                raise MemexError(
                    f"[serve] {key} = {raw!r} in {config_path} is not {kind} of at least "
                    f"{minimum:g}. {_MEANING[key]} Default: {default:g}."
                )
            return float(raw)

        return cls(
            failures=int(number("auth_failures", DEFAULT_FAILURES, 0, True)),
            window_s=number("auth_window_s", DEFAULT_WINDOW_S, 1, False),
            global_failures=int(number("auth_global_failures", DEFAULT_GLOBAL_FAILURES, 0, True)),
            tracked_addresses=int(
                number("auth_tracked_addresses", DEFAULT_TRACKED_ADDRESSES, 1, True)
            ),
        )


_MEANING = {
    "auth_failures": "It is how many wrong credentials one client address may send within "
    "auth_window_s before the server answers it 429 without checking (0: no limit).",
    "auth_window_s": "It is the window, in seconds, over which failed credentials are counted.",
    "auth_global_failures": "It is how many wrong credentials from all addresses together, "
    "within auth_window_s, make the server allow each address only one (0: no such limit).",
    "auth_tracked_addresses": "It is how many client addresses the server remembers "
    "failures of (the least recent are forgotten first).",
}


def address_key(host: str | None) -> str:
    """What failures are counted under: an IPv4 address, an IPv6 /64 network (an
    IPv4-mapped one as its IPv4 address), or the host as given (a test client's name)."""
    if not host:
        return "unknown"
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, IPV6_PREFIX), strict=False))
    return str(address)


class FailedAuth:
    """The failures of the last window, per address and in all; thread-safe."""

    def __init__(
        self, limits: AuthLimits | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.limits = limits or AuthLimits()
        self._clock = clock
        self._lock = threading.Lock()
        # Oldest failure first in each; addresses in the order they last failed.
        self._by_address: OrderedDict[str, deque[float]] = OrderedDict()
        self._everywhere: deque[float] = deque(maxlen=max(1, self.limits.global_failures))

    @property
    def enabled(self) -> bool:
        return self.limits.failures > 0

    @property
    def tracked(self) -> int:
        """How many addresses are remembered now."""
        return len(self._by_address)

    def _forget_old(self, now: float) -> None:
        """Drop addresses whose every failure is older than the window. Hold the lock."""
        horizon = now - self.limits.window_s
        while self._by_address:
            key, times = next(iter(self._by_address.items()))
            if times[-1] > horizon:
                return  # the least recent failure is recent: so are all the others
            del self._by_address[key]

    def _under_attack(self, now: float) -> bool:
        limit = self.limits.global_failures
        return (
            limit > 0
            and len(self._everywhere) >= limit
            and self._everywhere[0] > now - self.limits.window_s
        )

    def wait(self, host: str | None) -> int:
        """Whole seconds until ``host`` may present a credential again (0: now)."""
        if not self.enabled or not self._by_address:
            return 0  # the usual case, on every request: no recent failure anywhere
        key = address_key(host)
        with self._lock:
            now = self._clock()
            times = self._by_address.get(key)
            if not times:
                return 0
            horizon = now - self.limits.window_s
            while times and times[0] <= horizon:
                times.popleft()
            if not times:
                del self._by_address[key]
                return 0
            if len(times) >= self.limits.failures:
                until = times[0] + self.limits.window_s
            elif self._under_attack(now):
                until = times[-1] + self.limits.window_s
            else:
                return 0
            return max(1, math.ceil(until - now))

    def failed(self, host: str | None) -> None:
        """Count a wrong credential from ``host``."""
        if not self.enabled:
            return
        key = address_key(host)
        with self._lock:
            now = self._clock()
            self._forget_old(now)
            times = self._by_address.pop(key, None)
            if times is None:
                times = deque(maxlen=self.limits.failures)
                while len(self._by_address) >= self.limits.tracked_addresses:
                    self._by_address.popitem(last=False)
            times.append(now)
            self._by_address[key] = times  # now the most recent
            self._everywhere.append(now)
