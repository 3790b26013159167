"""Refusal heuristics: login walls and CAPTCHAs behind a 2xx answer (pure functions)."""

from __future__ import annotations

from anchorpath.fetch.walls import detect_refusal


def test_detect_refusal() -> None:
    html = {"content-type": "text/html"}
    wall = b"<title>Log in</title><form><input type=password name=p></form>"
    assert detect_refusal("http://h/a", "http://h/a", html, wall) == "login-wall"
    assert detect_refusal("http://h/login", "http://h/login", html, wall) is None
    assert detect_refusal("http://h/a", "http://h/users/sign_in", html, b"<p>x</p>") == "login-wall"
    assert detect_refusal("http://h/a", "http://h/a", html, b"<div class=g-recaptcha>") == "captcha"
    assert (
        detect_refusal("http://h/a", "http://h/a", {"cf-mitigated": "challenge"}, b"") == "captcha"
    )
    assert detect_refusal("http://h/a", "http://h/a", html, b"<p>records</p>") is None
    plain = {"content-type": "application/json"}
    assert detect_refusal("http://h/a", "http://h/a", plain, b'{"captcha": 1}') is None


def test_korean_login_wall_in_euc_kr_is_recognised() -> None:
    page = (
        '<html><head><meta charset="euc-kr"><title>로그인 - 원료의약품 등록</title></head><body>'
        '<form><input name="id"><input type="password" name="pw"></form></body></html>'
    ).encode("cp949")
    headers = {"content-type": "text/html; charset=euc-kr"}
    url = "http://127.0.0.1:1/dmf/list.do?page=1"
    assert detect_refusal(url, url, headers, page) == "login-wall"
