"""Newer syntax on an older parser: the gate runs in Pants' interpreter (3.9 for Pants 2.17), while a
repository's code may use `match` statements (3.10) or `except*` (3.11). `downgrade` rewrites exactly
those statement headers into 3.9 syntax that keeps every line where it was and keeps each pattern's
text as a string, so symbol boundaries, line numbers, names, calls and a change inside a pattern are
all still seen. Everything else is left as it is (other newer syntax stays a SourceError)."""
from __future__ import annotations

import io
import tokenize
from typing import List, Optional, Tuple

_OPENERS = {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}
_SKIP = (tokenize.NL, tokenize.COMMENT)


def _logical_lines(source: str) -> List[List[tokenize.TokenInfo]]:
    lines: List[List[tokenize.TokenInfo]] = []
    current: List[tokenize.TokenInfo] = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type in (tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING) or tok.type in _SKIP:
            continue
        if tok.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
            if current:
                lines.append(current)
            current = []
            continue
        current.append(tok)
    return lines


def _string(text: str) -> str:
    """A triple-quoted literal holding `text`, with the same number of lines."""
    return '"""' + text.replace("\\", "\\\\").replace('"', '\\"') + '"""'


def downgrade(source: str) -> Optional[str]:
    """`source` with `match`/`case` headers and `except*` rewritten for an older parser, or None
    when it holds none of them (or cannot be tokenized)."""
    try:
        lines = _logical_lines(source)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None
    starts = [0]
    for line in source.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))

    def offset(pos: Tuple[int, int]) -> int:
        return starts[pos[0] - 1] + pos[1]

    edits: List[Tuple[int, int, str]] = []  # (start, end, replacement)
    for toks in lines:
        first = toks[0]
        if first.type == tokenize.NAME and first.string in ("match", "case") and len(toks) > 2 \
                and toks[-1].type == tokenize.OP and toks[-1].string == ":" \
                and not (toks[1].type == tokenize.OP and toks[1].string in ("=", ".", ":", ",", ")")):
            body = source[offset(toks[1].start):offset(toks[-1].start)]
            if first.string == "match":
                edits.append((offset(first.start), offset(toks[-1].end), f"if ({body}):"))
                continue
            depth, guard = 0, None
            for i, tok in enumerate(toks[1:-1], start=1):
                if tok.type == tokenize.OP:
                    depth += _OPENERS.get(tok.string, 0)
                elif depth == 0 and tok.type == tokenize.NAME and tok.string == "if":
                    guard = i
                    break
            if guard is None:
                header = f"if ({_string(body)},):"
            else:
                pattern = source[offset(toks[1].start):offset(toks[guard].start)]
                condition = source[offset(toks[guard].end):offset(toks[-1].start)]
                header = f"if ({_string(pattern)}, {condition.strip()}):"
            edits.append((offset(first.start), offset(toks[-1].end), header))
        for a, b in zip(toks, toks[1:]):
            if a.type == tokenize.NAME and a.string == "except" and b.type == tokenize.OP and b.string == "*":
                edits.append((offset(b.start), offset(b.end), " "))
    if not edits:
        return None
    out = source
    for start, end, text in sorted(edits, reverse=True):
        out = out[:start] + text + out[end:]
    return out
