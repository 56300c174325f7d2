"""The sdk-only host tags of event protocol 11.3 as Python values (test/sdk-cases/README.md).

Most become a value at once; the ones that depend on where they sit (a member whose reading
raises belongs to its parent, ``$cycle`` and ``$ref`` point into the call's arguments) become
placeholders that ``place_host_values`` puts in place once the call's arguments are expanded.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Callable, Dict, Iterator, List, Tuple


class Pointer:
    def __init__(self, pointer: str) -> None:
        self.pointer = pointer


class ThrowingGetter:
    def __init__(self, message: str) -> None:
        self.message = message


class RaisingMapping(Mapping):  # type: ignore[type-arg]
    """Python has no getters on a dict: a mapping whose reading of one key raises stands for one."""

    def __init__(self, items: Dict[str, Any], raising: Dict[str, str]) -> None:
        self._items = items
        self._raising = raising

    def __getitem__(self, key: str) -> Any:
        if key in self._raising:
            raise RuntimeError(self._raising[key])
        return self._items[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)


def _segments(pointer: str) -> List[str]:
    body = pointer[1:] if pointer.startswith("#") else pointer
    if body == "":
        return []
    if not body.startswith("/"):
        raise ValueError(f"{pointer} is not a JSON pointer")
    return [part.replace("~1", "/").replace("~0", "~") for part in body[1:].split("/")]


def follow(value: Any, pointer: str) -> Any:
    """Object keys, list indexes, and ``length`` of a string, list or byte string."""
    current = value
    for segment in _segments(pointer):
        if isinstance(current, Mapping):
            current = current[segment]
        elif isinstance(current, (list, tuple)) and segment.isdigit():
            current = current[int(segment)]
        elif segment == "length" and isinstance(current, (str, bytes, bytearray, list, tuple)):
            current = len(current)
        else:
            current = getattr(current, segment)
    return current


def _projection(pointer: str) -> Callable[[Any], Any]:
    return lambda value: follow(value, pointer)


def _throwing(message: str) -> Callable[[Any], Any]:
    def project(_value: Any) -> Any:
        raise RuntimeError(message)
    return project


def host_tag(tag: str, argument: Any, again: Callable[[Any], Any]) -> Any:
    value = again(argument)
    if tag == "$error":
        kind = type(str(value.get("name", "Error")), (Exception,), {})
        return kind(str(value["message"]))
    if tag == "$date":
        return datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    if tag == "$bigint":
        return int(value)
    if tag == "$number":
        return float(value)
    if tag == "$undefined":
        return _UNDEFINED
    if tag == "$utf16":
        return bytes(b for unit in value for b in unit.to_bytes(2, "little")).decode("utf-16-le", "surrogatepass")
    if tag == "$map":
        return {key: item for key, item in value}
    if tag == "$set":
        return set(value)
    if tag == "$buffer":
        return value.encode("utf-8")
    if tag == "$projection":
        return _projection(value)
    if tag == "$throwingProjection":
        return _throwing(value)
    if tag == "$throwingGetter":
        return ThrowingGetter(value)
    if tag in ("$cycle", "$ref"):
        return Pointer(value)
    raise ValueError(f"unknown tag {tag}")


class _Undefined:
    """JSON has no undefined; a key holding it is left out (what a dict cannot say otherwise)."""


_UNDEFINED = _Undefined()


def place_host_values(root: Dict[str, Any]) -> Dict[str, Any]:
    """Puts placeholders in place inside ``root`` (a call's expanded arguments); returns ``root``."""
    found: List[Tuple[Any, Any, Any]] = []
    raising: List[Tuple[Any, Any, Dict[str, Any], Dict[str, str]]] = []

    def visit(node: Any, parent: Any, key: Any) -> None:
        if isinstance(node, dict):
            getters = {k: v.message for k, v in node.items() if isinstance(v, ThrowingGetter)}
            if getters:
                raising.append((parent, key, node, getters))
            for k, item in list(node.items()):
                if isinstance(item, _Undefined):
                    del node[k]
                elif isinstance(item, Pointer):
                    found.append((node, k, item))
                else:
                    visit(item, node, k)
        elif isinstance(node, list):
            for index, item in enumerate(node):
                if isinstance(item, Pointer):
                    found.append((node, index, item))
                else:
                    visit(item, node, index)

    visit(root, None, None)
    for parent, key, holder in found:
        parent[key] = follow(root, holder.pointer)
    for parent, key, node, getters in raising:
        items = {k: v for k, v in node.items() if k not in getters}
        items.update({k: None for k in getters})
        replaced = RaisingMapping(items, getters)
        if parent is None:
            return replaced  # type: ignore[return-value]
        parent[key] = replaced
    return root
