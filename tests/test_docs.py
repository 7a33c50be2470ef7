"""The docs name only commands bmn accepts: every `bmn` command line in README.md and docs/*.md
parses with the real click command tree, the cheap ones run, and every link leads somewhere.

Where command lines are found: in fenced code blocks (except blocks fenced as ```text, which
show output) and in inline code spans. A command line is the words after a word `bmn` (or a
path ending in `/bmn`, such as `.venv/bin/bmn`) up to a shell operator (`|`, `&&`, `;`, `>`,
`&`) or a comment; in a code block a line ending in `\\` goes on on the next line. Each is
parsed as bmn would parse it (the group's options, sub-groups, then the command's options and
arguments with click's make_context, resilient_parsing=False), without running the command:
a doc naming an option that does not exist, or a bad value, fails. Inline code of command
names alone (`bmn records show`, in prose) only has to name commands that exist.

The conventions, so that the docs can show real shell lines:
- Docs write real values (`--resume 3`, not `--resume RUN`). The one placeholder is the word
  `HAND...`, which stands for a real deal (the record game's two hands).
- Shell expansions stand for a value: `$(...)` and `$((...))` for the number 2, `$NAME` for a
  plain word.
- A code-block line whose comment says `# exit N` shows a failure: it is run, and must fail
  by bmn's error contract with exit status N.
- Lines of the commands in RUN (cheap, no store needed) with options or arguments are run
  too, and must exit 0.
Every line is read, parsed and run in an empty folder holding `deals.txt`, with no BMN_STORE.
One slow test runs the README's Commands block as written, in bash, after the README's own
step that puts `bmn` on the PATH (`. .venv/bin/activate`).
"""

import json
import os
import re
import shlex
import subprocess
import sys
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import click
import pytest
from samples import CASELLA, RECORD

from bmn.frontends.cli.main import cli
from bmn.records.store import Find, Store

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# Commands cheap enough to run from every doc line that names them.
RUN = {
    ("play",),
    ("deal",),
    ("loop",),
    ("preimages",),
    ("plot",),
    ("records", "published"),
    ("records", "show"),
}

FENCE = re.compile(r"^[ \t]*```([^\n`]*)\n(.*?)^[ \t]*```", re.M | re.S)
SPAN = re.compile(r"`([^`]+)`")
EXIT = re.compile(r"#\s*exit\s+(\d+)")
SHELL_NUMBER = re.compile(r"\$\(\(.*?\)\)|\$\([^)]*\)")
SHELL_WORD = re.compile(r"\$\{?\w+\}?")
OPERATORS = {"|", "||", "&&", ";", ">", ">>", "<", "&"}


@dataclass(frozen=True)
class Line:
    """One bmn command line of a doc: where it is, its arguments, the exit status it shows."""

    where: str
    args: tuple[str, ...]
    exit: int | None = None
    inline: bool = False

    def named_only(self) -> bool:
        """Inline code naming commands alone, as prose does: `bmn loop`."""
        return self.inline and self.path() == self.args

    def path(self) -> tuple[str, ...]:
        """The command's names (`("records", "show")`), as far as they name commands."""
        names, group = [], cli
        for word in self.args:
            if word.startswith("-") or not isinstance(group, click.Group):
                if names:  # group options (--debug) come before the command only
                    break
                continue
            group = group.commands.get(word)
            if group is None:
                break
            names.append(word)
        return tuple(names)


def command_lines(text: str, where: str, inline: bool = False) -> list[Line]:
    """The bmn commands of one line of shell, with the placeholders and expansions replaced."""
    status = EXIT.search(text)
    text = SHELL_WORD.sub("x", SHELL_NUMBER.sub("2", text))
    text = re.sub(r"(?<!\S)2>", ">", text)  # stderr redirection, not an argument 2
    lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    found, current = [], None
    for word in lexer:
        if word == "bmn" or word.endswith("/bmn"):
            current = []
            found.append(current)
        elif word in OPERATORS:
            current = None
        elif current is not None:
            current.extend(RECORD.split("/") if word == "HAND..." else [word])
    code = int(status.group(1)) if status else None
    return [Line(where, tuple(args), code, inline) for args in found if args]


def doc_lines(path: Path) -> list[Line]:
    """Every bmn command line of one doc, in code blocks and inline code."""
    text = path.read_text()
    name = path.relative_to(ROOT).as_posix()
    lines = []
    for block in FENCE.finditer(text):
        if block.group(1).strip() == "text":
            continue
        number = text.count("\n", 0, block.start(2)) + 1
        pending = ""
        for offset, row in enumerate(block.group(2).splitlines()):
            if row.rstrip().endswith("\\"):
                pending += row.rstrip()[:-1] + " "
                continue
            lines += command_lines(pending + row, f"{name}:{number + offset}")
            pending = ""
    prose = FENCE.sub(lambda block: "\n" * block.group(0).count("\n"), text)
    for span in SPAN.finditer(prose):
        number = prose.count("\n", 0, span.start()) + 1
        lines += command_lines(span.group(1).replace("\n", " "), f"{name}:{number}", True)
    return lines


LINES = [line for path in DOCS for line in doc_lines(path)]


def name(line: Line) -> str:
    return f"{line.where} bmn {' '.join(line.args)}"[:90]


def parse(args: tuple[str, ...]) -> None:
    """Parse a command line as bmn would, without running it: click's UsageError (or one of
    its subclasses) for an unknown command or option or a bad value."""
    with ExitStack() as contexts:
        ctx = contexts.enter_context(cli.make_context("bmn", list(args), resilient_parsing=False))
        command = cli
        rest = [*getattr(ctx, "_protected_args", []), *ctx.args]
        while isinstance(command, click.Group) and rest:
            name, command, rest = command.resolve_command(ctx, rest)
            if isinstance(command, click.Group) and not rest:
                return  # a group named in prose: `bmn records`
            ctx = contexts.enter_context(
                command.make_context(name, rest, parent=ctx, resilient_parsing=False)
            )
            rest = [*getattr(ctx, "_protected_args", []), *ctx.args]


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """An empty working folder with a file of deals, and no BMN_STORE."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("BMN_STORE", raising=False)
    (tmp_path / "deals.txt").write_text(f"{RECORD}\n-J/Q-\n")
    (tmp_path / "tests").symlink_to(ROOT / "tests")  # the peers' tables docs/peers.md names
    case = {"input": {"playerA": "-J", "playerB": "Q-"}, "expected": {"cards": 4}}
    (tmp_path / "canonical-data.json").write_text(json.dumps({"cases": [case]}))
    return tmp_path


@pytest.mark.parametrize("line", [line for line in LINES if line.exit is None], ids=name)
def test_doc_command_parses(line, folder):
    if line.named_only():
        return
    try:
        parse(line.args)
    except click.exceptions.Exit:
        pass  # --help or --version
    except click.UsageError as err:
        pytest.fail(f"{line.where}: bmn {' '.join(line.args)}: {err.format_message()}")


@pytest.mark.parametrize(
    "line",
    [
        line
        for line in LINES
        if line.exit is not None or (line.path() in RUN and not line.named_only())
    ],
    ids=name,
)
def test_doc_command_runs(line, folder, bmn, failed):
    result = bmn(*line.args)
    if line.exit is None:
        assert result.exit_code == 0, (line.where, result.output)
    else:
        failed(result, line.exit)


def test_docs_show_commands_of_every_kind():
    paths = {line.path()[:1] for line in LINES}
    assert {(name,) for name in cli.commands} <= paths, set(cli.commands) - {p[0] for p in paths}
    assert len(LINES) >= 100
    assert sum(line.exit is not None for line in LINES) >= 3


def test_readme_is_a_front_page():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 250
    for command in (
        "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/bmn search"
        " && .venv/bin/bmn records compare",
        ".venv/bin/pip install -e '.[test]' && .venv/bin/python -m pytest -q -n auto",
    ):
        assert f"\n{command}\n" in readme, command
    for page in DOCS[1:]:
        assert f"(docs/{page.name})" in readme, f"README.md does not link {page.name}"


ACTIVATE = ". .venv/bin/activate"  # the README's step that puts bmn on the PATH


def readme_commands() -> list[str]:
    """The lines of the README's Commands block (the code block of `bmn ...` lines), as
    written, comments and all."""
    section = (ROOT / "README.md").read_text().split("\n## Commands\n", 1)[1]
    blocks = [block.group(2).splitlines() for block in FENCE.finditer(section)]
    return next(rows for rows in blocks if rows and all(r.startswith("bmn ") for r in rows))


def with_help(line: str) -> str:
    """A README line with `--help` after each bmn command's words, its comment dropped: the
    commands and options it names, checked by the installed bmn without running it. A pipe's
    commands run one after another: piped, a help that reads no input could close the pipe
    before the other's help is written (SIGPIPE, a failure under pipefail)."""
    shell = re.sub(r"\s#.*$", "", line).strip()
    return " && ".join(f"{part.strip()} --help" for part in shell.split(" | "))


# What reads the README's night.sqlite, which the test makes: cheap to run too.
READS_NIGHT = {("records", name) for name in ("top", "compare", "runs", "export", "loops", "plot")}


def runs_as_written(line: str) -> bool:
    """Whether every command of a README line is one cheap enough to run (RUN, READS_NIGHT)."""
    calls = command_lines(line, "README.md")
    return all(call.path() in RUN | READS_NIGHT and not call.named_only() for call in calls)


def without_bmn(path: str) -> str:
    """A PATH with no folder that holds a `bmn`: a shell where the README's step is needed."""
    return os.pathsep.join(d for d in path.split(os.pathsep) if not (Path(d) / "bmn").exists())


@pytest.mark.slow
def test_the_readmes_commands_run_as_written_after_its_path_step(tmp_path):
    """In a new shell (bash) in a clone whose quick start made `.venv` (here the environment
    running the suite), the README's step puts bmn on the PATH, and then every line of its
    Commands block runs as written: the cheap ones for real (the records commands on a small
    night.sqlite), the others with --help after each command (bmn parses every option it
    names, then prints help)."""
    readme = (ROOT / "README.md").read_text()
    assert f"\n```sh\n{ACTIVATE}\n```\n" in readme
    (tmp_path / ".venv").symlink_to(sys.prefix)
    with Store(tmp_path / "night.sqlite") as db:
        run = db.create_run("walk", "cards", 1, {})
        db.add_finds(run, [Find(RECORD, 8344, 1164, elapsed=5.0), Find(CASELLA, 474, 66, "loop")])
        db.update_run(run, status="finished", games=10**6, seconds=60.0, best_deal=RECORD)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "BMN_STORE")}
    env["PATH"] = without_bmn(env.get("PATH", os.defpath))

    def shell(line: str) -> subprocess.CompletedProcess:
        script = f"set -o pipefail\n{line}\n"
        return subprocess.run(
            ["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True
        )

    assert shell("command -v bmn").returncode == 1  # not on the PATH before the step
    found = shell(f"{ACTIVATE} && command -v bmn")
    assert Path(found.stdout.strip()).resolve() == (Path(sys.prefix) / "bin" / "bmn").resolve()
    lines = readme_commands()
    assert len(lines) >= 25
    for line in lines:
        real = runs_as_written(line)
        ran = shell(f"{ACTIVATE} && {line if real else with_help(line)}")
        assert ran.returncode == 0 and "Error" not in ran.stderr, (line, ran.stderr)
        assert real or ran.stdout.startswith("Usage: bmn "), (line, ran.stdout)
    assert sum(map(runs_as_written, lines)) >= 12
    assert (tmp_path / "game.png").exists() and (tmp_path / "progress.png").exists()


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to -."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_links_lead_somewhere():
    for path in DOCS:
        for target in re.findall(r"\]\(([^)\s]+)\)", path.read_text()):
            if "://" in target:
                continue
            file, _, anchor = target.partition("#")
            page = (path.parent / file).resolve() if file else path
            assert page.exists(), f"{path.name}: {target}"
            if anchor:
                headings = re.findall(r"^#+ (.*)$", page.read_text(), re.M)
                assert anchor in {slug(h) for h in headings}, f"{path.name}: {target}"


# A script the docs run: `python benchmarks/NAME.py` or `python -m lab.NAME` (lab/README.md).
SCRIPT = re.compile(r"python3? (benchmarks/\w+\.py|-m lab(?:\.\w+)+)")
# A lab or benchmark file the docs name in prose or code (lab/cycles/elimination.py).
NAMED_FILE = re.compile(r"(?<![\w/])((?:lab|benchmarks)/[\w/]+\.(?:py|md))\b")
HELD = re.compile(r"commit\s+[0-9a-f]{7,40}\b")  # where a deleted file is kept


def _script_file(named: str) -> Path:
    if named.startswith("-m "):
        return ROOT / (named[3:].replace(".", "/") + ".py")
    return ROOT / named


def test_every_script_and_lab_file_the_docs_name_is_there():
    """A script moved (a benchmark into the lab) or deleted leaves no doc pointing at it; a
    paragraph that names the commit which holds a deleted file (`commit c8d7263`) may name it."""
    named = set()
    for path in [*DOCS, ROOT / "lab" / "README.md"]:
        for paragraph in re.split(r"\n\s*\n", path.read_text()):
            if HELD.search(paragraph):
                continue
            named |= {(path.name, _script_file(m)) for m in SCRIPT.findall(paragraph)}
            named |= {(path.name, ROOT / m) for m in NAMED_FILE.findall(paragraph)}
    missing = sorted(f"{p}: {f.relative_to(ROOT)}" for p, f in named if not f.exists())
    assert missing == []
    assert len({file for _, file in named}) >= 12  # the patterns find the docs' scripts


def test_conventions():
    """How lines are read: operators, continuations, expansions, placeholders, exit marks."""
    found = command_lines(
        "X=1 nice bmn deal --seed $((A * B)) | .venv/bin/bmn play HAND... 2> log  # exit 2", "t"
    )
    assert [line.args for line in found] == [("deal", "--seed", "2"), ("play", *RECORD.split("/"))]
    assert {line.exit for line in found} == {2}
    assert Line("t", ("--debug", "records", "show", "-J/Q-")).path() == ("records", "show")
    assert command_lines("pip install 'bmn[dask]' `bmn-records.sqlite`", "t") == []
    assert Line("t", ("records", "show"), inline=True).named_only()
    parse(("records", "top", "-n", "3"))
    bad_lines = [("records", "top", "--by", "length"), ("search", "--wrkers", "2"), ("nonsense",)]
    for bad in [*bad_lines, ("records", "show"), ("records", "shw")]:
        with pytest.raises(click.UsageError):
            parse(bad)
