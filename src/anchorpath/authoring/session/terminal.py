"""The ``rich`` terminal front end of a review session.

One table per field (its value on every seed, the chosen XPath and anchor, robustness,
fallbacks, warnings), the highlighted screenshots' paths, then one prompt per field and one
for the whole file. On a terminal the prompts are edited lines; when standard input is not a
terminal each prompt reads one line (an empty line takes the default: accept, write; ``q``
quits without writing; the end of input quits without writing too), so tests, scripts and the
README drive a session through a pipe.

Per field: ``a`` accept (default), ``v`` edit the values (re-grounded, re-authored), ``x`` edit
the XPath (compiled, verified on every seed, re-scored), ``f`` pick a fallback, ``d`` drop,
``r`` ask the value source again, ``q`` quit. For the file: ``w`` write (default), ``p``
preview the records of every seed, ``+ NAME[:TYPE]`` add a field, ``e NAME`` review a field
again, ``s`` screenshots again, ``q`` quit.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from anchorpath._errors import AnchorpathError, AuthoringError
from anchorpath.authoring.reports import FieldRequest
from anchorpath.authoring.session.core import FieldRow, Session, XPathCheck
from anchorpath.authoring.session.screenshot import field_colors
from anchorpath.selectors.model import FIELD_TYPES, SelectorFile

__all__ = ["Quit", "SessionOutcome", "Terminal", "console_for", "run_session"]


class Quit(Exception):
    """The person quit (``q`` or end of input): nothing is written."""


@dataclass
class SessionOutcome:
    """What the session ended with."""

    written: bool
    selector_file: SelectorFile | None = None
    files: list[Path] = field(default_factory=list)


def console_for(stream: TextIO | None = None) -> Console:
    """A console on ``stream`` (stdout); wide enough for XPaths when it is not a terminal."""
    stream = stream or sys.stdout
    tty = stream.isatty()
    return Console(
        file=stream,
        width=None if tty else 120,
        force_terminal=tty,
        highlight=False,
        soft_wrap=False,
    )


class Terminal:
    """Prompts: edited lines on a terminal, one line each from a pipe."""

    def __init__(self, console: Console, stdin: TextIO | None = None) -> None:
        self.console = console
        self.stdin = stdin or sys.stdin
        self.interactive = self.stdin.isatty()

    def ask(self, question: str, default: str = "", *, quit_ok: bool = True) -> str:
        hint = f" \\[{escape(default)}]" if default else ""
        if self.interactive:
            try:
                line = self.console.input(f"[bold]{escape(question)}[/]{hint}: ")
            except EOFError:
                raise Quit("end of input") from None
        else:
            self.console.print(f"[bold]{escape(question)}[/]{hint}: ", end="")
            line = self.stdin.readline()
            if not line:
                self.console.print()
                raise Quit("end of input")
            self.console.print(escape(line.rstrip("\n")))
        line = line.strip()
        if quit_ok and line.lower() in ("q", "quit"):
            raise Quit("quit")
        return line or default

    def confirm(self, question: str, default: bool) -> bool:
        answer = self.ask(f"{question} (y/n)", "y" if default else "n").lower()
        return answer.startswith("y")


def _short(v: Any, limit: int = 70) -> str:
    if v is None:
        return "[dim](none)[/]"
    if isinstance(v, list):
        shown = ", ".join(_short(x, 30) for x in v[:3])
        more = f" … ({len(v)} records)" if len(v) > 3 else f" ({len(v)} records)"
        return shown + more
    s = str(v).replace("\n", " ")
    return escape(s if len(s) <= limit else s[: limit - 1] + "…")


@contextlib.contextmanager
def _progress(
    console: Console, what: str, cost: Callable[[], str | None] | None = None
) -> Iterator[None]:
    """An indeterminate rich progress bar (with the running cost) while ``what`` runs."""
    columns: list[Any] = [
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        TimeElapsedColumn(),
    ]
    if cost is not None:
        columns.append(TextColumn("{task.fields[cost]}"))
    with Progress(*columns, console=console, transient=True, disable=not console.is_terminal) as p:
        task = p.add_task(what, total=None, cost=(cost() if cost else "") or "")
        try:
            yield
        finally:
            p.update(task, cost=(cost() if cost else "") or "")


class _Review:
    """One session on a terminal."""

    def __init__(
        self,
        session: Session,
        term: Terminal,
        *,
        target: Path,
        shots_dir: Path | None,
        open_images: bool,
        save: Callable[[Session, list[Path]], tuple[SelectorFile, list[Path]]],
        confirm_write: str | None,
        done: str | None = None,
    ) -> None:
        self.done = done
        self.s = session
        self.t = term
        self.c = term.console
        self.target = target
        self.shots_dir = shots_dir
        self.open_images = open_images
        self.save = save
        self.confirm_write = confirm_write
        self.shots: list[Path] = []
        self.shots_stale = True

    # ------------------------------------------------------------------ display

    def cost(self) -> str | None:
        return self.s.source.cost() if self.s.source is not None else None

    def header(self) -> None:
        s = self.s
        kind = "list page" if s.is_list else "detail page"
        self.c.rule(f"[bold]{escape(s.base.site.id)}[/]: page type {escape(s.page_type)} ({kind})")
        for i, p in enumerate(s.pages, 1):
            self.c.print(
                f"seed {i}: {escape(p.source)}"
                + ("" if p.source == p.url else f"  ({escape(p.url)})")
            )
        if s.spec.record_root:
            self.c.print(f"record root: {escape(s.spec.record_root)}")
        for problem in s.problems:
            if any(repr(n) in problem for n in s.fields):
                continue  # shown in the field's table
            self.c.print(f"[yellow]warning:[/] {escape(problem)}")

    def table(self, row: FieldRow) -> None:
        colors = field_colors(list(self.s.fields))
        color = colors.get(row.name, "white")
        status = {"pending": "", "accepted": " [green]accepted[/]", "dropped": " [red]dropped[/]"}
        t = Table(
            title=f"[bold {color}]■[/] [bold]{escape(row.name)}[/]"
            f" ({self.s.fields[row.name].spec.type}){status[row.status]}",
            title_justify="left",
            show_header=False,
            expand=False,
        )
        t.add_column("what", style="dim", no_wrap=True)
        t.add_column("value", overflow="fold")
        for i, v in enumerate(row.values, 1):
            t.add_row(f"seed {i}", _short(v))
        t.add_row("XPath", escape(row.xpath))
        t.add_row("anchor", escape(row.anchor))
        rob = "-" if row.robustness is None else f"{row.robustness:.2f}"
        t.add_row("robustness", rob)
        for k, fb in enumerate(row.fallbacks, 1):
            t.add_row(f"fallback {k}", escape(fb))
        for w in row.warnings:
            t.add_row("[yellow]warning[/]", f"[yellow]{escape(w)}[/]")
        self.c.print(t)

    def show_field(self, name: str) -> None:
        row = next(r for r in self.s.rows() if r.name == name)
        self.table(row)

    def screenshots(self, *, force: bool = False) -> None:
        if self.shots_dir is None or (not self.shots_stale and not force):
            return
        from anchorpath.authoring.session.screenshot import render_highlights

        try:
            with _progress(self.c, "rendering the highlighted seeds", self.cost):
                self.shots = render_highlights(
                    self.s.pages,
                    self.s.matched_nodes(),
                    self.shots_dir,
                    roots=self.s.record_roots(),
                    stem=self.s.page_type,
                )
        except AnchorpathError as exc:
            self.c.print(f"[yellow]no screenshots:[/] {escape(str(exc))}")
            self.shots_dir = None
            return
        self.shots_stale = False
        for p in self.shots:
            self.c.print(f"screenshot: {escape(str(p))}")
        if self.open_images:
            # the views of the values; the full pages are a click away in the same folder
            _open([p for p in self.shots if not p.stem.endswith("-full")], self.c)

    # ------------------------------------------------------------------ actions

    def review(self, name: str) -> None:
        while True:
            self.show_field(name)
            ans = self.t.ask(
                f"{name}: a accept, v value, x XPath, f fallback, d drop, r ask again, q quit", "a"
            ).lower()
            try:
                if ans in ("a", "accept", "y"):
                    self.s.accept(name)
                    return
                if ans in ("d", "drop"):
                    self.s.drop(name)
                    self.shots_stale = True
                    self.c.print(f"dropped {escape(name)}")
                    return
                if ans in ("v", "value"):
                    self.edit_values(name)
                elif ans in ("x", "xpath"):
                    self.edit_xpath(name)
                elif ans in ("f", "fallback"):
                    self.fallback(name)
                elif ans in ("r", "again"):
                    with _progress(self.c, f"asking again for {name}", self.cost):
                        asked = self.s.ask_again(name)
                    if asked:
                        self.shots_stale = True
                    else:
                        self.c.print(
                            f"[yellow]no new proposal for {escape(name)}[/] (source: "
                            f"{escape(self.s.source.name if self.s.source else 'none')}); "
                            "give the values with v"
                        )
                else:
                    self.c.print(f"[red]unknown answer {escape(ans)!r}[/]")
            except AuthoringError as exc:
                self.c.print(f"[red]rejected:[/] {escape(str(exc))}")

    def _ask_values(self, name: str, current: Sequence[Any]) -> list[Any]:
        out: list[Any] = []
        picks = self.s.example_records() if self.s.is_list else []
        for i, (p, cur) in enumerate(zip(self.s.pages, current, strict=True), 1):
            if self.s.is_list:
                shown = " | ".join(str(x) for x in cur or [])
                which = ", ".join(str(k + 1) for k in picks[i - 1])
                ans = self.t.ask(
                    f"{name} on seed {i} ({p.source}), records {which}, ' | ' between", shown
                )
                out.append([x.strip() for x in ans.split("|")] if ans else [])
            else:
                ans = self.t.ask(
                    f"{name} on seed {i} ({p.source}); '-' for none",
                    "" if cur is None else str(cur),
                )
                out.append(None if ans in ("", "-") else ans)
        return out

    def edit_values(self, name: str) -> None:
        values = self._ask_values(name, self.s.example_values(name))
        with _progress(self.c, f"grounding and verifying {name}", self.cost):
            self.s.set_values(name, values)
        self.shots_stale = True
        self.c.print(f"[green]re-authored {escape(name)}[/]")

    def _report_check(self, check: XPathCheck) -> None:
        if not check.ok:
            self.c.print(f"[red]rejected:[/] {escape(check.xpath)}")
            for p in check.problems:
                self.c.print(f"  [red]-[/] {escape(p)}")

    def edit_xpath(self, name: str) -> None:
        xpath = self.t.ask(f"new XPath for {name}", "")
        if not xpath:
            return
        with _progress(self.c, f"verifying {name} on every seed", self.cost):
            check = self.s.check_xpath(name, xpath)
        self._report_check(check)
        if not check.ok:
            return
        if check.changed_on:
            for i in check.changed_on:
                self.c.print(
                    f"  seed {i + 1}: {_short(self.s.values(name)[i])} -> {_short(check.values[i])}"
                )
            if not self.t.confirm(
                f"{name}: the values change on {len(check.changed_on)} seed(s); take them", False
            ):
                return
        self.s.set_xpath(name, check)
        self.shots_stale = True
        self.c.print(
            f"[green]{escape(name)}: XPath verified on every seed, "
            f"robustness {check.robustness or 0:.2f}[/]"
        )

    def fallback(self, name: str) -> None:
        falls = self.s.fields[name].spec.fallbacks
        if not falls:
            self.c.print(f"{escape(name)} has no fallbacks")
            return
        ans = self.t.ask(f"fallback number for {name} (1-{len(falls)})", "1")
        try:
            k = int(ans) - 1
        except ValueError:
            self.c.print(f"[red]not a number: {escape(ans)}[/]")
            return
        check = self.s.pick_fallback(name, k)
        self._report_check(check)
        if check.ok:
            self.shots_stale = True

    def add(self, spec: str) -> None:
        fname, _, ftype = spec.partition(":")
        fname, ftype = fname.strip(), (ftype.strip() or "string")
        if not fname:
            self.c.print("[red]give a field name: + NAME[:TYPE][/]")
            return
        if ftype not in FIELD_TYPES:
            self.c.print(
                f"[red]unknown type {escape(ftype)!r}[/] (one of {', '.join(FIELD_TYPES)})"
            )
            return
        req = FieldRequest(fname, ftype)
        with _progress(self.c, f"proposing {fname}", self.cost):
            proposed = self.s.propose(req)
        if proposed is None:
            blank: list[Any] = [[] if self.s.is_list else None for _ in self.s.pages]
            proposed = self._ask_values(fname, blank)
        else:
            self.c.print(
                f"{escape(fname)}: values from "
                f"{escape(self.s.source.name if self.s.source else '')}"
            )
        try:
            with _progress(self.c, f"grounding and verifying {fname}", self.cost):
                self.s.add_field(req, proposed)
        except AuthoringError as exc:
            self.c.print(f"[red]rejected:[/] {escape(str(exc))}")
            return
        self.shots_stale = True
        self.review(fname)

    def preview(self) -> None:
        for i, (p, recs) in enumerate(zip(self.s.pages, self.s.preview(), strict=True), 1):
            t = Table(
                title=f"seed {i}: {escape(p.source)} ({len(recs)} records)", title_justify="left"
            )
            names = list(self.s.active())
            for n in names:
                t.add_column(escape(n), overflow="fold")
            for r in recs[:20]:
                t.add_row(*(_short(r.values.get(n), 40) for n in names))
            self.c.print(t)

    def run(self) -> SessionOutcome:
        self.header()
        self.screenshots()
        for name in list(self.s.fields):
            self.review(name)
        while True:
            states = self.s.fields.values()
            kept = sum(1 for st in states if st.status != "dropped")
            ans = self.t.ask(
                f"{kept} field(s) kept: w write {self.target}, p preview, + NAME[:TYPE] add, "
                "e NAME review, s screenshots, q quit",
                "w",
            )
            low = ans.lower()
            if low in ("w", "write"):
                if self.confirm_write and not self.t.confirm(self.confirm_write, False):
                    continue
                return self.write()
            if low in ("p", "preview"):
                self.preview()
            elif low in ("s", "screenshots"):
                self.screenshots(force=True)
            elif ans.startswith("+"):
                self.add(ans[1:])
            elif low.startswith("e ") and ans[2:].strip() in self.s.fields:
                self.review(ans[2:].strip())
            else:
                self.c.print(f"[red]unknown answer {escape(ans)!r}[/]")

    def write(self) -> SessionOutcome:
        sf = self.s.build()  # raises when nothing is left
        self.screenshots()
        saved, files = self.save(self.s, self.shots)
        self.c.print(
            f"[green]{escape(self.done)}[/]"
            if self.done
            else f"[green]wrote {escape(str(self.target))} (version {saved.version})[/]"
        )
        for f in files:
            self.c.print(f"  {escape(str(f))}")
        del sf
        return SessionOutcome(True, saved, files)


def _open(paths: Sequence[Path], console: Console) -> None:
    """Open images with the system viewer, where there is one."""
    opener = shutil.which("xdg-open") or shutil.which("open")
    if opener is None:
        console.print("[yellow]--open: no image viewer (xdg-open) here; open the paths above[/]")
        return
    for p in paths:
        subprocess.Popen(
            [opener, str(p)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )


def run_session(
    session: Session,
    *,
    target: Path,
    save: Callable[[Session, list[Path]], tuple[SelectorFile, list[Path]]],
    shots_dir: Path | None,
    console: Console | None = None,
    stdin: TextIO | None = None,
    open_images: bool = False,
    confirm_write: str | None = None,
    done: str | None = None,
) -> SessionOutcome:
    """Run a review session; ``save(session, screenshots)`` writes the result. Quitting (``q``,
    end of input) returns ``written=False`` with nothing written."""
    term = Terminal(console or console_for(), stdin)
    review = _Review(
        session,
        term,
        target=target,
        shots_dir=shots_dir,
        open_images=open_images,
        save=save,
        confirm_write=confirm_write,
        done=done,
    )
    try:
        return review.run()
    except Quit as why:
        term.console.print(f"[yellow]{why}: nothing written[/]")
        return SessionOutcome(False)
