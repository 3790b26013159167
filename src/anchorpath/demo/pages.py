"""HTML of the demo site: a Korean regulator's DMF (원료의약품 등록) notice board.

Pure functions from ground truth (:mod:`anchorpath.demo.data`) to HTML text; the server
encodes it. Two templates:

* ``classic`` (every day but day 3): an old-style government board. ``<div id="content">``,
  ``<table class="tbl_list" data-board="dmf">`` list with a header row, detail pages with
  ``<table class="tbl_view" data-section="...">`` label/value rows, some two-column
  (``th td th td``).
* ``renewal`` (day 3, the template change): HTML5 markup, extra wrapper divs
  (``div.content-inner > div.board-wrap > div.tbl-wrap > div.scroll-x``), other table classes
  (``board-list`` / ``board-view``), labels wrapped in ``<span class="label">``, other label
  texts (see :data:`anchorpath.demo.data.LABELS`) and another column order on the list.

Stable across templates, as a careful selector author would hope: ``id="content"``,
``data-board="dmf"`` on the list table, ``data-section`` on the detail tables, ``rel="next"``
on the next-page link and the URL patterns. Visual classes and label texts change.

URL patterns: ``/dmf/list.do?page=K`` (10 records a page, newest first) and
``/dmf/view.do?regNo=<UTF-8 percent-encoded 등록번호>``.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from urllib.parse import quote

from anchorpath.demo.data import (
    LABELS,
    TEMPLATE_CLASSIC,
    TEMPLATE_RENEWAL,
    Record,
    day_date,
)

__all__ = [
    "CHARSET",
    "PAGE_SIZE",
    "detail_path",
    "encode_page",
    "list_path",
    "page_count",
    "render_admin",
    "render_detail",
    "render_error",
    "render_home",
    "render_list",
    "render_login",
    "robots_txt",
]

PAGE_SIZE = 10
#: The charset the site declares; bytes are CP949 (the superset every browser uses for it).
CHARSET = "euc-kr"
SITE_NAME = "의약품안전나라"
BOARD_TITLE = "원료의약품 등록(DMF) 공고"

# Sidebar notices. One title holds 샾, a syllable that exists in CP949 but not in KS X 1001
# (strict EUC-KR): real "euc-kr" sites send such bytes, and a decoder must use CP949.
_NOTICES: tuple[tuple[str, str, str], ...] = (
    ("1207", "원료의약품 등록 공고 시스템 정기점검 안내", "2024-02-27"),
    ("1203", "검색어에 샾(#) 기호 입력 시 오류 수정 안내", "2024-02-19"),
    ("1198", "「의약품의 품목허가·신고·심사 규정」 일부개정 고시 안내", "2024-02-05"),
    ("1192", "2024년 원료의약품 등록(DMF) 민원 설명회 개최 알림", "2024-01-22"),
)

_STATUS_CLASS = {"정상": "stat_ok", "변경": "stat_chg", "보완중": "stat_wait"}


def _e(text: str) -> str:
    return html.escape(text, quote=True)


def list_path(page: int, keyword: str | None = None) -> str:
    """Path of listing page ``page`` (1-based)."""
    path = f"/dmf/list.do?page={page}"
    if keyword:
        path += "&searchKeyword=" + quote(keyword, safe="")
    return path


def detail_path(reg_no: str) -> str:
    """Path of a record's detail page: ``/dmf/view.do?regNo=%EC%88%98...-ND`` (UTF-8)."""
    return "/dmf/view.do?regNo=" + quote(reg_no, safe="")


def page_count(n_records: int) -> int:
    """Number of listing pages for ``n_records`` (at least 1: an empty board has one page)."""
    return max(1, -(-n_records // PAGE_SIZE))


def encode_page(text: str) -> bytes:
    """CP949 bytes; characters outside CP949 (é, –) become numeric character references,
    as on real Korean sites."""
    return text.encode("cp949", errors="xmlcharrefreplace")


# -- page frame -----------------------------------------------------------------------------


def _head(title: str, template: str) -> str:
    if template == TEMPLATE_RENEWAL:
        return (
            '<!DOCTYPE html>\n<html lang="ko">\n<head>\n'
            f'<meta http-equiv="Content-Type" content="text/html; charset={CHARSET}">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{_e(title)} | {SITE_NAME}</title>\n"
            '<link rel="stylesheet" href="/static/css/renewal.css">\n'
            "</head>\n"
        )
    return (
        '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" '
        '"http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">\n'
        '<html xmlns="http://www.w3.org/1999/xhtml" lang="ko" xml:lang="ko">\n<head>\n'
        f'<meta http-equiv="Content-Type" content="text/html; charset={CHARSET}" />\n'
        '<meta http-equiv="X-UA-Compatible" content="IE=edge" />\n'
        f"<title>{_e(title)} &lt; {SITE_NAME}</title>\n"
        '<link rel="stylesheet" type="text/css" href="/static/css/common.css" />\n'
        '<script type="text/javascript" src="/static/js/common.js"></script>\n'
        "</head>\n"
    )


def _sidebar(template: str) -> str:
    items = "\n".join(
        f'<li><a href="/notice/view.do?seq={seq}">{_e(title)}</a>'
        f' <span class="date">{date}</span></li>'
        for seq, title, date in _NOTICES
    )
    if template == TEMPLATE_RENEWAL:
        return (
            '<aside class="side-area">\n<nav class="side-menu" aria-label="의약품정보">\n'
            "<h2>의약품정보</h2>\n<ul>\n"
            '<li class="active"><a href="/dmf/list.do?page=1">원료의약품 등록(DMF) 현황</a></li>\n'
            '<li><a href="/notice/list.do">공지사항</a></li>\n'
            '<li><a href="/faq/list.do">자주 묻는 질문</a></li>\n</ul>\n</nav>\n'
            '<section class="side-notice" data-widget="notice">\n<h2>공지사항</h2>\n'
            f'<ul class="notice-list">\n{items}\n</ul>\n'
            '<a class="more" href="/notice/list.do">더보기 +</a>\n</section>\n</aside>\n'
        )
    return (
        '<div id="lnb">\n<h2 class="lnb_tit">의약품정보</h2>\n<ul class="lnb_menu">\n'
        f'<li class="on"><a href="/dmf/list.do?page=1">{BOARD_TITLE}</a></li>\n'
        '<li><a href="/notice/list.do">공지사항</a></li>\n'
        '<li><a href="/faq/list.do">자주하는 질문</a></li>\n</ul>\n'
        '<div class="notice_box" data-widget="notice">\n<h3>공지사항</h3>\n'
        f"<ul>\n{items}\n</ul>\n"
        '<a href="/notice/list.do" class="more"><img src="/static/img/btn_more.gif" alt="더보기" />'
        "</a>\n</div>\n</div>\n"
    )


def _header(template: str) -> str:
    if template == TEMPLATE_RENEWAL:
        return (
            '<header class="site-header">\n<div class="header-inner">\n'
            f'<h1 class="logo"><a href="/">{SITE_NAME}</a></h1>\n'
            '<nav class="gnb" aria-label="주메뉴">\n<ul>\n'
            '<li><a href="/dmf/list.do?page=1">의약품정보</a></li>\n'
            '<li><a href="/notice/list.do">알림마당</a></li>\n'
            '<li><a href="/guide/index.do">민원안내</a></li>\n</ul>\n</nav>\n'
            '<div class="util"><a href="/member/login.do">로그인</a>'
            ' <a href="/sitemap.do">사이트맵</a></div>\n</div>\n</header>\n'
        )
    return (
        '<div id="skipNav"><a href="#content">본문 바로가기</a></div>\n'
        '<div id="header">\n'
        f'<h1 class="logo"><a href="/"><img src="/static/img/logo.gif" alt="{SITE_NAME}" />'
        "</a></h1>\n"
        '<ul class="util_menu"><li><a href="/member/login.do">로그인</a></li>'
        '<li><a href="/sitemap.do">사이트맵</a></li><li><a href="/eng/index.do">ENGLISH</a></li>'
        "</ul>\n"
        '<div id="gnb">\n<ul>\n'
        '<li><a href="/dmf/list.do?page=1">의약품정보</a></li>\n'
        '<li><a href="/notice/list.do">알림마당</a></li>\n'
        '<li><a href="/guide/index.do">민원안내</a></li>\n'
        '<li><a href="/info/intro.do">기관소개</a></li>\n</ul>\n</div>\n</div>\n'
    )


def _footer(template: str) -> str:
    address = (
        "(28159) 충청북도 청주시 흥덕구 오송읍 오송생명2로 187 오송보건의료행정타운 "
        "| 대표전화 1577-1255 (데모 사이트: 실제 기관과 무관)"
    )
    links = (
        '<li><a href="/policy/privacy.do"><strong>개인정보처리방침</strong></a></li>'
        '<li><a href="/policy/terms.do">이용약관</a></li>'
        '<li><a href="/policy/copyright.do">저작권정책</a></li>'
        '<li><a href="/admin/login.do">관리자</a></li>'
    )
    if template == TEMPLATE_RENEWAL:
        return (
            '<footer class="site-footer">\n<div class="footer-inner">\n'
            f'<ul class="footer-links">{links}</ul>\n'
            f"<address>{address}</address>\n"
            '<p class="copyright">ⓒ 의약품안전나라 데모. All rights reserved.</p>\n'
            "</div>\n</footer>\n"
        )
    return (
        '<div id="footer">\n'
        f'<ul class="foot_menu">{links}</ul>\n'
        f"<address>{address}</address>\n"
        '<p class="copy">COPYRIGHT ⓒ 의약품안전나라 데모. ALL RIGHTS RESERVED.</p>\n'
        "</div>\n"
    )


def _breadcrumb(template: str, last: str) -> str:
    if template == TEMPLATE_RENEWAL:
        return (
            '<nav class="breadcrumb" aria-label="현재 위치"><ol>'
            '<li><a href="/">홈</a></li><li>의약품정보</li>'
            f'<li aria-current="page">{_e(last)}</li></ol></nav>\n'
        )
    return (
        '<div class="location"><span class="home"><a href="/">홈</a></span> &gt; '
        f"<span>의약품정보</span> &gt; <strong>{_e(last)}</strong></div>\n"
    )


def _frame(title: str, template: str, content: str) -> str:
    """Whole document around the ``id="content"`` block."""
    if template == TEMPLATE_RENEWAL:
        return (
            _head(title, template)
            + '<body class="sub">\n<div class="wrapper">\n'
            + _header(template)
            + '<div class="container">\n'
            + _sidebar(template)
            + f'<main id="content" class="content-area">\n{content}</main>\n'
            + "</div>\n"
            + _footer(template)
            + "</div>\n</body>\n</html>\n"
        )
    return (
        _head(title, template)
        + '<body>\n<div id="wrap">\n'
        + _header(template)
        + '<div id="container">\n'
        + _sidebar(template)
        + f'<div id="content" class="sub_content">\n{content}</div>\n'
        + "</div>\n"
        + _footer(template)
        + "</div>\n</body>\n</html>\n"
    )


# -- list page ------------------------------------------------------------------------------

# Column order per template: the renewal also reorders columns, so positional selectors break
# as well as label anchors.
_LIST_COLUMNS = {
    TEMPLATE_CLASSIC: (
        "reg_no",
        "ingredient",
        "applicant",
        "manufacturer",
        "country",
        "registered_on",
        "status",
    ),
    TEMPLATE_RENEWAL: (
        "reg_no",
        "ingredient",
        "manufacturer",
        "country",
        "applicant",
        "registered_on",
        "status",
    ),
}


def _cell(record: Record, name: str, template: str) -> str:
    link = _e(detail_path(record.reg_no))
    if name == "reg_no":
        return f'<td class="code"><a href="{link}">{_e(record.reg_no)}</a></td>'
    if name == "ingredient":
        cls = "subject" if template == TEMPLATE_RENEWAL else "tl"
        return f'<td class="{cls}"><a href="{link}" title="{_e(record.ingredient)} 상세보기">' + (
            f"{_e(record.ingredient)}</a></td>"
        )
    if name == "status":
        cls = _STATUS_CLASS.get(record.status, "stat_etc")
        if template == TEMPLATE_RENEWAL:
            return f'<td><span class="badge badge-{cls[5:]}">{_e(record.status)}</span></td>'
        return f'<td><span class="stat {cls}">{_e(record.status)}</span></td>'
    if name in ("registered_on", "updated_on"):
        value: str = getattr(record, name).isoformat()
        return f'<td class="date">{value}</td>'
    return f"<td>{_e(getattr(record, name))}</td>"


def _pagination(page: int, last: int, keyword: str | None, template: str) -> str:
    group_start = (page - 1) // 10 * 10 + 1
    numbers = []
    for k in range(group_start, min(group_start + 9, last) + 1):
        if k == page:
            if template == TEMPLATE_RENEWAL:
                numbers.append(f'<a class="page-link active" aria-current="page">{k}</a>')
            else:
                numbers.append(f'<strong title="현재 페이지">{k}</strong>')
        else:
            cls = ' class="page-link"' if template == TEMPLATE_RENEWAL else ""
            numbers.append(f'<a href="{_e(list_path(k, keyword))}"{cls}>{k}</a>')
    parts = [
        f'<a href="{_e(list_path(1, keyword))}" class="first" title="처음 페이지">처음</a>',
    ]
    if page > 1:
        parts.append(
            f'<a href="{_e(list_path(page - 1, keyword))}" class="prev" rel="prev">이전</a>'
        )
    parts.extend(numbers)
    next_text = "다음 페이지" if template == TEMPLATE_RENEWAL else "다음"
    if page < last:
        parts.append(
            f'<a href="{_e(list_path(page + 1, keyword))}" class="next" rel="next">{next_text}</a>'
        )
    else:
        parts.append(f'<span class="next disabled">{next_text}</span>')
    parts.append(
        f'<a href="{_e(list_path(last, keyword))}" class="last" title="마지막 페이지">마지막</a>'
    )
    body = "\n".join(parts)
    if template == TEMPLATE_RENEWAL:
        return (
            '<nav class="pagination" data-role="pagination" aria-label="페이지 이동">\n'
            f"{body}\n</nav>\n"
        )
    return f'<div class="paging" data-role="pagination">\n{body}\n</div>\n'


def _search_form(keyword: str | None, template: str) -> str:
    label_ingr = LABELS[template]["ingredient"]
    label_appl = LABELS[template]["applicant"]
    value = _e(keyword or "")
    cls = "search-area" if template == TEMPLATE_RENEWAL else "search_box"
    return (
        '<form id="searchForm" name="searchForm" action="/dmf/list.do" method="get" '
        f'class="{cls}">\n'
        "<fieldset><legend>게시물 검색</legend>\n"
        '<select name="searchCondition" title="검색조건 선택">'
        f'<option value="all">전체</option><option value="ingr">{label_ingr}</option>'
        f'<option value="appl">{label_appl}</option></select>\n'
        f'<input type="text" name="searchKeyword" title="검색어 입력" value="{value}" />\n'
        '<input type="submit" value="검색" class="btn_search" />\n'
        "</fieldset>\n</form>\n"
    )


def render_list(
    records: Sequence[Record], page: int, *, template: str, keyword: str | None = None
) -> str:
    """Listing page ``page`` of ``records`` (already in board order, already filtered)."""
    labels = LABELS[template]
    columns = _LIST_COLUMNS[template]
    last = page_count(len(records))
    chunk = records[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
    total = len(records)
    number_label = "순번" if template == TEMPLATE_RENEWAL else "번호"
    header = f'<th scope="col">{number_label}</th>' + "".join(
        f'<th scope="col">{labels[name]}</th>' for name in columns
    )
    rows = []
    for i, record in enumerate(chunk):
        number = total - (page - 1) * PAGE_SIZE - i
        cells = "".join(_cell(record, name, template) for name in columns)
        rows.append(f'<tr>\n<td class="num">{number}</td>{cells}\n</tr>')
    if not rows:
        rows.append(
            f'<tr><td colspan="{len(columns) + 1}" class="no_data">'
            "등록된 게시물이 없습니다.</td></tr>"
        )
    tbody = "\n".join(rows)
    colgroup = "<colgroup>" + '<col style="width:6%" />' * (len(columns) + 1) + "</colgroup>"
    if template == TEMPLATE_RENEWAL:
        table = (
            '<div class="tbl-wrap">\n<div class="scroll-x">\n'
            '<table class="board-list type-dmf" data-board="dmf">\n'
            f"<caption>{BOARD_TITLE} 목록</caption>\n{colgroup}\n"
            f"<thead>\n<tr>{header}</tr>\n</thead>\n<tbody>\n{tbody}\n</tbody>\n</table>\n"
            "</div>\n</div>\n"
        )
        content = (
            _breadcrumb(template, "원료의약품 등록(DMF) 현황")
            + '<div class="content-inner">\n<div class="board-wrap">\n'
            + '<h2 class="page-title">원료의약품 등록(DMF) 현황</h2>\n'
            + _search_form(keyword, template)
            + f'<div class="board-info">전체 <em>{total}</em>건 ({page}/{last})</div>\n'
            + table
            + _pagination(page, last, keyword, template)
            + "</div>\n</div>\n"
        )
        return _frame("원료의약품 등록(DMF) 현황", template, content)
    table = (
        f'<table class="tbl_list" data-board="dmf" summary="{BOARD_TITLE}: '
        f'{", ".join(labels[n] for n in columns)}">\n'
        f"<caption>{BOARD_TITLE} 목록</caption>\n{colgroup}\n"
        f"<thead>\n<tr>{header}</tr>\n</thead>\n<tbody>\n{tbody}\n</tbody>\n</table>\n"
    )
    content = (
        _breadcrumb(template, BOARD_TITLE)
        + f'<h3 class="tit_sub">{BOARD_TITLE}</h3>\n'
        + _search_form(keyword, template)
        + f'<p class="total">총 <strong>{total}</strong>건 [{page}/{last} 페이지]</p>\n'
        + table
        + _pagination(page, last, keyword, template)
    )
    return _frame(BOARD_TITLE, template, content)


# -- detail page ----------------------------------------------------------------------------


def _th(label: str, template: str) -> str:
    if template == TEMPLATE_RENEWAL:
        return f'<th scope="row"><span class="label">{label}</span></th>'
    return f'<th scope="row">{label}</th>'


def _remarks_html(text: str) -> str:
    # One sentence per line, as the board's editor saves it; <br> plus a newline keeps the
    # sentences apart in the extracted text.
    return _e(text).replace("다. ", "다.<br />\n")


def render_detail(
    record: Record,
    *,
    template: str,
    prev: Record | None = None,
    next_: Record | None = None,
) -> str:
    """Detail page of ``record``; ``prev``/``next_`` are its neighbours on the board."""
    lab = LABELS[template]
    status_cls = _STATUS_CLASS.get(record.status, "stat_etc")
    basic_rows = [
        f"<tr>{_th(lab['reg_no'], template)}<td>{_e(record.reg_no)}</td>"
        f"{_th(lab['status'], template)}"
        f'<td><span class="stat {status_cls}">{_e(record.status)}</span></td></tr>',
        f'<tr>{_th(lab["ingredient"], template)}<td colspan="3">{_e(record.ingredient)}</td></tr>',
        f'<tr>{_th(lab["applicant"], template)}<td colspan="3">{_e(record.applicant)}</td></tr>',
        f"<tr>{_th(lab['registered_on'], template)}<td>{record.registered_on.isoformat()}</td>"
        f"{_th(lab['updated_on'], template)}<td>{record.updated_on.isoformat()}</td></tr>",
    ]
    mfr_rows = [
        f"<tr>{_th(lab['manufacturer'], template)}<td>{_e(record.manufacturer)}</td>"
        f"{_th(lab['country'], template)}<td>{_e(record.country)}</td></tr>",
        f"<tr>{_th(lab['manufacturer_address'], template)}"
        f'<td colspan="3">{_e(record.manufacturer_address)}</td></tr>',
    ]
    etc_rows = [
        f"<tr>{_th(lab['remarks'], template)}"
        f'<td colspan="3"><div class="txt">{_remarks_html(record.remarks)}</div></td></tr>',
    ]
    colgroup = (
        '<colgroup><col style="width:15%" /><col style="width:35%" />'
        '<col style="width:15%" /><col style="width:35%" /></colgroup>'
    )

    def table(section: str, caption: str, rows: list[str]) -> str:
        body = "\n".join(rows)
        if template == TEMPLATE_RENEWAL:
            return (
                f'<section class="view-section" data-section="{section}">\n'
                f'<h3 class="section-title">{caption}</h3>\n'
                '<div class="tbl-wrap">\n<table class="board-view type2">\n'
                f"<caption>{caption}</caption>\n{colgroup}\n<tbody>\n{body}\n</tbody>\n"
                "</table>\n</div>\n</section>\n"
            )
        return (
            f'<h4 class="tit_h4">{caption}</h4>\n'
            f'<table class="tbl_view" data-section="{section}" summary="{caption}">\n'
            f"<caption>{caption}</caption>\n{colgroup}\n<tbody>\n{body}\n</tbody>\n</table>\n"
        )

    def neighbour(label: str, other: Record | None) -> str:
        if other is None:
            return f"<li><span>{label}</span> 없습니다.</li>"
        return (
            f'<li><span>{label}</span> <a href="{_e(detail_path(other.reg_no))}">'
            f"{_e(other.ingredient)}</a></li>"
        )

    nav = (
        '<ul class="view_nav">\n'
        + neighbour("이전글", prev)
        + "\n"
        + neighbour("다음글", next_)
        + "\n</ul>\n"
    )
    tables = (
        table("basic", "기본정보", basic_rows)
        + table("manufacturer", "제조소 정보", mfr_rows)
        + table("etc", "기타", etc_rows)
    )
    posted = f"게시일 {record.updated_on.isoformat()}"
    if template == TEMPLATE_RENEWAL:
        content = (
            _breadcrumb(template, "원료의약품 등록(DMF) 현황")
            + '<div class="content-inner">\n<div class="board-view-wrap">\n'
            + f'<h2 class="page-title">{_e(record.ingredient)}</h2>\n'
            + f'<p class="view-meta">{posted}</p>\n'
            + tables
            + '<div class="btn-area">'
            + '<a href="/dmf/list.do?page=1" class="btn btn-list">목록으로</a></div>\n'
            + nav
            + "</div>\n</div>\n"
        )
        return _frame(f"{record.ingredient} 상세", template, content)
    content = (
        _breadcrumb(template, BOARD_TITLE)
        + f'<h3 class="tit_sub">{BOARD_TITLE} 상세</h3>\n'
        + f'<div class="view_top"><span class="date">{posted}</span></div>\n'
        + tables
        + '<div class="btn_area"><a href="/dmf/list.do?page=1" class="btn_list">'
        + '<img src="/static/img/btn_list.gif" alt="목록" /></a></div>\n'
        + nav
    )
    return _frame(f"{record.ingredient} 상세", template, content)


# -- other pages ----------------------------------------------------------------------------


def render_home(template: str, day: int) -> str:
    """Home page: a link to the board and the sidebar noise."""
    content = (
        f'<h2 class="main_tit">{SITE_NAME}</h2>\n'
        f"<p>오늘 날짜: {day_date(day).isoformat()}</p>\n"
        f'<p><a href="/dmf/list.do?page=1">{BOARD_TITLE} 바로가기</a></p>\n'
    )
    return _frame(SITE_NAME, template, content)


def render_login(template: str) -> str:
    """The login wall served (with status 200) in ``login`` mode."""
    content = (
        '<div class="login_box" data-role="login">\n'
        "<h3>로그인이 필요한 서비스입니다</h3>\n"
        "<p>원료의약품 등록 공고는 회원 로그인 후 이용하실 수 있습니다.</p>\n"
        '<form id="loginForm" action="/member/loginProc.do" method="post">\n'
        '<label for="userId">아이디</label> <input type="text" id="userId" name="userId" />\n'
        '<label for="userPw">비밀번호</label> '
        '<input type="password" id="userPw" name="userPw" />\n'
        '<button type="submit" class="btn_login">로그인</button>\n'
        "</form>\n</div>\n"
    )
    return _frame("로그인", template, content)


def render_admin() -> str:
    """The admin page robots.txt forbids; a polite crawler never asks for it."""
    return _frame(
        "관리자", TEMPLATE_CLASSIC, "<h3>관리자 로그인</h3>\n<p>관계자 외 접근 금지</p>\n"
    )


def render_error(status: int, message: str) -> str:
    """A small error page (404, 403, 400)."""
    return _frame(
        f"오류 {status}",
        TEMPLATE_CLASSIC,
        f'<div class="error_box"><h3>{status}</h3><p>{_e(message)}</p></div>\n',
    )


def robots_txt(deny_all: bool) -> str:
    """robots.txt: normally only ``/admin/`` and ``/member/`` are off limits."""
    if deny_all:
        return "User-agent: *\nDisallow: /\n"
    return "# 의약품안전나라 데모\nUser-agent: *\nDisallow: /admin/\nDisallow: /member/\nAllow: /\n"
