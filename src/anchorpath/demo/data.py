"""Ground truth of the demo site: deterministic DMF (원료의약품 등록) records for day N.

Pure: no I/O, no clock, no global random state. Every day's data is derived from day 1 by a
fixed sequence of edits seeded by the day number, so ``records_for_day(n)`` is the same on
every machine and every run.

Timeline (the tests and ``anchorpath demo`` rely on it):

* **Day 1** – 64 records on the *classic* template.
* **Day 2** – exactly 3 new records, 2 changed records and 2 withdrawn (gone from the listing):

  - one real change: the applicant (신청인) changed hands, so ``applicant`` and ``updated_on``
    differ → a ``changed`` event;
  - one trivial change: a punctuation/whitespace edit inside the long 비고 (``remarks``) text,
    ``updated_on`` untouched. SimHash (64-bit, Hamming ≤ 3) must treat it as *no change*; it is
    reported in :attr:`Events.trivial`, never in :attr:`Events.changed`.
* **Day 3** – the TEMPLATE CHANGE day: the same data as day 2, rendered with the *renewal*
  template (other label texts, extra wrapper divs, other table classes, other column order),
  so day-2 label anchors break. ``expected_events(2, 3)`` is empty.
* **Day ≥ 4** – back on the *classic* template (the redesign was rolled back), data keeps
  evolving from day 3: each day 2 new, 1 real change (status or manufacturer address), 1 trivial
  remarks edit and 1 withdrawal. This lets a multi-day pipeline test continue with the original
  selector file; ``DemoServer(template="renewal")`` forces the renewal template on any day, so a
  repaired selector file can be exercised on evolving data too.

Registration numbers (the record key) match :data:`REG_NO_PATTERN`, e.g. ``수1402-1-ND``
(수 = imported, 제 = domestically manufactured; serial; revision; ND = new DMF).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import random
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache

__all__ = [
    "DAY1_COUNT",
    "FIELD_NAMES",
    "LABELS",
    "REG_NO_PATTERN",
    "TEMPLATE_CLASSIC",
    "TEMPLATE_RENEWAL",
    "Events",
    "Record",
    "day_date",
    "expected_events",
    "expected_records",
    "fingerprint",
    "records_for_day",
    "reference_simhash_distances",
    "template_for_day",
]

DAY1_COUNT = 64
REG_NO_PATTERN = r"^[수제]\d{3,4}-\d-ND$"
TEMPLATE_CLASSIC = "classic"
TEMPLATE_RENEWAL = "renewal"
TEMPLATE_CHANGE_DAY = 3
_DAY1 = dt.date(2024, 3, 4)

#: Record fields in display order, as the demo selector file names them.
FIELD_NAMES: tuple[str, ...] = (
    "reg_no",
    "ingredient",
    "applicant",
    "manufacturer",
    "manufacturer_address",
    "country",
    "registered_on",
    "status",
    "updated_on",
    "remarks",
)

#: Label text of every field, per template. Unchanged labels on the renewal template are
#: 등록번호, 제조국, 최종변경일자 and 비고; all others changed.
LABELS: dict[str, dict[str, str]] = {
    TEMPLATE_CLASSIC: {
        "reg_no": "등록번호",
        "ingredient": "성분명",
        "applicant": "신청인",
        "manufacturer": "제조소",
        "manufacturer_address": "소재지",
        "country": "제조국",
        "registered_on": "등록일자",
        "status": "상태",
        "updated_on": "최종변경일자",
        "remarks": "비고",
    },
    TEMPLATE_RENEWAL: {
        "reg_no": "등록번호",
        "ingredient": "주성분명",
        "applicant": "신청업체",
        "manufacturer": "제조업소",
        "manufacturer_address": "제조소 소재지",
        "country": "제조국",
        "registered_on": "최초등록일자",
        "status": "진행상태",
        "updated_on": "최종변경일자",
        "remarks": "비고",
    },
}

_INGREDIENTS: tuple[tuple[str, str], ...] = (
    ("아세트아미노펜", "Acetaminophen"),
    ("아목시실린수화물", "Amoxicillin Trihydrate"),
    ("암로디핀베실산염", "Amlodipine Besylate"),
    ("아토르바스타틴칼슘수화물", "Atorvastatin Calcium Trihydrate"),
    ("로수바스타틴칼슘", "Rosuvastatin Calcium"),
    ("메트포르민염산염", "Metformin Hydrochloride"),
    ("클로피도그렐황산수소염", "Clopidogrel Bisulfate"),
    ("세파클러수화물", "Cefaclor Monohydrate"),
    ("세프트리악손나트륨", "Ceftriaxone Sodium"),
    ("레보플록사신수화물", "Levofloxacin Hemihydrate"),
    ("이부프로펜", "Ibuprofen"),
    ("덱시부프로펜", "Dexibuprofen"),
    ("나프록센나트륨", "Naproxen Sodium"),
    ("에소메프라졸마그네슘삼수화물", "Esomeprazole Magnesium Trihydrate"),
    ("란소프라졸", "Lansoprazole"),
    ("라니티딘염산염", "Ranitidine Hydrochloride"),
    ("로사르탄칼륨", "Losartan Potassium"),
    ("발사르탄", "Valsartan"),
    ("텔미사르탄", "Telmisartan"),
    ("칸데사르탄실렉세틸", "Candesartan Cilexetil"),
    ("시타글립틴인산염수화물", "Sitagliptin Phosphate Monohydrate"),
    ("글리메피리드", "Glimepiride"),
    ("피오글리타존염산염", "Pioglitazone Hydrochloride"),
    ("세티리진염산염", "Cetirizine Hydrochloride"),
    ("레보세티리진염산염", "Levocetirizine Dihydrochloride"),
    ("몬테루카스트나트륨", "Montelukast Sodium"),
    ("에페리손염산염", "Eperisone Hydrochloride"),
    ("가바펜틴", "Gabapentin"),
    ("프레가발린", "Pregabalin"),
    ("도네페질염산염", "Donepezil Hydrochloride"),
    ("쿠에티아핀푸마르산염", "Quetiapine Fumarate"),
    ("에스시탈로프람옥살산염", "Escitalopram Oxalate"),
    ("탐스로신염산염", "Tamsulosin Hydrochloride"),
    ("피나스테리드", "Finasteride"),
    ("실데나필시트르산염", "Sildenafil Citrate"),
    ("타다라필", "Tadalafil"),
    ("레바미피드", "Rebamipide"),
    ("모사프리드시트르산염수화물", "Mosapride Citrate Dihydrate"),
    ("이토프리드염산염", "Itopride Hydrochloride"),
    ("아시클로버", "Acyclovir"),
    ("발라시클로버염산염", "Valacyclovir Hydrochloride"),
    ("플루코나졸", "Fluconazole"),
    ("테르비나핀염산염", "Terbinafine Hydrochloride"),
    ("알렌드론산나트륨수화물", "Alendronate Sodium Trihydrate"),
    ("콜레칼시페롤", "Cholecalciferol"),
    ("오메가-3-산에틸에스테르90", "Omega-3-acid Ethyl Esters 90"),
    ("실로스타졸", "Cilostazol"),
    ("사르포그렐레이트염산염", "Sarpogrelate Hydrochloride"),
    ("리바록사반", "Rivaroxaban"),
    ("아픽사반", "Apixaban"),
    ("에제티미브", "Ezetimibe"),
    ("페노피브레이트", "Fenofibrate"),
    ("레보티록신나트륨", "Levothyroxine Sodium"),
    ("프레드니솔론", "Prednisolone"),
    ("덱사메타손", "Dexamethasone"),
    ("트라마돌염산염", "Tramadol Hydrochloride"),
    ("세레콕시브", "Celecoxib"),
    ("아세클로페낙", "Aceclofenac"),
    ("록소프로펜나트륨수화물", "Loxoprofen Sodium Hydrate"),
    ("올메사르탄메독소밀", "Olmesartan Medoxomil"),
    ("빌다글립틴", "Vildagliptin"),
    ("다파글리플로진프로판디올수화물", "Dapagliflozin Propanediol Monohydrate"),
    ("엠파글리플로진", "Empagliflozin"),
    ("리나글립틴", "Linagliptin"),
    ("토파시티닙시트르산염", "Tofacitinib Citrate"),
    ("라코사미드", "Lacosamide"),
    ("레비티라세탐", "Levetiracetam"),
    ("아리피프라졸", "Aripiprazole"),
    ("올란자핀", "Olanzapine"),
    ("졸피뎀타르타르산염", "Zolpidem Tartrate"),
)

_APPLICANTS: tuple[str, ...] = (
    "(주)한빛제약",
    "대한바이오팜(주)",
    "(주)새솔약품",
    "동해케미칼(주)",
    "(주)누리헬스케어",
    "청림제약(주)",
    "(주)미래원료",
    "한결메디칼(주)",
    "(주)보람바이오",
    "서진약품(주)",
    "(주)태평양켐텍",
    "가온제약(주)",
    "(주)에스엠팜",
    "한국원료의약(주)",
    "(주)다온파마",
    "백두케미칼(주)",
)

# (manufacturer, address, country in Korean)
_MANUFACTURERS: tuple[tuple[str, str, str], ...] = (
    (
        "Zhejiang Lianhe Pharmaceutical Co., Ltd.",
        "No. 18 Donghai Road, Linhai Economic Development Zone, Taizhou, Zhejiang, China",
        "중국",
    ),
    (
        "Hubei Qingshan Biochemical Co., Ltd.",
        "88 Gaoxin 2nd Road, East Lake High-tech Zone, Wuhan, Hubei, China",
        "중국",
    ),
    (
        "Shandong Xinhua Fine Chemicals Co., Ltd.",
        "No. 6 Chemical Industry Park, Zibo, Shandong, China",
        "중국",
    ),
    (
        "Aurobindo Synthetics Private Limited",
        "Plot No. 2, IDA Pashamylaram, Sangareddy District, Telangana, India",
        "인도",
    ),
    (
        "Sahyadri Life Sciences Ltd.",
        "B-14, MIDC Kurkumbh, Daund, Pune, Maharashtra, India",
        "인도",
    ),
    (
        "Gujarat Pharmachem Industries",
        "Survey No. 412, GIDC Ankleshwar, Bharuch, Gujarat, India",
        "인도",
    ),
    ("Chimica Lombarda S.p.A.", "Via Roma 45, 20026 Novate Milanese (MI), Italy", "이탈리아"),
    (
        "Farmaquímica del Vallès S.A.",
        "Carrer de la Indústria 12, 08403 Granollers, Spain",
        "스페인",
    ),
    ("Hokuriku Fine Chemical Co., Ltd.", "3-12 Kurehamachi, Toyama-shi, Toyama, Japan", "일본"),
    ("Rheinwerk Pharma GmbH", "Industriestraße 7, 51373 Leverkusen, Germany", "독일"),
    ("Synthélia Pharma SAS", "14 rue des Chimistes, 69190 Saint-Fons, France", "프랑스"),
    ("Alpenchem AG", "Werkstrasse 3, 4133 Pratteln, Switzerland", "스위스"),
    ("Keystone Fine Chemicals LLC", "1200 Industrial Parkway, Edison, NJ 08837, USA", "미국"),
    ("(주)경인정밀화학", "경기도 안산시 단원구 산단로 123 (원시동)", "대한민국"),
    ("(주)충북바이오케미칼", "충청북도 청주시 흥덕구 오송읍 오송생명1로 200", "대한민국"),
    ("온산파인켐(주)", "울산광역시 울주군 온산읍 산암로 55", "대한민국"),
)

_STATUS_NORMAL = "정상"
_STATUS_CHANGED = "변경"
_STATUS_REVIEW = "보완중"

# Long 비고 text, assembled per record. Sentences end with "다." so the trivial edit below can
# find a sentence end in every text.
_REMARK_SENTENCES: tuple[str, ...] = (
    "본 원료의약품은 「의약품의 품목허가·신고·심사 규정」에 따라 등록되었으며, "
    "등록사항은 제조소의 GMP 적합 판정 결과를 근거로 한다.",
    "{ingredient_ko}의 제조방법 및 관리기준은 신청인이 제출한 자료를 기준으로 검토하였다.",
    "제조소 {manufacturer}의 현지 실사는 최근 3년 이내에 실시된 결과를 인정하였다.",
    "불순물 관리 기준은 ICH Q3A 및 Q3C 가이드라인을 준용하여 설정하였다.",
    "유전독성 불순물(니트로사민류 포함)에 대한 위해평가 자료가 함께 제출되었다.",
    "안정성 시험은 장기보존 조건(25℃, 60% RH)에서 36개월 자료로 평가하였다.",
    "출발물질 변경 시에는 변경등록 또는 변경보고 절차를 거쳐야 한다.",
    "완제의약품 제조업자는 등록된 원료의약품을 사용할 경우 별도의 자료 제출을 생략할 수 있다.",
    "제조공정 중 사용되는 용매의 잔류량은 설정된 기준 이내로 관리되고 있다.",
    "시험방법은 대한민국약전 및 유럽약전 각 조의 규정을 준용하였다.",
    "입자도 및 결정형 관리 기준이 설정되어 있으며, 분석법 밸리데이션 자료가 첨부되었다.",
    "등록 이후 연차보고 대상이며, 중대한 변경 발생 시 즉시 보고하여야 한다.",
    "포장 및 보관 조건은 차광 밀폐용기, 실온 보관으로 한다.",
    "해당 원료의 공급 중단 시 신청인은 식품의약품안전처에 지체 없이 알려야 한다.",
    "제조소의 주소 또는 명칭이 변경된 경우 변경등록 신청서를 제출하여야 한다.",
    "동일 성분의 다른 제조소 등록 현황은 목록 화면에서 성분명으로 검색할 수 있다.",
)

_CANON_STRIP = re.compile(r"[\s\W_]+", re.UNICODE)


@dataclass(frozen=True)
class Record:
    """One DMF registration as the site shows it (detail page values, before HTML escaping)."""

    reg_no: str
    ingredient_ko: str
    ingredient_en: str
    applicant: str
    manufacturer: str
    manufacturer_address: str
    country: str
    registered_on: dt.date
    status: str
    updated_on: dt.date
    remarks: str

    @property
    def ingredient(self) -> str:
        """Display form of the ingredient: ``아세트아미노펜 (Acetaminophen)``."""
        return f"{self.ingredient_ko} ({self.ingredient_en})"

    def as_fields(self) -> dict[str, str]:
        """The record as the demo selector file extracts it (whitespace-normalised strings)."""
        return {
            "reg_no": self.reg_no,
            "ingredient": self.ingredient,
            "applicant": self.applicant,
            "manufacturer": self.manufacturer,
            "manufacturer_address": self.manufacturer_address,
            "country": self.country,
            "registered_on": self.registered_on.isoformat(),
            "status": self.status,
            "updated_on": self.updated_on.isoformat(),
            "remarks": " ".join(self.remarks.split()),
        }


@dataclass(frozen=True)
class Events:
    """Ground truth between two days: what a correct run must report (keys are 등록번호).

    ``changed`` maps a key to the names of the fields that really changed. ``trivial`` lists
    keys whose 비고 text only got a whitespace/punctuation edit: *not* events.
    """

    new: tuple[str, ...] = ()
    changed: dict[str, tuple[str, ...]] = field(default_factory=dict)
    withdrawn: tuple[str, ...] = ()
    trivial: tuple[str, ...] = ()

    @property
    def is_empty(self) -> bool:
        """True when a correct run reports no event at all."""
        return not (self.new or self.changed or self.withdrawn)


def day_date(day: int) -> dt.date:
    """Calendar date the site shows as 'today' on ``day`` (day 1 = 2024-03-04)."""
    _check_day(day)
    return _DAY1 + dt.timedelta(days=day - 1)


def template_for_day(day: int) -> str:
    """``renewal`` on the template-change day (3), ``classic`` on every other day."""
    _check_day(day)
    return TEMPLATE_RENEWAL if day == TEMPLATE_CHANGE_DAY else TEMPLATE_CLASSIC


def records_for_day(day: int) -> tuple[Record, ...]:
    """All records listed on ``day``, in listing order (newest registration first)."""
    _check_day(day)
    return _records(day)


def expected_records(day: int) -> list[dict[str, str]]:
    """``records_for_day(day)`` as the field dicts the demo selector file extracts."""
    return [r.as_fields() for r in records_for_day(day)]


def expected_events(day_from: int, day_to: int) -> Events:
    """The new / changed / withdrawn keys between the listings of ``day_from`` and ``day_to``.

    Trivial 비고 edits (same text once white space and punctuation are ignored) are not
    changes; they are listed in ``trivial`` so a test can check SimHash ignored them.
    """
    _check_day(day_from)
    _check_day(day_to)
    before = {r.reg_no: r for r in _records(day_from)}
    after = {r.reg_no: r for r in _records(day_to)}
    changed: dict[str, tuple[str, ...]] = {}
    trivial: list[str] = []
    for key in sorted(before.keys() & after.keys()):
        a, b = before[key].as_fields(), after[key].as_fields()
        diff = tuple(
            name
            for name in FIELD_NAMES
            if a[name] != b[name] and not (name == "remarks" and _canon(a[name]) == _canon(b[name]))
        )
        if diff:
            changed[key] = diff
        elif a["remarks"] != b["remarks"]:
            trivial.append(key)
    return Events(
        new=tuple(sorted(after.keys() - before.keys())),
        changed=changed,
        withdrawn=tuple(sorted(before.keys() - after.keys())),
        trivial=tuple(trivial),
    )


# -- generation ----------------------------------------------------------------------------


def _check_day(day: int) -> None:
    if not isinstance(day, int) or isinstance(day, bool) or day < 1:
        raise ValueError(f"demo day must be an integer >= 1, got {day!r}")
    if day > _MAX_DAY:
        raise ValueError(f"demo day must be <= {_MAX_DAY}, got {day}")


def _canon(text: str) -> str:
    """Text with white space and punctuation removed: equal canon = trivial edit."""
    return _CANON_STRIP.sub("", text)


def _rng(*parts: object) -> random.Random:
    # A string seed is hashed with SHA-512 by random.seed (version 2): stable across runs and
    # platforms, unlike hash().
    return random.Random("anchorpath-demo/" + "/".join(str(p) for p in parts))


def _remarks(rng: random.Random, ingredient_ko: str, manufacturer: str) -> str:
    first = _REMARK_SENTENCES[0]
    rest = rng.sample(_REMARK_SENTENCES[1:], 12)
    text = " ".join([first, *rest])
    return text.format(ingredient_ko=ingredient_ko, manufacturer=manufacturer)


def _new_record(
    rng: random.Random, serial: int, registered_on: dt.date, updated_on: dt.date, status: str
) -> Record:
    ko, en = rng.choice(_INGREDIENTS)
    manufacturer, address, country = rng.choice(_MANUFACTURERS)
    prefix = "제" if country == "대한민국" else "수"
    return Record(
        reg_no=f"{prefix}{serial}-{rng.randint(1, 9)}-ND",
        ingredient_ko=ko,
        ingredient_en=en,
        applicant=rng.choice(_APPLICANTS),
        manufacturer=manufacturer,
        manufacturer_address=address,
        country=country,
        registered_on=registered_on,
        status=status,
        updated_on=updated_on,
        remarks=_remarks(rng, ko, manufacturer),
    )


def _day1() -> list[Record]:
    rng = _rng("day", 1)
    start = dt.date(2015, 1, 5)
    limit = _DAY1 - dt.timedelta(days=3)
    span = (_DAY1 - dt.timedelta(days=7) - start).days
    dates = sorted(start + dt.timedelta(days=d) for d in rng.sample(range(span), DAY1_COUNT))
    # Serial numbers grow with the registration date, as on the real board.
    serials = sorted(rng.sample(range(120, 2400), DAY1_COUNT))
    records: list[Record] = []
    for serial, registered in zip(serials, dates, strict=True):
        if rng.random() < 0.45:
            room = (limit - registered).days
            updated = registered + dt.timedelta(days=rng.randrange(1, max(2, min(room, 900))))
            status = _STATUS_CHANGED if rng.random() < 0.7 else _STATUS_NORMAL
        else:
            updated = registered
            status = _STATUS_REVIEW if rng.random() < 0.1 else _STATUS_NORMAL
        records.append(_new_record(rng, serial, registered, updated, status))
    return records


_SIMHASH_ALGOS = ("md5", "blake2b", "sha256")


def _features(text: str) -> dict[str, Counter[str]]:
    # Feature multisets of the usual SimHash implementations: words, white-space tokens and
    # character 3- and 4-grams, on whitespace-normalised text (as the extractor yields it).
    t = " ".join(text.split())
    return {
        "words": Counter(re.findall(r"\w+", t.lower())),
        "ws": Counter(t.split()),
        "c3": Counter(t[i : i + 3] for i in range(len(t) - 2)),
        "c4": Counter(t[i : i + 4] for i in range(len(t) - 3)),
    }


@lru_cache(maxsize=65536)
def _bits(feature: str, algo: str) -> tuple[int, ...]:
    digest = hashlib.new(algo, feature.encode("utf-8")).digest()[:8]
    x = int.from_bytes(digest, "big")
    return tuple(1 if x >> i & 1 else -1 for i in range(64))


def _weights(features: Counter[str], algo: str) -> list[int]:
    v = [0] * 64
    for feature, n in features.items():
        v = [w + n * b for w, b in zip(v, _bits(feature, algo), strict=True)]
    return v


class _SimhashProbe:
    """SimHash weight vectors of one text, to score small edits of it cheaply."""

    def __init__(self, text: str) -> None:
        self.features = _features(text)
        self.weights = {
            (scheme, algo): _weights(counter, algo)
            for scheme, counter in self.features.items()
            for algo in _SIMHASH_ALGOS
        }

    def distances(self, other: str) -> list[int]:
        out: list[int] = []
        for scheme, cb in _features(other).items():
            ca = self.features[scheme]
            added, removed = cb - ca, ca - cb
            for algo in _SIMHASH_ALGOS:
                va = self.weights[(scheme, algo)]
                vb = list(va)
                # Only the features that differ move the weights.
                for feature, n in added.items():
                    vb = [w + n * b for w, b in zip(vb, _bits(feature, algo), strict=True)]
                for feature, n in removed.items():
                    vb = [w - n * b for w, b in zip(vb, _bits(feature, algo), strict=True)]
                out.append(sum((x > 0) != (y > 0) for x, y in zip(va, vb, strict=True)))
        return out


def reference_simhash_distances(before: str, after: str) -> list[int]:
    """64-bit SimHash Hamming distances between two texts under 12 common schemes.

    Features = words / white-space tokens / character 3-grams / 4-grams (of the
    whitespace-normalised text) × feature hash = md5 / blake2b / sha256 (first 8 bytes).
    Used to pick trivial edits that any reasonable SimHash calls near-duplicates.
    """
    return _SimhashProbe(before).distances(after)


def _trivial_edit(text: str) -> str:
    """A punctuation + whitespace edit that leaves every word untouched.

    Candidates: at one sentence end ``다. `` becomes ``다.. `` or ``다 .  ``, or a stray full
    stop is appended to the text. Word tokens (``\\w+``) never change, so a word-based SimHash
    sees distance 0; the candidate with the smallest worst-case distance over
    :func:`reference_simhash_distances` is used, so any reasonable SimHash sees a
    near-duplicate (distance ≤ 3; checked in tests/demo/test_data.py).
    """
    candidates = [text + ".", text + " ."]
    for m in re.finditer(r"다\. ", text):
        at = m.start()
        candidates.append(text[:at] + "다.. " + text[at + 3 :])
        candidates.append(text[:at] + "다 .  " + text[at + 3 :])
    probe = _SimhashProbe(text)
    scored = []
    for i, cand in enumerate(candidates):
        dists = probe.distances(cand)
        scored.append((max(dists), sum(dists), i))
    return candidates[min(scored)[2]]


def _next_serial(records: Iterable[Record], rng: random.Random) -> int:
    # New registrations get the next serial numbers (with small gaps, as on the real board).
    top = max(int(r.reg_no.split("-")[0][1:]) for r in records)
    return top + rng.randint(1, 4)


def _evolve(prev: Sequence[Record], day: int, n_new: int, n_withdrawn: int) -> list[Record]:
    """Apply one day's edits: one real change, one trivial change, withdrawals, new records."""
    rng = _rng("day", day)
    today = day_date(day)
    records = list(prev)
    # Victims are drawn in registration-number order, so the choice depends only on the seed.
    pool = sorted(range(len(records)), key=lambda i: records[i].reg_no)
    picks = rng.sample(pool, 2 + n_withdrawn)
    real_i, trivial_i, withdrawn_is = picks[0], picks[1], picks[2:]
    real = records[real_i]
    if day == 2:
        # Day 2's real change: the DMF was transferred to another applicant (양도양수).
        applicant = next(a for a in rng.sample(_APPLICANTS, 3) if a != real.applicant)
        records[real_i] = replace(real, applicant=applicant, updated_on=today)
    elif real.status != _STATUS_CHANGED:
        records[real_i] = replace(real, status=_STATUS_CHANGED, updated_on=today)
    else:
        # The site moved: a new street number in the same address.
        moved = re.sub(r"\d+", str(rng.randint(101, 999)), real.manufacturer_address, count=1)
        records[real_i] = replace(real, manufacturer_address=moved, updated_on=today)
    trivial = records[trivial_i]
    records[trivial_i] = replace(trivial, remarks=_trivial_edit(trivial.remarks))
    gone = {records[i].reg_no for i in withdrawn_is}
    records = [r for r in records if r.reg_no not in gone]
    for _ in range(n_new):
        serial = _next_serial(records, rng)
        records.append(_new_record(rng, serial, today, today, _STATUS_NORMAL))
    return records


def _sort(records: Iterable[Record]) -> tuple[Record, ...]:
    # Board order: newest registration first, then by serial number (descending).
    return tuple(
        sorted(
            records,
            key=lambda r: (r.registered_on, int(r.reg_no.split("-")[0][1:]), r.reg_no),
            reverse=True,
        )
    )


# One simulated year and a bit: generation walks day by day from day 1.
_MAX_DAY = 400
_CACHE: dict[int, tuple[Record, ...]] = {}


def _records(day: int) -> tuple[Record, ...]:
    # Iterative (not recursive) so a far day does not hit the recursion limit; concurrent
    # server threads may compute a day twice, which is harmless because generation is pure.
    if day in _CACHE:
        return _CACHE[day]
    known = max((d for d in _CACHE if d < day), default=0)
    current = _CACHE.get(known, ())
    for d in range(known + 1, day + 1):
        if d == 1:
            current = _sort(_day1())
        elif d == TEMPLATE_CHANGE_DAY:
            pass  # template change only: same data as the day before
        elif d == 2:
            current = _sort(_evolve(current, d, n_new=3, n_withdrawn=2))
        else:
            current = _sort(_evolve(current, d, n_new=2, n_withdrawn=1))
        _CACHE[d] = current
    return current


def fingerprint(day: int) -> str:
    """sha256 over the day's records: a cheap check that generation stayed deterministic."""
    h = hashlib.sha256()
    for r in records_for_day(day):
        h.update(repr(r.as_fields()).encode("utf-8"))
    return h.hexdigest()
