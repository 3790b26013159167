"""Walls: login walls, CAPTCHA challenges and access-denied pages behind a 2xx answer, from
real page shapes (fixtures written here, after common layouts).

Ordinary pages that carry a wall's ingredients — a login box in the header, a comment form with
reCAPTCHA, ``g-recaptcha`` in an inline widget configuration, a sign-in modal after the footer —
are not walls; a full-page login, a challenge interstitial and a 200 "access denied" page are.
"""

from __future__ import annotations

import pytest

from anchorpath.fetch.walls import detect_refusal, find_wall
from anchorpath.selectors.evaluate import parse_html

PARAGRAPH = (
    "<p>The committee heard evidence on Tuesday that the new rules would change how the agency "
    "reviews applications, with officials saying the backlog had fallen by a third since the "
    "spring and that further changes were expected before the end of the year.</p>"
)
ARTICLE = f"<h1>Agency clears backlog of applications</h1>{PARAGRAPH * 6}"

HEADER_LOGIN_BOX = f"""<html><head><title>Agency clears backlog - Daily News</title></head><body>
<div id="masthead"><a href="/">Daily News</a>
  <div class="dropdown" id="header-account"><a href="/login">Sign in</a>
    <form id="login-form" action="/session" method="post">
      <input type="text" name="username" placeholder="Username or Email">
      <input type="password" name="password" placeholder="Password">
      <input type="submit" value="Log in"></form></div></div>
<div id="content">{ARTICLE}</div>
<div id="footer">Copyright Daily News</div></body></html>"""

LOGIN_MODAL_AFTER_FOOTER = f"""<html><body><header><nav><a href="/">Home</a></nav></header>
<div class="story">{ARTICLE}</div><footer>About us</footer>
<div id="login-body"><form action="/civis/ucp.php?mode=login" method="post">
<h2>Log In</h2><label>Username or Email:</label><input type="text" name="username">
<label>Password:</label><input type="password" name="password">
<input type="submit" value="Login"></form></div></body></html>"""

COMMENT_FORM_RECAPTCHA = f"""<html><head><title>Agency clears backlog</title>
<script src="https://www.google.com/recaptcha/api.js" async defer></script></head><body>
<main><article>{ARTICLE}</article>
<section id="comments"><h3>Leave a comment</h3><form action="/comment" method="post">
<textarea name="comment"></textarea><input type="text" name="author">
<div class="g-recaptcha" data-sitekey="6Lc_example"></div>
<input type="submit" value="Post comment"></form></section></main></body></html>"""

INLINE_WIDGET_CONFIG = f"""<html><head><title>Agency clears backlog</title>
<script>window.siteConfig = {{"comments": {{"provider": "native",
"captcha": {{"class": "g-recaptcha", "sitekey": "6Lc_example"}}}},
"challenge": "cf-chl-opt", "loginUrl": "/login"}};</script></head><body>
<!-- <div class="g-recaptcha"></div> disabled -->
<div id="content">{ARTICLE}</div></body></html>"""

FULL_PAGE_LOGIN = """<html><head><title>Sign in to your account</title></head><body>
<header><a href="/">Example Registry</a><nav><a href="/help">Help</a></nav></header>
<main><div class="card"><h1>Sign in</h1><p>You need an account to see this page.</p>
<form action="/session" method="post"><label>Email</label><input type="email" name="email">
<label>Password</label><input type="password" name="password">
<label><input type="checkbox" name="remember"> Remember me</label>
<button type="submit">Sign in</button></form>
<p><a href="/forgot">Forgot your password?</a> · <a href="/signup">Create an account</a></p>
</div></main><footer>© Example Registry · Privacy · Terms · Contact</footer></body></html>"""

CHALLENGE_INTERSTITIAL = """<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title>
<meta http-equiv="refresh" content="390"><script>(function(){window._cf_chl_opt={cvId: '3',
cZone: 'www.example.org', cType: 'managed'};})();</script></head><body>
<div class="main-wrapper" role="main"><div class="main-content">
<h1 class="zone-name-title h1">www.example.org</h1>
<h2 class="h2" id="challenge-running">Checking if the site connection is secure</h2>
<div id="challenge-stage"></div>
<div id="challenge-body-text" class="core-msg spacer">www.example.org needs to review the
security of your connection before proceeding.</div>
<form id="challenge-form" action="/?__cf_chl_f_tk=abc" method="POST">
<input type="hidden" name="md" value="xyz"></form></div></div>
<div class="footer" role="contentinfo">Ray ID: <code>7a1b2c3d4e5f6789</code>
Performance &amp; security by Cloudflare</div></body></html>"""

ACCESS_DENIED = """<HTML><HEAD><TITLE>Access Denied</TITLE></HEAD><BODY>
<H1>Access Denied</H1>You don't have permission to access "http&#58;&#47;&#47;www&#46;example&#46;
com&#47;news&#47;story&#46;html" on this server.<P>
Reference&#32;&#35;18&#46;5a2c1402&#46;1700000000&#46;2f4b7c
</BODY></HTML>"""

RECAPTCHA_CHALLENGE_PAGE = """<html><head><title>Are you a robot?</title></head><body>
<div id="content"><p>Please confirm that you are not a robot.</p>
<form method="post"><div class="g-recaptcha" data-sitekey="6Lc_x"></div>
<input type="submit" value="Continue"></form></div></body></html>"""


@pytest.mark.parametrize(
    "page",
    [HEADER_LOGIN_BOX, LOGIN_MODAL_AFTER_FOOTER, COMMENT_FORM_RECAPTCHA, INLINE_WIDGET_CONFIG],
    ids=["header-login-box", "login-modal", "comment-form-recaptcha", "inline-widget-config"],
)
def test_ordinary_pages_with_wall_ingredients_are_not_walls(page: str) -> None:
    assert find_wall(parse_html(page.encode())) is None
    headers = {"content-type": "text/html; charset=utf-8"}
    assert detect_refusal("http://h/news/1", "http://h/news/1", headers, page.encode()) is None


@pytest.mark.parametrize(
    ("page", "kind", "said"),
    [
        (FULL_PAGE_LOGIN, "login-wall", "password form is the page's main content"),
        (CHALLENGE_INTERSTITIAL, "captcha", "challenge widget"),
        (RECAPTCHA_CHALLENGE_PAGE, "captcha", "g-recaptcha"),
        (ACCESS_DENIED, "access-denied", "'Access Denied'"),
    ],
    ids=["full-page-login", "challenge-interstitial", "recaptcha-page", "access-denied"],
)
def test_walls_are_recognised_with_evidence(page: str, kind: str, said: str) -> None:
    wall = find_wall(parse_html(page.encode()))
    assert wall is not None and wall.kind == kind
    assert said in wall.evidence and "characters" in wall.evidence
    headers = {"content-type": "text/html"}
    found = detect_refusal("http://h/news/1", "http://h/news/1", headers, page.encode())
    assert found == wall


def test_login_form_beside_the_marked_main_region_is_not_a_wall() -> None:
    page = (
        "<html><body><aside><form><input type=password></form></aside>"
        "<main><p>Short notice.</p></main></body></html>"
    )
    assert find_wall(parse_html(page.encode())) is None


def test_redirect_to_a_login_url_is_a_wall_unless_we_asked_for_it() -> None:
    html = {"content-type": "text/html"}
    wall = detect_refusal("http://h/a", "http://h/account/login?next=/a", html, b"<p>x</p>")
    assert wall is not None and wall.kind == "login-wall" and "redirected" in wall.evidence
    assert (
        detect_refusal("http://h/login", "http://h/login", html, FULL_PAGE_LOGIN.encode()) is None
    )


def test_short_article_that_mentions_access_denied_is_not_a_wall() -> None:
    page = (
        "<html><head><title>Court rules on access to records</title></head><body>"
        f"<h1>Access denied to records, court hears</h1>{PARAGRAPH * 4}</body></html>"
    )
    assert find_wall(parse_html(page.encode())) is None


def _kind(requested: str, final: str, headers: dict[str, str], body: bytes) -> str | None:
    wall = detect_refusal(requested, final, headers, body)
    return None if wall is None else wall.kind


def test_detect_refusal() -> None:
    html = {"content-type": "text/html"}
    wall = b"<title>Log in</title><form><input type=password name=p></form>"
    assert _kind("http://h/a", "http://h/a", html, wall) == "login-wall"
    assert _kind("http://h/login", "http://h/login", html, wall) is None
    assert _kind("http://h/a", "http://h/users/sign_in", html, b"<p>x</p>") == "login-wall"
    assert _kind("http://h/a", "http://h/a", html, b"<div class=g-recaptcha>") == "captcha"
    assert _kind("http://h/a", "http://h/a", {"cf-mitigated": "challenge"}, b"") == "captcha"
    assert _kind("http://h/a", "http://h/a", html, b"<p>records</p>") is None
    plain = {"content-type": "application/json"}
    assert _kind("http://h/a", "http://h/a", plain, b'{"captcha": 1}') is None


def test_korean_login_wall_in_euc_kr_is_recognised() -> None:
    page = (
        '<html><head><meta charset="euc-kr"><title>로그인 - 원료의약품 등록</title></head><body>'
        '<form><input name="id"><input type="password" name="pw"></form></body></html>'
    ).encode("cp949")
    headers = {"content-type": "text/html; charset=euc-kr"}
    url = "http://127.0.0.1:1/dmf/list.do?page=1"
    assert _kind(url, url, headers, page) == "login-wall"
