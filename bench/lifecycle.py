"""The lifecycle benchmark: a generated site lived through 30 simulated days, every day the real CLI.

Run from the repository root::

    nice .venv/bin/python bench/lifecycle.py [--days 30] [--sites shop board] [--json out.json]
                                             [--markdown out.md] [--keep DIR] [-v]

The site is our own, generated in code (:class:`Site`): a paginated list linking to one
detail page per record, in two templates of kind — ``shop`` (UTF-8, English, a spec table)
and ``board`` (EUC-KR, a Korean notice board with ``th``/``td`` label tables like the
regulator the tool is built for). It is served on 127.0.0.1 by the test
:class:`~anchorpath.fetch.testing.FaultServer` with strong ``ETag`` and ``Last-Modified``
validators (304 on ``If-None-Match`` / ``If-Modified-Since``), so an unchanged day is a day
of 304s, as on any real server.

The story (:data:`STORY`; one run per day, days pass in seconds): day 1 authoring with the
real ``anchorpath author new-site`` (detail page type from three seeds, then the list page
type) and the first run; records added, edited and deleted (404, then 410); a punctuation-only
edit of a long text (no event); a quiet week; redesign 1 (a label renamed) repaired LLM-free;
redesign 2 (the container restructured) repaired with ``--answer`` (a scripted reply, as a
person pasting a model's answer would); a site pause (503 + ``Retry-After``); a key change
(the operator re-authors with another ``--key``); redesign 3 (another layout, with a page of new
records whose values no last good record holds) repaired with ``--llm`` against the loopback
OpenAI-compatible server (:mod:`anchorpath.authoring.llm.testing`, answering from the
generator's truth); a robots.txt change that forbids the site, lifted the next day.

Every day: ``anchorpath run SITE``; on ``drift`` the harness plays the operator — the truth
says a redesign broke the file: ``anchorpath author repair SITE --bundle B`` with the day's
method (then ``run`` again); the truth says nothing broke (a false alarm):
``anchorpath accept SITE RUN_ID``. Then ``anchorpath records`` and ``anchorpath events`` are
compared with the generator's truth.

Truth per day:

* *drift* — the selector file in force extracts, offline (the library's own evaluator, on the
  day's generated pages), a wrong value or no record for some record the site shows;
* *events* — the difference between the truth on the last committed day and today (keys new
  and gone, fields changed; a long text whose letters and digits did not change is no event);
* *records* — after each day, the current store against the truth of the last committed day:
  keys *lost* (missing), *extra* (still current though gone), fields *wrong*; a wrong field in
  a record version written by a run of this day is a *wrong value committed*.

Reused, not copied: the loopback origin is :class:`~anchorpath.fetch.testing.FaultServer`
(routes replaced each day), the model is :class:`~anchorpath.authoring.llm.testing.TruthModel`
behind :class:`~anchorpath.authoring.llm.testing.FakeOpenAIServer`, the truth's extraction is the
library's evaluator. The demo site (:mod:`anchorpath.demo`) is not the site here: its records and
its one template change are fixed per day, where this story needs its events scripted.

After each adopted repair the repaired file also runs in a fresh state directory (issue 20: a
young baseline compares with the fixtures or examples); a drift there is a false alarm, accepted
once with ``anchorpath accept``, and the run repeated: it must be ``ok``.

A step whose command or option does not exist yet in this checkout (``author repair
--answer``, a ``stopped`` verdict, ``anchorpath resume``) is reported as ``feature missing``
for that day, never as a crash.
"""

from __future__ import annotations

import argparse
import datetime as dt
import email.utils
import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any

from anchorpath.fetch.testing import Behaviour, FaultServer, Recorded, status
from anchorpath.selectors.evaluate import compile_selectors, evaluate_page, parse_html
from anchorpath.selectors.load import load_selector_file
from anchorpath.selectors.normalize import clean_text

ROOT = Path(__file__).resolve().parent.parent
KINDS = ("shop", "board")
#: The date of day 1 (Last-Modified dates are the simulated days' dates, all in the past).
DAY_ONE = dt.date(2026, 10, 1)
_KST = dt.timezone(dt.timedelta(hours=9))

# ----------------------------------------------------------------------------------------------
# the story


@dataclass(frozen=True)
class Day:
    """What happens on one simulated day (content changes are drawn by :class:`Site`)."""

    day: int
    story: str
    added: int = 0
    edited: int = 0
    deleted: int = 0  # by 404
    gone: int = 0  # by 410
    punctuation: int = 0  # punctuation-only edits of a long text
    rename_title: int = 0  # edits of the title field (only once the key is no longer the title)
    template: str | None = None  # a redesign from this day on
    paused: bool = False  # every page 503 + Retry-After
    robots_deny: bool = False  # robots.txt forbids the site
    rekey: bool = False  # the operator re-authors with another key before the run
    repair: str | None = None  # the repair method for a drift on this day: auto, answer, llm


STORY: tuple[Day, ...] = (
    Day(1, "authoring (real author new-site), first run: every record new"),
    Day(2, "2 added, 1 edited, 1 deleted (404)", added=2, edited=1, deleted=1),
    Day(3, "nothing changed: a day of 304s"),
    Day(
        4,
        "punctuation-only edit of a long text, 1 edited, 1 gone (410)",
        punctuation=1,
        edited=1,
        gone=1,
    ),
    *(Day(d, "quiet week") for d in range(5, 12)),
    Day(
        12,
        "redesign 1: a label renamed, a row added (repair LLM-free)",
        template="renamed",
        added=1,
        repair="auto",
    ),
    Day(13, "1 edited", edited=1),
    Day(14, "1 added", added=1),
    Day(
        15,
        "redesign 2: container restructured (repair --answer)",
        template="restructured",
        deleted=1,
        repair="answer",
    ),
    Day(16, "1 added, 1 edited", added=1, edited=1),
    Day(17, "nothing changed"),
    Day(18, "site pause: 503 + Retry-After on every page", paused=True),
    Day(19, "back: 1 added, 1 edited", added=1, edited=1),
    Day(20, "key change: the operator re-authors with another --key", rekey=True),
    Day(21, "a title edited (now an ordinary change)", rename_title=1),
    Day(22, "1 added", added=1),
    Day(
        23,
        "redesign 3: another layout, a page of new records (repair --llm)",
        template="relaid",
        added=7,
        edited=1,
        repair="llm",
    ),
    Day(24, "nothing changed"),
    Day(25, "robots.txt now forbids the site", robots_deny=True),
    Day(26, "robots.txt allows it again; 1 added", added=1),
    Day(27, "1 edited, 1 deleted (404)", edited=1, deleted=1),
    Day(28, "2 added", added=2),
    Day(29, "nothing changed"),
    Day(30, "1 edited, 1 gone (410)", edited=1, gone=1),
)

# ----------------------------------------------------------------------------------------------
# the generated site


@dataclass(frozen=True)
class Spec:
    """One kind of site: its fields, keys, labels, URLs and charset."""

    kind: str
    charset: str
    fields: tuple[str, ...]
    long_field: str  # a long free text (SimHash-compared by the store)
    title_field: str  # the first key (like `title` in issue 20)
    second_key: str  # the key after the key change
    edit_fields: tuple[str, ...]  # fields an ordinary edit touches
    labels: Mapping[str, str]  # detail-page labels, base template
    renamed: Mapping[str, str]  # labels that redesign 1 renames
    list_field: str  # the list page's fields (navigation: not the key)
    list_second: str
    list_second_from: str
    per_page: int
    list_path: str  # with {page}
    detail_path: str  # with {id}
    start: int  # records on day 1


SHOP = Spec(
    kind="shop",
    charset="utf-8",
    fields=("name", "sku", "price", "availability", "brand", "description"),
    long_field="description",
    title_field="name",
    second_key="sku",
    edit_fields=("price", "availability"),
    labels={
        "sku": "SKU",
        "price": "Price",
        "availability": "Availability",
        "brand": "Brand",
        "description": "Description",
    },
    renamed={"price": "Our price"},
    list_field="card_name",
    list_second="card_price",
    list_second_from="price",
    per_page=6,
    list_path="/shop/products?page={page}",
    detail_path="/shop/item/{id}.html",
    start=15,
)
BOARD = Spec(
    kind="board",
    charset="euc-kr",
    fields=("title", "notice_no", "dept", "posted", "status", "body"),
    long_field="body",
    title_field="title",
    second_key="notice_no",
    edit_fields=("status", "dept"),
    labels={
        "title": "제목",
        "notice_no": "공고번호",
        "dept": "담당부서",
        "posted": "등록일",
        "status": "진행상태",
        "body": "내용",
    },
    renamed={"dept": "소관부서"},
    list_field="subject",
    list_second="list_dept",
    list_second_from="dept",
    per_page=8,
    list_path="/board/list.do?page={page}",
    detail_path="/board/view.do?nttId={id}",
    start=17,
)
SPECS = {"shop": SHOP, "board": BOARD}

_ADJ = (
    "Amber",
    "Brisk",
    "Cobalt",
    "Dusky",
    "Ember",
    "Frost",
    "Golden",
    "Hazel",
    "Ivory",
    "Jade",
    "Kelp",
    "Lunar",
    "Misty",
    "Noble",
    "Olive",
    "Pearl",
    "Quartz",
    "Rustic",
)
_NOUN = (
    "Kettle",
    "Lantern",
    "Satchel",
    "Teapot",
    "Blanket",
    "Notebook",
    "Mug",
    "Scarf",
    "Candle",
    "Basket",
    "Planter",
    "Clock",
    "Tray",
    "Pillow",
    "Vase",
    "Bottle",
)
_BRANDS = ("Northwind", "Harbor & Co", "Lindqvist", "Maple Works", "Osaka Goods")
_STOCK = ("In stock", "Only 3 left", "Ships in 2 weeks", "Sold out")
_SENT = (
    "Made by hand in a small workshop, each piece is checked twice before it leaves us",
    "The finish is food safe, and it is easy to clean with warm water and a soft cloth",
    "We ship in recycled packaging, with a paper note on how to care for it",
    "It comes with a two year warranty, and spare parts are kept for ten years",
    "Colours may vary slightly from the photos, as every batch is dyed by hand",
)
_KO_SUBJ = (
    "원료의약품",
    "의료기기",
    "건강기능식품",
    "화장품",
    "의약외품",
    "한약재",
    "식품첨가물",
    "마약류",
    "생물의약품",
    "체외진단의료기기",
)
_KO_ACT = (
    "등록 공고",
    "허가 변경 안내",
    "품목 취하 공고",
    "안전성 서한",
    "회수 명령 공고",
    "행정처분 공고",
    "제조소 변경 공고",
    "기준 개정 예고",
)
_KO_DEPT = (
    "의약품정책과",
    "의료기기안전평가과",
    "바이오의약품정책과",
    "화장품정책과",
    "식품안전정책과",
)
_KO_STATUS = ("진행중", "접수마감", "처리완료", "공고중")
_KO_SENT = (
    "관련 법령에 따라 다음과 같이 공고하오니 이해관계인은 기한 내에 의견을 제출하여 주시기 바랍니다",
    "제출된 의견은 검토 후 반영 여부를 개별 통지하며 별도의 회신은 하지 않습니다",
    "자세한 사항은 첨부 파일을 참고하시고 문의 사항은 담당부서로 연락하여 주시기 바랍니다",
    "본 공고는 게시일로부터 효력이 발생하며 종전 공고는 이 공고로 대체합니다",
    "접수 기간 중에는 평일 오전 9시부터 오후 6시까지 방문 접수도 가능합니다",
)


def _new_record(spec: Spec, rid: int, rng: random.Random, day: int) -> dict[str, str]:
    if spec.kind == "shop":
        return {
            "name": f"{_ADJ[rid % len(_ADJ)]} {_NOUN[(rid * 7) % len(_NOUN)]} {rid}",
            "sku": f"LS-{rid:05d}",
            "price": f"{rng.randint(5, 120)}.{rng.choice(('00', '50', '95', '99'))}",
            "availability": rng.choice(_STOCK),
            "brand": rng.choice(_BRANDS),
            "description": ". ".join(rng.sample(_SENT, 4)) + ".",
        }
    date = DAY_ONE + dt.timedelta(days=day - 1)
    return {
        "title": f"{_KO_SUBJ[rid % len(_KO_SUBJ)]} {_KO_ACT[(rid * 3) % len(_KO_ACT)]} ({rid}호)",
        "notice_no": f"제2026-{rid:04d}호",
        "dept": rng.choice(_KO_DEPT),
        "posted": (date - dt.timedelta(days=rng.randint(0, 20) if day == 1 else 0)).isoformat(),
        "status": rng.choice(_KO_STATUS),
        "body": ", ".join(rng.sample(_KO_SENT, 5)) + ".",
    }


def _edit(spec: Spec, rec: dict[str, str], rng: random.Random) -> dict[str, str]:
    name = rng.choice(spec.edit_fields)
    out = dict(rec)
    if name == "price":
        out[name] = f"{float(rec[name]) + rng.choice((1, 2, 5, -1)):.2f}"
    else:
        pool = {"availability": _STOCK, "status": _KO_STATUS, "dept": _KO_DEPT}[name]
        out[name] = rng.choice([v for v in pool if v != rec[name]])
    return out


def _punctuate(text: str) -> str:
    """The same letters and digits, other punctuation: a copy edit nobody needs to hear of."""
    for old, new in ((", ", "; "), (". ", "; ")):
        if old in text:
            return text.replace(old, new, 1)
    return text + "!"


@dataclass
class Snapshot:
    """The site on one day: records in board order (newest first), template, robots, pause."""

    day: int
    records: list[tuple[int, dict[str, str]]]  # (record id, fields)
    template: str
    removed: dict[int, int]  # record id -> 404 or 410, for records deleted so far
    paused: bool
    robots_deny: bool
    punctuated: frozenset[int]  # ids whose long text had a punctuation-only edit today


class Site:
    """The generator: every day's records and pages, deterministic for a seed."""

    def __init__(self, spec: Spec, seed: int = 20) -> None:
        self.spec = spec
        self.rng = random.Random(f"{spec.kind}-{seed}")
        self.next_id = 101
        self.records: list[tuple[int, dict[str, str]]] = []
        self.removed: dict[int, int] = {}
        self.template = "base"
        for _ in range(spec.start):
            self._add(1)
        self.snapshots: dict[int, Snapshot] = {}

    def _add(self, day: int) -> None:
        rid = self.next_id
        self.next_id += 1
        self.records.insert(0, (rid, _new_record(self.spec, rid, self.rng, day)))

    def advance(self, plan: Day) -> Snapshot:
        """Apply ``plan`` (days in order) and return the day's snapshot."""
        punctuated: set[int] = set()
        if plan.day > 1:
            for _ in range(plan.added):
                self._add(plan.day)

            # Edits and deletions never touch the first page's newest record (it is a seed).
            def pool() -> list[int]:
                return list(range(3, len(self.records)))

            for _ in range(plan.edited):
                i = self.rng.choice(pool())
                rid, rec = self.records[i]
                self.records[i] = (rid, _edit(self.spec, rec, self.rng))
            for _ in range(plan.rename_title):
                i = self.rng.choice(pool())
                rid, rec = self.records[i]
                self.records[i] = (
                    rid,
                    {
                        **rec,
                        self.spec.title_field: rec[self.spec.title_field] + " (정정)"
                        if self.spec.kind == "board"
                        else rec[self.spec.title_field] + " Deluxe",
                    },
                )
            for _ in range(plan.punctuation):
                i = self.rng.choice(pool())
                rid, rec = self.records[i]
                long = self.spec.long_field
                self.records[i] = (rid, {**rec, long: _punctuate(rec[long])})
                punctuated.add(rid)
            for code, count in ((404, plan.deleted), (410, plan.gone)):
                for _ in range(count):
                    i = self.rng.choice(pool())
                    rid, _rec = self.records.pop(i)
                    self.removed[rid] = code
        if plan.template:
            self.template = plan.template
        snap = Snapshot(
            day=plan.day,
            records=[(rid, dict(rec)) for rid, rec in self.records],
            template=self.template,
            removed=dict(self.removed),
            paused=plan.paused,
            robots_deny=plan.robots_deny,
            punctuated=frozenset(punctuated),
        )
        self.snapshots[plan.day] = snap
        return snap


# -- pages --------------------------------------------------------------------------------------


def list_url(spec: Spec, page: int) -> str:
    return spec.list_path.format(page=page)


def detail_url(spec: Spec, rid: int) -> str:
    return spec.detail_path.format(id=rid)


def _e(text: str) -> str:
    return escape(text, quote=True)


def _doc(spec: Spec, title: str, body: str) -> str:
    if spec.kind == "shop":
        return (
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>{_e(title)} | Lifecycle Shop</title></head>\n<body>\n"
            '<header class="site-header"><a href="/" class="logo">Lifecycle Shop</a>'
            '<nav><a href="/shop/products?page=1">All products</a> <a href="/help">Help</a>'
            "</nav></header>\n"
            f'<main id="main">\n{body}</main>\n'
            "<footer><p>Lifecycle Shop, 1 Loopback Lane. Prices include VAT.</p></footer>\n"
            "</body></html>\n"
        )
    return (
        '<!DOCTYPE html>\n<html lang="ko"><head>'
        '<meta http-equiv="Content-Type" content="text/html; charset=euc-kr">'
        f'<title>{_e(title)} - 안전정보 공지</title></head>\n<body>\n<div id="wrap">\n'
        '<div id="header"><h1 class="logo"><a href="/">안전정보 공지</a></h1>'
        '<ul class="gnb"><li><a href="/board/list.do?page=1">공지사항</a></li>'
        '<li><a href="/info">기관소개</a></li></ul></div>\n'
        f'<div id="container"><div id="content">\n{body}</div></div>\n'
        '<div id="footer"><address>세종특별자치시 루프백로 1</address>'
        '<p class="copy">COPYRIGHT 안전정보 공지 데모. ALL RIGHTS RESERVED.</p></div>\n'
        "</div>\n</body></html>\n"
    )


def render_list(spec: Spec, snap: Snapshot, page: int) -> str | None:
    recs = snap.records
    last = max(1, -(-len(recs) // spec.per_page))
    if page > last:
        return None
    chunk = recs[(page - 1) * spec.per_page : page * spec.per_page]
    title = spec.title_field
    if spec.kind == "shop":
        cards = "\n".join(
            f'<div class="card"><a class="card-link" href="{_e(detail_url(spec, rid))}">'
            f'<span class="card-name">{_e(r[title])}</span></a>'
            f'<span class="card-price">{_e(r["price"])}</span></div>'
            for rid, r in chunk
        )
        nav = '<nav class="pages">' + " ".join(
            f'<a href="{_e(list_url(spec, k))}">{k}</a>' if k != page else f"<b>{k}</b>"
            for k in range(1, last + 1)
        )
        if page < last:
            nav += f' <a rel="next" href="{_e(list_url(spec, page + 1))}">Next</a>'
        nav += "</nav>\n"
        body = (
            f'<h1>All products</h1>\n<p class="count">{len(recs)} products</p>\n'
            f'<div class="grid">\n{cards}\n</div>\n{nav}'
        )
        return _doc(spec, "All products", body)
    rows = "\n".join(
        f'<tr><td class="num">{len(recs) - (page - 1) * spec.per_page - i}</td>'
        f'<td class="tl"><a href="{_e(detail_url(spec, rid))}">{_e(r[title])}</a></td>'
        f'<td>{_e(r["dept"])}</td><td class="date">{_e(r["posted"])}</td></tr>'
        for i, (rid, r) in enumerate(chunk)
    )
    paging = '<div class="paging">' + " ".join(
        f'<a href="{_e(list_url(spec, k))}">{k}</a>' if k != page else f"<strong>{k}</strong>"
        for k in range(1, last + 1)
    )
    if page < last:
        paging += f' <a class="next" href="{_e(list_url(spec, page + 1))}">다음</a>'
    paging += "</div>\n"
    body = (
        '<h3 class="tit_sub">공지사항</h3>\n'
        f'<p class="total">총 <strong>{len(recs)}</strong>건</p>\n'
        '<table class="tbl_list" summary="공지사항 목록">\n<caption>공지사항 목록</caption>\n'
        '<thead><tr><th scope="col">번호</th><th scope="col">제목</th>'
        '<th scope="col">담당부서</th><th scope="col">등록일</th></tr></thead>\n'
        f"<tbody>\n{rows}\n</tbody>\n</table>\n{paging}"
    )
    return _doc(spec, "공지사항", body)


def _labels(spec: Spec, template: str) -> dict[str, str]:
    labels = dict(spec.labels)
    if template != "base":  # the renamed label stays renamed in every later layout
        labels.update(spec.renamed)
    return labels


def render_detail(spec: Spec, snap: Snapshot, rid: int, rec: Mapping[str, str]) -> str:
    lab = _labels(spec, snap.template)
    t = snap.template
    long = spec.long_field
    title = spec.title_field
    rest = [f for f in spec.fields if f not in (title, long)]
    if spec.kind == "shop":
        if t in ("base", "renamed"):
            rows = "\n".join(f"<tr><th>{_e(lab[f])}</th><td>{_e(rec[f])}</td></tr>" for f in rest)
            if t == "renamed":  # the redesign also adds a row on top
                rows = f"<tr><th>Rating</th><td>{4 + rid % 2}.{rid % 10} / 5</td></tr>\n" + rows
            body = (
                '<article class="product">\n'
                f'<h1 class="product-title">{_e(rec[title])}</h1>\n'
                f'<table class="specs"><tbody>\n{rows}\n</tbody></table>\n'
                f'<section class="description"><h2>{_e(lab[long])}</h2>'
                f"<p>{_e(rec[long])}</p></section>\n"
                "</article>\n"
            )
        elif t == "restructured":
            rows = "\n".join(
                f'<div class="spec"><dt>{_e(lab[f])}</dt><dd>{_e(rec[f])}</dd></div>' for f in rest
            )
            body = (
                '<div class="layout"><div class="col-main">\n<article class="product-v2">\n'
                f'<div class="product-head"><h1>{_e(rec[title])}</h1>'
                '<a class="share" href="/share">Share</a></div>\n'
                f'<dl class="spec-list">\n{rows}\n</dl>\n'
                f'<div class="product-body"><h2>About this item</h2>'
                f'<div class="copy"><p>{_e(rec[long])}</p></div></div>\n'
                "</article>\n</div></div>\n"
            )
        else:  # relaid
            rows = "\n".join(
                f'<li><span class="k">{_e(lab[f])}:</span> <span class="v">{_e(rec[f])}</span></li>'
                for f in rest
            )
            body = (
                '<section class="pdp">\n<div class="pdp-info">\n'
                f'<h2 class="pdp-name">{_e(rec[title])}</h2>\n'
                f'<ul class="facts">\n{rows}\n</ul>\n</div>\n'
                f'<div class="pdp-text">{_e(rec[long])}</div>\n</section>\n'
            )
        return _doc(spec, rec[title], body)
    if t in ("base", "renamed"):
        pairs = [rest[i : i + 2] for i in range(0, len(rest), 2)]
        trs = [
            f'<tr><th scope="row">{_e(lab[title])}</th><td colspan="3">{_e(rec[title])}</td></tr>'
        ]
        if t == "renamed":  # the redesign also adds a row under the title
            trs.append(
                f'<tr><th scope="row">조회수</th><td>{rid * 7 % 300}</td>'
                '<th scope="row">첨부파일</th><td>없음</td></tr>'
            )
        for pair in pairs:
            cells = "".join(f'<th scope="row">{_e(lab[f])}</th><td>{_e(rec[f])}</td>' for f in pair)
            trs.append(f"<tr>{cells}</tr>")
        trs.append(
            f'<tr><th scope="row">{_e(lab[long])}</th>'
            f'<td colspan="3"><div class="txt">{_e(rec[long])}</div></td></tr>'
        )
        body = (
            '<h3 class="tit_sub">공지사항 상세</h3>\n'
            '<table class="tbl_view" summary="공지사항 상세">\n<caption>공지사항 상세</caption>\n'
            "<tbody>\n" + "\n".join(trs) + "\n</tbody>\n</table>\n"
            '<div class="btn_area"><a href="/board/list.do?page=1" class="btn_list">목록</a>'
            "</div>\n"
        )
    elif t == "restructured":
        items = "\n".join(
            f"<li><strong>{_e(lab[f])}</strong> <span>{_e(rec[f])}</span></li>" for f in rest
        )
        body = (
            '<div class="view_wrap">\n'
            f'<div class="view_head"><h4 class="view_tit">{_e(rec[title])}</h4></div>\n'
            f'<ul class="view_info">\n{items}\n</ul>\n'
            f'<div class="view_cont"><p>{_e(rec[long])}</p></div>\n'
            '<div class="btn_area"><a href="/board/list.do?page=1">목록</a></div>\n</div>\n'
        )
    else:  # relaid
        items = "\n".join(
            f'<div class="row"><dt>{_e(lab[f])}</dt><dd>{_e(rec[f])}</dd></div>' for f in rest
        )
        body = (
            '<section class="board-view">\n'
            f'<header class="bv-head"><h2>{_e(rec[title])}</h2></header>\n'
            f'<dl class="bv-meta">\n{items}\n</dl>\n'
            f'<article class="bv-body">{_e(rec[long])}</article>\n</section>\n'
        )
    return _doc(spec, rec[title], body)


def pages_of(spec: Spec, snap: Snapshot) -> dict[str, bytes]:
    """Every page the site shows on ``snap``'s day: path -> bytes in the site's charset."""
    out: dict[str, bytes] = {}
    page = 1
    while (html := render_list(spec, snap, page)) is not None:
        out[list_url(spec, page)] = html.encode(spec.charset)
        page += 1
    for rid, rec in snap.records:
        out[detail_url(spec, rid)] = render_detail(spec, snap, rid, rec).encode(spec.charset)
    return out


# -- serving ----------------------------------------------------------------------------------


def _http_date(day: int) -> tuple[str, dt.datetime]:
    when = dt.datetime.combine(DAY_ONE + dt.timedelta(days=day - 1), dt.time(0), tzinfo=_KST)
    return email.utils.format_datetime(when.astimezone(dt.UTC), usegmt=True), when


def _validated(
    body: bytes, content_type: str, since_day: int, count: Callable[[int], None]
) -> Behaviour:
    """200 with a strong ETag and Last-Modified; 304 on a matching conditional request."""
    tag = '"' + hashlib.sha256(body).hexdigest()[:20] + '"'
    last_modified, when = _http_date(since_day)
    headers = {"ETag": tag, "Last-Modified": last_modified, "Cache-Control": "no-cache"}

    def run(h: Any, r: Recorded) -> None:
        inm = r.headers.get("if-none-match")
        ims = r.headers.get("if-modified-since")
        fresh = False
        if inm is not None:  # If-None-Match wins (RFC 9110 §13.2.2)
            fresh = inm.strip() == "*" or tag in [
                t.strip().removeprefix("W/") for t in inm.split(",")
            ]
        elif ims is not None:
            try:
                fresh = email.utils.parsedate_to_datetime(ims) >= when
            except (TypeError, ValueError):
                fresh = False
        count(304 if fresh else 200)
        if fresh:
            status(304, headers)(h, r)
        else:
            status(200, {**headers, "Content-Type": content_type}, body)(h, r)

    return run


ROBOTS_OPEN = "User-agent: *\nDisallow: /admin/\n"


class SiteServer:
    """A :class:`Site` on a loopback :class:`FaultServer`, one day at a time."""

    def __init__(self, site: Site) -> None:
        self.site = site
        self.server = FaultServer(robots=None).start()
        self._since: dict[str, tuple[str, int]] = {}  # path -> (digest, first day)
        self.pages: dict[str, bytes] = {}
        self.statuses: dict[int, int] = {}

    def _count(self, code: int) -> None:
        self.statuses[code] = self.statuses.get(code, 0) + 1

    def _counted(self, code: int, headers: Mapping[str, str], body: bytes) -> Behaviour:
        answer = status(code, headers, body)

        def run(h: Any, r: Recorded) -> None:
            self._count(code)
            answer(h, r)

        return run

    @property
    def base_url(self) -> str:
        return self.server.base_url

    def show(self, snap: Snapshot) -> None:
        spec = self.site.spec
        ctype = f"text/html; charset={spec.charset}"
        self.pages = pages_of(spec, snap)
        routes: dict[str, Behaviour] = {}
        gone_body = b"<html><body><h1>Not here</h1></body></html>"
        for rid, code in snap.removed.items():
            routes[detail_url(spec, rid)] = self._counted(
                code, {"Content-Type": "text/html"}, gone_body
            )
        for path, body in self.pages.items():
            digest = hashlib.sha256(body).hexdigest()
            old = self._since.get(path)
            if old is None or old[0] != digest:
                self._since[path] = (digest, snap.day)
            routes[path] = _validated(body, ctype, self._since[path][1], self._count)
        if snap.paused:
            pause = self._counted(
                503,
                {"Content-Type": "text/html", "Retry-After": "86400"},
                b"<html><body><h1>Down for maintenance</h1></body></html>",
            )
            routes = {path: pause for path in routes}
        robots = "User-agent: *\nDisallow: /\n" if snap.robots_deny else ROBOTS_OPEN
        routes["/robots.txt"] = self._counted(200, {"Content-Type": "text/plain"}, robots.encode())
        self.server.routes.clear()
        self.server.routes.update(routes)

    def calls(self) -> int:
        return len(self.server.requests)

    def stop(self) -> None:
        self.server.stop()


# ----------------------------------------------------------------------------------------------
# truth


def _alnum(text: str) -> str:
    return "".join(c for c in text.casefold() if c.isalnum())


def same_value(spec: Spec, name: str, got: Any, want: str) -> bool:
    if isinstance(got, list):
        got = " ".join(str(g) for g in got)
    if name == spec.long_field:  # compared as the store does: letters and digits
        return _alnum(str(got or "")) == _alnum(want)
    return clean_text(str(got if got is not None else "")) == clean_text(want)


def truth_records(spec: Spec, snap: Snapshot, key: str) -> dict[str, dict[str, str]]:
    return {rec[key]: rec for _rid, rec in snap.records}


@dataclass(frozen=True)
class TruthEvents:
    new: frozenset[str]
    changed: Mapping[str, frozenset[str]]
    withdrawn: frozenset[str]


def truth_events(
    spec: Spec, before: Snapshot | None, after: Snapshot, key: str, old_key: str | None = None
) -> TruthEvents:
    """What a store that held ``before`` (keyed by ``old_key``) should record for ``after``."""
    now = truth_records(spec, after, key)
    if before is None:
        return TruthEvents(frozenset(now), {}, frozenset())
    was = truth_records(spec, before, old_key or key)
    if old_key and old_key != key:  # a key change: every old key retired, every new key new
        return TruthEvents(frozenset(now), {}, frozenset(was))
    changed = {}
    for k, rec in now.items():
        if k in was:
            diff = frozenset(f for f in spec.fields if not same_value(spec, f, was[k][f], rec[f]))
            if diff:
                changed[k] = diff
    return TruthEvents(frozenset(set(now) - set(was)), changed, frozenset(set(was) - set(now)))


def extraction_truth(
    spec: Spec, selector: Path, base_url: str, server: SiteServer, snap: Snapshot, key: str
) -> tuple[bool, list[str]]:
    """Would the selector file in force give the site's true values today? Evaluated offline
    on the day's generated pages by the library's own evaluator. Returns (broken, reasons)."""
    if snap.paused or snap.robots_deny or not selector.is_file():
        return False, []
    sf = load_selector_file(selector)
    compiled = compile_selectors(sf)
    got: dict[str, dict[str, Any]] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for path, body in server.pages.items():
            result = evaluate_page(compiled, parse_html(body), base_url + path)
            for rec in result.records:
                k = "|".join(clean_text(str(rec.values.get(n) or "")) for n in sf.key)
                slot = got.setdefault(k, {})
                for n, v in rec.values.items():
                    if v not in (None, "", []):
                        slot.setdefault(n, v)
    truth = truth_records(spec, snap, key)
    reasons = []
    missing = [k for k in truth if clean_text(k) not in got]
    if missing:
        reasons.append(f"{len(missing)} of {len(truth)} records not extracted")
    for name in spec.fields:
        bad = sum(
            1
            for k, rec in truth.items()
            if clean_text(k) in got
            and not same_value(spec, name, got[clean_text(k)].get(name), rec[name])
        )
        if bad:
            reasons.append(f"{name} wrong on {bad} record(s)")
    return bool(reasons), reasons


# ----------------------------------------------------------------------------------------------
# the operator: the real CLI


@dataclass
class Call:
    argv: list[str]
    code: int
    out: str
    err: str
    seconds: float


class Operator:
    """Runs ``anchorpath`` commands in a work directory (config ``anchorpath.toml`` there)."""

    def __init__(self, work: Path, site_id: str, verbose: bool = False) -> None:
        self.work = work
        self.site_id = site_id
        self.verbose = verbose
        self.calls: list[Call] = []
        self._help: dict[tuple[str, ...], str] = {}
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("ANCHORPATH_")}

    def cli(self, *args: str, env: Mapping[str, str] | None = None, timeout: float = 600) -> Call:
        argv = [sys.executable, "-m", "anchorpath", *args]
        t0 = time.monotonic()
        done = subprocess.run(
            argv,
            cwd=self.work,
            env={**self.env, **(env or {})},
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        call = Call(list(args), done.returncode, done.stdout, done.stderr, time.monotonic() - t0)
        self.calls.append(call)
        if self.verbose:
            print(
                f"    $ anchorpath {' '.join(args)}  -> exit {call.code} ({call.seconds:.1f} s)",
                file=sys.stderr,
            )
            if call.code not in (0, 3) and (call.out or call.err):
                print(
                    "      " + (call.err or call.out).strip().replace("\n", "\n      ")[:2000],
                    file=sys.stderr,
                )
        return call

    def has(self, *command: str, option: str | None = None) -> bool:
        """Whether ``anchorpath COMMAND`` exists (and has ``option``): asked of ``--help``."""
        if command not in self._help:
            c = self.cli(*command, "--help")
            self.calls.pop()
            self._help[command] = c.out if c.code == 0 else ""
        text = self._help[command]
        return bool(text) and (option is None or option in text)

    def runs_dir(self, state: str = "state") -> Path:
        return self.work / state / "runs" / self.site_id

    def latest_report(self, before: set[str], state: str = "state") -> dict[str, Any] | None:
        runs = self.runs_dir(state)
        if not runs.is_dir():
            return None
        new = sorted(p for p in runs.iterdir() if p.is_dir() and p.name not in before)
        if not new:
            return None
        report = new[-1] / "report.json"
        if not report.is_file():
            return {"run_id": new[-1].name, "verdict": "?"}
        data: dict[str, Any] = json.loads(report.read_text("utf-8"))
        data.setdefault("run_id", new[-1].name)
        data["_dir"] = str(new[-1])
        return data

    def run_ids(self, state: str = "state") -> set[str]:
        runs = self.runs_dir(state)
        return {p.name for p in runs.iterdir()} if runs.is_dir() else set()

    def json_out(self, *args: str) -> list[dict[str, Any]]:
        c = self.cli(*args, "--format", "json")
        if c.code != 0:
            raise RuntimeError(f"anchorpath {' '.join(args)}: exit {c.code}: {c.err.strip()}")
        text = c.out.strip()
        return list(json.loads(text)) if text else []


_EXIT_VERDICT = {0: "ok", 3: "drift", 4: "blocked", 5: "stopped", 1: "error"}


@dataclass
class RunOutcome:
    verdict: str
    run_id: str | None
    bundle: Path | None
    code: int
    note: str = ""


def run_site(op: Operator, state: str = "state") -> RunOutcome:
    """``anchorpath run SITE`` (in the state directory ``state`` of the work directory)."""
    before = op.run_ids(state)
    extra = [] if state == "state" else ["--state", state]
    call = op.cli("run", op.site_id, "--quiet", *extra)
    report = op.latest_report(before, state)
    verdict = str(
        (report or {}).get("verdict") or _EXIT_VERDICT.get(call.code, f"exit {call.code}")
    )
    run_id = (report or {}).get("run_id")
    bundle = None
    if report and report.get("_dir") and (Path(report["_dir"]) / "bundle").is_dir():
        bundle = Path(report["_dir"]) / "bundle"
    note = ""
    if call.code not in (0, 3, 4, 5):
        lines = (call.err + "\n" + call.out).strip().splitlines()
        said = [ln.strip() for ln in lines if re.match(r"\s*(error|Error):", ln)]
        note = (said or lines[-1:] or [""])[0]
    return RunOutcome(verdict, str(run_id) if run_id else None, bundle, call.code, note)


# -- authoring -----------------------------------------------------------------------------------


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def author(
    op: Operator, spec: Spec, snap: Snapshot, server: SiteServer, key: str, *, list_too: bool
) -> list[str]:
    """``author new-site`` from the day's pages: the detail page type from three seeds (with
    ``--key``), then (``list_too``) the list page type from two list pages. Problems returned."""
    problems: list[str] = []
    seeds_dir = op.work / "seeds" / f"day{snap.day:02d}"
    examples: dict[str, dict[str, Any]] = {}
    argv = ["author", "new-site", op.site_id]
    for i, (rid, rec) in enumerate(snap.records[:3]):
        rel = f"seeds/day{snap.day:02d}/detail-{i + 1}.html"
        _write(op.work / rel, server.pages[detail_url(spec, rid)])
        examples[rel] = dict(rec)
        argv += ["--seed", rel, "--seed-url", server.base_url + detail_url(spec, rid)]
    (seeds_dir / "detail-examples.json").write_text(
        json.dumps(examples, ensure_ascii=False, indent=1), "utf-8"
    )
    argv += [
        "--examples",
        f"seeds/day{snap.day:02d}/detail-examples.json",
        "--key",
        key,
        "--required",
        key,
        "--page-type",
        "detail",
        "--yes",
    ]
    call = op.cli(*argv)
    if call.code != 0:
        problems.append(f"author detail: exit {call.code}: {_last_line(call)}")
        return problems
    if not list_too:
        return problems
    examples = {}
    argv = ["author", "new-site", op.site_id]
    for page in (1, 2):
        rel = f"seeds/day{snap.day:02d}/list-{page}.html"
        _write(op.work / rel, server.pages[list_url(spec, page)])
        chunk = snap.records[(page - 1) * spec.per_page : page * spec.per_page]
        examples[rel] = {
            spec.list_field: [rec[spec.title_field] for _rid, rec in chunk],
            spec.list_second: [rec[spec.list_second_from] for _rid, rec in chunk],
        }
        argv += ["--seed", rel, "--seed-url", server.base_url + list_url(spec, page)]
    (seeds_dir / "list-examples.json").write_text(
        json.dumps(examples, ensure_ascii=False, indent=1), "utf-8"
    )
    argv += [
        "--examples",
        f"seeds/day{snap.day:02d}/list-examples.json",
        "--list-page",
        "--page-type",
        "list",
        "--yes",
    ]
    call = op.cli(*argv)
    if call.code != 0:
        problems.append(f"author list: exit {call.code}: {_last_line(call)}")
    return problems


def _last_line(call: Call) -> str:
    lines = (call.err or call.out).strip().splitlines()
    return lines[-1] if lines else ""


# -- repair ----------------------------------------------------------------------------------------


@dataclass
class RepairOutcome:
    method: str
    adopted: bool
    note: str
    llm_calls: int = 0


def _bundle_urls(bundle: Path) -> list[str]:
    try:
        manifest = json.loads((bundle / "bundle.json").read_text("utf-8"))
    except (OSError, ValueError):
        return []
    urls: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                if k == "url" and isinstance(v, str):
                    urls.append(v)
                else:
                    walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(manifest)
    return list(dict.fromkeys(urls))


def _answer_json(bundle: Path, truth_by_url: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The reply a careful person (or model) gives to ``prompt.md``: per page URL in the
    prompt's answer block, the true value of every field it asks for."""
    prompt = (bundle / "prompt.md").read_text("utf-8") if (bundle / "prompt.md").is_file() else ""
    m = re.search(r"```json\s*(\{.*?\})\s*```", prompt.split("## Answer", 1)[-1], re.S)
    asked: dict[str, Any] = json.loads(m.group(1)) if m else {}
    out: dict[str, Any] = {}
    for url, fields in asked.items():
        truth = truth_by_url.get(url)
        if truth is None:
            continue
        out[url] = {n: truth.get(n) for n in fields}
    return out


def repair(
    op: Operator, method: str, bundle: Path | None, truth_by_url: Mapping[str, Any], llm_dir: Path
) -> RepairOutcome:
    if bundle is None:
        return RepairOutcome(method, False, "no alert bundle")
    args = ["author", "repair", op.site_id, "--bundle", str(bundle), "--yes"]
    if method == "answer":
        if not op.has("author", "repair", option="--answer"):
            return RepairOutcome(method, False, "feature missing: author repair --answer")
        answer = _answer_json(bundle, truth_by_url)
        path = op.work / f"answer-{bundle.parent.name}.json"
        # The model's whole reply, JSON inside prose, as a person would paste it.
        path.write_text(
            "Here are the values:\n```json\n"
            + json.dumps(answer, ensure_ascii=False, indent=1)
            + "\n```\n",
            "utf-8",
        )
        call = op.cli(*args, "--answer", str(path))
        return RepairOutcome(method, call.code == 0, _last_line(call))
    if method == "llm":
        from anchorpath.authoring.llm.testing import FakeOpenAIServer, TruthModel

        model = TruthModel(
            {
                u: {k: v if isinstance(v, list) else [v] for k, v in rec.items()}
                for u, rec in truth_by_url.items()
            }
        )
        with FakeOpenAIServer(model) as llm:
            call = op.cli(*args, "--llm", env=llm.cli_env(llm_dir))
            return RepairOutcome(method, call.code == 0, _last_line(call), llm.calls())
    call = op.cli(*args)
    return RepairOutcome(method, call.code == 0, _last_line(call))


# ----------------------------------------------------------------------------------------------
# one day, one site


@dataclass
class DayReport:
    site: str
    day: int
    story: str
    truth_verdict: str  # ok, drift, paused, stopped
    truth_reasons: list[str]
    verdict_ok: bool  # the day's verdicts are what the truth calls for
    verdicts: list[str]  # every run of the day, in order
    final: str  # the day's last run's verdict
    actions: list[str]
    events_ok: bool | None  # None: no committed run today
    events_note: str
    lost: int
    extra: int
    wrong: int
    wrong_committed: int
    site_calls: int
    status_counts: dict[str, int]
    llm_calls: int
    false_alarm: bool
    missed_drift: bool
    repairs_adopted: int
    repairs_tried: int
    missing: list[str] = field(default_factory=list)
    cli_calls: list[str] = field(default_factory=list)  # the anchorpath commands of the day
    repair_attempts: list[tuple[str, bool]] = field(default_factory=list)  # (method, adopted)
    #: after an adopted repair: the repaired file's verdicts in a fresh state directory (a
    #: young baseline), a drift there accepted once and the run repeated
    young_baseline: list[str] = field(default_factory=list)
    seconds: float = 0.0


class Life:
    """One site kind's 30 days."""

    def __init__(self, kind: str, work: Path, *, seed: int = 20, verbose: bool = False) -> None:
        self.spec = SPECS[kind]
        self.site = Site(self.spec, seed)
        self.server = SiteServer(self.site)
        self.work = work
        work.mkdir(parents=True, exist_ok=True)
        (work / "anchorpath.toml").write_text(
            "# The lifecycle benchmark's site, on loopback; days pass in seconds, so the\n"
            "# robots.txt cache lives 1.5 s instead of a day (days start >= 1.6 s apart).\n"
            '[paths]\nselectors_dir = "selectors"\nstate_dir = "state"\n'
            '[fetch]\ncontact = "lifecycle-bench@example.org"\n'
            "allow_private_networks = true\nmin_delay = 0.02\nrobots_cache_ttl = 1.5\n"
            "max_attempts = 1\n",
            "utf-8",
        )
        self.op = Operator(work, f"life-{kind}", verbose=verbose)
        self.key = self.spec.title_field
        self.last_committed: Snapshot | None = None
        self.committed_key = self.key
        self.verbose = verbose
        self.stopped = False
        self.accepted = False

    @property
    def selector(self) -> Path:
        return self.work / "selectors" / f"{self.op.site_id}.json"

    def close(self) -> None:
        self.server.stop()

    def _truth_by_url(self, snap: Snapshot) -> dict[str, dict[str, Any]]:
        """Every page's true values: a detail page's record, a list page's columns."""
        spec = self.spec
        out: dict[str, dict[str, Any]] = {
            self.server.base_url + detail_url(spec, rid): dict(rec) for rid, rec in snap.records
        }
        for page in range(1, -(-len(snap.records) // spec.per_page) + 1):
            chunk = snap.records[(page - 1) * spec.per_page : page * spec.per_page]
            out[self.server.base_url + list_url(spec, page)] = {
                spec.list_field: [rec[spec.title_field] for _rid, rec in chunk],
                spec.list_second: [rec[spec.list_second_from] for _rid, rec in chunk],
            }
        return out

    def day(self, plan: Day) -> DayReport:
        # A new day begins after the robots.txt cache of the last one expired (TTL 1.5 s).
        time.sleep(max(0.0, self._last_run_end + 1.6 - time.monotonic()))
        t0 = time.monotonic()
        spec = self.spec
        snap = self.site.advance(plan)
        self.server.show(snap)
        calls0 = len(self.server.server.requests)
        self.server.statuses.clear()
        cli0 = len(self.op.calls)
        actions: list[str] = []
        missing: list[str] = []
        llm_calls = 0
        old_key = self.committed_key
        if plan.day == 1:
            problems = author(self.op, spec, snap, self.server, self.key, list_too=True)
            actions.append("author new-site (detail, list)")
            if problems:
                actions += problems
        if plan.rekey:
            self.key = spec.second_key
            problems = author(self.op, spec, snap, self.server, self.key, list_too=False)
            actions.append(f"author new-site --key {self.key} (key change)")
            actions += problems
        if self.stopped and not plan.robots_deny:
            if self.op.has("resume"):
                c = self.op.cli(
                    "resume",
                    self.op.site_id,
                    "--by",
                    "lifecycle-bench",
                    "--reason",
                    "robots.txt allows the site again (reviewed)",
                )
                actions.append(f"resume: exit {c.code}")
            else:
                missing.append("anchorpath resume")
            self.stopped = False

        broken, reasons = extraction_truth(
            spec, self.selector, self.server.base_url, self.server, snap, self.key
        )
        truth_verdict = (
            "paused"
            if snap.paused
            else "stopped"
            if snap.robots_deny
            else "drift"
            if broken
            else "ok"
        )
        verdicts: list[str] = []
        committed_runs: list[str] = []
        false_alarm = missed = False
        adopted = tried = 0
        attempts: list[tuple[str, bool]] = []
        young: list[str] = []

        out = self._run()
        verdicts.append(out.verdict)
        if out.note:
            actions.append(f"run: {out.note}")
        if out.verdict in ("ok", "empty-source") and out.run_id:
            committed_runs.append(out.run_id)
            if broken:
                missed = True
        elif out.verdict == "drift":
            if broken:
                tried += 1
                method = plan.repair or "auto"
                order = [method] + [m for m in ("auto", "answer", "llm") if m != method]
                for m in order:
                    r = repair(
                        self.op, m, out.bundle, self._truth_by_url(snap), self.work / "llm-cache"
                    )
                    llm_calls += r.llm_calls
                    attempts.append((m, r.adopted))
                    actions.append(
                        f"author repair ({m}): "
                        + ("adopted" if r.adopted else f"not adopted: {r.note}")
                    )
                    if r.note.startswith("feature missing"):
                        missing.append(r.note.removeprefix("feature missing: "))
                    if r.adopted:
                        adopted += 1
                        break
                if adopted:
                    broken, _ = extraction_truth(
                        spec, self.selector, self.server.base_url, self.server, snap, self.key
                    )
                    out2 = self._run()
                    verdicts.append(out2.verdict)
                    if out2.verdict in ("ok", "empty-source") and out2.run_id:
                        committed_runs.append(out2.run_id)
                        young = self._young_baseline(plan.day, actions)
                    elif out2.verdict == "drift" and not broken:
                        false_alarm = True
                        self._accept(out2, actions, committed_runs)
            else:
                false_alarm = True
                self._accept(out, actions, committed_runs)
        elif snap.robots_deny:
            if out.verdict != "stopped":
                missing.append("verdict `stopped` (robots.txt forbids the site)")
            self.stopped = True

        # -- the store against the truth
        if committed_runs:
            self.last_committed = snap
            self.committed_key = self.key
        events_ok: bool | None = None
        events_note = ""
        lost = extra = wrong = wrong_committed = 0
        try:
            records = self.op.json_out("records", self.op.site_id)
            events = self.op.json_out("events", self.op.site_id)
        except RuntimeError as exc:
            records, events = [], []
            actions.append(str(exc))
        if self.last_committed is not None:
            want = truth_records(spec, self.last_committed, self.committed_key)
            have = {str(r.get("_key")): r for r in records}
            lost = sum(1 for k in want if k not in have)
            extra = sum(1 for k in have if k not in want)
            for k, rec in want.items():
                got = have.get(k)
                if got is None:
                    continue
                bad = [n for n in spec.fields if not same_value(spec, n, got.get(n), rec[n])]
                wrong += len(bad)
                if got.get("_run_id") in committed_runs:
                    wrong_committed += len(bad)
        if committed_runs:
            before = self._before
            te = truth_events(
                spec, before, snap, self.key, old_key if old_key != self.key else None
            )
            got_ev = [e for e in events if e.get("run_id") in committed_runs]
            events_ok, events_note = _compare_events(te, got_ev)
            self._before = snap
        status_counts = {str(k): v for k, v in sorted(self.server.statuses.items())}
        verdict_ok = _verdict_matches(truth_verdict, verdicts, false_alarm)
        return DayReport(
            site=spec.kind,
            day=plan.day,
            story=plan.story,
            truth_verdict=truth_verdict,
            verdict_ok=verdict_ok,
            truth_reasons=reasons,
            verdicts=verdicts,
            final=verdicts[-1],
            actions=actions,
            events_ok=events_ok,
            events_note=events_note,
            lost=lost,
            extra=extra,
            wrong=wrong,
            wrong_committed=wrong_committed,
            site_calls=len(self.server.server.requests) - calls0,
            status_counts=status_counts,
            llm_calls=llm_calls,
            cli_calls=[" ".join(c.argv[:2]) for c in self.op.calls[cli0:]],
            repair_attempts=attempts,
            young_baseline=young,
            false_alarm=false_alarm,
            missed_drift=missed,
            repairs_adopted=adopted,
            repairs_tried=tried,
            missing=missing,
            seconds=time.monotonic() - t0,
        )

    _before: Snapshot | None = None
    _last_run_end = 0.0

    def _run(self) -> RunOutcome:
        out = run_site(self.op)
        self._last_run_end = time.monotonic()
        return out

    def _young_baseline(self, day: int, actions: list[str]) -> list[str]:
        """Issue 20: a repaired file in a fresh state directory (its first runs compare with
        the fixtures or examples) must be ``ok``; a drift there is a false alarm, accepted
        once, after which the next identical run must be ``ok``."""
        state = f"state-young-day{day:02d}"
        first = run_site(self.op, state)
        verdicts = [first.verdict]
        if first.verdict == "drift" and first.run_id:
            c = self.op.cli(
                "accept", self.op.site_id, first.run_id, "--state", state, "--by", "lifecycle-bench"
            )
            verdicts.append(f"accept: exit {c.code}")
            verdicts.append(run_site(self.op, state).verdict)
        actions.append("repaired file in a fresh state: " + " → ".join(verdicts))
        self._last_run_end = time.monotonic()
        return verdicts

    def _accept(self, out: RunOutcome, actions: list[str], committed: list[str]) -> None:
        if not out.run_id:
            return
        c = self.op.cli("accept", self.op.site_id, out.run_id, "--by", "lifecycle-bench")
        actions.append(f"accept {out.run_id}: exit {c.code}")
        if c.code == 0:
            committed.append(out.run_id)
            self.accepted = True


def _verdict_matches(truth: str, verdicts: Sequence[str], false_alarm: bool) -> bool:
    """ok: the run commits (an accepted false alarm is not a match); drift: the first run
    says so and a run after the repair commits; paused: nothing committed, no drift claimed;
    stopped: the ``stopped`` verdict."""
    if truth == "ok":
        return not false_alarm and verdicts[-1] in ("ok", "empty-source")
    if truth == "drift":
        return verdicts[0] == "drift" and verdicts[-1] in ("ok", "empty-source")
    if truth == "paused":
        return verdicts[-1] not in ("ok", "empty-source", "drift", "accepted")
    return verdicts[-1] == "stopped"


def _compare_events(te: TruthEvents, got: Sequence[Mapping[str, Any]]) -> tuple[bool, str]:
    new = {str(e["key"]) for e in got if e.get("kind") == "new"}
    withdrawn = {str(e["key"]) for e in got if e.get("kind") in ("withdrawn", "retired")}
    changed: dict[str, set[str]] = {}
    for e in got:
        if e.get("kind") == "changed":
            fields = e.get("fields") or {}
            if isinstance(fields, str):
                fields = json.loads(fields)
            changed.setdefault(str(e["key"]), set()).update(fields)
    notes = []
    if new != set(te.new):
        notes.append(
            f"new {len(new)} vs truth {len(te.new)}"
            + _sample(set(te.new) - new, "missing")
            + _sample(new - set(te.new), "extra")
        )
    want_changed = {k: set(v) for k, v in te.changed.items()}
    if changed != want_changed:
        notes.append(
            f"changed {sorted((k, sorted(v)) for k, v in changed.items())[:3]} vs truth "
            f"{sorted((k, sorted(v)) for k, v in want_changed.items())[:3]}"
        )
    if withdrawn != set(te.withdrawn):
        notes.append(
            f"withdrawn {len(withdrawn)} vs truth {len(te.withdrawn)}"
            + _sample(set(te.withdrawn) - withdrawn, "missing")
            + _sample(withdrawn - set(te.withdrawn), "extra")
        )
    summary = f"{len(new)} new, {len(changed)} changed, {len(withdrawn)} withdrawn"
    return not notes, summary if not notes else summary + "; " + "; ".join(notes)


def _sample(keys: set[str], what: str) -> str:
    if not keys:
        return ""
    return f" ({what}: {', '.join(sorted(keys)[:2])}{'…' if len(keys) > 2 else ''})"


# ----------------------------------------------------------------------------------------------
# totals and output


def totals(days: Sequence[DayReport]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "days": len(days),
        "verdicts_right": sum(d.verdict_ok for d in days),
        "false_alarms": sum(d.false_alarm for d in days),
        "missed_drifts": sum(d.missed_drift for d in days),
        "drift_days": sum(d.truth_verdict == "drift" for d in days),
        "repairs_tried": sum(d.repairs_tried for d in days),
        "repairs_adopted": sum(d.repairs_adopted for d in days),
        "wrong_values_committed": sum(d.wrong_committed for d in days),
        "events_mismatch_days": sum(d.events_ok is False for d in days),
        "max_lost": max((d.lost for d in days), default=0),
        "max_extra": max((d.extra for d in days), default=0),
        "site_calls": sum(d.site_calls for d in days),
        "llm_calls": sum(d.llm_calls for d in days),
        "features_missing": sorted({m for d in days for m in d.missing}),
    }
    # False alarms after an accept: any false alarm on a day after the first accept.
    first_accept = next(
        (d.day for d in days if any(a.startswith("accept") for a in d.actions)), None
    )
    out["false_alarms_after_accept"] = sum(
        d.false_alarm for d in days if first_accept is not None and d.day > first_accept
    )  # the young-baseline checks count theirs separately (below)
    # Days to recover: per drift episode, the days from its first day until a day ends ok.
    recover: list[int | None] = []
    start: int | None = None
    for d in days:
        if d.truth_verdict == "drift" and start is None:
            start = d.day
        if (
            start is not None
            and d.final in ("ok", "empty-source", "accepted")
            and d.wrong == 0
            and not d.missed_drift
        ):
            recover.append(d.day - start)
            start = None
    if start is not None:
        recover.append(None)
    out["days_to_recover"] = recover
    by_method: dict[str, list[int]] = {}
    for d in days:
        for method, ok in d.repair_attempts:
            slot = by_method.setdefault(method, [0, 0])
            slot[0] += ok
            slot[1] += 1
    out["repairs_by_method"] = {m: f"{a} of {n}" for m, (a, n) in sorted(by_method.items())}
    young = [d.young_baseline for d in days if d.young_baseline]
    out["young_baseline_runs"] = young
    out["young_baseline_false_alarms"] = sum(v[0] == "drift" for v in young)
    out["young_baseline_false_alarms_after_accept"] = sum(
        v[-1] == "drift" for v in young if len(v) > 1
    )
    ok_next = []
    for i, d in enumerate(days[:-1]):
        if d.repairs_adopted:
            ok_next.append(days[i + 1].final == "ok")
    out["ok_day_after_repair"] = ok_next
    return out


def markdown(
    reports: Mapping[str, Sequence[DayReport]], tot: Mapping[str, Mapping[str, Any]]
) -> str:
    lines = []
    for kind, days in reports.items():
        lines += [
            f"#### `{kind}`",
            "",
            "| day | story | truth | verdicts | events vs truth | lost / extra / wrong | "
            "wrong committed | site requests | LLM calls | commands | actions |",
            "|---:|---|---|---|---|---|---:|---:|---:|---:|---|",
        ]
        for d in days:
            ev = "—" if d.events_ok is None else ("✓ " if d.events_ok else "✗ ") + d.events_note
            acts = "; ".join(d.actions + [f"feature missing: {m}" for m in d.missing]) or ""
            lines.append(
                f"| {d.day} | {d.story} | {d.truth_verdict} | {' → '.join(d.verdicts)}"
                f"{' ✓' if d.verdict_ok else ' ✗'} | {ev} | "
                f"{d.lost} / {d.extra} / {d.wrong} | {d.wrong_committed} | {_calls(d)} | "
                f"{d.llm_calls} | {len(d.cli_calls)} | {acts.replace('|', '/')} |"
            )
        t = tot[kind]
        lines += [
            "",
            f"Totals `{kind}`: verdicts as the truth says on {t['verdicts_right']} of {t['days']} "
            f"days, false alarms {t['false_alarms']} (after an accept: "
            f"{t['false_alarms_after_accept']}), missed drifts {t['missed_drifts']}, drift days "
            f"{t['drift_days']}, repairs adopted {t['repairs_adopted']} of {t['repairs_tried']} "
            f"(attempts adopted by method: {t['repairs_by_method']}), "
            f"the repaired file in a fresh state directory (young baseline): "
            f"{t['young_baseline_runs']} (false alarms {t['young_baseline_false_alarms']}, "
            f"after an accept {t['young_baseline_false_alarms_after_accept']}), "
            f"days to recover {t['days_to_recover']}, ok the day after a repair "
            f"{t['ok_day_after_repair']}, **wrong values committed {t['wrong_values_committed']}**,"
            f" days whose events differ from the truth {t['events_mismatch_days']}, site requests "
            f"{t['site_calls']}, LLM calls {t['llm_calls']}"
            + (
                f", features missing: {', '.join(t['features_missing'])}"
                if t["features_missing"]
                else ""
            ),
            "",
        ]
    return "\n".join(lines)


def _calls(d: DayReport) -> str:
    parts = ", ".join(f"{v}×{k}" for k, v in d.status_counts.items())
    return f"{d.site_calls} ({parts})" if parts else str(d.site_calls)


def live(
    kind: str, days: Sequence[Day], work: Path, *, seed: int = 20, verbose: bool = False
) -> list[DayReport]:
    life = Life(kind, work, seed=seed, verbose=verbose)
    out = []
    try:
        for plan in days:
            if verbose:
                print(f"[{kind}] day {plan.day}: {plan.story}", file=sys.stderr)
            rep = life.day(plan)
            out.append(rep)
            if verbose:
                print(
                    f"    truth {rep.truth_verdict} {rep.truth_reasons[:2]}; verdicts "
                    f"{rep.verdicts}; events {rep.events_ok} {rep.events_note}; lost "
                    f"{rep.lost} extra {rep.extra} wrong {rep.wrong} (committed "
                    f"{rep.wrong_committed}); {rep.seconds:.1f} s",
                    file=sys.stderr,
                )
    finally:
        life.close()
    return out


def story(n_days: int) -> list[Day]:
    """The first ``n_days`` days of :data:`STORY` (the smoke test takes a few)."""
    return [d for d in STORY if d.day <= n_days]


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--days", type=int, default=30)
    ap.add_argument(
        "--seed",
        type=int,
        default=20,
        help="The generator's draw (records, edits, deletions); 20 was developed on, others "
        "check it.",
    )
    ap.add_argument("--sites", nargs="+", choices=KINDS, default=list(KINDS))
    ap.add_argument("--json", type=Path, help="Write every day's report and the totals here.")
    ap.add_argument("--markdown", type=Path, help="Write the tables here.")
    ap.add_argument("--keep", type=Path, help="Work in this directory and keep it.")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    root = args.keep or Path(tempfile.mkdtemp(prefix="anchorpath-lifecycle-"))
    reports: dict[str, list[DayReport]] = {}
    t0 = time.monotonic()
    try:
        for kind in args.sites:
            reports[kind] = live(
                kind, story(args.days), root / kind, seed=args.seed, verbose=args.verbose
            )
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    tot = {k: totals(v) for k, v in reports.items()}
    text = markdown(reports, tot)
    print(text)
    print(f"wall time {time.monotonic() - t0:.0f} s")
    if args.markdown:
        args.markdown.write_text(text, "utf-8")
    if args.json:
        args.json.write_text(
            json.dumps(
                {"days": {k: [d.__dict__ for d in v] for k, v in reports.items()}, "totals": tot},
                ensure_ascii=False,
                indent=1,
                default=str,
            ),
            "utf-8",
        )
    bad = any(t["wrong_values_committed"] for t in tot.values())
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
