"""Walls: the heuristics that recognise a 2xx HTML page that is really a refusal (a login
wall or a CAPTCHA). A wall is a stop condition for its origin, never something to get around.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from anchorpath.selectors.decode import decode_html

__all__ = ["detect_refusal"]


_CAPTCHA = re.compile(
    rb"g-recaptcha|h-captcha|hcaptcha\.com|cf-chl-|cf_chl_|challenge-platform|"
    rb"<title>\s*(just a moment|attention required|are you a robot|access denied|"
    rb"security check|verify you are human|captcha)|px-captcha|captcha-delivery|"
    rb"please verify you are a human|enable javascript and cookies to continue",
    re.IGNORECASE,
)
_PASSWORD = re.compile(rb"<input[^>]+type\s*=\s*[\"']?password", re.IGNORECASE)
# Matched on the decoded page (a Korean login page in EUC-KR has no ASCII "login" in it).
_LOGIN_WORDS = re.compile(
    r"<title>[^<]*(log ?in|sign ?in|anmelden|connexion|iniciar sesi|login required"
    r"|로그인|회원\s*인증|본인\s*인증|ログイン|登录|登入)",
    re.IGNORECASE,
)
_LOGIN_PATH = re.compile(r"/(login|signin|sign-in|log-in|sso|auth|account/login|users/sign_in)\b")


def _charset_of(content_type: str) -> str | None:
    m = re.search(r"charset=([\w.:-]+)", content_type)
    return m.group(1) if m else None


def detect_refusal(
    requested_url: str, final_url: str, headers: dict[str, str], body: bytes
) -> str | None:
    """``"captcha"`` or ``"login-wall"`` when a 2xx HTML page is really a refusal, else None.

    Heuristics, deliberately on the cautious side: a false positive stops an origin (safe),
    a false negative would collect a login form as if it were data.
    """
    if headers.get("cf-mitigated", "").lower() == "challenge":
        return "captcha"
    content_type = headers.get("content-type", "text/html").lower()
    if "html" not in content_type:
        return None
    head = body[:200_000]
    if _CAPTCHA.search(head):
        return "captcha"
    asked_login = bool(_LOGIN_PATH.search(urlsplit(requested_url).path.lower()))
    if asked_login:
        return None  # we asked for a login page ourselves; not a wall
    if _LOGIN_PATH.search(urlsplit(final_url).path.lower()):
        return "login-wall"  # redirected to a login page
    if _PASSWORD.search(head):
        text, _codec = decode_html(head, _charset_of(content_type))
        if _LOGIN_WORDS.search(text):
            return "login-wall"
    return None
