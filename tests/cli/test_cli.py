"""The command line as a whole: every command's help and its examples, a light `bmn --help`,
and text output drawn by rich on a terminal, plain elsewhere."""

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest
from samples import CASELLA, PAULHUS, RECORD, hunted_cycle

from bmn.frontends.cli.main import cli
from bmn.frontends.output import tables as present
from bmn.records.store import Find, Store

# Examples too slow to run in the suite (a one-minute search, a million deals): these are
# parsed with their options and checked, not run.
PARSED_ONLY = {"search", "search-bench", "stats", "bench", "selfcheck"}
SERVERS = {("records", "serve")}  # run until stopped: parsed only
# Examples on a GPU: parsed only too (tests/test_cli_cuda.py runs the commands on the simulator).
GPU = "cuda"


def commands(group=cli, path=()):
    """Every command and group under `group`, with its path of names."""
    yield path, group
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            yield from commands(command, (*path, name))
        else:
            yield (*path, name), command


def examples(command) -> list[str]:
    """The lines under 'Example:' or 'Examples:' in a command's help; a line ending in '\\'
    goes on on the next (a long example broken to fit the help's 80 columns)."""
    lines = (command.help or "").splitlines()
    starts = [i for i, line in enumerate(lines) if line.strip() in ("Example:", "Examples:")]
    found, going_on = [], False
    for line in lines[starts[0] + 1 :] if starts else []:
        if not line.strip():
            break
        if going_on:
            found[-1] = found[-1][:-1] + line.strip()
        else:
            found.append(line.strip())
        going_on = found[-1].endswith("\\")
    return found


def every_example():
    for _, command in commands():
        yield from examples(command)


def tokens(line: str) -> list[str]:
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    return list(lexer)


def shell(words: list[str], run, stdin: str = "") -> str:
    """What an example prints, by a tiny shell over `run(args, stdin) -> stdout`: pipes,
    `for V in ...; do ...; done`, `$(...)`, `> FILE`, and a wrapper before `bmn` (taskset)."""
    if "|" in words:
        cut = words.index("|")
        return shell(words[cut + 1 :], run, shell(words[:cut], run, stdin))
    if words[0] == "for":  # for VAR in WORDS ; do BODY ; done
        var, values = words[1], words[3 : words.index(";")]
        body = words[words.index("do") + 1 : words.index("done") - 1]
        return "".join(shell([w.replace("$" + var, v) for w in body], run, stdin) for v in values)
    if "$" in words:  # $( COMMAND ): its output, split into words
        start = words.index("$")
        end = words.index(")", start)
        inner = shell(words[start + 2 : end], run).split()
        return shell(words[:start] + inner + words[end + 1 :], run, stdin)
    if ">" in words:
        cut = words.index(">")
        with open(words[cut + 1], "w") as out:
            out.write(shell(words[:cut], run, stdin))
        return ""
    return run(words[words.index("bmn") + 1 :], stdin)


def invoked(words: list[str]) -> list[list[str]]:
    """The arguments of every `bmn` call in an example's words."""
    calls, current = [], None
    for word in words:
        if word == "bmn":
            current = []
            calls.append(current)
        elif word == "$" and current is not None:  # an argument made by $(...)
            current.append("$(...)")
            current = None
        elif word in (";", "|", ">", "$", "(", ")", "done"):
            current = None
        elif current is not None:
            current.append(word)
    return calls


def parse(args: list[str]) -> None:
    """Parse a command line as bmn would, without running it: a usage error if the command
    does not exist or an option or argument is not valid. bmn's own options (--debug) come
    before the command."""
    command, ctx = cli, click.Context(cli, info_name="bmn")
    own = {name for option in cli.params for name in option.opts}  # its flags: --debug
    while args and args[0] in own:
        args = args[1:]
    while isinstance(command, click.Group):
        name, command, args = command.resolve_command(ctx, args)
        ctx = click.Context(command, info_name=name, parent=ctx)
    with command.make_context(ctx.info_name, list(args), parent=ctx.parent):
        pass


PEERS = Path(__file__).parents[1] / "data" / "peers"


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    """A folder with the files the examples name: stores with runs 1-4, finds and a cycle,
    and a file of deals."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("BMN_STORE", raising=False)
    with Store(tmp_path / "bmn-records.sqlite") as db:
        runs = [db.create_run("walk", "cards", seed, {}) for seed in range(4)]
        db.add_finds(runs[0], [Find(PAULHUS, 4791, 670, elapsed=5.0)])
        db.add_finds(runs[1], [Find("-J/Q-", 4, 1, elapsed=1.0), Find(CASELLA, 474, 66, "loop")])
        db.add_loops(runs[1], [(hunted_cycle(CASELLA), 1)])  # as a hunt stores it
        db.add_finds(runs[2], [Find(RECORD, 8344, 1164, elapsed=3.0)])  # `records plot 3 4`
        for run in runs:
            db.update_run(run, status="finished", games=1000, seconds=2.0)
    for name in ("night.sqlite", "runs.sqlite", "laptop.sqlite", "desktop.sqlite"):
        shutil.copy(tmp_path / "bmn-records.sqlite", tmp_path / name)
    (tmp_path / "deals.txt").write_text(f"{RECORD}\n{CASELLA}\n{PAULHUS}\n")  # one deck
    report = (PEERS / "n1k06_40.csv").read_text().splitlines()[:4]  # a peer's table
    (tmp_path / "report.csv").write_text("\n".join(report) + "\n")
    (tmp_path / "numbers.txt").write_text("497985732634057566415 5790\n")  # Kleber 1999
    (tmp_path / "finds.csv").write_text(f"deal,cards\n{RECORD},8344\n{PAULHUS},4791\n")
    case = {"input": {"playerA": "-J", "playerB": "Q-"}, "expected": {"cards": 4}}
    (tmp_path / "canonical-data.json").write_text(json.dumps({"cases": [case]}))
    return tmp_path


def test_every_command_has_help_and_examples_of_itself(bmn):
    for path, command in commands():
        assert command.help, f"bmn {' '.join(path)} has no help text"
        assert bmn(*path, "--help").exit_code == 0
        lines = examples(command)
        assert lines, f"bmn {' '.join(path)} has no examples in its help"
        calls = [call for line in lines for call in invoked(tokens(line))]
        assert all(calls) and len(calls) >= len(lines), lines  # every line runs bmn
        assert any(tuple(call[: len(path)]) == path for call in calls), (path, lines)


def test_every_help_line_fits_80_columns():
    """Each command's and group's --help, rendered for a terminal 80 columns wide: no line past
    80 (a long example is broken with a shell continuation, a long list of choices is named)."""
    from click.testing import CliRunner

    long = []
    for path, _ in commands():
        shown = CliRunner().invoke(cli, [*path, "--help"], terminal_width=80, prog_name="bmn")
        assert shown.exit_code == 0, (path, shown.output)
        name = " ".join(("bmn", *path))
        long += [f"{name}: {line}" for line in shown.output.splitlines() if len(line) > 80]
    assert not long, "\n".join(long)


def test_every_example_parses(workdir):
    for line in every_example():
        for args in invoked(tokens(line)):
            if "$" not in "".join(args):  # not made by $(...) or a loop variable
                parse(args)


@pytest.mark.slow
def test_every_quick_example_runs(bmn, workdir):
    status = 0  # an example's comment '# exit N' shows a failure: it must exit N

    def run(args, stdin):
        if args[0] in PARSED_ONLY or tuple(args[:2]) in SERVERS or GPU in args:
            parse(args)
            return ""
        result = bmn(*args, input=stdin)
        assert result.exit_code == status, (args, result.output)
        return result.stdout

    lines = list(every_example())
    for line in lines:
        shown = re.search(r"#\s*exit (\d+)", line)
        status = int(shown.group(1)) if shown else 0
        shell(tokens(line), run)
    assert len(lines) >= 40
    assert json.loads((workdir / "results.jsonl").read_text().splitlines()[0])["cards"] == 8344
    assert (workdir / "finds.csv").read_text().startswith("deal,")
    assert (workdir / "loop.svg").exists() and (workdir / "progress.svg").exists()


def test_example_shell():
    seen = []

    def run(args, stdin):
        seen.append((args, stdin))
        return f"out-{len(seen)}\n"

    line = "for s in 1 2 3; do bmn deal --seed $s; done | taskset -c 1 bmn score  # note"
    assert shell(tokens(line), run) == "out-4\n"
    assert seen[-1] == (["score"], "out-1\nout-2\nout-3\n")
    assert [args for args, _ in seen[:3]] == [["deal", "--seed", s] for s in "123"]
    assert shell(tokens("bmn play $(bmn deal --seed 3)"), run) == "out-6\n"
    assert seen[-1] == (["play", "out-5"], "")
    with pytest.raises(click.UsageError):
        parse(["records", "top", "--by", "length"])
    with pytest.raises(click.UsageError):
        parse(["nonsense"])


def test_help_imports_no_kernel():
    """`bmn --help` and every command's help stay instant: numba, the compiled kernels and
    matplotlib are imported only when a command runs."""
    code = (
        "import sys\n"
        "from bmn.frontends.cli.main import cli\n"
        "def walk(group, path):\n"
        "    for name, command in group.commands.items():\n"
        "        cli.main([*path, name, '--help'], prog_name='bmn', standalone_mode=False)\n"
        "        if hasattr(command, 'commands'):\n"
        "            walk(command, [*path, name])\n"
        "cli.main(['--help'], prog_name='bmn', standalone_mode=False)\n"
        "walk(cli, [])\n"
        "heavy = ('numba', 'matplotlib', 'bmn.kernels.cpu.two', 'bmn.kernels.score')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy or m in heavy))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[-1] == "[]"


def test_tables_are_plain_columns_off_a_terminal():
    table = present.Table(
        ["name", "cards", "deal"], [["a", 5, "-J/Q-"], ["bb", 12, ""]], left=(0, 2)
    )
    assert present.plain(["title", table]).splitlines() == [
        "title",
        "name  cards  deal",
        "a         5  -J/Q-",
        "bb       12",
    ]


def test_tables_drawn_by_rich_on_a_terminal(bmn, monkeypatch):
    plain = bmn("records", "published").stdout
    as_json = bmn("records", "published", "--json").stdout
    monkeypatch.setattr(present, "stdout_is_terminal", lambda: True)
    drawn = bmn("records", "published").stdout
    assert "─" not in plain and "─" in drawn
    for name in ("Paulhus 1999", "Nessler 2022", "Casella 2024"):
        assert name in plain and name in drawn
    assert bmn("records", "published", "--json").stdout == as_json  # JSON: never drawn
    traced = bmn("play", "-J/Q-", "--trace").stdout
    assert traced.startswith("deal: -J/Q-\nfinished: 4 cards, 1 trick; seat 0 wins\n")
    assert "seat 1" in traced and "─" in traced


@pytest.mark.parametrize("group", [[], ["records"]])
def test_a_groups_help_gives_each_summary_whole(bmn, group):
    """`bmn --help` cut summaries at the width left, mid-sentence ('Measure the compiled
    kernel's speed on random standard...'); each is now its command's first sentence, whole,
    wrapped."""
    listed = bmn(*group, "--help").stdout.split("Commands:\n")[1]
    rows = re.split(r"\n  (?=\S)", "\n" + listed.rstrip())[1:]
    summaries = {row.split()[0]: " ".join(row.split()[1:]) for row in rows}
    parent = cli.commands[group[0]] if group else cli
    assert set(summaries) == set(parent.commands)
    for name, summary in summaries.items():
        command = parent.commands[name]
        assert summary == command.short_help and summary.endswith("."), (name, summary)
        first = " ".join(command.help.split("\n\n")[0].split())
        assert first.startswith(summary) or name == "search-bench", (name, first)
