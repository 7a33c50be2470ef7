"""What a searcher sees, and what a low --keep-above costs: finds formatted and committed in
bulk (checked against the notation and the reference engine), a warning when a threshold keeps
too many, the live display's facts (store, setting, share done, the best against the records,
the run's improvements and finds, carried over a resume), the loop hunt's summary, and
progress bars on stderr for the long kernel commands."""

import io
import json
import re
import threading

import numba
import numpy as np
import pytest
from rich.console import Console
from samples import CASELLA

from bmn.frontends.output import progress as display
from bmn.frontends.output.progress import Display
from bmn.kernels.cpu.choice import chosen
from bmn.kernels.deal import deal_texts, decode, format_deal, parse_deal
from bmn.kernels.decks import STANDARD_DECK
from bmn.kernels.reference import play
from bmn.records.store import DEFAULT_PATH, Store
from bmn.search.backends.threads import default_workers
from bmn.search.runs.kinds import longest as driver
from bmn.search.runs.kinds.longest import LongestJob, LongestOptions, search_chunk
from bmn.search.runs.kinds.longest_base import LongestProgress, standing
from bmn.search.runs.kinds.loop_hunt import LoopHuntJob, LoopHuntOptions, LoopHuntSummary
from bmn.search.runs.loop import RunLoop
from bmn.search.strategies.worker import GAMES, LOOP_FINDS, new_worker
from bmn.search.words import counted

OPTIONS = dict(strategy="walk", iterations=200_000, workers=2, seed=3, keep_above=2000)


def test_deal_texts_are_the_notation_of_every_row():
    rng = np.random.default_rng(1)
    decks = np.array([rng.permutation(STANDARD_DECK) for _ in range(300)], dtype=np.uint8)
    assert deal_texts(decks) == [format_deal(decode(row, (26, 26))) for row in decks]
    assert deal_texts(decks[:0]) == []


def chunked(options, iterations):
    """A stream's finds and state through chunks, each asked for every deal still to do."""
    state, decks, meta, done = new_worker(options.seed, 0), [], [], 0
    while done < iterations:
        state, (d, m), games = search_chunk(0, 0, state, options, iterations - done)
        done += games
        decks.append(d)
        meta.append(m)
    return state, np.concatenate(decks), np.concatenate(meta)


def test_a_chunk_keeps_every_deal_past_a_full_finds_buffer(monkeypatch):
    deals = LOOP_FINDS * 5 // 2
    options = LongestOptions(iterations=deals, workers=1, seed=4, keep_above=0)
    _, (first, _), games = search_chunk(0, 0, new_worker(4, 0), options, deals)
    assert games == len(first) == deals > LOOP_FINDS  # not cut at a full buffer
    state, decks, meta = chunked(options, deals)
    for row, (cards, tricks, status) in list(zip(decks, meta, strict=True))[::97]:
        result = play(decode(row, (26, 26)))
        assert (result.cards, result.tricks, status) == (cards, tricks, 0)
    monkeypatch.setattr(driver, "CHUNK_FINDS", LOOP_FINDS * 3 // 2)  # a chunk stops past this
    _, (first, _), games = search_chunk(0, 0, new_worker(4, 0), options, deals)
    assert games == len(first) == 2 * LOOP_FINDS  # whole buffers until past the cap
    capped, capped_decks, capped_meta = chunked(options, deals)
    assert capped.counters[GAMES] == state.counters[GAMES] == deals
    assert np.array_equal(capped_decks, decks) and np.array_equal(capped_meta, meta)


def test_a_low_threshold_is_warned_of_once(tmp_path):
    with Store(tmp_path / "low.sqlite") as store:
        job = RunLoop(
            store, LongestJob, LongestOptions(**{**OPTIONS, "iterations": 60_000, "keep_above": 0})
        )
        seen = []
        summary = job.run(lambda p: seen.append([str(note) for note in p.notes]))
        kept = len(store.run_finds(summary.run))
    assert kept == job.progress.finds > 59_000  # every deal but a walk's few repeats
    notes = seen[-1]
    assert len(notes) == 1 and notes[0].startswith("warning: --keep-above 0 keeps about")
    assert "finds a second" in notes[0] and "GB of store an hour" in notes[0]


def test_the_default_threshold_is_not_warned_of(tmp_path):
    with Store(tmp_path / "usual.sqlite") as store:
        job = RunLoop(store, LongestJob, LongestOptions(**{**OPTIONS, "keep_above": 3000}))
        job.run()
        assert job.progress.notes == []


def test_a_default_threshold_that_keeps_many_is_warned_of_as_the_default(tmp_path, monkeypatch):
    """A run that passes the default often (climb dwells among long deals) is told of the
    default, not of a --keep-above nobody gave: the default is made 0 here so that it does."""
    monkeypatch.setattr(driver, "KEEP_ABOVE", 0)
    with Store(tmp_path / "default.sqlite") as store:
        options = LongestOptions(**{**OPTIONS, "iterations": 60_000, "keep_above": 0})
        job = RunLoop(store, LongestJob, options)
        job.run()
    [note] = [str(note) for note in job.progress.notes]
    assert note.startswith("warning: the default --keep-above, 0 cards, keeps about"), note
    assert note.endswith("a higher --keep-above keeps fewer") and "GB of store an hour" in note
    python = driver.Words(*driver._many_finds_words(0, "many")).python()
    assert "the default keep_above, 0 cards" in python


def test_the_warning_is_one_stderr_line_even_when_quiet(bmn, tmp_path):
    args = ["search", "--iterations", "40000", "--workers", "1", "--keep-above", "0"]
    result = bmn(*args, "--seed", "1", "--quiet", "--json", "--store", tmp_path / "q.sqlite")
    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("warning: --keep-above 0 keeps")
    assert json.loads(result.stdout)["games"] == 40_000


def test_improvements_count_rises_of_the_run_best(tmp_path, monkeypatch):
    monkeypatch.setattr(driver, "COMMIT_SECONDS", 0.0)  # many commits, each a chance to rise
    monkeypatch.setattr(driver, "FIRST_CHUNK", 2000)
    monkeypatch.setattr(driver, "CHUNK_SECONDS", 0.01)
    with Store(tmp_path / "i.sqlite") as store:
        job = RunLoop(store, LongestJob, LongestOptions(**{**OPTIONS, "workers": 3}))
        seen = []
        job.run(lambda p: seen.append((p.best_cards, p.improvements)))
        assert store.run_tally(job.run_id) == (job.progress.finds, job.progress.improvements)
    assert seen[-1][1] > 0
    for (best, count), (next_best, next_count) in zip(seen, seen[1:], strict=False):
        assert next_count == count + (next_best > best)  # counted exactly when best rises


def test_a_resumed_run_carries_on_its_best_finds_and_improvements(tmp_path, monkeypatch):
    monkeypatch.setattr(driver, "COMMIT_SECONDS", 0.0)
    monkeypatch.setattr(driver, "FIRST_CHUNK", 3000)
    monkeypatch.setattr(driver, "CHUNK_SECONDS", 0.01)
    with Store(tmp_path / "r.sqlite") as store:
        job = RunLoop(store, LongestJob, LongestOptions(**OPTIONS))
        first = job.run(lambda p: p.improvements and job.stop.set())
        assert first.status == "interrupted"
        stopped = job.progress
        resumed = RunLoop.resume(store, LongestJob, first.run)
        p = resumed.progress
        assert (p.finds, p.improvements) == (stopped.finds, stopped.improvements) > (0, 0)
        assert (p.best_cards, p.best_deal, p.games) == (
            first.best_cards,
            first.best_deal,
            first.games,
        )
        assert p.seconds == pytest.approx(first.seconds) and 0 < p.done < 1
        assert p.heading().startswith(f"bmn search, run {first.run}, resuming after 0m")
        resumed.run()
        assert (p.finds, p.improvements) == store.run_tally(first.run)
        assert p.finds == len(store.run_finds(first.run)) and p.done == 1.0


def test_standing_against_the_record_and_the_published_games():
    where = standing(3210, 450, "cards")
    assert where.against_record() == "38% of the record, 8,344 cards (Nessler 2022)"
    assert where.rank == "shorter than all 9 published games, the shortest 4,791 cards"
    assert standing(7500, 1, "cards").rank == (
        "longer than 6 of the 9 published games: it would be 4th"
    )
    assert standing(8344, 1, "cards").rank == "level with the record"
    assert standing(9000, 1, "cards").rank == "longer than the record: a new record"
    by_tricks = standing(1, 1200, "tricks")
    assert by_tricks.record == 1164 and by_tricks.rank == "longer than the record: a new record"


def panel_text(progress, width: int = 120) -> str:
    """The live panel as a terminal `width` columns wide (120 by default) shows it."""
    shown = Display()
    shown.console = console = Console(file=io.StringIO(), width=width)
    console.print(shown._panel(progress))
    return console.file.getvalue()


def test_at_80_columns_the_resume_command_and_each_wait_keep_a_line_of_their_own():
    """The stop row split its command over two rows, and the odds row parted a milestone's
    name from its figure: each now has a line of its own in its cell."""
    p = LongestProgress(12, games=2_000_000, seconds=30, rate=8e5, remaining=None)
    p.store, p.strategy, p.workers, p.seed = (
        "/home/someone/bmn/night-of-tuesday.sqlite",
        "walk",
        2,
        1,
    )
    p.best_cards, p.best_tricks, p.improvements, p.finds = 2412, 330, 5, 9
    lines = panel_text(p, 80).splitlines()
    command = "bmn search --resume 12 --store /home/someone/bmn/night-of-tuesday.sqlite"
    assert any(command in line for line in lines)
    waits = [line for line in lines if "~" in line]
    assert waits and all("Paulhus 1999" in line or "cards" in line for line in waits)


def test_the_panel_shows_the_setting_the_share_done_the_standing_and_the_hint():
    p = LongestProgress(3, games=1_234_567, seconds=65, rate=7e5, remaining=90, done=0.42)
    p.store, p.strategy, p.workers, p.seed = "night.sqlite", "walk", 2, 42
    p.best_cards, p.best_tricks, p.improvements, p.finds = 3210, 450, 3, 12
    text = panel_text(p)
    for shown in (
        "night.sqlite",
        "walk, 2 workers, seed 42",
        "━" * 13 + "─" * 19 + " 42%",  # no colour here: what is left is a thin line
        "38% of the record, 8,344 cards (Nessler 2022)",
        "shorter than all 9 published games",
        "bmn search --resume 3 --store night.sqlite",
        "Ctrl-C",
    ):
        assert shown in text, shown
    p.store, p.done = DEFAULT_PATH, None  # no bar without --time or --iterations
    text = panel_text(p)
    assert (
        "bmn search --resume 3 " in text + " " and "--store" not in text and "%" not in text[:200]
    )


def test_the_library_display_says_the_resume_in_python():
    """bmn.search.search(display=True) shows the panel in a notebook: its resume is a call."""
    from bmn.search.runs.said import in_python

    p = LongestProgress(3, games=1_000, seconds=5, rate=200.0)
    p.store, p.strategy, p.workers = "night.sqlite", "walk", 2
    console = Console(file=io.StringIO(), width=120)
    console.print(Display(say=in_python)._panel(p))
    text = console.file.getvalue()
    assert "resume with: search(store, resume=3)" in text and "--resume" not in text
    assert in_python(p.header()).endswith("resume with: search(store, resume=3)")


def test_without_colour_the_bar_still_shows_what_is_left(monkeypatch):
    """With NO_COLOR the bar's two parts differ by their line, not only by their colour (the
    same heavy line in two colours, uncoloured, read as a full bar)."""
    assert display.progress_bar(0.25).plain == "━" * 32 + " 25%"  # coloured: two colours
    assert display.progress_bar(0.25, color=False).plain == "━" * 8 + "─" * 24 + " 25%"
    monkeypatch.setenv("NO_COLOR", "1")
    assert not display._colored(Console(force_terminal=True, color_system="truecolor"))
    monkeypatch.delenv("NO_COLOR")
    assert display._colored(Console(force_terminal=True, color_system="truecolor"))


def test_log_lines_say_the_same_briefly(tmp_path, capsys):
    with Store(tmp_path / "log.sqlite") as store:
        job = RunLoop(store, LongestJob, LongestOptions(**OPTIONS))
        with Display() as shown:  # stderr is not a terminal here: log lines
            job.run(shown.update)
    lines = capsys.readouterr().err.splitlines()
    lines = [line for line in lines if "compiling the kernels" not in line]  # a cold cache's
    cores = default_workers()
    on = f"threads: 2 threads on {cores} core{'s' * (cores != 1)}"
    on += f", kernels: {chosen().words()}"  # lanes or scalar, the CPU and its vectors
    assert lines[0] == (
        f"bmn search, run 1: walk, 2 workers, seed 3, store {tmp_path / 'log.sqlite'}, on {on}."
        f" Ctrl-C checkpoints and stops; resume with: bmn search --resume 1 --store"
        f" {tmp_path / 'log.sqlite'}"
    )
    assert lines[1].startswith("run 1: ") and "% of the record" in lines[1]
    assert "games/s" in lines[1] and "improvements" in lines[1] and "kept" in lines[1]


class CompilingSearch(LongestJob):
    """A search whose start compiles (a function of its own, so numba really compiles) and
    waits until the display has been told so: the test needs no clock."""

    told = threading.Event()

    @staticmethod
    def warm(*run: object) -> None:
        numba.njit(cache=False)(lambda x: x + 1)(1)
        CompilingSearch.told.wait(60)


def test_a_first_run_says_it_compiles_before_its_first_figures(tmp_path, capsys):
    """Off a terminal: the compile line comes first, then the header, then the figures; a
    callback not marked `starts_too` hears of commits only."""
    CompilingSearch.told.clear()
    with Store(tmp_path / "c.sqlite") as store, Display() as shown:
        job = RunLoop(store, CompilingSearch, LongestOptions(**OPTIONS))

        @display.starts_too
        def update(p) -> None:
            shown.update(p)
            if p.compiling:
                CompilingSearch.told.set()

        job.run(update)
    lines = capsys.readouterr().err.splitlines()
    about = f"about {LongestJob.compile_seconds:.0f} s"
    assert lines[0] == f"bmn search, run 1: compiling the kernels for this machine, once: {about}"
    assert lines[1].startswith("bmn search, run 1: walk, 2 workers, seed 3, store")
    assert lines[2].startswith("run 1: ") and "games/s" in lines[2]
    starts = []  # an unmarked callback: commits only (the start is let through at once now)
    with Store(tmp_path / "d.sqlite") as store:
        job = RunLoop(store, CompilingSearch, LongestOptions(**OPTIONS))
        job.run(lambda p: starts.append(p.starting))
    assert starts and set(starts) == {None}


def test_the_library_display_says_it_compiles_and_its_callback_hears_commits_only(
    tmp_path, capsys, monkeypatch
):
    """`search(display=True)` shows the start as bmn search does; `on_progress` still hears
    of commits only."""
    from bmn.search import search

    told = threading.Event()
    shown = Display.update

    def update(self, p) -> None:
        shown(self, p)
        if p.compiling:
            told.set()

    def warm(*run: object) -> None:  # compiles a function of its own, then waits to be shown
        numba.njit(cache=False)(lambda x: x + 1)(1)
        told.wait(60)

    monkeypatch.setattr(Display, "update", update)
    monkeypatch.setattr(LongestJob, "warm", staticmethod(warm))
    heard: list = []
    search(tmp_path / "s.sqlite", display=True, on_progress=lambda p: heard.append(p.starting),
           **OPTIONS)  # fmt: skip
    lines = capsys.readouterr().err.splitlines()
    assert "compiling the kernels for this machine, once" in lines[0]
    assert lines[1].startswith("bmn search, run 1: walk, 2 workers, seed 3, store")
    assert told.is_set() and heard and set(heard) == {None}


def test_the_panel_says_what_the_start_does_and_a_resumed_run_says_so():
    p = LongestProgress(3, starting=0.4, compiling=False, compile_seconds=20.0)
    p.store, p.strategy, p.workers, p.seed = "night.sqlite", "walk", 2, 42
    text = panel_text(p)
    assert "bmn search, run 3" in text and "starting the workers" in text and "so far" not in text
    p.starting, p.compiling = 65.0, True
    text = panel_text(p)
    assert "compiling the kernels for this machine, once: about 20 s (1m05s so far)" in text
    assert "walk, 2 workers, seed 42" in text and "night.sqlite" in text
    assert "games" not in text  # no figures before the run begins
    p.starting, p.resumed = None, "after 0m12s searched before, 20% done"
    assert "bmn search, run 3, resuming after 0m12s searched before, 20% done" in panel_text(p)
    assert str(p.header()).startswith("bmn search, run 3, resuming after 0m12s searched before")


def test_a_panel_of_three_or_four_seats_names_them(tmp_path):
    with Store(tmp_path / "three.sqlite") as store:
        options = LongestOptions(**{**OPTIONS, "iterations": 20_000, "players": 3})
        job = RunLoop(store, LongestJob, options)
        job.run()
    text = panel_text(job.progress)
    assert "walk, 2 workers, seed 3, 3 seats" in text
    assert ", 3 seats" in str(job.progress.header())
    two = LongestProgress(4, players=2)
    two.strategy, two.workers = "walk", 2
    assert "seats" not in panel_text(two)


def test_the_panel_keeps_one_width_from_compiling_to_running():
    """Starting, compiling and running: one width, the terminal's or PANEL_COLUMNS if fewer
    (it grew with its rows, 53 to 86 to 120 columns on a terminal of 120)."""

    def widths(p, columns: int) -> set[int]:
        shown = Display()
        shown.console = Console(file=io.StringIO(), width=columns)
        shown.console.print(shown._panel(p))
        return {len(line) for line in shown.console.file.getvalue().splitlines()[1:]}

    for columns in (60, 80, 120):
        p = LongestProgress(3, games=0, seconds=0)
        p.store, p.strategy, p.workers, p.seed = "night.sqlite", "walk", 16, 42
        p.starting, seen = 0.0, set()
        seen |= widths(p, columns)
        p.starting, p.compiling, p.compile_seconds = 65.0, True, 20.0
        seen |= widths(p, columns)
        p.starting, p.games, p.seconds, p.rate, p.remaining = None, 1_234_567, 65, 7e5, 90
        p.best_cards, p.best_tricks, p.done = 3210, 450, 0.42
        seen |= widths(p, columns)
        assert seen == {min(columns, display.PANEL_COLUMNS)}, (columns, seen)


def test_the_loop_hunt_summary_names_its_store(tmp_path):
    summary = LoopHuntSummary(1, "finished", 0, 0, 0, 10, 1.0, 1, "mixed", "night runs.sqlite")
    text = summary.text()
    assert text.endswith("list them with:\n  bmn records loops --store 'night runs.sqlite'")
    summary.store = DEFAULT_PATH
    assert summary.text().endswith("list them with:\n  bmn records loops")
    path = tmp_path / "h.sqlite"
    with Store(path) as store:
        hunt = RunLoop(
            store, LoopHuntJob, LoopHuntOptions(iterations=500, workers=1, seed=1, deck="5,2,2,0,0")
        )
        done = hunt.run()
        assert done.text().endswith(f"bmn records loops --store {path}")
        assert hunt.progress.setting() == "deck 5,2,2,0,0, seed 1"
        cores = counted(default_workers(), "core")
        scored = f"threads: one batch at a time, scored on 1 thread of {cores}"
        assert hunt.progress.backend == scored
        assert hunt.progress.done == 1.0 and str(path) in panel_text(hunt.progress)


@pytest.mark.parametrize(
    "args, label",
    [
        pytest.param(["selfcheck", "--deals", "5000"], "checking", marks=pytest.mark.slow),
        (["stats", "--deals", "20000", "--seed", "1"], "scoring"),
        (["bench", "--deals", "20000"], "benchmarking 20,000 deals"),
        (["preimages", CASELLA, "--max-states", "500"], "backward play"),
    ],
)
def test_long_commands_draw_a_bar_on_a_terminal_only(bmn, monkeypatch, args, label):
    quiet = bmn(*args)
    assert quiet.exit_code == 0, quiet.output
    assert "━" not in quiet.stderr
    assert label not in quiet.stderr or args[0] == "selfcheck"  # its lines every few seconds
    monkeypatch.setattr(display, "stderr_is_terminal", lambda: True)
    drawn = bmn(*args)
    assert drawn.exit_code == 0, drawn.output
    assert label in drawn.stderr and "━" in drawn.stderr
    assert "━" not in drawn.stdout and label not in drawn.stdout


def test_a_deal_in_the_display_is_a_real_deal(tmp_path):
    with Store(tmp_path / "d.sqlite") as store:
        job = RunLoop(store, LongestJob, LongestOptions(**OPTIONS))
        summary = job.run()
    p = job.progress
    assert p.best_deal == summary.best_deal
    assert play(parse_deal(p.best_deal)).cards == p.best_cards == summary.best_cards


@pytest.mark.slow
def test_a_default_threshold_gives_no_warning(bmn, tmp_path, monkeypatch):
    """Early improvements of every worker are finds too, but not what --keep-above keeps:
    with a warning bar this low they alone would pass it in the first seconds."""
    monkeypatch.setattr(driver, "FINDS_PER_SECOND_WARNING", 5.0)
    args = ["search", "--iterations", "2000000", "--workers", "2", "--seed", "1", "--quiet"]
    result = bmn(*args, "--json", "--store", tmp_path / "d.sqlite")
    assert result.exit_code == 0, result.output
    assert "warning" not in result.stderr
    assert json.loads(result.stdout)["games"] == 2_000_000


def test_the_live_panel_silences_the_terminal_and_restores_it():
    """While the panel is live the terminal echoes nothing (Ctrl-C's '^C' would push the panel
    a line down); afterwards it is as it was. A pseudo-terminal stands in for the user's."""
    import os
    import pty
    import termios

    master, slave = pty.openpty()
    try:
        with os.fdopen(os.dup(slave), "rb", buffering=0) as tty:
            before = termios.tcgetattr(slave)
            with display.no_echo(tty):
                assert not termios.tcgetattr(slave)[3] & (termios.ECHO | termios.ECHOCTL)
            assert termios.tcgetattr(slave) == before
        with display.no_echo(io.BytesIO()):  # not a terminal: nothing to do
            pass
    finally:
        os.close(master)
        os.close(slave)


def test_a_summary_never_parts_a_number_from_its_unit():
    """'in 0.0 s' wrapped at any width keeps '0.0 s' together (a summary once ended in '0.0'
    with 's' alone on the next line)."""
    from bmn.frontends.output.tables import wrap_words

    line = "run 3 (finished): 168 deals of 5,2,1,0,0, hands 4/4, ranks 0 to 167, in 0.0 s"
    for width in range(40, len(line)):
        wrapped = wrap_words(line, width)
        assert "0.0 s" in wrapped and wrapped.replace("\n  ", " ") == line, width


def test_a_rate_keeps_its_unit_and_bench_fits_80_columns(bmn, monkeypatch):
    """A rate wrapped at any width keeps '1,234 games/s' together, and `bmn bench`'s line is
    fitted to 80 columns that way on a terminal."""
    from bmn.frontends.output import tables
    from bmn.frontends.output.tables import wrap_words

    monkeypatch.setattr(tables, "stdout_is_terminal", lambda: True)

    line = "100,000 2-player deals on 2 threads in 0.079 s: 1,264,294 games/s, 322,493 cards/s"
    for width in range(40, len(line)):
        wrapped = wrap_words(line, width)
        assert "1,264,294 games/s" in wrapped and "322,493 cards/s" in wrapped, width
    text = bmn("bench", "--deals", 2000, "--rules", "leodog896").stdout
    assert all(len(row) <= 80 for row in text.splitlines()) and "games/s" in text
    assert "leodog896's rules" in text.replace("\n  ", " ")


def test_a_bar_writes_counts_and_clocks_as_the_panel_does(monkeypatch, capsys):
    from bmn.frontends.output import progress

    monkeypatch.setattr(progress, "stderr_is_terminal", lambda: True)
    with progress.count_progress("scoring", 5_000_000) as bar:
        bar.reach(1_100_000)
    drawn = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", capsys.readouterr().err)  # no colours
    assert "1,100,000 of 5,000,000 deals" in drawn, drawn
    assert re.search(r"\b0m0\ds elapsed, ", drawn), drawn
    assert "0:00:0" not in drawn


def test_the_panel_and_the_log_say_which_kernels_play():
    """A search on threads says which CPU kernels play its games (kernels/cpu/choice.py)."""
    p = LongestProgress(3, games=1_000, seconds=5, rate=200.0)
    p.store, p.strategy, p.workers = "night.sqlite", "walk", 2
    p.backend = "threads: 2 threads on 2 cores"
    p.kernel = "lanes, 8 games a step (znver4, 512-bit vectors)"
    rows = [" ".join(line.replace("│", " ").split()) for line in panel_text(p).splitlines()]
    assert "kernels lanes, 8 games a step (znver4, 512-bit vectors)" in rows
    assert "on threads: 2 threads on 2 cores, kernels: lanes, 8 games a step" in str(p.header())
    p.kernel = ""  # another backend's machines choose for themselves
    assert "kernels" not in panel_text(p) and "kernels" not in str(p.header())
