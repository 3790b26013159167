"""The selector file model: frozen dataclasses mirroring ``schema/selector.v1.json``.

``from_dict`` expects data the schema has already accepted (see ``load.py``); ``to_dict``
produces the canonical form the writer saves: keys in schema order, empty/None optional values
left out, so that load → save of a canonical file is byte-identical.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "FIELD_TYPES",
    "Anchor",
    "Discovery",
    "FetchSpec",
    "FieldSpec",
    "Fixture",
    "Normalize",
    "PageType",
    "Pagination",
    "Policy",
    "Provenance",
    "SelectorFile",
    "Site",
]

FieldType = Literal["string", "integer", "number", "date", "datetime", "url", "list"]
FIELD_TYPES: tuple[str, ...] = ("string", "integer", "number", "date", "datetime", "url", "list")
Basis = Literal["api", "feed", "sitemap", "robots", "written-permission"]
#: Why collecting a site is allowed (``policy.basis``), strongest first.
BASES: tuple[str, ...] = ("api", "feed", "sitemap", "robots", "written-permission")
SCHEMA_URL = "https://anchorpath.dev/schema/selector.v1.json"


def pointer_xpath(pointer: str, records: bool = False) -> str:
    """The XPath that reads JSON pointer ``pointer`` on a JSON page's tree
    (:func:`anchorpath.selectors.evaluate.json_document`): each object member is an element
    named by its key (``_`` + hex codes for a key that is no XML name), each array element an
    ``item``. ``/a/0/b`` -> ``a/item[1]/b`` (relative to the record); with ``records`` the
    pointer names the array of records: ``/items`` -> ``/json/items/item``."""
    steps = []
    for raw in pointer.split("/")[1:] if pointer else []:
        token = raw.replace("~1", "/").replace("~0", "~")
        if token.isdigit():
            steps.append(f"item[{int(token) + 1}]")
        else:
            steps.append(json_name(token))
    if records:
        return "/" + "/".join(["json", *steps, "item"])
    return "/".join(steps) or "."


def json_name(key: str) -> str:
    """The element name of a JSON object key: the key when it is a plain XML name, else ``_``
    and the key's UTF-8 bytes in hex."""
    import re

    if re.fullmatch(r"[A-Za-z][A-Za-z0-9_.-]*", key) and not key.lower().startswith("xml"):
        return key
    return "_" + key.encode("utf-8").hex()


def _prune(items: list[tuple[str, Any]]) -> dict[str, Any]:
    """Keep keys in the given order, dropping None and empty containers."""
    return {k: v for k, v in items if v is not None and v != [] and v != {}}


@dataclass(frozen=True)
class Site:
    id: str
    name: str
    homepage: str | None = None
    owner: str | None = None
    contact: str | None = None

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Site:
        return cls(d["id"], d["name"], d.get("homepage"), d.get("owner"), d.get("contact"))

    def to_dict(self) -> dict[str, Any]:
        return _prune(
            [
                ("id", self.id),
                ("name", self.name),
                ("homepage", self.homepage),
                ("owner", self.owner),
                ("contact", self.contact),
            ]
        )


@dataclass(frozen=True)
class Seed:
    url: str
    sha256: str | None = None
    snapshot: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return _prune([("url", self.url), ("sha256", self.sha256), ("snapshot", self.snapshot)])


@dataclass(frozen=True)
class Provenance:
    method: str | None = None
    author: str | None = None
    model: str | None = None
    prompt_hash: str | None = None
    tool_version: str | None = None
    seeds: tuple[Seed, ...] = ()
    notes: str | None = None
    endpoint: str | None = None

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Provenance:
        return cls(
            method=d.get("method"),
            author=d.get("author"),
            model=d.get("model"),
            prompt_hash=d.get("prompt_hash"),
            tool_version=d.get("tool_version"),
            seeds=tuple(
                Seed(s["url"], s.get("sha256"), s.get("snapshot")) for s in d.get("seeds", [])
            ),
            notes=d.get("notes"),
            endpoint=d.get("endpoint"),
        )

    def to_dict(self) -> dict[str, Any]:
        return _prune(
            [
                ("method", self.method),
                ("author", self.author),
                ("model", self.model),
                ("endpoint", self.endpoint),
                ("prompt_hash", self.prompt_hash),
                ("tool_version", self.tool_version),
                ("seeds", [s.to_dict() for s in self.seeds]),
                ("notes", self.notes),
            ]
        )


@dataclass(frozen=True)
class Discovery:
    """What authoring found besides the HTML pages: sitemaps named by robots.txt, a
    ``/sitemap.xml``, feeds linked from the seeds, JSON-LD types, JSON endpoints the pages
    load, and the source it recommended."""

    robots_sitemaps: tuple[str, ...] = ()
    sitemaps: tuple[str, ...] = ()
    feeds: tuple[str, ...] = ()
    json_ld: tuple[str, ...] = ()
    api: tuple[str, ...] = ()
    recommended: str | None = None

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Discovery:
        return cls(
            robots_sitemaps=tuple(d.get("robots_sitemaps", ())),
            sitemaps=tuple(d.get("sitemaps", ())),
            feeds=tuple(d.get("feeds", ())),
            json_ld=tuple(d.get("json_ld", ())),
            api=tuple(d.get("api", ())),
            recommended=d.get("recommended"),
        )

    def to_dict(self) -> dict[str, Any]:
        return _prune(
            [
                ("robots_sitemaps", list(self.robots_sitemaps)),
                ("sitemaps", list(self.sitemaps)),
                ("feeds", list(self.feeds)),
                ("json_ld", list(self.json_ld)),
                ("api", list(self.api)),
                ("recommended", self.recommended),
            ]
        )


@dataclass(frozen=True)
class Policy:
    """Why collecting the site is allowed and how its data is kept (``policy``).

    ``basis`` None means unrecorded: ``anchorpath run`` refuses such a file."""

    basis: Basis | None = None
    terms_url: str | None = None
    purpose: str | None = None
    contact: str | None = None
    retention_days: int | None = None
    store_raw: bool = True
    personal: tuple[str, ...] = ()
    #: what authoring found besides the HTML pages (``authoring.discover``)
    discovery: Discovery | None = None

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Policy:
        found = d.get("discovery")
        return cls(
            basis=d.get("basis"),
            terms_url=d.get("terms_url"),
            purpose=d.get("purpose"),
            contact=d.get("contact"),
            retention_days=d.get("retention_days"),
            store_raw=d.get("store_raw", True),
            personal=tuple(d.get("personal", ())),
            discovery=Discovery.from_dict(found) if found is not None else None,
        )

    def to_dict(self) -> dict[str, Any]:
        return _prune(
            [
                ("basis", self.basis),
                ("terms_url", self.terms_url),
                ("purpose", self.purpose),
                ("contact", self.contact),
                ("retention_days", self.retention_days),
                ("store_raw", None if self.store_raw else False),
                ("personal", list(self.personal)),
                ("discovery", self.discovery.to_dict() if self.discovery else None),
            ]
        )


@dataclass(frozen=True)
class Pagination:
    next_xpath: str
    max_pages: int = 50

    def to_dict(self) -> dict[str, Any]:
        return {"next_xpath": self.next_xpath, "max_pages": self.max_pages}


@dataclass(frozen=True)
class FetchSpec:
    start_urls: tuple[str, ...]
    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    drop_params: tuple[str, ...] = ()
    pagination: Pagination | None = None
    max_depth: int = 3
    max_pages: int = 1000
    render: Literal["http", "browser"] = "http"
    politeness: Mapping[str, float | int] = field(default_factory=dict)
    #: sitemaps and RSS/Atom feeds whose URLs a run fetches besides the start URLs
    sitemaps: tuple[str, ...] = ()
    feeds: tuple[str, ...] = ()

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> FetchSpec:
        pag = d.get("pagination")
        return cls(
            start_urls=tuple(d["start_urls"]),
            allow=tuple(d.get("allow", ())),
            deny=tuple(d.get("deny", ())),
            drop_params=tuple(d.get("drop_params", ())),
            pagination=Pagination(pag["next_xpath"], pag.get("max_pages", 50)) if pag else None,
            max_depth=d.get("max_depth", 3),
            max_pages=d.get("max_pages", 1000),
            render=d.get("render", "http"),
            politeness=dict(d.get("politeness", {})),
            sitemaps=tuple(d.get("sitemaps", ())),
            feeds=tuple(d.get("feeds", ())),
        )

    def to_dict(self) -> dict[str, Any]:
        return _prune(
            [
                ("start_urls", list(self.start_urls)),
                ("sitemaps", list(self.sitemaps)),
                ("feeds", list(self.feeds)),
                ("allow", list(self.allow)),
                ("deny", list(self.deny)),
                ("drop_params", list(self.drop_params)),
                ("pagination", self.pagination.to_dict() if self.pagination else None),
                ("max_depth", self.max_depth),
                ("max_pages", self.max_pages),
                ("render", self.render),
                ("politeness", dict(self.politeness)),
            ]
        )


@dataclass(frozen=True)
class Anchor:
    """What a field's XPath hangs on: an id, an attribute, an ARIA label or a label text."""

    kind: str
    value: str | None = None
    attribute: str | None = None
    axis: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return _prune(
            [
                ("kind", self.kind),
                ("value", self.value),
                ("attribute", self.attribute),
                ("axis", self.axis),
            ]
        )


@dataclass(frozen=True)
class Normalize:
    whitespace: bool = True
    strip_prefix: str | None = None
    strip_suffix: str | None = None
    #: A regex searched in the text: its first group (else the whole match) is the value
    #: ("2011" from "(2011 TV Series)"); no match, no value.
    capture: str | None = None
    date_formats: tuple[str, ...] = ()
    number_locale: str = "en"
    join: str | None = None

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Normalize:
        return cls(
            whitespace=d.get("whitespace", True),
            strip_prefix=d.get("strip_prefix"),
            strip_suffix=d.get("strip_suffix"),
            capture=d.get("capture"),
            date_formats=tuple(d.get("date_formats", ())),
            number_locale=d.get("number_locale", "en"),
            join=d.get("join"),
        )

    def to_dict(self) -> dict[str, Any]:
        return _prune(
            [
                ("whitespace", None if self.whitespace else False),
                ("strip_prefix", self.strip_prefix),
                ("strip_suffix", self.strip_suffix),
                ("capture", self.capture),
                ("date_formats", list(self.date_formats)),
                ("number_locale", None if self.number_locale == "en" else self.number_locale),
                ("join", self.join),
            ]
        )


@dataclass(frozen=True)
class FieldSpec:
    name: str
    xpath: str
    type: FieldType = "string"
    required: bool = False
    description: str | None = None
    pattern: str | None = None
    anchor: Anchor | None = None
    normalize: Normalize = field(default_factory=Normalize)
    fallbacks: tuple[str, ...] = ()
    robustness: float | None = None
    examples: tuple[Any, ...] = ()
    warnings: tuple[str, ...] = ()  # authoring's caveats (a positional XPath), for reviewers
    #: JSON pages: the JSON pointer the field was written as (``xpath`` is derived from it)
    pointer: str | None = None

    @classmethod
    def from_dict(cls, name: str, d: Mapping[str, Any]) -> FieldSpec:
        a = d.get("anchor")
        pointer = d.get("pointer")
        return cls(
            name=name,
            # a list field's pointer names an array: its elements are the values
            xpath=d["xpath"]
            if pointer is None
            else pointer_xpath(pointer) + ("/item" if d.get("type") == "list" else ""),
            pointer=pointer,
            type=d.get("type", "string"),
            required=d.get("required", False),
            description=d.get("description"),
            pattern=d.get("pattern"),
            anchor=Anchor(a["kind"], a.get("value"), a.get("attribute"), a.get("axis"))
            if a
            else None,
            normalize=Normalize.from_dict(d.get("normalize", {})),
            fallbacks=tuple(d.get("fallbacks", ())),
            robustness=d.get("robustness"),
            examples=tuple(d.get("examples", ())),
            warnings=tuple(d.get("warnings", ())),
        )

    def to_dict(self) -> dict[str, Any]:
        return _prune(
            [
                ("xpath", self.xpath if self.pointer is None else None),
                ("pointer", self.pointer),
                ("type", self.type),
                ("required", self.required),
                ("description", self.description),
                ("pattern", self.pattern),
                ("anchor", self.anchor.to_dict() if self.anchor else None),
                ("normalize", self.normalize.to_dict()),
                ("fallbacks", list(self.fallbacks)),
                ("robustness", self.robustness),
                ("examples", list(self.examples)),
                ("warnings", list(self.warnings)),
            ]
        )


@dataclass(frozen=True)
class PageType:
    name: str
    match: str
    fields: Mapping[str, FieldSpec]
    record_root: str | None = None
    emit: bool = True
    follow: tuple[str, ...] = ()
    #: how its pages are read: ``html``, ``xml`` (a feed; namespaces dropped) or ``json``
    format: Literal["html", "xml", "json"] = "html"
    #: JSON pages: the pointer ``record_root`` was derived from
    record_pointer: str | None = None

    @classmethod
    def from_dict(cls, name: str, d: Mapping[str, Any]) -> PageType:
        pointer = d.get("record_pointer")
        return cls(
            name=name,
            match=d["match"],
            fields={k: FieldSpec.from_dict(k, v) for k, v in d["fields"].items()},
            record_root=d.get("record_root") if pointer is None else pointer_xpath(pointer, True),
            emit=d.get("emit", True),
            follow=tuple(d.get("follow", ())),
            format=d.get("format", "html"),
            record_pointer=pointer,
        )

    def to_dict(self) -> dict[str, Any]:
        return _prune(
            [
                ("match", self.match),
                ("format", None if self.format == "html" else self.format),
                ("record_root", self.record_root if self.record_pointer is None else None),
                ("record_pointer", self.record_pointer),
                ("emit", None if self.emit else False),
                ("follow", list(self.follow)),
                ("fields", {k: f.to_dict() for k, f in self.fields.items()}),
            ]
        )


@dataclass(frozen=True)
class Fixture:
    page: str
    url: str
    records: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return _prune([("page", self.page), ("url", self.url), ("records", self.records)])


@dataclass(frozen=True)
class SelectorFile:
    """One site's selector file (format v1). ``path`` is where it was loaded from, if anywhere."""

    site: Site
    version: int
    fetch: FetchSpec
    page_types: Mapping[str, PageType]
    key: tuple[str, ...]
    parent_version: int | None = None
    created_at: str | None = None
    provenance: Provenance = field(default_factory=Provenance)
    policy: Policy | None = None
    baseline: Mapping[str, Any] = field(default_factory=dict)
    fixtures: tuple[Fixture, ...] = ()
    schema_ref: str = SCHEMA_URL
    path: str | None = field(default=None, compare=False)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], *, path: str | None = None) -> SelectorFile:
        return cls(
            site=Site.from_dict(d["site"]),
            version=d["version"],
            fetch=FetchSpec.from_dict(d["fetch"]),
            page_types={k: PageType.from_dict(k, v) for k, v in d["page_types"].items()},
            key=tuple(d["key"]),
            parent_version=d.get("parent_version"),
            created_at=d.get("created_at"),
            provenance=Provenance.from_dict(d.get("provenance", {})),
            policy=Policy.from_dict(d["policy"]) if "policy" in d else None,
            baseline=dict(d.get("baseline", {})),
            fixtures=tuple(
                Fixture(f["page"], f["url"], f.get("records")) for f in d.get("fixtures", [])
            ),
            schema_ref=d.get("$schema", SCHEMA_URL),
            path=path,
        )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "$schema": self.schema_ref,
            "schema_version": 1,
            "site": self.site.to_dict(),
            "version": self.version,
            "parent_version": self.parent_version,
        }
        out.update(
            _prune(
                [
                    ("created_at", self.created_at),
                    ("provenance", self.provenance.to_dict()),
                    ("policy", self.policy.to_dict() if self.policy is not None else None),
                    ("fetch", self.fetch.to_dict()),
                    ("page_types", {k: p.to_dict() for k, p in self.page_types.items()}),
                    ("key", list(self.key)),
                    ("baseline", dict(self.baseline)),
                    ("fixtures", [f.to_dict() for f in self.fixtures]),
                ]
            )
        )
        return out

    # -- convenience -------------------------------------------------------------------------

    def unrunnable_reason(self) -> str | None:
        """Why a run cannot use this file as it stands (a start URL with credentials, or one
        that is not http(s), as authoring from saved pages without their URLs writes), or
        None. Never repeats a credential."""
        from urllib.parse import urlsplit

        for u in self.fetch.start_urls:
            if u.startswith(("http://", "https://")) and "@" in urlsplit(u).netloc:
                return (
                    f"start URL {urlsplit(u).hostname!r} carries credentials (user:password@): "
                    "anchorpath never sends credentials; remove them from fetch.start_urls"
                )
        bad = [u for u in self.fetch.start_urls if not u.startswith(("http://", "https://"))]
        if not bad:
            return None
        return (
            f"start URL {bad[0]!r} is not an http(s) URL: this selector file cannot run until "
            "its URLs are set (fetch.start_urls and each page type's match); author it again "
            "with --seed-url URL per seed, or edit the file"
        )

    def missing_basis(self) -> str | None:
        """Why a run must not collect with this file: no recorded permission basis
        (``policy.basis``), or None."""
        if self.policy is not None and self.policy.basis is not None:
            return None
        return (
            "no policy.basis: record why collecting this site is allowed before running it, "
            'e.g. "policy": {"basis": "robots", "purpose": "...", "contact": "..."} '
            f"(basis is one of {', '.join(BASES)})"
        )

    def page_type_for(self, url: str) -> PageType | None:
        """The first page type whose ``match`` regex is found in ``url``."""
        import re

        for pt in self.page_types.values():
            if re.search(pt.match, url):
                return pt
        return None
