"""Is this page a wall (a login form or a challenge in place of the content) — judged by *where*
the form or widget sits and how much else the page says, never by a string anywhere in it.

A wall stops the origin (verdict ``blocked``, exit 4: "ask the site owner"), so it must be
certain. Many ordinary pages carry the same ingredients as a wall: a login box in the site
header, a comment form with a reCAPTCHA widget under an article, ``"g-recaptcha"`` inside an
inline script's configuration object. What tells a wall apart is that the form or challenge *is*
the page's main content:

``login-wall``
    a visible password field that sits in the page's main content region (``<main>``,
    ``role=main`` or ``<article>`` when the page marks one; never inside ``<header>``, ``<nav>``,
    ``<aside>``, ``<footer>``, a ``<dialog>``, their ARIA roles, or a container named as page
    chrome — ``masthead``, ``dropdown``, ``headerAccount`` …) while the page has little other
    text: under :data:`WALL_MAX_TEXT` characters and at most :data:`WALL_MAX_BLOCKS`
    paragraph-sized text blocks outside the form and the page chrome. Also: a redirect to a
    login URL that we did not ask for.
``captcha``
    a challenge page: a challenge widget as an element (``g-recaptcha``/``h-captcha``/Turnstile
    classes, a challenge ``iframe``, Cloudflare's challenge form) or a known interstitial phrase
    in the title or text ("Just a moment...", "Verify you are human"), on a page with a short
    body as above; or the ``cf-mitigated: challenge`` header. Text inside ``<script>``,
    ``<style>``, comments and attribute values other than ``class``/``id``/``src`` is never
    looked at.
``access-denied``
    a 200 page whose title or heading says the request was refused ("Access Denied",
    "Request blocked", "403 Forbidden") and whose body is short.

Everything else — even a page with a password field and no records at all — is not a wall:
the run's drift gate judges it (a redesign is ``drift``, never ``blocked``).

Pure: :func:`find_wall` takes a parsed document, :func:`detect_refusal` the bytes of a response
(parsed only when a cheap pre-check finds a wall ingredient); both return a :class:`Wall` or None.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

from lxml import etree

from anchorpath._errors import AnchorpathError
from anchorpath.selectors.evaluate import parse_html

__all__ = [
    "WALL_MAX_BLOCKS",
    "WALL_MAX_TEXT",
    "Wall",
    "WallKind",
    "detect_refusal",
    "find_wall",
    "login_url",
]

WallKind = Literal["login-wall", "captcha", "access-denied"]

#: A wall page says little besides its form: fewer characters of visible text than this outside
#: the form/widget and the page chrome (header, nav, aside, footer).
WALL_MAX_TEXT = 1000
#: ... and at most this many paragraph-sized blocks (≥ :data:`BLOCK_CHARS` characters).
WALL_MAX_BLOCKS = 2
BLOCK_CHARS = 80


@dataclass(frozen=True)
class Wall:
    """A certain wall: its kind and one line saying what showed it."""

    kind: WallKind
    evidence: str

    @property
    def counter(self) -> Literal["login_wall", "captcha", "access_denied"]:
        """The fetch counter this wall counts under."""
        if self.kind == "login-wall":
            return "login_wall"
        return "captcha" if self.kind == "captcha" else "access_denied"


_INVISIBLE = {"script", "style", "noscript", "template", "svg", "head", "select", "option"}
_CHROME = {"header", "nav", "aside", "footer", "dialog", "menu"}
_BLOCKS = {
    "p",
    "li",
    "td",
    "dd",
    "blockquote",
    "pre",
    "h1",
    "h2",
    "h3",
    "h4",
    "div",
    "section",
    "article",
}
_CHROME_NAME = re.compile(
    r"(^|[\s_-])(header|masthead|nav|navbar|navigation|menu|topbar|toolbar|dropdown|sidebar|"
    r"footer|banner)([\s_-]|$)",
    re.IGNORECASE,
)
_CAMEL = re.compile(r"([a-z0-9])([A-Z])")
_LOGIN_PATH = re.compile(
    r"/(login|signin|sign-in|log-in|sso|auth|account/login|users/sign_in)(\b|$)", re.IGNORECASE
)
_WIDGET_CLASS = re.compile(
    r"(^|\s)(g-recaptcha|h-captcha|cf-turnstile|cf-challenge|px-captcha|captcha-container)(\s|$)",
    re.IGNORECASE,
)
_WIDGET_ID = re.compile(r"^(challenge-form|challenge-stage|cf-challenge|px-captcha|captcha)$", re.I)
_WIDGET_SRC = re.compile(
    r"recaptcha/api2/(anchor|bframe)|hcaptcha\.com/captcha|challenges\.cloudflare\.com|"
    r"captcha-delivery\.com",
    re.IGNORECASE,
)
_INTERSTITIAL = re.compile(
    r"just a moment|attention required|are you a robot|are you a human|verify you are (a )?human|"
    r"security check|checking your browser|checking if the site connection is secure|"
    r"please verify you are a human|enable javascript and cookies to continue|"
    r"one more step|please complete the security check|captcha",
    re.IGNORECASE,
)
_DENIED = re.compile(
    r"^\s*(access denied|access to this page has been denied|request blocked|"
    r"you have been blocked|403 forbidden|forbidden|error 403|sorry, you have been blocked)",
    re.IGNORECASE,
)


def login_url(requested_url: str, final_url: str) -> bool:
    """A redirect to a login URL we did not ask for."""
    if _LOGIN_PATH.search(urlsplit(requested_url).path):
        return False
    return bool(_LOGIN_PATH.search(urlsplit(final_url).path))


def _tag(el: etree._Element) -> str:
    return el.tag.lower() if isinstance(el.tag, str) else ""


def _skipped(el: etree._Element, skip: set[etree._Element]) -> bool:
    tag = _tag(el)
    if not tag or tag in _INVISIBLE or tag in _CHROME or el in skip:
        return True
    return (el.get("role") or "").lower() in ("navigation", "banner", "contentinfo", "dialog")


def _walk_text(root: etree._Element, skip: set[etree._Element]) -> Iterator[tuple[str, str]]:
    """``(block tag, text)`` pieces of visible text under ``root`` in document order, skipping
    invisible elements, page chrome and the elements in ``skip`` (their tails still count)."""
    stack: list[tuple[etree._Element | None, str, str]] = [(root, "div", "")]
    while stack:
        el, block, text = stack.pop()
        if el is None:  # a tail, already placed in its block
            yield block, text
            continue
        if _skipped(el, skip):
            continue
        here = _tag(el) if _tag(el) in _BLOCKS else block
        if el.text and el.text.strip():
            yield here, el.text
        for child in reversed(list(el)):
            if child.tail and child.tail.strip():
                stack.append((None, here, child.tail))
            stack.append((child, here, ""))


def _other_text(body: etree._Element, skip: set[etree._Element]) -> tuple[int, int]:
    """Characters and paragraph-sized blocks of visible text outside ``skip`` and the chrome."""
    chars = 0
    blocks: dict[int, int] = {}
    current = 0
    last_block = ""
    for block, text in _walk_text(body, skip):
        n = len(" ".join(text.split()))
        chars += n
        if block != last_block:
            current += 1
            last_block = block
        blocks[current] = blocks.get(current, 0) + n
    return chars, sum(1 for v in blocks.values() if v >= BLOCK_CHARS)


def _ancestors(el: etree._Element) -> Iterator[etree._Element]:
    node = el.getparent()
    while node is not None:
        yield node
        node = node.getparent()


def _in_chrome(el: etree._Element) -> bool:
    """Inside the page chrome: a header, nav, aside, footer or dialog, by tag, ARIA role or a
    container named so (``id``/``class``, camelCase words included: ``headerAccount``)."""
    for a in _ancestors(el):
        if _tag(a) in _CHROME:
            return True
        if (a.get("role") or "").lower() in ("navigation", "banner", "contentinfo", "dialog"):
            return True
        named = _CAMEL.sub(r"\1 \2", f"{a.get('id') or ''} {a.get('class') or ''}")
        if _tag(a) not in ("html", "body") and _CHROME_NAME.search(named):
            return True
    return False


def _elements(el: etree._Element, xpath: str) -> list[etree._Element]:
    found = el.xpath(xpath)
    return [e for e in found if isinstance(e, etree._Element)] if isinstance(found, list) else []


def _main_regions(body: etree._Element) -> list[etree._Element]:
    return _elements(body, ".//main | .//*[@role='main']") or _elements(body, ".//article")


def _in_main(el: etree._Element, mains: list[etree._Element]) -> bool:
    """Inside the marked main content region (True when the page marks none)."""
    if not mains:
        return True
    anc = set(_ancestors(el))
    return any(m in anc for m in mains)


def _container(el: etree._Element) -> etree._Element:
    """The form around a field (or the field's parent when it has no form)."""
    for a in _ancestors(el):
        if _tag(a) == "form":
            return a
    parent = el.getparent()
    return parent if parent is not None else el


def _short(body: etree._Element, skip: set[etree._Element]) -> tuple[bool, str]:
    chars, blocks = _other_text(body, skip)
    short = chars < WALL_MAX_TEXT and blocks <= WALL_MAX_BLOCKS
    return short, f"{chars} characters and {blocks} text blocks besides it"


def _title(doc: etree._Element) -> str:
    found = doc.xpath("string(//title)")
    return " ".join(str(found).split())


def _widgets(body: etree._Element) -> list[etree._Element]:
    out = []
    for el in body.iter():
        tag = _tag(el)
        if not tag or tag in ("script", "style", "noscript", "template"):
            continue
        marked = _WIDGET_CLASS.search(el.get("class") or "") or _WIDGET_ID.match(el.get("id") or "")
        framed = tag == "iframe" and _WIDGET_SRC.search(el.get("src") or "")
        if marked or framed:
            out.append(el)
    return out


def find_wall(
    doc: etree._Element,
    *,
    requested_url: str = "",
    final_url: str = "",
    headers: Mapping[str, str] | None = None,
) -> Wall | None:
    """The wall this page is, or None (see the module docstring for the rules)."""
    lower = {k.lower(): v for k, v in (headers or {}).items()}
    if lower.get("cf-mitigated", "").lower() == "challenge":
        return Wall("captcha", "the response carries cf-mitigated: challenge")
    if requested_url and final_url and login_url(requested_url, final_url):
        return Wall("login-wall", f"redirected to the login URL {final_url}")
    bodies = _elements(doc, "//body")
    body = bodies[0] if bodies else doc
    mains = _main_regions(body)
    # login: a visible password field in the main content, little else on the page
    password = ".//input[translate(@type, 'PASSWORD', 'password') = 'password']"
    for field in _elements(body, password):
        if _in_chrome(field) or not _in_main(field, mains):
            continue
        form = _container(field)
        short, how = _short(body, {form})
        if short:
            return Wall("login-wall", f"a password form is the page's main content ({how})")
    title = _title(doc)
    # challenge: a widget or an interstitial phrase, on a short page
    widgets = [w for w in _widgets(body) if not _in_chrome(w)]
    marker = _INTERSTITIAL.search(title)
    if widgets or marker:
        short, how = _short(body, set(widgets))
        if short:
            what = (
                f"challenge widget <{_tag(widgets[0])} class={widgets[0].get('class')!r}>"
                if widgets
                else f"interstitial title {title[:60]!r}"
            )
            return Wall("captcha", f"{what} is the page's main content ({how})")
    if not widgets and not marker:
        text = " ".join(str(body.xpath("string(.)"))[:4000].split())
        if _INTERSTITIAL.search(text):
            short, how = _short(body, set())
            if short:
                return Wall("captcha", f"interstitial text on a short page ({how})")
    heading = " ".join(str(body.xpath("string((.//h1)[1])")).split())
    if _DENIED.match(title) or _DENIED.match(heading):
        short, how = _short(body, set())
        if short:
            return Wall("access-denied", f"refusal page {(title or heading)[:60]!r} ({how})")
    return None


# Cheap pre-check on the raw bytes: only a page with one of these can be a wall, so only such
# a page is parsed for the structural test of :func:`find_wall`. Plain substring tests of the
# ASCII-lowercased bytes: much faster than one case-insensitive alternation on every page.
_MAYBE_WALL = (
    b"password",
    b"captcha",
    b"challenge",
    b"turnstile",
    b"just a moment",
    b"attention required",
    b"are you a",
    b"verify you are",
    b"security check",
    b"checking your browser",
    b"checking if the site",
    b"one more step",
    b"enable javascript and cookies",
    b"access denied",
    b"access to this page",
    b"request blocked",
    b"been blocked",
    b"forbidden",
)


def _maybe_wall(body: bytes) -> bool:
    lower = body[:1_000_000].lower()
    return any(word in lower for word in _MAYBE_WALL)


def _charset_of(content_type: str) -> str | None:
    m = re.search(r"charset=([\w.:-]+)", content_type)
    return m.group(1) if m else None


def detect_refusal(
    requested_url: str, final_url: str, headers: dict[str, str], body: bytes
) -> Wall | None:
    """The :class:`Wall` a 2xx page really is (login wall, CAPTCHA
    challenge, access-denied page), or None.

    Only certain walls count (see the module docstring): the form or challenge must
    be the page's main content, or the request redirected to a login URL. A login box in the
    header, a comment form with reCAPTCHA or ``recaptcha`` in a script is not a wall; a page
    that lost its records for another reason is left to the drift gate.
    """
    lower = {k.lower(): v for k, v in headers.items()}
    if lower.get("cf-mitigated", "").lower() == "challenge":
        return Wall("captcha", "the response carries cf-mitigated: challenge")
    if login_url("", requested_url):
        return None  # we asked for a login page ourselves: not a wall
    if login_url(requested_url, final_url):
        return Wall("login-wall", f"redirected to the login URL {final_url}")
    content_type = lower.get("content-type", "text/html").lower()
    if "html" not in content_type or not _maybe_wall(body):
        return None
    try:
        doc = parse_html(body, _charset_of(content_type))
    except AnchorpathError:
        return None  # not parseable as HTML: extraction will say so
    return find_wall(doc, requested_url=requested_url, final_url=final_url, headers=lower)
