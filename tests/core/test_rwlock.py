"""memex_core.rwlock: readers together, a writer alone, writers first, re-entrant."""

from __future__ import annotations

import threading
import time

import pytest

from memex_core.rwlock import LockUpgradeError, ReadWriteLock

WAIT = 5.0


def wait_until_waiting(lock: ReadWriteLock, *, writers: int = 0, readers: int = 0) -> None:
    """Poll (bounded) until at least ``writers`` threads wait for ``lock`` exclusive and ``readers``
    shared: only then does 'it has not got in' show it waits."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        if lock.writers_waiting >= writers and lock.readers_waiting >= readers:
            return
        time.sleep(0.001)
    raise AssertionError(f"no {writers} writer(s) and {readers} reader(s) waiting")


def test_readers_hold_it_together() -> None:
    lock = ReadWriteLock()
    both_inside = threading.Barrier(2, timeout=WAIT)

    def read() -> None:
        with lock.shared():
            both_inside.wait()  # times out (BrokenBarrierError) unless both are in at once

    threads = [threading.Thread(target=read) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT)
    assert not both_inside.broken
    assert lock.readers == 0


def test_a_writer_waits_for_readers_and_excludes_them() -> None:
    lock = ReadWriteLock()
    order: list[str] = []
    reading = threading.Event()
    release_reader = threading.Event()

    def reader() -> None:
        with lock.shared():
            reading.set()
            release_reader.wait(WAIT)
            order.append("reader done")

    def writer() -> None:
        with lock:
            order.append("writer in")

    r = threading.Thread(target=reader)
    r.start()
    reading.wait(WAIT)
    w = threading.Thread(target=writer)
    w.start()
    wait_until_waiting(lock, writers=1)
    assert order == []  # the writer waits while the reader holds it
    release_reader.set()
    r.join(WAIT)
    w.join(WAIT)
    assert order == ["reader done", "writer in"]


def test_new_readers_wait_behind_a_waiting_writer() -> None:
    lock = ReadWriteLock()
    order: list[str] = []
    first_in = threading.Event()
    release_first = threading.Event()

    def first_reader() -> None:
        with lock.shared():
            first_in.set()
            release_first.wait(WAIT)

    def writer() -> None:
        with lock:
            order.append("writer")

    def late_reader() -> None:
        with lock.shared():
            order.append("late reader")

    threads = [threading.Thread(target=first_reader)]
    threads[0].start()
    first_in.wait(WAIT)
    threads.append(threading.Thread(target=writer))
    threads[1].start()
    while not lock.writers_waiting:  # the writer is queued
        time.sleep(0.001)
    threads.append(threading.Thread(target=late_reader))
    threads[2].start()
    wait_until_waiting(lock, writers=1, readers=1)
    assert order == []
    release_first.set()
    for thread in threads:
        thread.join(WAIT)
    assert order == ["writer", "late reader"]


def test_re_entrant_both_ways_and_no_upgrade() -> None:
    lock = ReadWriteLock()
    with lock:
        with lock, lock.shared(), lock.shared():
            assert lock.held_exclusive()
        assert lock.held_exclusive()
    assert not lock.held_exclusive()
    with lock.shared():
        with lock.shared():
            assert lock.readers == 1
        with pytest.raises(LockUpgradeError, match="exclusive first"):
            lock.acquire()
    assert lock.readers == 0
    assert lock.acquire(blocking=False)
    lock.release()


def test_a_reader_nested_in_its_own_read_passes_a_waiting_writer() -> None:
    """A thread already reading may read again while a writer waits (else: deadlock)."""
    lock = ReadWriteLock()
    inside = threading.Event()
    writer_queued = threading.Event()
    nested_done = threading.Event()

    def reader() -> None:
        with lock.shared():
            inside.set()
            writer_queued.wait(WAIT)
            with lock.shared():
                nested_done.set()

    def writer() -> None:
        with lock:
            pass

    r = threading.Thread(target=reader)
    r.start()
    inside.wait(WAIT)
    w = threading.Thread(target=writer)
    w.start()
    while not lock.writers_waiting:
        time.sleep(0.001)
    writer_queued.set()
    assert nested_done.wait(WAIT)
    r.join(WAIT)
    w.join(WAIT)
    assert not r.is_alive() and not w.is_alive()


def test_exclusive_acquire_times_out_and_lets_readers_go_again() -> None:
    lock = ReadWriteLock()
    reading = threading.Event()
    done = threading.Event()

    def reader() -> None:
        with lock.shared():
            reading.set()
            done.wait(WAIT)

    r = threading.Thread(target=reader)
    r.start()
    reading.wait(WAIT)
    assert lock.acquire(timeout=0.05) is False
    assert not lock.acquire(blocking=False)
    with lock.shared():  # no writer waits any more: another reader gets in
        pass
    done.set()
    r.join(WAIT)
    with pytest.raises(RuntimeError, match="does not hold"):
        lock.release()


def test_max_readers_holds_the_rest_back_until_one_leaves() -> None:
    lock = ReadWriteLock(max_readers=2)
    inside = threading.Semaphore(0)
    leave = threading.Event()
    most = [0]
    count = [0]
    guard = threading.Lock()

    def read() -> None:
        with lock.shared():
            with guard:
                count[0] += 1
                most[0] = max(most[0], count[0])
            inside.release()
            leave.wait(WAIT)
            with lock.shared():  # nested: never held back by the cap
                pass
            with guard:
                count[0] -= 1

    threads = [threading.Thread(target=read) for _ in range(5)]
    for thread in threads:
        thread.start()
    assert inside.acquire(timeout=WAIT) and inside.acquire(timeout=WAIT)
    assert not inside.acquire(timeout=0.1)  # the third waits
    assert lock.readers == 2
    leave.set()
    for thread in threads:
        thread.join(WAIT)
    assert most[0] == 2 and lock.readers == 0
    with pytest.raises(ValueError):
        ReadWriteLock(max_readers=0)


def test_a_writer_that_reads_on_and_lets_go_lets_waiting_readers_in() -> None:
    lock = ReadWriteLock()
    lock.acquire()
    lock.acquire_shared()  # reads inside its own hold ...
    entered = threading.Event()

    def read() -> None:
        with lock.shared():
            entered.set()

    reader = threading.Thread(target=read)
    reader.start()
    wait_until_waiting(lock, readers=1)
    assert not entered.is_set()
    lock.release()  # ... and keeps reading after it lets the exclusive hold go
    assert entered.wait(WAIT)
    lock.release_shared()
    reader.join(WAIT)


def test_many_threads_hammering_it_never_see_a_writer_beside_anyone() -> None:
    lock = ReadWriteLock(max_readers=3)
    state = {"readers": 0, "writers": 0, "most": 0}
    guard = threading.Lock()
    failures: list[str] = []

    def reader() -> None:
        for _ in range(300):
            with lock.shared():
                with guard:
                    state["readers"] += 1
                    state["most"] = max(state["most"], state["readers"])
                    if state["writers"] or state["readers"] > 3:
                        failures.append(f"reader beside {state}")
                with guard:
                    state["readers"] -= 1

    def writer() -> None:
        for _ in range(100):
            with lock:
                with guard:
                    state["writers"] += 1
                    if state["writers"] > 1 or state["readers"]:
                        failures.append(f"writer beside {state}")
                with guard:
                    state["writers"] -= 1

    threads = [threading.Thread(target=reader) for _ in range(6)]
    threads += [threading.Thread(target=writer) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not any(thread.is_alive() for thread in threads)  # no lost wake-up
    assert not failures, failures[:3]
    assert lock.readers == 0 and not lock.held_exclusive()


def test_try_acquire_shared_takes_a_free_lock_and_never_waits() -> None:
    lock = ReadWriteLock()
    assert lock.try_acquire_shared()
    assert lock.try_acquire_shared()  # re-entrant, as acquire_shared is
    assert lock.readers == 1
    lock.release_shared()
    lock.release_shared()
    assert lock.readers == 0

    held = threading.Event()
    release = threading.Event()

    def write() -> None:
        with lock:
            held.set()
            release.wait(WAIT)

    writer = threading.Thread(target=write)
    writer.start()
    assert held.wait(WAIT)
    assert not lock.try_acquire_shared()  # a writer holds it: refused at once, not waited for
    release.set()
    writer.join(WAIT)
    assert lock.try_acquire_shared()
    lock.release_shared()


def test_try_acquire_shared_gives_way_to_a_waiting_writer() -> None:
    lock = ReadWriteLock()
    lock.acquire_shared()  # a search in flight

    def write() -> None:
        with lock:
            pass

    waiting = threading.Thread(target=write)
    waiting.start()
    deadline = time.monotonic() + WAIT
    while not lock.writers_waiting and time.monotonic() < deadline:
        time.sleep(0.001)
    other: list[bool] = []
    probe = threading.Thread(target=lambda: other.append(lock.try_acquire_shared()))
    probe.start()
    probe.join(WAIT)
    assert other == [False]  # writers first: a new reader would hold the writer up
    lock.release_shared()
    waiting.join(WAIT)
    assert not waiting.is_alive()


def test_try_acquire_shared_respects_max_readers() -> None:
    lock = ReadWriteLock(max_readers=1)
    lock.acquire_shared()
    other: list[bool] = []
    probe = threading.Thread(target=lambda: other.append(lock.try_acquire_shared()))
    probe.start()
    probe.join(WAIT)
    assert other == [False]
    lock.release_shared()
