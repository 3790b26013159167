"""robots.txt parsing and matching (RFC 9309), with the deciding line for every answer.

We keep our own matcher instead of protego because the debugger must name the line that decides
a URL. The parser follows the reference implementation (google/robotstxt) byte for byte where the
RFC is silent, so the conformance cases in ``../shared/data/robots`` pass:

* lines end at LF, CR or CRLF; a (possibly partial) UTF-8 BOM at the very start is skipped;
* ``#`` starts a comment; key and value are split at the first ``:`` (a missing colon is
  accepted when the line is exactly two words, as Google does, with a warning);
* keys are matched by prefix, case-insensitively, with the common typos Google accepts;
* consecutive ``user-agent`` lines form one group; a ``user-agent`` after a rule starts a new one;
  other records (``sitemap``, unknown keys) do not end a group;
* groups naming our product token are merged; otherwise the ``*`` groups are used;
* the longest matching pattern wins (length of the percent-normalised pattern), ``allow`` wins
  ties, an empty pattern matches nothing;
* ``*`` matches any run of characters, a trailing ``$`` anchors the end;
* pattern bytes outside ASCII are percent-encoded and ``%xx`` escapes upper-cased; the URL path
  is compared as given (callers pass URLs in their escaped form, as httpx produces them).

Fetching ``/robots.txt`` itself is always allowed; that exception lives in the fetcher, not
here (the conformance cases answer it like any other path). ``Crawl-delay`` (not in the RFC)
is read per group.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

__all__ = [
    "Decision",
    "Group",
    "Line",
    "RobotsFile",
    "parse_robots",
    "path_of",
    "product_token",
]

#: Lines longer than this are truncated (same bound as the reference parser).
MAX_LINE_BYTES = 2083 * 8 - 1

_BOM = b"\xef\xbb\xbf"
_WS = " \t\n\v\f\r"
_HEX = "0123456789abcdefABCDEF"

Kind = Literal["user-agent", "allow", "disallow", "sitemap", "crawl-delay", "unknown"]

# Non-standard directives we know and silently ignore (no "unknown directive" warning).
_KNOWN_EXTRAS = ("host", "clean-param", "noindex", "request-rate", "visit-time", "nofollow")


@dataclass(frozen=True)
class Line:
    """One key/value record of the file, with its 1-based physical line number."""

    number: int
    kind: Kind
    key: str
    value: str  # raw value (decoded for display)
    pattern: str  # percent-normalised value for allow/disallow, else ""
    text: str  # the physical line as written (without the line ending)


@dataclass
class Group:
    """A group: its user-agent lines and the rules that follow them."""

    agents: list[Line] = field(default_factory=list)
    rules: list[Line] = field(default_factory=list)
    crawl_delays: list[Line] = field(default_factory=list)

    @property
    def is_global(self) -> bool:
        return any(_is_global_agent(a.value) for a in self.agents)

    def names(self) -> list[str]:
        """Product tokens named by this group (``*`` excluded), lower-cased."""
        return [
            _extract_agent(a.value).lower() for a in self.agents if not _is_global_agent(a.value)
        ]


@dataclass(frozen=True)
class Decision:
    """The answer for one URL: allowed or not, and which line decided it."""

    url: str
    allowed: bool
    line: int | None  # deciding line number, None when no rule matched
    rule: str | None  # deciding line's text, or a short reason when no line decided
    group_line: int | None  # first user-agent line of the group used, None for "no group"
    group: str | None  # "specific" | "global" | None


@dataclass
class RobotsFile:
    """A parsed robots.txt: groups, sitemaps and parse warnings."""

    groups: list[Group]
    sitemaps: list[str]
    warnings: list[str]
    lines: list[Line]

    def decide(self, user_agent: str, url: str) -> Decision:
        """Decide ``url`` for the product token ``user_agent`` (compared case-insensitively)."""
        path = path_of(url)
        token = user_agent.lower()
        specific = [g for g in self.groups if token in g.names()]
        if specific:
            chosen, kind = specific, "specific"
        else:
            chosen, kind = [g for g in self.groups if g.is_global], "global"
        if not chosen:
            return Decision(url, True, None, "no group applies", None, None)
        best_allow: tuple[int, Line] | None = None
        best_disallow: tuple[int, Line] | None = None
        for group in chosen:
            for rule in group.rules:
                if not rule.pattern or not _matches(path, rule.pattern):
                    continue  # empty pattern: matches nothing that matters (priority 0)
                prio = len(rule.pattern)
                if rule.kind == "allow":
                    if best_allow is None or prio > best_allow[0]:
                        best_allow = (prio, rule)
                elif best_disallow is None or prio > best_disallow[0]:
                    best_disallow = (prio, rule)
        group_line = chosen[0].agents[0].number
        if best_disallow is not None and (best_allow is None or best_disallow[0] > best_allow[0]):
            line = best_disallow[1]
            return Decision(url, False, line.number, line.text.strip(), group_line, kind)
        if best_allow is not None:
            line = best_allow[1]
            return Decision(url, True, line.number, line.text.strip(), group_line, kind)
        return Decision(url, True, None, "no rule matches", group_line, kind)

    def allowed(self, user_agent: str, url: str) -> bool:
        """Shorthand for ``decide(...).allowed``."""
        return self.decide(user_agent, url).allowed

    def crawl_delay(self, user_agent: str) -> float | None:
        """The largest valid ``Crawl-delay`` of the groups that apply, if any."""
        token = user_agent.lower()
        chosen = [g for g in self.groups if token in g.names()] or [
            g for g in self.groups if g.is_global
        ]
        values: list[float] = []
        for group in chosen:
            for line in group.crawl_delays:
                try:
                    value = float(line.value)
                except ValueError:
                    continue
                if value >= 0 and value == value:  # reject NaN
                    values.append(value)
        return max(values) if values else None


def product_token(user_agent: str) -> str:
    """The product token of a User-Agent string: its leading ``[A-Za-z_-]`` run."""
    return _extract_agent(user_agent.strip())


def path_of(url: str) -> str:
    """Path, params and query of ``url`` (no fragment), as robots.txt matching sees it."""
    start = 2 if url.startswith("//") else 0
    early = _find_first_of(url, "/?;", start)
    proto_end = url.find("://", start)
    if proto_end == -1 or (early != -1 and early < proto_end):
        proto_end = start
    else:
        proto_end += 3
    path_start = _find_first_of(url, "/?;", proto_end)
    if path_start == -1:
        return "/"
    hash_pos = url.find("#", start)
    if hash_pos != -1 and hash_pos < path_start:
        return "/"
    path_end = len(url) if hash_pos == -1 else hash_pos
    path = url[path_start:path_end]
    return path if path.startswith("/") else "/" + path


def parse_robots(body: bytes, *, max_bytes: int | None = None) -> RobotsFile:
    """Parse robots.txt bytes. ``max_bytes`` (e.g. 500 KiB) keeps only whole lines within it."""
    warnings: list[str] = []
    body = _cut(body, max_bytes, warnings)
    head = body.lstrip()[:256].lower()
    if head.startswith((b"<!doctype", b"<html", b"<?xml", b"<head", b"<body")):
        warnings.append("looks like an HTML/XML page, not a robots.txt (error page?)")

    lines: list[Line] = []
    for number, raw in _physical_lines(body):
        line = _parse_line(number, raw, warnings)
        if line is not None:
            lines.append(line)

    groups: list[Group] = []
    sitemaps: list[str] = []
    current: Group | None = None
    seen_rule = False
    for line in lines:
        if line.kind == "user-agent":
            if current is None or seen_rule:
                current = Group()
                groups.append(current)
                seen_rule = False
            current.agents.append(line)
        elif line.kind in ("allow", "disallow"):
            if current is None:
                warnings.append(f"line {line.number}: rule before any user-agent line, ignored")
                continue
            seen_rule = True
            current.rules.append(line)
        elif line.kind == "crawl-delay":
            if current is not None:
                current.crawl_delays.append(line)
        elif line.kind == "sitemap":
            if not re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", line.value):
                warnings.append(f"line {line.number}: relative Sitemap URL {line.value!r}")
            sitemaps.append(line.value)

    warnings += _merged_groups(groups)
    return RobotsFile(groups=groups, sitemaps=sitemaps, warnings=warnings, lines=lines)


def _cut(body: bytes, max_bytes: int | None, warnings: list[str]) -> bytes:
    """``body`` within ``max_bytes``, whole lines only (a warning says what was dropped)."""
    if max_bytes is None or len(body) <= max_bytes:
        return body
    warnings.append(
        f"content past {max_bytes} bytes ignored (file is {len(body)} bytes); "
        "the cut line is dropped rather than shortened"
    )
    cut = body[:max_bytes]
    # A shortened rule would be broader than the written one (``Disallow: /private`` cut
    # to ``Disallow: /p``), so drop the partial last line.
    last_nl = max(cut.rfind(b"\n"), cut.rfind(b"\r"))
    return cut[: last_nl + 1] if last_nl >= 0 else b""


def _merged_groups(groups: list[Group]) -> list[str]:
    """A warning per user agent named in several groups (their rules are merged)."""
    named: dict[str, list[int]] = {}
    for group in groups:
        for name in set(group.names()):
            named.setdefault(name, []).append(group.agents[0].number)
    out = []
    for name, starts in sorted(named.items()):
        if len(starts) > 1 and name:
            where = ", ".join(str(n) for n in starts)
            out.append(
                f"user agent {name!r} is named in {len(starts)} groups "
                f"(lines {where}); they are merged"
            )
    return out


# --- internals ---------------------------------------------------------------------------


def _find_first_of(text: str, chars: str, start: int) -> int:
    positions = [p for p in (text.find(c, start) for c in chars) if p != -1]
    return min(positions) if positions else -1


def _physical_lines(body: bytes) -> list[tuple[int, bytes]]:
    """Split like the reference parser: LF, CR or CRLF; a leading (partial) BOM skipped."""
    skip = 0
    while skip < len(_BOM) and skip < len(body) and body[skip] == _BOM[skip]:
        skip += 1
    parts = re.split(rb"\r\n|\r|\n", body[skip:])
    return [(i, part[:MAX_LINE_BYTES]) for i, part in enumerate(parts, start=1)]


def _parse_line(number: int, raw: bytes, warnings: list[str]) -> Line | None:
    text = raw.decode("utf-8", errors="replace")
    content = raw.split(b"#", 1)[0].decode("latin-1").strip(_WS)
    if not content:
        return None
    sep = content.find(":")
    if sep == -1:
        # Google accepts "key value" when the line is exactly two words; RFC 9309 needs a colon.
        words = content.split()
        if len(words) != 2:
            warnings.append(f"line {number}: no colon, ignored: {text.strip()!r}")
            return None
        key, value = words
        warnings.append(f"line {number}: missing colon, read as {key}: {value}")
    else:
        key, value = content[:sep].strip(_WS), content[sep + 1 :].strip(_WS)
    if not key:
        return None
    kind = _key_kind(key)
    if kind == "unknown" and not key.lower().startswith(_KNOWN_EXTRAS):
        warnings.append(f"line {number}: unknown directive {key!r}")
    # ``value`` is latin-1 decoded so every byte maps to one char; restore it for display.
    value_bytes = value.encode("latin-1")
    shown = value_bytes.decode("utf-8", errors="replace")
    pattern = _escape_pattern(value_bytes) if kind in ("allow", "disallow") else ""
    if kind == "user-agent":
        shown = value  # only the ASCII token prefix matters
    return Line(number, kind, key, shown, pattern, text)


def _key_kind(key: str) -> Kind:
    k = key.lower()
    if k.startswith(("user-agent", "useragent", "user agent")):
        return "user-agent"
    if k.startswith("allow"):
        return "allow"
    if k.startswith(("disallow", "dissallow", "dissalow", "disalow", "diasllow", "disallaw")):
        return "disallow"
    if k.startswith(("sitemap", "site-map")):
        return "sitemap"
    if k.startswith("crawl-delay"):
        return "crawl-delay"
    return "unknown"


def _escape_pattern(value: bytes) -> str:
    """Percent-encode non-ASCII bytes and upper-case existing ``%xx`` escapes."""
    out: list[str] = []
    i = 0
    while i < len(value):
        ch = value[i]
        if ch == 0x25 and i + 2 < len(value) and _is_hex(value[i + 1]) and _is_hex(value[i + 2]):
            out.append("%" + chr(value[i + 1]).upper() + chr(value[i + 2]).upper())
            i += 3
            continue
        out.append(f"%{ch:02X}" if ch >= 0x80 else chr(ch))
        i += 1
    return "".join(out)


def _is_hex(byte: int) -> bool:
    return chr(byte) in _HEX


def _is_global_agent(value: str) -> bool:
    return value.startswith("*") and (len(value) == 1 or value[1] in _WS)


def _extract_agent(value: str) -> str:
    match = re.match(r"[A-Za-z_-]*", value)
    return match.group(0) if match else ""


def _matches(path: str, pattern: str) -> bool:
    """Reference wildcard match: ``*`` any run, trailing ``$`` end anchor, prefix otherwise."""
    if "*" not in pattern and not pattern.endswith("$"):
        return path.startswith(pattern)
    # Set of path positions that can match the pattern prefix read so far (no backtracking).
    positions = [0]
    n = len(path)
    for idx, ch in enumerate(pattern):
        if ch == "$" and idx == len(pattern) - 1:
            return positions[-1] == n
        if ch == "*":
            positions = list(range(positions[0], n + 1))
        else:
            positions = [p + 1 for p in positions if p < n and path[p] == ch]
            if not positions:
                return False
    return True
