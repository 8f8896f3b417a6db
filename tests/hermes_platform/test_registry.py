"""The process-wide declaration registry (reference §7)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

import pytest

from hermes_platform import declaration
from hermes_platform.declaration import Declaration


@pytest.fixture(autouse=True)
def empty_registry() -> Iterator[None]:
    """Start and end every test with an empty registry and the original hook."""
    saved_hook = declaration.on_change
    declaration.on_change = None
    declaration.clear()
    try:
        yield
    finally:
        declaration.on_change = None
        declaration.clear()
        declaration.on_change = saved_hook


def make(name: str = "vendor") -> Declaration:
    return declaration.parse_declaration(
        name,
        {"linux": {"presence": "executable", "location": "/opt/vendor/bin/vendor"}},
        {"app": True},
        where="test",
    )


def counting_hook() -> tuple[list[int], Callable[[], None]]:
    calls: list[int] = []

    def hook() -> None:
        calls.append(1)

    return calls, hook


def run_with_timeout(target: Callable[[], None], seconds: float = 5.0) -> None:
    """Run *target* in a thread; fail instead of hanging if it deadlocks."""
    errors: list[BaseException] = []

    def body() -> None:
        try:
            target()
        except BaseException as exc:
            errors.append(exc)

    worker = threading.Thread(target=body, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), "registry call deadlocked"
    if errors:
        raise errors[0]


def test_register_makes_the_same_object_visible() -> None:
    decl = make()
    declaration.register("vendor", decl)
    assert declaration.lookup("vendor") is decl


def test_lookup_of_an_unregistered_name_is_none() -> None:
    assert declaration.lookup("nobody") is None


def test_unregister_hides_the_declaration() -> None:
    declaration.register("vendor", make())
    declaration.unregister("vendor")
    assert declaration.lookup("vendor") is None


def test_unregister_of_an_absent_name_is_not_an_error() -> None:
    declaration.unregister("nobody")
    assert declaration.lookup("nobody") is None


def test_clear_empties_everything() -> None:
    declaration.register("a", make("a"))
    declaration.register("b", make("b"))
    declaration.clear()
    assert declaration.lookup("a") is None
    assert declaration.lookup("b") is None
    assert declaration.names() == []


def test_names_lists_registered_servers_sorted() -> None:
    declaration.register("b", make("b"))
    declaration.register("a", make("a"))
    assert declaration.names() == ["a", "b"]


def test_last_registration_wins() -> None:
    first, second = make(), make()
    declaration.register("vendor", first)
    declaration.register("vendor", second)
    assert declaration.lookup("vendor") is second


def test_registry_key_is_the_server_name_not_the_declaration_name() -> None:
    decl = make("declared-name")
    declaration.register("configured-name", decl)
    assert declaration.lookup("configured-name") is decl
    assert declaration.lookup("declared-name") is None


@pytest.mark.parametrize("other", ["Vendor", "VENDOR", " vendor", "vendor ", "vendor\n", ""])
def test_lookup_is_exact_match_only(other: str) -> None:
    declaration.register("vendor", make())
    assert declaration.lookup(other) is None


@pytest.mark.parametrize("not_a_declaration", [None, "vendor", {"app": None}, object()])
def test_register_refuses_a_non_declaration(not_a_declaration: object) -> None:
    with pytest.raises(TypeError):
        declaration.register("vendor", not_a_declaration)  # type: ignore[arg-type]
    assert declaration.lookup("vendor") is None


def test_refused_registration_does_not_notify() -> None:
    calls, hook = counting_hook()
    declaration.on_change = hook
    with pytest.raises(TypeError):
        declaration.register("vendor", "nope")  # type: ignore[arg-type]
    assert calls == []


def test_on_change_is_called_once_per_mutation() -> None:
    calls, hook = counting_hook()
    declaration.on_change = hook
    declaration.register("vendor", make())
    declaration.unregister("vendor")
    declaration.register("vendor", make())
    declaration.clear()
    assert len(calls) == 4


def test_on_change_fires_even_when_nothing_changed() -> None:
    calls, hook = counting_hook()
    declaration.on_change = hook
    declaration.unregister("nobody")
    declaration.clear()
    assert len(calls) == 2


def test_on_change_is_not_called_by_lookup() -> None:
    declaration.register("vendor", make())
    calls, hook = counting_hook()
    declaration.on_change = hook
    declaration.lookup("vendor")
    declaration.names()
    assert calls == []


def test_on_change_sees_the_mutation_already_applied() -> None:
    decl = make()
    seen: list[Declaration | None] = []
    declaration.on_change = lambda: seen.append(declaration.lookup("vendor"))
    declaration.register("vendor", decl)
    declaration.unregister("vendor")
    assert seen == [decl, None]


def test_on_change_runs_outside_the_lock() -> None:
    decl = make()
    seen: list[Declaration | None] = []

    def hook() -> None:
        # Re-entering the registry from the hook must not deadlock.
        seen.append(declaration.lookup("vendor"))
        declaration.names()

    declaration.on_change = hook
    run_with_timeout(lambda: declaration.register("vendor", decl))
    run_with_timeout(declaration.clear)
    assert seen == [decl, None]


def test_on_change_runs_in_the_callers_thread() -> None:
    threads: list[threading.Thread] = []
    declaration.on_change = lambda: threads.append(threading.current_thread())
    declaration.register("vendor", make())
    assert threads == [threading.current_thread()]


def test_add_change_listener_is_called_after_every_mutation() -> None:
    calls, listener = counting_hook()
    declaration.add_change_listener(listener)
    try:
        declaration.register("vendor", make())
        declaration.unregister("vendor")
        declaration.register("vendor", make())
        declaration.clear()
    finally:
        declaration.remove_change_listener(listener)
    assert len(calls) == 4


def test_listener_and_on_change_both_fire() -> None:
    hook_calls, hook = counting_hook()
    listener_calls, listener = counting_hook()
    declaration.on_change = hook
    declaration.add_change_listener(listener)
    try:
        declaration.register("vendor", make())
    finally:
        declaration.remove_change_listener(listener)
    assert (len(hook_calls), len(listener_calls)) == (1, 1)


def test_removed_listener_is_not_called() -> None:
    calls, listener = counting_hook()
    declaration.add_change_listener(listener)
    declaration.remove_change_listener(listener)
    declaration.register("vendor", make())
    assert calls == []


def test_removing_an_unknown_listener_is_not_an_error() -> None:
    declaration.remove_change_listener(lambda: None)


def test_listener_may_use_the_registry_without_deadlock() -> None:
    seen: list[list[str]] = []

    def listener() -> None:
        seen.append(declaration.names())

    declaration.add_change_listener(listener)
    try:
        run_with_timeout(lambda: declaration.register("vendor", make()))
    finally:
        declaration.remove_change_listener(listener)
    assert seen == [["vendor"]]


def test_concurrent_registrations_are_all_kept() -> None:
    def register_many(prefix: str) -> None:
        for index in range(50):
            declaration.register(f"{prefix}{index}", make())

    workers = [threading.Thread(target=register_many, args=(p,)) for p in "abcd"]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(10)
    assert len(declaration.names()) == 200
