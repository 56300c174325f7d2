"""Masking of credential-shaped text in error messages and kept stacks (event protocol 5.8),
ported step by step from the server's ``mask-error-text.ts`` around the generated patterns."""

from __future__ import annotations

import re
from typing import List, Optional, Tuple

from . import _protocol as P
from ._rules import _FOLDED_BUILT_INS, REDACTED, _compile, fold_name

_PRIVATE_KEY_BLOCK = _compile(P.PRIVATE_KEY_BLOCK)
_JWT = _compile(P.JWT)
_PROVIDER_KEYS = _compile(P.PROVIDER_KEYS)
_SLACK = _compile(P.SLACK_WEBHOOK)
_DISCORD = _compile(P.DISCORD_WEBHOOK)
_DIGEST = _compile(P.DIGEST_PARAMS)
_SCHEME = _compile(P.SCHEME_CREDENTIAL)
_LOWER_WORD = re.compile("[a-z]+\\Z")
_NAME_CHAR = re.compile("[A-Za-z0-9_.-]")
_WORD_SPLIT = re.compile("[-_.]+")


def _scheme(match: "re.Match[str]") -> str:
    credential = match.group(2)
    if len(credential) < P.MIN_SCHEME_CREDENTIAL or _LOWER_WORD.match(credential):
        return match.group(0)
    return match.group(1) + REDACTED


def _mask_userinfo(text: str) -> str:
    out: List[str] = []
    copied = 0
    start_from = 0
    while True:
        sep = text.find("://", start_from)
        if sep < 0:
            break
        start = sep + 3
        end = start
        last_at = -1
        while end < len(text) and text[end] not in P.AUTHORITY_END:
            if text[end] == "@":
                last_at = end
            end += 1
        if last_at > start:
            out.append(text[copied:start] + REDACTED)
            copied = last_at
        start_from = max(end, start)
    return text if copied == 0 else "".join(out) + text[copied:]


def split_name_words(name: str) -> List[str]:
    words: List[str] = []
    for part in _WORD_SPLIT.split(name):
        word = ""
        for i, ch in enumerate(part):
            prev = part[i - 1] if i > 0 else ""
            nxt = part[i + 1] if i + 1 < len(part) else ""
            upper = "A" <= ch <= "Z"
            prev_lower_or_digit = prev != "" and (("a" <= prev <= "z") or ("0" <= prev <= "9"))
            acronym_end = ("A" <= prev <= "Z") and ("a" <= nxt <= "z") if prev and nxt else False
            if word != "" and upper and (prev_lower_or_digit or acronym_end):
                words.append(word.lower())
                word = ""
            word += ch
        if word != "":
            words.append(word.lower())
    return words


def is_secret_looking_name(name: str, before: str = "") -> bool:
    folded = fold_name(name)
    if folded in _FOLDED_BUILT_INS:
        return True
    if folded == "key" and before in ("?", "&"):
        return True
    words = split_name_words(name)
    last = words[-1] if words else ""
    previous = words[-2] if len(words) > 1 else ""
    if last in P.SECRET_LAST_WORDS:
        return not (last == "token" and previous in P.PUBLIC_TOKEN_QUALIFIERS)
    if last == "key":
        return previous in P.KEY_QUALIFIERS
    return last.endswith("key") and last[:-3] in P.KEY_QUALIFIERS


def _name_before(text: str, sep: int, floor: int) -> Optional[Tuple[str, str, int]]:
    end = sep
    while end > floor and text[end - 1] in " \t":
        end -= 1
    quote = ""
    if end - 1 >= 0 and text[end - 1] in "\"'":
        quote = '\\"' if (end - 2 >= 0 and text[end - 2] == "\\" and text[end - 1] == '"') else text[end - 1]
        end -= len(quote)
    start = end
    while start > floor and end - start <= P.MAX_NAME_LENGTH and _NAME_CHAR.match(text[start - 1]):
        start -= 1
    if start == end or end - start > P.MAX_NAME_LENGTH:
        return None
    if quote and text[max(0, start - len(quote)):start] != quote:
        return None
    return text[start:end], quote, start - len(quote)


def _read_value(text: str, pos: int, quote: str) -> Tuple[int, int]:
    if quote:
        start = pos + len(quote)
        end = start
        while end < len(text) and text[end] not in "\r\n":
            if text.startswith(quote, end):
                break
            end += 2 if (quote == '"' and text[end] == "\\") else 1
        return start, min(end, len(text))
    end = pos
    while end < len(text) and text[end] not in P.VALUE_END:
        if text.startswith(REDACTED, end):
            end += len(REDACTED)
        elif text[end] == "\\" and end + 1 < len(text) and text[end + 1] == '"':
            break
        else:
            end += 1
    return pos, end


def mask_assignments(text: str) -> str:
    out: List[str] = []
    copied = 0
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch != "=" and ch != ":":
            i += 1
            continue
        found = _name_before(text, i, copied)
        if found is None or not is_secret_looking_name(found[0], text[found[2] - 1] if found[2] > 0 else ""):
            i += 1
            continue
        pos = i + 1
        while pos < n and text[pos] in " \t":
            pos += 1
        if text.startswith('\\"', pos):
            quote = '\\"'
        else:
            quote = text[pos] if pos < n and text[pos] in "\"'" else ""
        if ch == ":" and found[1] == "" and quote == "":
            i += 1
            continue
        start, end = _read_value(text, pos, quote)
        content = text[start:end]
        if content != "" and content != REDACTED:
            out.append(text[copied:start] + REDACTED)
            copied = end
        i = max(i + 1, end)
    return text if copied == 0 else "".join(out) + text[copied:]


def mask_credential_text(text: str) -> str:
    """Private keys, URL userinfo, webhook secrets, JWTs, provider keys, auth schemes, assignments."""
    out = _PRIVATE_KEY_BLOCK.sub(REDACTED, text)
    out = _mask_userinfo(out)
    out = _SLACK.sub(lambda m: m.group(1) + REDACTED, out)
    out = _DISCORD.sub(lambda m: m.group(1) + REDACTED, out)
    out = _JWT.sub(REDACTED, out)
    out = _PROVIDER_KEYS.sub(REDACTED, out)
    out = _DIGEST.sub(lambda m: m.group(1) + REDACTED, out)
    out = _SCHEME.sub(_scheme, out)
    return mask_assignments(out)
