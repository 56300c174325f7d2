"""The server's redaction and masking rules (event protocol 5.3-5.8), read from ``_protocol``.

The data (secret names, header names, patterns, word lists) is generated from the server's
``src/protocol``; the walks below follow ``redact.ts``, ``operator-rules.ts`` and
``mask-error-text.ts`` step by step so that the SDK and the server never disagree.
"""

from __future__ import annotations

import re
from typing import Any, Dict, FrozenSet, List, Optional, Sequence, Set, Tuple

from . import _protocol as P

REDACTED = P.REDACTED


def _compile(spec: Tuple[str, bool]) -> "re.Pattern[str]":
    source, ignore_case = spec
    return re.compile(source, re.ASCII | (re.IGNORECASE if ignore_case else 0))


def fold_name(name: str) -> str:
    """Lower case (locale-free), then every ``-`` and ``_`` removed (5.4)."""
    lower = _lower(name)
    return lower.replace("-", "").replace("_", "") if ("-" in lower or "_" in lower) else lower


def _lower(text: str) -> str:
    # JavaScript's toLowerCase differs from str.lower only outside ASCII in rare letters; names
    # that matter here are ASCII, and the fold must never depend on a locale.
    return text.lower()


_FOLDED_BUILT_INS: FrozenSet[str] = frozenset(fold_name(n) for n in P.BUILT_IN_SECRET_NAMES)
_KNOWN_HEADERS: FrozenSet[str] = frozenset(P.KNOWN_HEADER_NAMES)
_TOKEN = _compile(P.HEADER_TOKEN)
_RAW_HEADER_NAME = _compile(P.RAW_HEADER_NAME)


def is_built_in_secret_name(name: str) -> bool:
    return fold_name(name) in _FOLDED_BUILT_INS


def is_known_header_name(name: str) -> bool:
    return name.lower() in _KNOWN_HEADERS


# --- operator rules (5.5) -------------------------------------------------------------------
# A step is ("key", folded) | ("any-key", "") | ("elements", "").
Step = Tuple[str, str]
_GRAMMAR = re.compile("[*\\[\\]\x00-\x1f\x7f]")


def _valid_name(name: str) -> bool:
    # str.strip and JavaScript's trim agree on the blanks a copy-paste slip leaves.
    return name != "" and _GRAMMAR.search(name) is None and name.strip() == name


def _parse_segment(segment: str, first: bool) -> Optional[List[Step]]:
    if segment == "[*]":
        return [("elements", "")] if first else None
    has_elements = segment.endswith("[*]")
    head = segment[:-3] if has_elements else segment
    if head == "*":
        step: Step = ("any-key", "")
    elif _valid_name(head):
        step = ("key", fold_name(head))
    else:
        return None
    return [step, ("elements", "")] if has_elements else [step]


def parse_rule(rule: Any) -> Optional[Tuple[str, Any]]:
    """("any-depth", folded) or ("path", steps), or None when the rule is malformed."""
    if not isinstance(rule, str) or rule == "":
        return None
    if rule.startswith("**."):
        name = rule[3:]
        if "." in name or not _valid_name(name):
            return None
        return ("any-depth", fold_name(name))
    steps: List[Step] = []
    for index, segment in enumerate(rule.split(".")):
        parsed = _parse_segment(segment, index == 0)
        if parsed is None:
            return None
        steps.extend(parsed)
    return ("path", tuple(steps))


def is_valid_rule(rule: Any) -> bool:
    return parse_rule(rule) is not None


# --- redaction walk (5.3, 5.6, 5.7) ---------------------------------------------------------
Cursor = Tuple[Tuple[Step, ...], int]


class Redactor:
    """One compiled rule set; ``redact`` returns a redacted copy of JSON-shaped data."""

    def __init__(self, rules: Sequence[str] = ()) -> None:
        any_depth: Set[str] = set()
        cursors: List[Cursor] = []
        self.malformed: List[str] = []
        for rule in rules:
            parsed = parse_rule(rule)
            if parsed is None:
                self.malformed.append(str(rule))
            elif parsed[0] == "any-depth":
                any_depth.add(parsed[1])
            elif parsed[1]:
                cursors.append((parsed[1], 0))
        self._any_depth = frozenset(any_depth)
        self._root: Tuple[Cursor, ...] = tuple(cursors)
        self._verdicts: Dict[str, Tuple[str, bool]] = {}

    def is_secret_name(self, name: str) -> bool:
        folded = fold_name(name)
        return folded in _FOLDED_BUILT_INS or folded in self._any_depth

    def _verdict(self, key: str) -> Tuple[str, bool]:
        verdict = self._verdicts.get(key)
        if verdict is None:
            folded = fold_name(key)
            verdict = (folded, folded in _FOLDED_BUILT_INS or folded in self._any_depth)
            if len(self._verdicts) >= 10_000:
                self._verdicts.clear()
            self._verdicts[key] = verdict
        return verdict

    def redact(self, value: Any) -> Any:
        return self._walk(value, self._root)

    def redact_in_place(self, value: Any) -> Any:
        """The same redaction written into ``value``, a fresh JSON tree the caller owns alone."""
        return self._walk_in_place(value, self._root)

    def _walk_in_place(self, value: Any, cursors: Sequence[Cursor]) -> Any:
        kind = type(value)
        if kind is str:
            return self._header_block(value) if ("\r\n" in value or value.endswith(_MARKER_TAIL)) else value
        if kind is list:
            shaped = self._shape_indices(value) if value and type(value[0]) is str else set()
            matched, following = _step_element(cursors)
            for i, item in enumerate(value):
                if matched or i in shaped:
                    value[i] = REDACTED
                else:
                    kind = type(item)
                    if kind is str:
                        if "\r\n" in item or item.endswith(_MARKER_TAIL):
                            value[i] = self._header_block(item)
                    elif kind is list or kind is dict:
                        self._walk_in_place(item, following)
            return value
        if kind is dict:
            value_key = "value" in value and self._name_value_object(value)
            verdicts = self._verdicts
            for key, item in value.items():
                verdict = verdicts.get(key) or self._verdict(key)
                if cursors:
                    matched, following = _step_key(cursors, verdict[0])
                else:
                    matched, following = False, ()
                if matched or verdict[1] or (value_key and key == "value"):
                    value[key] = REDACTED
                else:
                    kind = type(item)
                    if kind is str:
                        if "\r\n" in item or item.endswith(_MARKER_TAIL):
                            value[key] = self._header_block(item)
                    elif kind is list or kind is dict:
                        self._walk_in_place(item, following)
            return value
        return value

    def mask_header_lines(self, text: str) -> str:
        return self._header_block(text)

    def _replaceable(self, value: Any) -> bool:
        return not (isinstance(value, str) and is_known_header_name(value))

    def _shape_indices(self, items: List[Any]) -> Set[int]:
        if len(items) == 2 and isinstance(items[0], str):
            return {1} if self.is_secret_name(items[0]) and self._replaceable(items[1]) else set()
        if not items or len(items) % 2:
            return set()
        known = False
        for i in range(0, len(items), 2):
            name = items[i]
            if not isinstance(name, str) or not _RAW_HEADER_NAME.search(name):
                return set()
            if not isinstance(items[i + 1], str):
                return set()
            known = known or is_known_header_name(name)
        if not known:
            return set()
        return {i + 1 for i in range(0, len(items), 2) if self.is_secret_name(items[i]) and self._replaceable(items[i + 1])}

    def _name_value_object(self, source: Dict[str, Any]) -> bool:
        if "value" not in source:
            return False
        name, key = source.get("name"), source.get("key")
        label = name if isinstance(name, str) else key if isinstance(key, str) else None
        return label is not None and self.is_secret_name(label) and self._replaceable(source["value"])

    def _header_line(self, line: str) -> str:
        colon = line.find(":")
        if colon <= 0:
            return line
        token = line[:colon]
        if not _TOKEN.search(token) or not self.is_secret_name(token):
            return line
        start = colon + 1
        while start < len(line) and line[start] in " \t":
            start += 1
        return line if start >= len(line) else line[:start] + REDACTED

    def _header_block(self, text: str) -> str:
        if "\r\n" not in text and not ends_with_truncation_marker(text):
            return text
        lines = text.split("\r\n")
        changed = False
        for i, line in enumerate(lines):
            if line == "" and i > 0:
                break
            masked = self._header_line(line)
            if masked != line:
                lines[i] = masked
                changed = True
        return "\r\n".join(lines) if changed else text

    def _walk(self, value: Any, cursors: Sequence[Cursor]) -> Any:
        if isinstance(value, str):
            return self._header_block(value)
        if isinstance(value, list):
            shaped = self._shape_indices(value)
            matched, following = _step_element(cursors)
            return [REDACTED if (matched or i in shaped) else self._walk(item, following) for i, item in enumerate(value)]
        if isinstance(value, dict):
            value_key = self._name_value_object(value)
            out: Dict[str, Any] = {}
            for key, item in value.items():
                folded, secret = self._verdict(key)
                matched, following = _step_key(cursors, folded)
                replace = matched or secret or (value_key and key == "value")
                out[key] = REDACTED if replace else self._walk(item, following)
            return out
        return value


def _step_key(cursors: Sequence[Cursor], folded: str) -> Tuple[bool, Tuple[Cursor, ...]]:
    if not cursors:
        return False, ()
    matched = False
    following: List[Cursor] = []
    for steps, index in cursors:
        kind, name = steps[index]
        if kind == "elements" or (kind == "key" and name != folded):
            continue
        if index + 1 == len(steps):
            matched = True
        else:
            following.append((steps, index + 1))
    return matched, tuple(following)


def _step_element(cursors: Sequence[Cursor]) -> Tuple[bool, Tuple[Cursor, ...]]:
    if not cursors:
        return False, ()
    matched = False
    following: List[Cursor] = []
    for steps, index in cursors:
        if steps[index][0] != "elements":
            continue
        if index + 1 == len(steps):
            matched = True
        else:
            following.append((steps, index + 1))
    return matched, tuple(following)


_MARKER_TAIL = " characters removed]"
_MARKER_HEAD = "[TRUNCATED: "


def ends_with_truncation_marker(text: str) -> bool:
    if not text.endswith(_MARKER_TAIL):
        return False
    start = text.rfind(_MARKER_HEAD)
    if start < 0:
        return False
    digits = text[start + len(_MARKER_HEAD): len(text) - len(_MARKER_TAIL)]
    return digits != "" and all("0" <= c <= "9" for c in digits)
